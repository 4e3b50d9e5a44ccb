//! What `throng bench` measures: the scenario at each size, density and model asked for,
//! scaled and checked against the memory limit before anything runs, and the indexes.

use crate::dimension::CliDimension;
use std::path::Path;

use anyhow::{Context, Result, bail};
use throng_engine::IndexKind;
use throng_engine::scenario::{Scenario, overrides};

use crate::args::{self, IndexArg};

/// The sweep `throng bench` was asked for.
pub(super) struct Sweep<'a> {
    /// The scenario file.
    pub(super) file: &'a Path,
    /// Its `--set` overrides.
    pub(super) set: &'a [String],
    /// `--agents`: the sizes (none: the scenario's own).
    pub(super) agents: &'a [u64],
    /// `--neighbours`: the densities, as neighbours expected within the sensing radius (none:
    /// the scenario's own).
    pub(super) neighbours: &'a [f64],
    /// `--models`: each group's velocity model, one variant each (none: as written).
    pub(super) models: &'a [String],
    /// `--max-memory`, in bytes.
    pub(super) max_memory: Option<u64>,
}

/// The indexes to measure, in the order given, each once; the scenario's own when none is.
pub(super) fn indexes(asked: &[IndexArg], own: IndexKind) -> Vec<IndexKind> {
    let mut indexes: Vec<IndexKind> = Vec::new();
    for i in asked.iter().map(|&i| IndexKind::from(i)) {
        if !indexes.contains(&i) {
            indexes.push(i);
        }
    }
    if indexes.is_empty() {
        indexes.push(own);
    }
    indexes
}

/// Every case of the sweep, each with the neighbours an agent expects: per model, per size
/// (smallest first), per density.
pub(super) fn cases<V: CliDimension>(
    sweep: &Sweep,
    scenario: &Scenario<V>,
) -> Result<Vec<(Scenario<V>, f64)>> {
    let mut sizes =
        if sweep.agents.is_empty() { vec![scenario.agent_count()] } else { sweep.agents.to_vec() };
    sizes.sort_unstable();
    sizes.dedup();

    let densities: Vec<Option<f64>> = if sweep.neighbours.is_empty() {
        vec![None]
    } else {
        sweep.neighbours.iter().map(|&n| Some(n)).collect()
    };
    if sweep.neighbours.iter().any(|&n| !(n > 0.0 && n.is_finite())) {
        bail!("--neighbours must be positive");
    }
    // Every size and density is scaled before anything runs, so a bad one is reported at once
    // rather than after the sizes before it have been timed.
    // With `--models`, the scenario once per model, every group's `model` set to it (through the
    // overrides, so the model's checks and its neighbour reach apply).
    let known: Vec<&str> = throng_engine::models::kinds::MODELS.iter().map(|k| k.name).collect();
    if let Some(m) = sweep.models.iter().find(|m| !known.contains(&m.as_str())) {
        bail!("--models: unknown model `{m}` (expected some of: {})", known.join(", "));
    }
    let mut variants = Vec::new();
    for m in sweep.models {
        let mut with = sweep.set.to_vec();
        with.extend(scenario.groups.iter().map(|g| format!("groups.{}.model=\"{m}\"", g.group.name)));
        variants.push(overrides::load_as::<V>(sweep.file, &args::parse_sets(&with, None)?)?);
    }
    if variants.is_empty() {
        variants.push(scenario.clone());
    }
    let mut cases = Vec::new();
    let (sizes, densities) = (&sizes, &densities);
    for (variant, &agents, density) in
        variants.iter().flat_map(|v| sizes.iter().flat_map(move |a| densities.iter().map(move |d| (v, a, d))))
    {
        let mut scaled = variant.scaled(agents).with_context(|| format!("{}", sweep.file.display()))?;
        if let Some(n) = density {
            let now = expected_neighbours(&scaled);
            if now <= 0.0 {
                bail!("{}: no sensing radius, so no density to sweep", sweep.file.display());
            }
            // Neighbours go with the square (the cube, in space) of the spacing.
            let factor = if V::DIMENSIONS == 3 { (now / n).cbrt() } else { (now / n).sqrt() };
            scaled.scale_geometry(factor as f32);
        }
        let neighbours = expected_neighbours(&scaled);
        crate::memory::check(
            &scaled,
            sweep.max_memory,
            &format!("{} at {} agents", sweep.file.display(), scaled.agent_count()),
        )?;
        cases.push((scaled, neighbours));
    }
    Ok(cases)
}

/// Others each agent expects within its sensing radius at uniform density:
/// `agents / bounds area · π · r²`, with the largest sensing radius of any group.
fn expected_neighbours<V: CliDimension>(s: &Scenario<V>) -> f64 {
    let r = s.groups.iter().map(|g| g.group.sensing_radius).fold(0.0f32, f32::max) as f64;
    let size = s.bounds.size();
    let volume: f64 = (0..V::DIMENSIONS).map(|a| size.axis(a) as f64).product();
    // Agents per unit of area (volume) times the disc's area (the ball's volume).
    let reach = if V::DIMENSIONS == 3 {
        4.0 / 3.0 * std::f64::consts::PI * r * r * r
    } else {
        std::f64::consts::PI * r * r
    };
    s.agent_count() as f64 / volume * reach
}
