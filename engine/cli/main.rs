//! The `throng` command line: run and check scenarios.
//!
//! Exit codes: 0 ok, 1 a check failed (reserved for verification commands), 2 error.

mod args;
mod batch;
mod bench;
mod check;
mod dimension;
mod interrupt;
mod memory;
mod output;
mod record;
mod recover;
mod render;
mod report;
mod run;
mod slurm_script;
mod test;
mod ticks;
mod verify_report;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "throng", version, about = "Headless crowd and steering-behaviour simulation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and report timings, per-pass costs and the final state hash.
    #[command(after_help = RUN_EXIT_CODES)]
    Run(run::RunArgs),
    /// Scale a scenario to several agent counts and time it beside the index floor.
    Bench(bench::BenchArgs),
    /// Validate scenario files and print a one-line summary of each.
    Check(check::CheckArgs),
    /// Record a golden file: the state hash (and column digests) every K ticks of a run.
    Record(record::RecordArgs),
    /// Re-run golden files and compare; exit 1 and name the first difference on a mismatch.
    Verify(record::VerifyArgs),
    /// Run every scenario with expectations under the paths and report each; exit 1 if one fails.
    Test(test::TestArgs),
    /// Run a batch file (scenarios x seeds x overrides) in parallel; re-running resumes.
    Batch(batch::BatchArgs),
    /// Merge batch output directories (shards) and aggregate metrics over seeds per point.
    Report(report::ReportArgs),
    /// Draw a run: a PNG frame, an animated GIF or a self-contained HTML player.
    Render(render::RenderArgs),
    /// Plot the per-tick metrics of a run, one panel per metric (SVG or PNG).
    Plot(render::plot::PlotArgs),
    /// Make the Parquet files of a run that was killed readable (their complete row groups).
    Recover(recover::RecoverArgs),
}

/// `throng run --help`'s last paragraph.
const RUN_EXIT_CODES: &str = "Exit codes:
  0    the run finished (or an event stopped it)
  1    an expectation did not pass (only with --expect)
  2    an error: bad input, a file that cannot be read or written, or a non-finite state
       (the message names the tick, the pass and the agent)
  130  stopped by SIGINT (Ctrl-C), 143 by SIGTERM: the trace and metrics files hold every tick
       up to the stop, whole; with --checkpoint-dir, --resume DIR continues from the last
       checkpoint";

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench::bench(args),
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::test(args),
        Command::Check(args) => check::check(args),
        Command::Record(args) => record::record(args),
        Command::Verify(args) => record::verify(args),
        Command::Render(args) => render::render(args),
        Command::Plot(args) => render::plot::plot(args),
        Command::Batch(args) => batch::batch(args),
        Command::Report(args) => report::report(args),
        Command::Recover(args) => recover::recover(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Rust ignores SIGPIPE, so `println!` panics when a reader such as `head` closes the pipe
/// early. Restoring the default action makes `throng check ... | head` end quietly, as other
/// command-line tools do.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_DFL at startup, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
