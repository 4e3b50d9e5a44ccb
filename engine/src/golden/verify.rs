//! Verifying a golden file: re-run and compare record by record.

use std::collections::BTreeMap;
use std::path::Path;

use super::explain::explain;
use super::record::pass_digests;
use super::*;
use crate::index::IndexKind;
use crate::index::Point;
use crate::math::{Vec2, Vec3};
use crate::pipeline::Pipeline;
use crate::scenario::Scenario;
use crate::scenario::overrides::Override;
use crate::scenario::overrides::{self};
use crate::simulation::{RunSettings, Simulation};
use crate::state::checkpoint::ENGINE_VERSION;
use crate::state::fields::{self, Diff};
use crate::state::hash::{HASH_LAYOUT, state_hash};
use crate::world::World;

/// How to verify: results must not depend on any of these.
#[derive(Clone, Copy, Debug)]
pub struct VerifyOptions {
    /// Worker threads of the checking run (at least 1).
    pub threads: usize,
    /// Neighbour-search backend of the checking run.
    pub index: IndexKind,
    /// `Pipeline::set_reorder_every` of the checking run (and of a reference run).
    pub reorder_every: u64,
}

/// Where the expected values of a divergence came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A re-run of the recorded inputs that reproduced every recorded hash up to the divergence.
    ReferenceRun {
        /// Worker threads of the reference run: the recording's (clamped to 1 to 256).
        threads: usize,
        /// Neighbour-search backend of the reference run, by name: the recording's.
        index: String,
    },
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
    /// Where the expected values in `diff` came from; `None` when there are none.
    pub expected: Option<Expected>,
    /// Why agent values are missing, when they are.
    pub missing: Option<String>,
}

/// A problem found by [`verify`] other than a divergence.
#[derive(Clone, Debug)]
pub enum Problem {
    /// The scenario file is not the one recorded.
    ScenarioChanged {
        /// The scenario file that was run.
        path: String,
        /// BLAKE3 of the recorded scenario text, hex.
        recorded: String,
        /// BLAKE3 of the file now, hex.
        now: String,
        /// The first line that differs: 1-based line number, recorded text, text now
        /// (`"(end of file)"` past either end); `None` if only line endings differ.
        line: Option<(usize, String, String)>,
    },
    /// A stored snapshot differs from the run although the hashes match: the file was edited.
    SnapshotDiffers {
        /// The snapshot's tick.
        tick: u64,
        /// How the snapshot (expected) differs from the run (actual).
        diff: Diff,
    },
    /// The final hash differs although every record matched.
    FinalHash {
        /// `final_hash` of the golden file, hex.
        recorded: String,
        /// The state hash after the last tick of this run, hex.
        actual: String,
    },
    /// The run stopped with an error.
    RunStopped {
        /// The world's tick when the failing step began (ticks completed before it).
        tick: u64,
        /// The error ([`NonFinite`](crate::NonFinite)) in words.
        message: String,
    },
}

/// The outcome of [`verify`].
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The golden file, as its path was given.
    pub file: String,
    /// The scenario file that was run, as its path was given or resolved.
    pub scenario: String,
    /// The recorded seed the run used.
    pub seed: u64,
    /// The recorded tick count the run aimed for.
    pub ticks: u64,
    /// Threads and index of the checking run.
    pub settings: Settings,
    /// Remarks that are not failures by themselves (another engine version, ...).
    pub notes: Vec<String>,
    /// Failures other than a divergence, in the order found.
    pub problems: Vec<Problem>,
    /// Where the run first departs from the records; verification stops there.
    pub divergence: Option<Divergence>,
    /// Records compared, the diverging one included.
    pub records_checked: usize,
    /// The state hash after the last tick, hex; `None` when verification stopped early (at a
    /// divergence or an error).
    pub final_hash: Option<String>,
}

impl Verdict {
    /// True when the run reproduced the golden file: no problem and no divergence. Notes do
    /// not count.
    pub fn ok(&self) -> bool {
        self.problems.is_empty() && self.divergence.is_none()
    }
}

/// One run of a scenario, for verification: no metrics, results never depend on the settings.
pub(super) fn simulation<V: Point>(
    scenario: &Scenario<V>,
    threads: usize,
    index: IndexKind,
    reorder_every: u64,
) -> Result<Simulation<V>, GoldenError> {
    let settings = RunSettings {
        threads,
        index: Some(index),
        reorder_every,
        sensing_skin: None,
        metrics: false,
        keep_awake: true,
    };
    Ok(Simulation::new(scenario, settings)?)
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
pub(super) fn compare<V: Point>(
    golden: &Golden,
    rec: &Record,
    full: &BTreeMap<String, String>,
    world: &World<V>,
    pipeline: &Pipeline<V>,
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
    // The recorded path is relative to the golden file. Gone (a golden file copied on its own),
    // the scenario text the golden file holds stands in for it, and a note says so.
    let missing = scenario_path.is_none() && !path.exists();
    let text = if missing {
        golden.scenario.text.clone()
    } else {
        crate::scenario::read_source(&path, "a scenario file (.toml)")?.1
    };
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
    if missing {
        verdict.notes.push(format!(
            "the scenario file {} (the recorded path {}, taken relative to the golden file) is missing: verified against the scenario text the golden file holds",
            path.display(),
            golden.scenario.path
        ));
    }
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

    match crate::scenario::declared_dimensions(&text) {
        Some(3) => go_on::<Vec3>(golden, &name, &path, &text, &overrides, opts, verdict, progress),
        _ => go_on::<Vec2>(golden, &name, &path, &text, &overrides, opts, verdict, progress),
    }
}

/// [`verify`] from the re-run on: the scenario `text` (from `path`), whose points are `V`s.
#[allow(clippy::too_many_arguments)] // verify's own inputs, handed on whole
fn go_on<V: Point>(
    golden: &Golden,
    name: &str,
    path: &Path,
    text: &str,
    overrides: &[Override],
    opts: VerifyOptions,
    mut verdict: Verdict,
    progress: &mut dyn FnMut(u64),
) -> Result<Verdict, GoldenError> {
    let mut scenario = overrides::parse_as::<V>(text, &path.display().to_string(), overrides)?;
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

    let mut run = simulation(&scenario, opts.threads, opts.index, opts.reorder_every)?;
    let expanded = golden.expanded();
    let mut records = golden.records.iter().zip(&expanded).peekable();
    let mut last_match: Option<u64> = None;
    loop {
        let tick = run.tick();
        if let Some((rec, full)) = records.next_if(|(r, _)| r.tick == tick) {
            let (same, columns, passes, passes_matching) =
                compare(golden, rec, full, run.world(), run.pipeline());
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
                verdict.divergence = Some(explain(golden, name, text, overrides, &scenario, opts, &run, d)?);
                return Ok(verdict);
            }
            last_match = Some(tick);
            // A snapshot must agree with the run it was taken from.
            if let Some(snap) = golden.snapshot_at::<V>(tick, name)? {
                let diff = fields::diff(&snap, run.world());
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
        progress(run.tick());
    }
    let final_hash = state_hash(run.world()).to_hex();
    if final_hash != golden.final_hash {
        verdict
            .problems
            .push(Problem::FinalHash { recorded: golden.final_hash.clone(), actual: final_hash.clone() });
    }
    verdict.final_hash = Some(final_hash);
    Ok(verdict)
}
