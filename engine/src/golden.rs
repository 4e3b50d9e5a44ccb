//! Golden files: a recorded run that a later run must reproduce bit for bit.
//!
//! `throng record` writes one (JSON); `throng verify` re-runs and compares. A golden file holds
//! what the run was made from (engine version, the scenario's path, BLAKE3 and full text, its
//! overrides, the seed, the tick count, the threads and index it was recorded with) and what it
//! gave: at every K-th tick (and the last) the state hash, a 64-bit digest of every column
//! ([`fields::column_digests`]) and of the pass outputs the pipeline exposes (neighbour lists,
//! queue flags); optionally, within a byte budget, whole-world snapshots (postcard, base64).
//! All of them read agents in id order, so none depends on the pipeline's spatial reordering
//! of the rows (`Pipeline::set_reorder_every`), which record and verify use like any run.
//!
//! On a mismatch, [`verify`] names the first diverging recorded tick and the columns that
//! differ there. To name the first agent and field with both values it needs the expected
//! state, which it takes from, in order:
//!
//! 1. a **reference run**: the recorded scenario text, overrides, seed, threads and index, run
//!    again with this engine. If it reproduces every recorded hash up to the divergence, it *is*
//!    the expected run, and stepping it in lockstep with the checked run gives the exact first
//!    diverging tick, agent, field and values. This explains an edited scenario file, other
//!    overrides, and any thread-count or index dependence;
//! 2. otherwise (the engine itself now computes something else), the **snapshot** stored at
//!    the diverging tick, if the budget allowed one there;
//! 3. otherwise only the tick, the columns and the pass outputs that differ are known.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::checkpoint::ENGINE_VERSION;
use crate::fields::{self, ColumnDigest, Diff};
use crate::hash::{HASH_LAYOUT, state_hash};
use crate::index::IndexKind;
use crate::overrides::{self, Origin, Override};
use crate::pipeline::{DEFAULT_REORDER_EVERY, NonFinite, Pipeline, PipelineError};
use crate::scenario::{Scenario, ScenarioError};
use crate::world::World;

/// The `format` field of a golden file.
pub const FORMAT: &str = "throng-golden";
/// The golden-file format this engine writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// A golden file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Golden {
    pub format: String,
    pub format_version: u32,
    pub engine_version: String,
    /// The state-hash layout tag (`hash::HASH_LAYOUT`) of the engine that recorded it.
    pub hash_layout: String,
    pub scenario: ScenarioRecord,
    /// `[key, value]` pairs, value in TOML inline syntax, sorted by key.
    pub overrides: Vec<(String, String)>,
    pub seed: u64,
    pub ticks: u64,
    /// Records are kept every this many ticks (and at the last tick).
    pub every: u64,
    pub recorded_with: Settings,
    /// Live agents at tick 0.
    pub agents: u64,
    /// The state's columns, in declaration order.
    pub columns: Vec<String>,
    pub records: Vec<Record>,
    pub snapshots: Vec<Snapshot>,
    pub final_hash: String,
}

/// The scenario a golden file was recorded from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// Relative to the golden file's directory (or absolute).
    pub path: String,
    pub name: String,
    /// BLAKE3 of the file, hex.
    pub content_hash: String,
    /// The whole file, so a changed file can be shown and the recorded one re-run.
    pub text: String,
}

/// Where a run was made: results never depend on it, which is what verify checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub threads: usize,
    pub index: String,
}

/// What the state was at one recorded tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub tick: u64,
    /// `state_hash`, hex.
    pub hash: String,
    /// 16-hex-digit digests of the columns that changed since the previous record (of every
    /// column at tick 0), by column name.
    pub digests: BTreeMap<String, String>,
    /// Digests of the pass outputs of the tick that led here (none at tick 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<(String, String)>,
}

/// A whole world at one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub tick: u64,
    /// postcard of the `World`, base64.
    pub world: String,
}

impl Snapshot {
    /// A snapshot of `world`, agent rows in id order.
    pub fn of(world: &World) -> Snapshot {
        let bytes = postcard::to_stdvec(&*world.id_ordered()).expect("a World always serializes");
        Snapshot { tick: world.tick, world: base64_encode(&bytes) }
    }

    /// The world stored in this snapshot.
    pub fn decode(&self) -> Result<World, String> {
        let bytes = base64_decode(&self.world)?;
        match postcard::take_from_bytes::<World>(&bytes) {
            Ok((w, [])) => Ok(w),
            Ok(_) => Err("bytes left over after the state (another state layout?)".into()),
            Err(e) => Err(format!("{e} (another state layout?)")),
        }
    }
}

