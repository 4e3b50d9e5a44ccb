//! The `throng` command line: run and check scenarios.
//!
//! Exit codes: 0 ok, 1 a check failed (reserved for verification commands), 2 error.

mod check;
mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use throng_engine::IndexKind;

#[derive(Parser)]
#[command(name = "throng", version, about = "Headless crowd and steering-behaviour simulation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and report timings, per-pass costs and the final state hash.
    Run(run::RunArgs),
    /// Validate scenario files and print a one-line summary of each.
    Check {
        /// Scenario files (TOML).
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum IndexArg {
    /// kiddo k-d tree, rebuilt every tick.
    Kd,
    /// Brute force O(N²): the oracle.
    Brute,
}

impl From<IndexArg> for IndexKind {
    fn from(i: IndexArg) -> IndexKind {
        match i {
            IndexArg::Kd => IndexKind::Kd,
            IndexArg::Brute => IndexKind::Brute,
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Check { scenarios } => check::check(&scenarios),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
