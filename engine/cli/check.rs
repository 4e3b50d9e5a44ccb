//! `throng check`: validate scenario files.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use crate::args::ScenarioOverrides;

#[derive(Args)]
pub struct CheckArgs {
    /// Scenario files (TOML).
    #[arg(required = true)]
    scenarios: Vec<PathBuf>,
    /// Overrides applied to every file before it is checked.
    #[command(flatten)]
    overrides: ScenarioOverrides,
}

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let mut failed = 0;
    for path in &args.scenarios {
        match args.overrides.load(path) {
            Ok(s) => {
                let groups: Vec<String> =
                    s.groups.iter().map(|g| format!("{} x{}", g.group.name, g.count)).collect();
                let b = s.bounds;
                println!(
                    "ok     {}: \"{}\", {} agents ({}), {} ticks of {} s, {} bounds {}x{}, seed {}",
                    path.display(),
                    s.name,
                    s.agent_count(),
                    groups.join(", "),
                    s.ticks,
                    s.dt,
                    match b.kind {
                        throng_engine::world::BoundsKind::Open => "open",
                        throng_engine::world::BoundsKind::Wrap => "wrap",
                    },
                    b.size().x,
                    b.size().y,
                    s.seed
                );
                // Problems that do not stop a run (e.g. an exit outside the bounds), as `run`
                // prints them.
                for w in &s.warnings {
                    eprintln!("warning: {w}");
                }
            }
            Err(e) => {
                failed += 1;
                eprintln!("error: {e:#}");
            }
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