/// What goes wrong reading, recording or verifying (as opposed to a mismatch, which is a
/// [`Verdict`]).
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}: not a golden file: {message}")]
    Format { path: String, message: String },
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{0}")]
    Pipeline(#[from] PipelineError),
    #[error("the recorded run stopped: {0}")]
    Run(#[from] NonFinite),
    #[error("{path}: snapshot at tick {tick} cannot be decoded: {message}")]
    Snapshot { path: String, tick: u64, message: String },
    #[error("{0}")]
    Options(String),
}

// ---------------------------------------------------------------------------------------------
// Recording.

/// How to record.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// Ticks to run (default: the scenario's).
    pub ticks: Option<u64>,
    /// Seed (default: the scenario's).
    pub seed: Option<u64>,
    /// Keep a record every this many ticks.
    pub every: u64,
    pub threads: usize,
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex64(v: u64) -> String {
    format!("{v:016x}")
}

/// Reads a scenario file as text, with the same messages as `Scenario::load`.
fn read_scenario(path: &Path) -> Result<String, ScenarioError> {
    let whole = |message: String| ScenarioError {
        file: path.display().to_string(),
        location: None,
        key: String::new(),
        message,
    };
    if path.is_dir() {
        return Err(whole("is a directory; expected a scenario file (.toml)".into()));
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => whole("no such file".into()),
        _ => whole(format!("cannot read: {e}")),
    })?;
    match String::from_utf8(bytes) {
        Ok(t) => Ok(t),
        // Let the loader place the bad byte.
        Err(_) => Err(Scenario::load(path).err().unwrap_or_else(|| whole("not valid UTF-8".into()))),
    }
}

/// A path to `target` relative to directory `base` (both made absolute first), or `target`
/// absolute when they share no prefix.
pub fn relative_path(target: &Path, base: &Path) -> PathBuf {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (t, b) = (abs(target), abs(base));
    let (tc, bc): (Vec<_>, Vec<_>) = (t.components().collect(), b.components().collect());
    let common = tc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return t;
    }
    let mut out = PathBuf::new();
    for _ in common..bc.len() {
        out.push("..");
    }
    for c in &tc[common..] {
        out.push(c);
    }
    out
}

/// `a/b/../c` → `a/c`, lexically (for messages; `..` after `..` or at the start is kept).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match (c, out.last()) {
            (Component::CurDir, _) => {}
            (Component::ParentDir, Some(Component::Normal(_))) => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    if out.is_empty() { PathBuf::from(".") } else { out.iter().collect() }
}

/// Digests of the pass outputs the pipeline exposes, in pass order. Agents are read in id
/// order, and a neighbour is named by its row in id order (its rank among the ids sensed that
/// tick): when the rows are in id order that is the row itself, so the bytes are those of a
/// plain row-order digest, and a spatial reordering of the rows changes nothing.
fn pass_digests(pipeline: &Pipeline) -> Vec<(String, String)> {
    let ids = pipeline.sensed_ids();
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    if !ids.is_sorted() {
        order.sort_unstable_by_key(|&r| ids[r as usize]);
    }
    let mut rank = vec![0u32; ids.len()];
    for (k, &r) in order.iter().enumerate() {
        rank[r as usize] = k as u32;
    }
    let n = pipeline.neighbours();
    debug_assert_eq!(n.count.len(), ids.len(), "one neighbour list per sensed row");
    let mut h = blake3::Hasher::new();
    h.update(&(n.count.len() as u64).to_le_bytes());
    for &i in &order {
        let (rows, dist_sq) = n.of(i as usize);
        h.update(&(rows.len() as u32).to_le_bytes());
        for (&r, d) in rows.iter().zip(dist_sq) {
            h.update(&rank[r as usize].to_le_bytes()).update(&d.to_bits().to_le_bytes());
        }
    }
    let neighbours = u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"));
    let blocked = pipeline.blocked();
    let mut h = blake3::Hasher::new();
    h.update(&(blocked.len() as u64).to_le_bytes());
    for &i in &order {
        h.update(&[blocked[i as usize] as u8]);
    }
    let blocked = u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"));
    vec![("sense_neighbours".into(), hex64(neighbours)), ("queue_brake".into(), hex64(blocked))]
}

