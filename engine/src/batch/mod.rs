//! Batch files: scenarios × seeds × parameter overrides, expanded into a plan of runs.
//!
//! ```toml
//! version = 1
//! name = "speed sweep"            # optional
//! ticks = 200                     # optional: sets every scenario's `ticks`
//! set = { "groups.boids.mass" = 1.0 }   # optional: overrides for every run
//!
//! [[sweep]]
//! scenario = "../scenarios/flock.toml"  # or scenarios = [...]; relative to this file
//! seeds = [1, 2, 3]                     # or { from = 1, count = 8 }; default: the scenario's
//! set = { "groups.boids.max_force" = 2.5 }                        # fixed overrides
//! grid = { "groups.boids.max_speed" = [1.0, 1.3, 1.6] }           # every combination
//! points = [{ dt = 0.1 }, { dt = 0.05, "groups.boids.count" = 500 }]   # an explicit list
//!
//! [[expect]]                            # optional: judged per point by `throng report`
//! metric = "polarisation"
//! stat = "mean"                         # mean (default), std, min or max over the seeds
//! min = 0.9
//! ```
//!
//! A sweep's runs are, outermost first: scenarios, points (one empty point if none), grid
//! combinations (the first grid key outermost), seeds. Their order is the plan order, which
//! fixes each run's index, the shard it falls in and the order of result rows.
//!
//! Each run has a stable id: a hash of the scenario file's content, the canonical overrides and
//! the seed. Runs with the same scenario content and overrides are one *parameter point*;
//! reports aggregate over the seeds of a point.

mod expect;
mod keep;
mod parse;
pub mod trend;

pub use expect::{BatchExpectation, Stat};
pub use trend::{Across, Trend};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toml::de::DeTable;

use crate::scenario::overrides::Override;
use crate::scenario::{AnyScenario, ScenarioError};
use parse::Parser;

/// The batch format version this engine reads.
pub const FORMAT_VERSION: i64 = 1;
/// Most runs one batch file may expand to.
pub const MAX_RUNS: usize = 10_000_000;

/// One run of a plan.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    /// Position in the plan (0-based).
    pub index: usize,
    /// 16 hex digits: BLAKE3 of the scenario's content hash, the overrides and the seed.
    pub id: String,
    /// 16 hex digits: the same without the seed. Runs that share it differ only by seed.
    pub point: String,
    /// The scenario file as written in the batch file (relative to it).
    pub scenario_file: String,
    /// The same, resolved against the batch file's directory.
    pub scenario_path: PathBuf,
    /// The validated scenario with the overrides applied (seed not yet set), of the plane or
    /// of space.
    pub scenario: Arc<AnyScenario>,
    /// The run's seed: one of the sweep's `seeds`, or the scenario's own `seed` when the sweep
    /// lists none. It replaces `scenario.seed` when the run is made.
    pub seed: u64,
    /// The overrides in the order they apply.
    pub overrides: Vec<Override>,
    /// `key = value`, sorted.
    pub canonical: Vec<String>,
    /// Ticks to run (the scenario's, or the batch's `ticks`).
    pub ticks: u64,
}

/// A batch file, expanded and validated.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The batch file as its path was given (or the name given to [`Plan::parse`]), for
    /// messages and reports.
    pub file: String,
    /// The batch's `name` key; empty when the file has none.
    pub name: String,
    /// 16 hex digits: a hash of every run id in plan order. Two batch files with the same runs
    /// in the same order are the same batch.
    pub id: String,
    /// Every run, in plan order (`runs[k].index == k`), at most [`MAX_RUNS`].
    pub runs: Vec<PlannedRun>,
    /// Every override key used by some run, sorted.
    pub keys: Vec<String>,
    /// The `[[expect]]` entries: bounds on statistics over each point's seeds.
    pub expectations: Vec<BatchExpectation>,
    /// What each run keeps in its directory besides its result (`keep`, `trace_every`).
    pub keep: Keep,
}

/// What each run of a batch keeps in its directory besides its result: its per-tick metrics
/// (`keep = ["metrics"]`) and its trace every `trace_every` ticks (`keep = ["trace"]`). Not
/// part of a run's id: it changes what is written, never what is simulated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    /// Whether each run keeps its per-tick metrics.
    pub metrics: bool,
    /// The trace interval in ticks, when the trace is kept.
    pub trace_every: Option<u64>,
}

/// The trace interval of a batch that keeps traces and does not say (`trace_every`).
pub const DEFAULT_TRACE_EVERY: u64 = 10;

fn hex16(bytes: &[u8]) -> String {
    bytes[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The stable id of a run: scenario content, overrides (canonical, sorted) and seed.
pub fn run_id(content_hash: &[u8; 32], canonical: &[String], seed: u64) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"throng-run-v1\0");
    h.update(content_hash);
    for line in canonical {
        h.update(&(line.len() as u64).to_le_bytes());
        h.update(line.as_bytes());
    }
    h.update(&seed.to_le_bytes());
    hex16(h.finalize().as_bytes())
}

/// The parameter point of a run: its id without the seed.
pub fn point_id(content_hash: &[u8; 32], canonical: &[String]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"throng-point-v1\0");
    h.update(content_hash);
    for line in canonical {
        h.update(&(line.len() as u64).to_le_bytes());
        h.update(line.as_bytes());
    }
    hex16(h.finalize().as_bytes())
}

impl Plan {
    /// The runs of shard `i` of `n`: every run whose plan index is `i` modulo `n`. Round robin
    /// keeps the shards balanced across seeds and parameters.
    pub fn shard(&self, i: usize, n: usize) -> Vec<&PlannedRun> {
        self.runs.iter().filter(|r| r.index % n == i).collect()
    }

    /// Reads, expands and validates a batch file; every scenario is validated with the
    /// overrides of every run, so a bad batch fails before anything runs.
    pub fn load(path: &Path) -> Result<Plan, ScenarioError> {
        let (file, text) = crate::scenario::read_source(path, "a batch file (.toml)")?;
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Plan::parse(&text, &file, dir)
    }

    /// Parses batch text; `file` names it in errors, scenario paths are relative to `dir`.
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Plan, ScenarioError> {
        let p = Parser { file, text };
        if text.trim().is_empty() {
            return Err(p.err(
                0..0,
                "",
                "the file is empty; a batch needs `version = 1` and at least one [[sweep]]",
            ));
        }
        let doc = DeTable::parse(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            match crate::scenario::table_given_twice(text, e.message(), span.start) {
                Some((key, message)) => p.err(span, &key, message),
                None => p.err(span, "", e.message().trim()),
            }
        })?;
        p.plan(&doc, dir)
    }
}
