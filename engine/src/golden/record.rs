//! Recording a golden file.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::GoldenError;
use super::format::{FORMAT, FORMAT_VERSION, Golden, Record, ScenarioRecord, Settings, Snapshot, hex, hex64};
use super::paths::relative_path;
use super::replay::{pass_digests, simulation};
use crate::index::IndexKind;
use crate::math::{Vec2, Vec3};
use crate::pipeline::Passes;
use crate::pipeline::{DEFAULT_REORDER_EVERY, Pipeline};
use crate::scenario::overrides::{self, Override};
use crate::state::checkpoint::ENGINE_VERSION;
use crate::state::fields::{self, ColumnDigest};
use crate::state::hash::{HASH_LAYOUT, state_hash};
use crate::world::World;

/// How to record.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// Ticks to run (default: the scenario's).
    pub ticks: Option<u64>,
    /// Seed (default: the scenario's).
    pub seed: Option<u64>,
    /// Keep a record every this many ticks.
    pub every: u64,
    /// Worker threads of the recording run (at least 1; default 1). Stored in the file, so
    /// that a reference run can re-use it; results do not depend on it.
    pub threads: usize,
    /// Neighbour-search backend of the recording run (default [`IndexKind::Kd`]). Stored in
    /// the file like `threads`.
    pub index: IndexKind,
    /// `Pipeline::set_reorder_every` of the recording run. Not stored: results do not depend
    /// on it.
    pub reorder_every: u64,
    /// Snapshots may be taken at recorded ticks that are multiples of this (and the last).
    pub snapshot_every: u64,
    /// Most bytes of snapshot text in the file. Tick 1 comes first (an engine change shows
    /// there first), then tick 0, then later ticks in order, until the next would not fit.
    pub snapshot_budget: usize,
}

impl Default for RecordOptions {
    fn default() -> Self {
        RecordOptions {
            ticks: None,
            seed: None,
            every: 1,
            threads: 1,
            index: IndexKind::Kd,
            reorder_every: DEFAULT_REORDER_EVERY,
            snapshot_every: 1,
            snapshot_budget: DEFAULT_SNAPSHOT_BUDGET,
        }
    }
}

/// The default snapshot budget (bytes of base64 text): 256 KiB.
pub const DEFAULT_SNAPSHOT_BUDGET: usize = 256 * 1024;

/// A record of `world`; `previous` holds the digests of the previous record and is updated.
fn record_of<V: Passes>(
    world: &World<V>,
    digests: &[ColumnDigest],
    previous: &mut BTreeMap<String, String>,
    pipeline: Option<&Pipeline<V>>,
) -> Record {
    let mut changed = BTreeMap::new();
    for c in digests {
        let d = hex64(c.digest);
        if previous.get(&c.name) != Some(&d) {
            previous.insert(c.name.clone(), d.clone());
            changed.insert(c.name.clone(), d);
        }
    }
    Record {
        tick: world.tick,
        hash: state_hash(world).to_hex(),
        digests: changed,
        passes: pipeline.map(pass_digests).unwrap_or_default(),
    }
}

/// Whether tick `t` of a `ticks`-tick run is recorded every `every` ticks.
fn is_recorded(t: u64, every: u64, ticks: u64) -> bool {
    t.is_multiple_of(every) || t == ticks
}

/// Records a golden file of `scenario_path` with `overrides`. `golden_path` is where it will be
/// written (the scenario's path is stored relative to it). `progress` is called after each tick.
pub fn record(
    scenario_path: &Path,
    golden_path: &Path,
    overrides: &[Override],
    opts: &RecordOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Golden, GoldenError> {
    if opts.every == 0 || opts.snapshot_every == 0 {
        return Err(GoldenError::Options("`every` and `snapshot_every` must be at least 1".into()));
    }
    let (file, text) = crate::scenario::read_source(scenario_path, "a scenario file (.toml)")?;
    match crate::scenario::declared_dimensions(&text) {
        Some(3) => record_as::<Vec3>(scenario_path, &file, text, golden_path, overrides, opts, progress),
        _ => record_as::<Vec2>(scenario_path, &file, text, golden_path, overrides, opts, progress),
    }
}

/// [`record`] of the scenario text read from `scenario_path` (named `file`), whose points are
/// `V`s.
fn record_as<V: Passes>(
    scenario_path: &Path,
    file: &str,
    text: String,
    golden_path: &Path,
    overrides: &[Override],
    opts: &RecordOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Golden, GoldenError> {
    let mut scenario = overrides::parse_as::<V>(&text, file, overrides)?;
    if let Some(seed) = opts.seed {
        scenario.seed = seed;
    }
    let ticks = opts.ticks.unwrap_or(scenario.ticks);
    let mut sim = simulation(&scenario, opts.threads, opts.index, opts.reorder_every)?;
    let world = sim.world().clone();
    let base = golden_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut sorted: Vec<(String, String)> =
        overrides.iter().map(|o| (o.key.clone(), overrides::inline(&o.value))).collect();
    sorted.sort();

    let digests = fields::column_digests(&world);
    let columns: Vec<String> = digests.iter().map(|c| c.name.clone()).collect();
    let mut previous = BTreeMap::new();
    let first = record_of(&world, &digests, &mut previous, None);
    let mut golden = Golden {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        engine_version: ENGINE_VERSION.into(),
        hash_layout: String::from_utf8_lossy(HASH_LAYOUT).into_owned(),
        scenario: ScenarioRecord {
            path: relative_path(scenario_path, base).to_string_lossy().replace('\\', "/"),
            name: scenario.name.clone(),
            content_hash: hex(&scenario.content_hash),
            text,
        },
        overrides: sorted,
        seed: scenario.seed,
        ticks,
        every: opts.every,
        recorded_with: Settings { threads: opts.threads, index: opts.index.name().into() },
        agents: world.agents.len() as u64,
        columns,
        records: vec![first],
        snapshots: Vec::new(),
        final_hash: String::new(),
        digest: String::new(),
    };
    let mut budget = opts.snapshot_budget;
    let mut snapshot = |world: &World<V>, snapshots: &mut Vec<Snapshot>| {
        if !(world.tick.is_multiple_of(opts.snapshot_every) || world.tick == ticks) {
            return;
        }
        let snap = Snapshot::of(world);
        if snap.world.len() <= budget {
            budget -= snap.world.len();
            snapshots.push(snap);
        } else {
            budget = 0; // later snapshots are no smaller: keep the early ones only
        }
    };
    // Tick 0 waits for tick 1, which an engine change reaches first; then it goes in front.
    let mut tick_zero = Some(world);
    for _ in 0..ticks {
        sim.step()?;
        let world = sim.world();
        if is_recorded(world.tick, opts.every, ticks) {
            let digests = fields::column_digests(world);
            golden.records.push(record_of(world, &digests, &mut previous, Some(sim.pipeline())));
            snapshot(world, &mut golden.snapshots);
        }
        if let Some(zero) = tick_zero.take() {
            let mut first = Vec::new();
            snapshot(&zero, &mut first);
            golden.snapshots.splice(0..0, first);
        }
        progress(world.tick);
    }
    if let Some(zero) = tick_zero {
        snapshot(&zero, &mut golden.snapshots); // a run of zero ticks
    }
    golden.final_hash = sim.hash().to_hex();
    golden.seal();
    Ok(golden)
}