/// A record of `world`; `previous` holds the digests of the previous record and is updated.
fn record_of(
    world: &World,
    digests: &[ColumnDigest],
    previous: &mut BTreeMap<String, String>,
    pipeline: Option<&Pipeline>,
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
        return Err(GoldenError::Options("--every and --snapshot-every must be at least 1".into()));
    }
    let mut scenario = overrides::load(scenario_path, overrides)?;
    let text = read_scenario(scenario_path)?;
    if let Some(seed) = opts.seed {
        scenario.seed = seed;
    }
    let ticks = opts.ticks.unwrap_or(scenario.ticks);
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(opts.threads, opts.index)?;
    pipeline.set_reorder_every(opts.reorder_every);
    pipeline.set_sensing_skin(scenario.sensing_skin);
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
    };
    let mut budget = opts.snapshot_budget;
    let mut snapshot = |world: &World, snapshots: &mut Vec<Snapshot>| {
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
    let mut tick_zero = Some(world.clone());
    for _ in 0..ticks {
        pipeline.step(&mut world)?;
        if is_recorded(world.tick, opts.every, ticks) {
            let digests = fields::column_digests(&world);
            golden.records.push(record_of(&world, &digests, &mut previous, Some(&pipeline)));
            snapshot(&world, &mut golden.snapshots);
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
    golden.final_hash = state_hash(&world).to_hex();
    Ok(golden)
}

impl Golden {
    /// JSON with one field per line and one record or snapshot per line, so a diff of two golden
    /// files reads tick by tick.
    pub fn to_json(&self) -> String {
        let v = serde_json::to_value(self).expect("a golden file always serializes");
        let map = v.as_object().expect("a struct serializes to an object");
        const ORDER: [&str; 15] = [
            "format",
            "format_version",
            "engine_version",
            "hash_layout",
            "scenario",
            "overrides",
            "seed",
            "ticks",
            "every",
            "recorded_with",
            "agents",
            "columns",
            "records",
            "snapshots",
            "final_hash",
        ];
        let compact = |v: &serde_json::Value| serde_json::to_string(v).expect("JSON values serialize");
        let mut out = String::from("{\n");
        let keys = ORDER.iter().copied().chain(map.keys().map(String::as_str).filter(|k| !ORDER.contains(k)));
        let keys: Vec<&str> = keys.filter(|k| map.contains_key(*k)).collect();
        for (i, key) in keys.iter().enumerate() {
            let value = &map[*key];
            out.push_str(&format!("  {}: ", compact(&serde_json::Value::String(key.to_string()))));
            // Records and snapshots serialized directly keep their fields in declaration order.
            let lines: Option<Vec<String>> = match *key {
                "records" => {
                    Some(self.records.iter().map(|r| serde_json::to_string(r).expect("serializes")).collect())
                }
                "snapshots" => Some(
                    self.snapshots.iter().map(|r| serde_json::to_string(r).expect("serializes")).collect(),
                ),
                _ => None,
            };
            match lines {
                Some(lines) if !lines.is_empty() => {
                    out.push_str("[\n");
                    for (j, line) in lines.iter().enumerate() {
                        out.push_str("    ");
                        out.push_str(line);
                        out.push_str(if j + 1 < lines.len() { ",\n" } else { "\n" });
                    }
                    out.push_str("  ]");
                }
                _ => out.push_str(&compact(value)),
            }
            out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
        }
        out.push_str("}\n");
        out
    }

    /// Reads a golden file.
    pub fn load(path: &Path) -> Result<Golden, GoldenError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| GoldenError::Io {
            path: name.clone(),
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".into(),
                _ => format!("cannot read: {e}"),
            },
        })?;
        Golden::parse(&text, &name)
    }

    /// Parses golden-file JSON; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Golden, GoldenError> {
        let format = |message: String| GoldenError::Format { path: name.into(), message };
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format(format!("invalid JSON at line {}, column {}: {e}", e.line(), e.column())))?;
        if v.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(format(format!("expected \"format\": \"{FORMAT}\"")));
        }
        let version = v.get("format_version").and_then(|f| f.as_u64());
        if version != Some(FORMAT_VERSION as u64) {
            return Err(format(format!(
                "format version {}; this engine reads version {FORMAT_VERSION}",
                version.map_or("missing".into(), |v| v.to_string())
            )));
        }
        let g: Golden = serde_json::from_value(v).map_err(|e| format(e.to_string()))?;
        if g.records.is_empty() || g.records[0].tick != 0 || g.every == 0 {
            return Err(format("a golden file needs `every` >= 1 and a record at tick 0".into()));
        }
        if g.records.windows(2).any(|w| w[0].tick >= w[1].tick)
            || g.records.last().is_some_and(|r| r.tick != g.ticks)
        {
            return Err(format("records must be in increasing tick order and end at `ticks`".into()));
        }
        if g.columns.iter().any(|c| !g.records[0].digests.contains_key(c))
            || g.records.iter().any(|r| r.digests.keys().any(|k| !g.columns.contains(k)))
        {
            return Err(format("the records' digests do not match `columns`".into()));
        }
        Ok(g)
    }

    /// The overrides, ready to apply; `name` is where they are said to come from in messages.
    pub fn overrides(&self, name: &str) -> Result<Vec<Override>, ScenarioError> {
        self.overrides
            .iter()
            .map(|(key, value)| {
                let origin = Origin::Other(format!("{name} (override `{key}`)"));
                let value = overrides::parse_value(value).map_err(|m| ScenarioError {
                    file: name.into(),
                    location: None,
                    key: key.clone(),
                    message: m,
                })?;
                Ok(Override { key: key.clone(), value, origin })
            })
            .collect()
    }

    /// Every record's digests of every column (carried forward from earlier records).
    fn expanded(&self) -> Vec<BTreeMap<String, String>> {
        let mut current = BTreeMap::new();
        self.records
            .iter()
            .map(|r| {
                current.extend(r.digests.iter().map(|(k, v)| (k.clone(), v.clone())));
                current.clone()
            })
            .collect()
    }

    fn snapshot_at(&self, tick: u64, name: &str) -> Result<Option<World>, GoldenError> {
        let Some(s) = self.snapshots.iter().find(|s| s.tick == tick) else { return Ok(None) };
        s.decode().map(Some).map_err(|message| GoldenError::Snapshot { path: name.into(), tick, message })
    }
}

