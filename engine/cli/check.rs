//! `throng check`: validate scenario files.

use crate::dimension::CliDimension;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use throng_engine::Scenario;
use throng_engine::math::Vec3;
use throng_engine::scenario::declared_dimensions;
use throng_engine::scenario::spawn::overlapping_bodies;
use throng_engine::world::Model;

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
    start(path, &s)
}

/// A scenario with `dimensions = 3`.
fn check_in_space(path: &std::path::Path, overrides: &ScenarioOverrides) -> Result<()> {
    let s = overrides.load_as::<Vec3>(path)?;
    summary(path, &s);
    start(path, &s)
}

/// The world at tick 0, built where it can tell something: a spawn that keeps distances
/// fails here as the run would; and bodies of velocity models that overlap at the start (a
/// velocity model's reference code refuses them) are counted in a warning.
fn start<V: CliDimension>(path: &std::path::Path, s: &Scenario<V>) -> Result<()> {
    let velocity: Vec<bool> = s.groups.iter().map(|g| g.group.model != Model::Steering).collect();
    for source in s.sources.iter().filter(|o| velocity[o.group as usize] && o.spacing.min_distance <= 0.0) {
        eprintln!(
            "warning: {}: source \"{}\" adds walkers of a velocity model (group \"{}\") without min_distance, so they may appear overlapping; give it min_distance (at least twice the radius) and wall_distance (at least the radius)",
            path.display(),
            source.name,
            s.groups[source.group as usize].group.name
        );
    }
    if !velocity.contains(&true) && !s.groups.iter().any(|g| g.spacing.keeps_any()) {
        return Ok(());
    }
    let world = s.try_build_world().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let pairs = overlapping_bodies(&world, |g| velocity[g as usize]);
    if pairs > 0 {
        let names: Vec<&str> = s
            .groups
            .iter()
            .filter(|g| g.group.model != Model::Steering)
            .map(|g| g.group.name.as_str())
            .collect();
        eprintln!(
            "warning: {}: {pairs} pairs of bodies overlap at the start in groups of velocity models ({}); give each spawn min_distance (at least twice the radius) and wall_distance (at least the radius) to start them apart",
            path.display(),
            names.join(", ")
        );
    }
    Ok(())
}

/// The `ok` line of a valid scenario, then its warnings (problems that do not stop a run, e.g.
/// an exit outside the bounds, as `run` prints them).
fn summary<V: CliDimension>(path: &std::path::Path, s: &Scenario<V>) {
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
