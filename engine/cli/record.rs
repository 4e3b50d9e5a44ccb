//! `throng record` and `throng verify`: golden files (see `throng_engine::golden`).

use crate::dimension::CliDimension;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use throng_engine::golden::{self, Golden, RecordOptions, VerifyOptions};
use throng_engine::math::Vec3;
use throng_engine::pipeline::DEFAULT_REORDER_EVERY;
use throng_engine::scenario::overrides;
use throng_engine::state::files::write_atomically;
use throng_engine::{IndexKind, Scenario};

use crate::args::{IndexArg, parse_sets, progress_bar, threads};

#[derive(Args)]
pub struct RecordArgs {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// The golden file to write (JSON).
    #[arg(short, long, value_name = "FILE")]
    out: PathBuf,
    /// Keep the state hash and column digests every K ticks (and at the last tick).
    #[arg(long, value_name = "K", default_value_t = 1)]
    every: u64,
    /// Ticks to run (default: the scenario's `ticks`).
    #[arg(long)]
    ticks: Option<u64>,
    /// Seed (default: the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Override a scenario value, e.g. `--set groups.boids.max_speed=2.5` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Scale the scenario to N agents at its own density, as `throng run --agents` does. Stored
    /// with the overrides (as `agents = N`), so `verify` re-runs the scaled scenario.
    #[arg(long, value_name = "N")]
    agents: Option<u64>,
    /// Worker threads (default: all cores). Stored; `verify` re-runs with its own.
    #[arg(long)]
    threads: Option<usize>,
    /// Neighbour index (default: the scenario's).
    #[arg(long, value_enum)]
    index: Option<IndexArg>,
    /// Put rows in spatial order every K ticks (0: never). Not stored: results, digests and
    /// snapshots do not depend on it.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_REORDER_EVERY)]
    reorder_every: u64,
    /// Snapshots of the whole state may be stored at recorded ticks that are multiples of S
    /// (default: every recorded tick), earliest first, within --max-snapshot-kib.
    #[arg(long, value_name = "S")]
    snapshot_every: Option<u64>,
    /// Most KiB of snapshot data in the file (0: none).
    #[arg(long, value_name = "KIB", default_value_t = 256)]
    max_snapshot_kib: usize,
    #[command(flatten)]
    max_memory: crate::memory::MaxMemory,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
pub struct VerifyArgs {
    /// Golden files (JSON) written by `throng record`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Worker threads (default: all cores). Results must not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Neighbour index (default: the one recorded). Results must not depend on it.
    #[arg(long, value_enum)]
    index: Option<IndexArg>,
    /// Put rows in spatial order every K ticks (0: never). Results must not depend on it.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_REORDER_EVERY)]
    reorder_every: u64,
    /// Use this scenario file instead of the recorded path (one golden file only).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    #[command(flatten)]
    max_memory: crate::memory::MaxMemory,
    /// Print only failures.
    #[arg(long)]
    quiet: bool,
}

/// Refuses a run of `scenario` that would not fit in memory (`what` names it); its index and
/// ticks otherwise.
fn fits<V: CliDimension>(scenario: &Scenario<V>, max: Option<u64>, what: &str) -> Result<(IndexKind, u64)> {
    crate::memory::check(scenario, max, what)?;
    Ok((scenario.index, scenario.ticks))
}

pub fn record(args: RecordArgs) -> Result<ExitCode> {
    let threads = threads(args.threads, "--threads")?;
    if args.every == 0 {
        bail!("--every must be at least 1");
    }
    let snapshot_every = args.snapshot_every.unwrap_or(args.every);
    if snapshot_every == 0 {
        bail!("--snapshot-every must be at least 1");
    }
    let sets = parse_sets(&args.set, args.agents)?;
    let what = args.scenario.display().to_string();
    let (scenario_index, scenario_ticks) = match crate::args::dimensions_of(&args.scenario) {
        3 => fits(&overrides::load_as::<Vec3>(&args.scenario, &sets)?, args.max_memory.bytes, &what)?,
        _ => fits(&overrides::load(&args.scenario, &sets)?, args.max_memory.bytes, &what)?,
    };
    let index = args.index.map(IndexKind::from).unwrap_or(scenario_index);
    let ticks = crate::args::ticks(args.ticks)?.unwrap_or(scenario_ticks);
    let opts = RecordOptions {
        ticks: args.ticks,
        seed: args.seed,
        every: args.every,
        threads,
        index,
        reorder_every: args.reorder_every,
        snapshot_every,
        snapshot_budget: args.max_snapshot_kib.saturating_mul(1024),
    };
    let bar = progress_bar(ticks, args.quiet);
    let g = golden::record(&args.scenario, &args.out, &sets, &opts, &mut |_| bar.inc(1))?;
    bar.finish_and_clear();
    let json = g.to_json();
    write_atomically(&args.out, json.as_bytes())
        .with_context(|| format!("cannot write golden file {}", args.out.display()))?;
    if !args.quiet {
        let snap: usize = g.snapshots.iter().map(|s| s.world.len()).sum();
        println!(
            "recorded {}: {} ticks of {} (seed {}), {} records, {} snapshots ({:.1} KiB), {:.1} KiB in all",
            args.out.display(),
            g.ticks,
            args.scenario.display(),
            g.seed,
            g.records.len(),
            g.snapshots.len(),
            snap as f64 / 1024.0,
            json.len() as f64 / 1024.0
        );
        println!("final hash {}", g.final_hash);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn verify(args: VerifyArgs) -> Result<ExitCode> {
    let threads = threads(args.threads, "--threads")?;
    if args.scenario.is_some() && args.files.len() != 1 {
        bail!("--scenario needs exactly one golden file");
    }
    let (mut failed, mut errors) = (0, 0);
    for file in &args.files {
        let result = (|| -> Result<golden::Verdict> {
            let g = Golden::load(file)?;
            // The run the golden file holds must fit here too (it may have been recorded on a
            // larger machine).
            let name = file.display().to_string();
            let (text, sets, max) = (&g.scenario.text, g.overrides(&name)?, args.max_memory.bytes);
            let what = format!("the run {name} holds");
            match throng_engine::scenario::declared_dimensions(text) {
                Some(3) => fits(&overrides::parse_as::<Vec3>(text, &name, &sets)?, max, &what)?,
                _ => fits(&overrides::parse(text, &name, &sets)?, max, &what)?,
            };
            let index = match args.index {
                Some(i) => IndexKind::from(i),
                None => IndexKind::parse(&g.recorded_with.index).unwrap_or_default(),
            };
            let bar = progress_bar(g.ticks, args.quiet);
            let v = golden::verify(
                &g,
                file,
                args.scenario.as_deref(),
                VerifyOptions { threads, index, reorder_every: args.reorder_every },
                &mut |_| bar.inc(1),
            )?;
            bar.finish_and_clear();
            Ok(v)
        })();
        match result {
            Ok(v) => {
                if !v.ok() {
                    failed += 1;
                }
                if !v.ok() || !args.quiet {
                    print!("{}", crate::verify_report::VerdictReport(&v));
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("error: {e:#}");
            }
        }
    }
    Ok(if errors > 0 {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