// ---------------------------------------------------------------------------------------------
// Verifying.

/// How to verify: results must not depend on any of these.
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions {
    pub threads: usize,
    pub index: IndexKind,
    /// `Pipeline::set_reorder_every` of the checking run (and of a reference run).
    pub reorder_every: u64,
}

/// Where the expected values of a divergence came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A re-run of the recorded inputs that reproduced every recorded hash up to the divergence.
    ReferenceRun { threads: usize, index: String },
    /// The snapshot stored at the diverging tick.
    Snapshot,
}

/// Where a run first departs from its golden file.
#[derive(Clone, Debug)]
pub struct Divergence {
    /// The first recorded tick that differs.
    pub recorded_tick: u64,
    /// The last recorded tick that matched (none if tick 0 differs).
    pub last_match: Option<u64>,
    /// The exact first tick at which the states differ, when it is known.
    pub tick: Option<u64>,
    /// Columns whose recorded digest differs at `recorded_tick`.
    pub columns: Vec<String>,
    /// Pass outputs (pass name) whose recorded digest differs at `recorded_tick`.
    pub passes: Vec<String>,
    /// Pass outputs compared at `recorded_tick` that match.
    pub passes_matching: Vec<String>,
    /// Field by field, at `tick` (or `recorded_tick`), when the expected state is known.
    pub diff: Option<Diff>,
    /// The first tick at which an agent differs, when later than `tick` (a changed setting that
    /// only moves agents a tick later).
    pub agent_tick: Option<u64>,
    pub expected: Option<Expected>,
    /// Why agent values are missing, when they are.
    pub missing: Option<String>,
}

/// A problem found by [`verify`] other than a divergence.
#[derive(Clone, Debug)]
pub enum Problem {
    /// The scenario file is not the one recorded.
    ScenarioChanged { path: String, recorded: String, now: String, line: Option<(usize, String, String)> },
    /// A stored snapshot differs from the run although the hashes match: the file was edited.
    SnapshotDiffers { tick: u64, diff: Diff },
    /// The final hash differs although every record matched.
    FinalHash { recorded: String, actual: String },
    /// The run stopped with an error.
    RunStopped { tick: u64, message: String },
}

/// The outcome of [`verify`].
#[derive(Clone, Debug)]
pub struct Verdict {
    pub file: String,
    pub scenario: String,
    pub seed: u64,
    pub ticks: u64,
    pub settings: Settings,
    /// Remarks that are not failures by themselves (another engine version, ...).
    pub notes: Vec<String>,
    pub problems: Vec<Problem>,
    pub divergence: Option<Divergence>,
    pub records_checked: usize,
    pub final_hash: Option<String>,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.problems.is_empty() && self.divergence.is_none()
    }
}

/// One run of a scenario, for verification.
struct Runner {
    world: World,
    pipeline: Pipeline,
}

