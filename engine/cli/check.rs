//! `throng check`: validate scenario files.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use throng_engine::Scenario;
use throng_engine::math::Vec3;
use throng_engine::scenario::declared_dimensions;
use throng_engine::world::Dimension;

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
        let in_space = std::fs::read_to_string(path).ok().and_then(|t| declared_dimensions(&t)) == Some(3);
        let checked =
            if in_space { check_in_space(path, &args.overrides) } else { check_plane(path, &args.overrides) };
        if let Err(e) = checked {
            failed += 1;
            eprintln!("error: {e:#}");
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(2) })
}

fn check_plane(path: &std::path::Path, overrides: &ScenarioOverrides) -> Result<()> {
    let s = overrides.load(path)?;
    summary(path, &s);
    Ok(())
}

/// A scenario with `dimensions = 3`.
fn check_in_space(path: &std::path::Path, overrides: &ScenarioOverrides) -> Result<()> {
    let s = overrides.load_as::<Vec3>(path)?;
    summary(path, &s);
    Ok(())
}

/// The `ok` line of a valid scenario, then its warnings (problems that do not stop a run, e.g.
/// an exit outside the bounds, as `run` prints them).
fn summary<V: Dimension>(path: &std::path::Path, s: &Scenario<V>) {
    let groups: Vec<String> =
        s.groups.iter().map(|g| format!("{} x{} {}", g.group.name, g.count, g.group.model.name())).collect();
    let size = s.bounds.size();
    let sides: Vec<String> = (0..V::DIMENSIONS).map(|a| size.axis(a).to_string()).collect();
    println!(
        "ok     {}: \"{}\", {} agents ({}), {} ticks of {} s, {} bounds {}{}, seed {}",
        path.display(),
        s.name,
        s.agent_count(),
        groups.join(", "),
        s.ticks,
        s.dt,
        match s.bounds.kind {
            throng_engine::world::BoundsKind::Open => "open",
            throng_engine::world::BoundsKind::Wrap => "wrap",
        },
        sides.join("x"),
        if V::DIMENSIONS == 3 { " (in space)" } else { "" },
        s.seed
    );
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
}