impl Runner {
    fn new(
        scenario: &Scenario,
        threads: usize,
        index: IndexKind,
        reorder_every: u64,
    ) -> Result<Runner, GoldenError> {
        let mut pipeline = Pipeline::new(threads, index)?;
        pipeline.set_reorder_every(reorder_every);
        pipeline.set_sensing_skin(scenario.sensing_skin);
        Ok(Runner { world: scenario.build_world(), pipeline })
    }
    fn step(&mut self) -> Result<(), NonFinite> {
        self.pipeline.step(&mut self.world)
    }
}

/// The first differing line of two texts: (1-based line, recorded, now).
fn first_changed_line(recorded: &str, now: &str) -> Option<(usize, String, String)> {
    let (mut a, mut b) = (recorded.lines(), now.lines());
    for i in 1.. {
        match (a.next(), b.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => {
                return Some((
                    i,
                    x.map_or("(end of file)".into(), str::to_owned),
                    y.map_or("(end of file)".into(), str::to_owned),
                ));
            }
        }
    }
    None
}

/// Compares a record with the current state: differing columns, differing and matching passes.
fn compare(
    golden: &Golden,
    rec: &Record,
    full: &BTreeMap<String, String>,
    world: &World,
    pipeline: &Pipeline,
) -> (bool, Vec<String>, Vec<String>, Vec<String>) {
    let hash_same = state_hash(world).to_hex() == rec.hash;
    let digests = fields::column_digests(world);
    let mut columns = Vec::new();
    for name in &golden.columns {
        match (digests.iter().find(|c| &c.name == name), full.get(name)) {
            (Some(c), Some(want)) if &hex64(c.digest) == want => {}
            _ => columns.push(name.clone()),
        }
    }
    for c in &digests {
        if !golden.columns.contains(&c.name) {
            columns.push(c.name.clone());
        }
    }
    let (mut passes, mut matching) = (Vec::new(), Vec::new());
    if !rec.passes.is_empty() {
        let now = pass_digests(pipeline);
        for (pass, want) in &rec.passes {
            match now.iter().find(|(p, _)| p == pass) {
                Some((_, d)) if d == want => matching.push(pass.clone()),
                Some(_) => passes.push(pass.clone()),
                None => {}
            }
        }
    }
    (hash_same && columns.is_empty() && passes.is_empty(), columns, passes, matching)
}

/// Re-runs a golden file's scenario and compares. `golden_path` locates the scenario (its path
/// is relative to the golden file) unless `scenario_path` is given.
pub fn verify(
    golden: &Golden,
    golden_path: &Path,
    scenario_path: Option<&Path>,
    opts: VerifyOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Verdict, GoldenError> {
    let name = golden_path.display().to_string();
    let base = golden_path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let path = match scenario_path {
        Some(p) => p.to_path_buf(),
        None => {
            let p = Path::new(&golden.scenario.path);
            if p.is_absolute() || base == Path::new(".") { p.to_path_buf() } else { normalize(&base.join(p)) }
        }
    };
    let overrides = golden.overrides(&name)?;
    let text = read_scenario(&path)?;
    let mut verdict = Verdict {
        file: name.clone(),
        scenario: path.display().to_string(),
        seed: golden.seed,
        ticks: golden.ticks,
        settings: Settings { threads: opts.threads, index: opts.index.name().into() },
        notes: Vec::new(),
        problems: Vec::new(),
        divergence: None,
        records_checked: 0,
        final_hash: None,
    };
    if golden.engine_version != ENGINE_VERSION {
        verdict
            .notes
            .push(format!("recorded with throng-engine {}; this is {ENGINE_VERSION}", golden.engine_version));
    }
    let layout = String::from_utf8_lossy(HASH_LAYOUT);
    if golden.hash_layout != layout {
        verdict.notes.push(format!(
            "the state-hash layout changed ({} when recorded, {layout} now): every state hash differs; re-mint",
            golden.hash_layout
        ));
    }
    let now_hash = hex(blake3::hash(text.as_bytes()).as_bytes());
    if now_hash != golden.scenario.content_hash {
        verdict.problems.push(Problem::ScenarioChanged {
            path: path.display().to_string(),
            recorded: golden.scenario.content_hash.clone(),
            now: now_hash,
            line: first_changed_line(&golden.scenario.text, &text),
        });
    }

    let mut scenario = overrides::parse(&text, &path.display().to_string(), &overrides)?;
    scenario.seed = golden.seed;
    let columns_now = fields::layout(&scenario.build_world());
    if columns_now != golden.columns {
        let gone: Vec<&str> =
            golden.columns.iter().filter(|c| !columns_now.contains(c)).map(String::as_str).collect();
        let new: Vec<&str> =
            columns_now.iter().filter(|c| !golden.columns.contains(c)).map(String::as_str).collect();
        verdict.notes.push(format!(
            "the state layout changed: columns only in the golden file [{}], only in this engine [{}]",
            gone.join(", "),
            new.join(", ")
        ));
    }

    let mut run = Runner::new(&scenario, opts.threads, opts.index, opts.reorder_every)?;
    let expanded = golden.expanded();
    let mut records = golden.records.iter().zip(&expanded).peekable();
    let mut last_match: Option<u64> = None;
    loop {
        let tick = run.world.tick;
        if let Some((rec, full)) = records.next_if(|(r, _)| r.tick == tick) {
            let (same, columns, passes, passes_matching) =
                compare(golden, rec, full, &run.world, &run.pipeline);
            verdict.records_checked += 1;
            if !same {
                let d = Divergence {
                    recorded_tick: tick,
                    last_match,
                    tick: if last_match.map_or(tick == 0, |m| m + 1 == tick) { Some(tick) } else { None },
                    columns,
                    passes,
                    passes_matching,
                    diff: None,
                    agent_tick: None,
                    expected: None,
                    missing: None,
                };
                verdict.divergence =
                    Some(explain(golden, &name, &text, &overrides, &scenario, opts, &run, d)?);
                return Ok(verdict);
            }
            last_match = Some(tick);
            // A snapshot must agree with the run it was taken from.
            if let Some(snap) = golden.snapshot_at(tick, &name)? {
                let diff = fields::diff(&snap, &run.world);
                if !diff.is_empty() {
                    verdict.problems.push(Problem::SnapshotDiffers { tick, diff });
                }
            }
        }
        if tick >= golden.ticks {
            break;
        }
        if let Err(e) = run.step() {
            verdict.problems.push(Problem::RunStopped { tick, message: e.to_string() });
            return Ok(verdict);
        }
        progress(run.world.tick);
    }
    let final_hash = state_hash(&run.world).to_hex();
    if final_hash != golden.final_hash {
        verdict
            .problems
            .push(Problem::FinalHash { recorded: golden.final_hash.clone(), actual: final_hash.clone() });
    }
    verdict.final_hash = Some(final_hash);
    Ok(verdict)
}

/// Finds the expected state for a divergence and compares field by field.
#[allow(clippy::too_many_arguments)] // the golden file, both scenarios and the run: all read
fn explain(
    golden: &Golden,
    name: &str,
    text: &str,
    overrides: &[Override],
    scenario: &Scenario,
    opts: VerifyOptions,
    run: &Runner,
    mut d: Divergence,
) -> Result<Divergence, GoldenError> {
    let snapshot = golden.snapshot_at(d.recorded_tick, name)?;
    // With a record every tick and a snapshot there, the snapshot says everything.
    if let (Some(snap), Some(_)) = (&snapshot, d.tick) {
        d.diff = Some(fields::diff(snap, &run.world));
        d.expected = Some(Expected::Snapshot);
        return Ok(d);
    }
    if let Some(found) = reference_run(golden, name, text, overrides, scenario, opts, &d)? {
        return Ok(found);
    }
    if d.tick.is_none() {
        // The recorded pass outputs belong to the recorded tick, not to the unknown first one.
        d.passes.clear();
        d.passes_matching.clear();
    }
    match snapshot {
        Some(snap) => {
            d.diff = Some(fields::diff(&snap, &run.world));
            d.expected = Some(Expected::Snapshot);
        }
        None => {
            let stored: Vec<String> = golden.snapshots.iter().map(|s| s.tick.to_string()).collect();
            d.missing = Some(format!(
                "a re-run of the recorded inputs with this engine does not reproduce the recorded hashes (the engine's results changed), and the golden file has no snapshot at tick {} (snapshots at: {})",
                d.recorded_tick,
                if stored.is_empty() { "none".to_string() } else { stored.join(", ") }
            ));
        }
    }
    Ok(d)
}

/// Re-runs the recorded inputs with the recording's settings. If that reproduces every recorded
/// hash up to the divergence, steps it in lockstep with the checked run to find the exact tick.
#[allow(clippy::too_many_arguments)]
fn reference_run(
    golden: &Golden,
    name: &str,
    text: &str,
    overrides: &[Override],
    scenario: &Scenario,
    opts: VerifyOptions,
    d: &Divergence,
) -> Result<Option<Divergence>, GoldenError> {
    let index = IndexKind::parse(&golden.recorded_with.index).unwrap_or(IndexKind::Kd);
    // A hand-edited thread count must not exhaust the machine.
    let threads = golden.recorded_with.threads.clamp(1, 256);
    let same_inputs = text == golden.scenario.text;
    let same_settings = threads == opts.threads && index == opts.index;
    if same_inputs && same_settings {
        return Ok(None); // it would be the very run that diverged
    }
    let Ok(mut reference) =
        overrides::parse(&golden.scenario.text, &format!("{name} (recorded scenario)"), overrides)
    else {
        return Ok(None);
    };
    reference.seed = golden.seed;
    let mut expected = Runner::new(&reference, threads, index, opts.reorder_every)?;
    let mut actual = Runner::new(scenario, opts.threads, opts.index, opts.reorder_every)?;
    let expanded = golden.expanded();
    let mut records = golden.records.iter().zip(&expanded).peekable();
    let mut found: Option<(u64, Diff)> = None;
    let mut d = d.clone();
    loop {
        let tick = expected.world.tick;
        if tick <= d.recorded_tick
            && let Some((rec, full)) = records.next_if(|(r, _)| r.tick == tick)
            && !compare(golden, rec, full, &expected.world, &expected.pipeline).0
        {
            return Ok(None); // the engine's results changed: this run is no reference
        }
        if found.is_none() {
            let (e, a) = (fields::column_digests(&expected.world), fields::column_digests(&actual.world));
            if e != a {
                let diff = fields::diff(&expected.world, &actual.world);
                found = Some((tick, diff));
                d.passes.clear();
                d.passes_matching.clear();
                if tick > 0 {
                    let (p_e, p_a) = (pass_digests(&expected.pipeline), pass_digests(&actual.pipeline));
                    d.passes =
                        p_e.iter().zip(&p_a).filter(|(x, y)| x != y).map(|(x, _)| x.0.clone()).collect();
                    d.passes_matching =
                        p_e.iter().zip(&p_a).filter(|(x, y)| x == y).map(|(x, _)| x.0.clone()).collect();
                }
            }
        }
        if let Some((t, diff)) = &found {
            let agent = if diff.agent.is_some() && *t == tick {
                Some((tick, diff.clone()))
            } else {
                let now = fields::diff(&expected.world, &actual.world);
                now.agent.is_some().then_some((tick, now))
            };
            if let Some((agent_tick, agent_diff)) = agent {
                let mut diff = diff.clone();
                if agent_tick != *t {
                    diff.agent = agent_diff.agent;
                    d.agent_tick = Some(agent_tick);
                    // The passes of the tick that first moved an agent differently.
                    let (p_e, p_a) = (pass_digests(&expected.pipeline), pass_digests(&actual.pipeline));
                    d.passes =
                        p_e.iter().zip(&p_a).filter(|(x, y)| x != y).map(|(x, _)| x.0.clone()).collect();
                    d.passes_matching =
                        p_e.iter().zip(&p_a).filter(|(x, y)| x == y).map(|(x, _)| x.0.clone()).collect();
                }
                d.tick = Some(*t);
                d.diff = Some(diff);
                d.expected = Some(Expected::ReferenceRun { threads, index: index.name().into() });
                return Ok(Some(d));
            }
        }
        if tick >= golden.ticks || (found.is_none() && tick >= d.recorded_tick) {
            break;
        }
        if expected.step().is_err() || actual.step().is_err() {
            break;
        }
    }
    // The states differ only outside agent rows, or not at all before the recorded tick.
    if let Some((t, diff)) = found {
        d.tick = Some(t);
        d.diff = Some(diff);
        d.expected = Some(Expected::ReferenceRun { threads, index: index.name().into() });
        return Ok(Some(d));
    }
    Ok(None)
}

// ---------------------------------------------------------------------------------------------
// The report.

fn short(h: &str) -> &str {
    &h[..h.len().min(16)]
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = if self.ok() { "ok  " } else { "FAIL" };
        writeln!(
            f,
            "{status} {}: scenario {}, seed {}, {} ticks, {} threads, {} index",
            self.file, self.scenario, self.seed, self.ticks, self.settings.threads, self.settings.index
        )?;
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        for p in &self.problems {
            match p {
                Problem::ScenarioChanged { path, recorded, now, line } => {
                    writeln!(
                        f,
                        "  scenario changed: {path} is not the file recorded (BLAKE3 {} recorded, {} now)",
                        short(recorded),
                        short(now)
                    )?;
                    if let Some((n, old, new)) = line {
                        writeln!(f, "    first changed line {n}:")?;
                        writeln!(f, "      recorded: {old}")?;
                        writeln!(f, "      now:      {new}")?;
                    }
                }
                Problem::SnapshotDiffers { tick, diff } => {
                    writeln!(
                        f,
                        "  the snapshot stored at tick {tick} differs from the run, although the recorded hashes match: the golden file was edited"
                    )?;
                    write_diff(f, diff, "stored", "run")?;
                }
                Problem::FinalHash { recorded, actual } => {
                    writeln!(f, "  final hash differs: recorded {recorded}, now {actual}")?;
                }
                Problem::RunStopped { tick, message } => {
                    writeln!(f, "  the run stopped at tick {tick}: {message}")?;
                }
            }
        }
        if let Some(d) = &self.divergence {
            match (d.tick, d.last_match) {
                (Some(t), _) => writeln!(f, "  first diverging tick: {t}")?,
                (None, Some(m)) => writeln!(
                    f,
                    "  first diverging tick: between {} and {} (records every {} ticks; tick {m} matches)",
                    m + 1,
                    d.recorded_tick,
                    d.recorded_tick - m
                )?,
                (None, None) => writeln!(f, "  first diverging tick: {}", d.recorded_tick)?,
            }
            if d.tick.is_some_and(|t| t != d.recorded_tick) {
                writeln!(f, "  first recorded tick that differs: {}", d.recorded_tick)?;
            }
            if !d.columns.is_empty() {
                writeln!(f, "  differing columns at tick {}: {}", d.recorded_tick, d.columns.join(", "))?;
            }
            if let Some(p) = d.passes.first() {
                let after = d.passes_matching.iter().filter(|m| {
                    crate::PASSES.iter().position(|x| x == *m) < crate::PASSES.iter().position(|x| x == p)
                });
                let after: Vec<&String> = after.collect();
                let tail = if after.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (the outputs of {} match)",
                        after.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )
                };
                writeln!(f, "  first diverging pass: {p}{tail}")?;
            } else if !d.passes_matching.is_empty() {
                writeln!(
                    f,
                    "  the recorded pass outputs ({}) match: the divergence starts in another pass",
                    d.passes_matching.join(", ")
                )?;
            }
            match &d.expected {
                Some(Expected::ReferenceRun { threads, index }) => writeln!(
                    f,
                    "  expected values: from a re-run of the recorded inputs ({threads} threads, {index} index), which reproduces every recorded hash up to the divergence"
                )?,
                Some(Expected::Snapshot) => {
                    writeln!(f, "  expected values: from the snapshot stored at tick {}", d.recorded_tick)?
                }
                None => {}
            }
            if let Some(diff) = &d.diff {
                if diff.is_empty() {
                    writeln!(
                        f,
                        "  the expected state equals the run field for field: only the recorded hashes or digests differ (the golden file was edited)"
                    )?;
                }
                if let Some(t) = d.agent_tick {
                    writeln!(f, "  (agents first differ at tick {t})")?;
                }
                write_diff(f, diff, "expected", "actual")?;
            }
            if let Some(m) = &d.missing {
                writeln!(f, "  no agent values: {m}")?;
            }
        }
        if self.ok() {
            writeln!(
                f,
                "  {} records match; final hash {}",
                self.records_checked,
                self.final_hash.as_deref().unwrap_or("")
            )?;
        }
        Ok(())
    }
}

fn write_diff(f: &mut fmt::Formatter<'_>, diff: &Diff, e: &str, a: &str) -> fmt::Result {
    let show = |v: &Option<fields::Value>| v.as_ref().map_or("(absent)".to_string(), |v| v.to_string());
    if let Some(ag) = &diff.agent {
        let id = ag.id.map_or("?".to_string(), |i| i.to_string());
        writeln!(f, "  first differing agent: id {id} (row {}), field {}", ag.row, ag.field)?;
        writeln!(f, "    {e:<8}: {}", show(&ag.expected))?;
        writeln!(f, "    {a:<8}: {}", show(&ag.actual))?;
    }
    for fd in &diff.fields {
        writeln!(f, "  differing field {}: {e} {}, {a} {}", fd.path, show(&fd.expected), show(&fd.actual))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Base64 (RFC 4648, with padding), for snapshots.

pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| format!("invalid base64: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..20usize {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
    }

    #[test]
    fn relative_paths() {
        assert_eq!(relative_path(Path::new("/a/b/c.toml"), Path::new("/a/d/e")), Path::new("../../b/c.toml"));
        assert_eq!(relative_path(Path::new("/a/b/c.toml"), Path::new("/a/b")), Path::new("c.toml"));
    }
}
