//! Verifying a golden file: re-run and compare record by record.

use std::path::Path;

use super::check::Check;
use super::error::GoldenError;
use super::explain::explain;
use super::format::{Golden, Settings, hex};
use super::paths::normalize;
use super::replay::{compare, simulation};
use super::verdict::{Divergence, Problem, Verdict, VerifyOptions};
use crate::math::{Vec2, Vec3};
use crate::pipeline::Passes;
use crate::scenario::overrides::{self};
use crate::state::checkpoint::ENGINE_VERSION;
use crate::state::fields;
use crate::state::hash::{HASH_LAYOUT, state_hash};

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

    let check = Check {
        golden,
        name: &name,
        origin: path.display().to_string(),
        text: &text,
        overrides: &overrides,
        opts,
    };
    match crate::scenario::declared_dimensions(&text) {
        Some(3) => go_on::<Vec3>(&check, verdict, progress),
        _ => go_on::<Vec2>(&check, verdict, progress),
    }
}

/// [`verify`] from the re-run on: the check's scenario, whose points are `V`s.
fn go_on<V: Passes>(
    check: &Check,
    mut verdict: Verdict,
    progress: &mut dyn FnMut(u64),
) -> Result<Verdict, GoldenError> {
    let Check { golden, name, text, overrides, opts, .. } = *check;
    let mut scenario = overrides::parse_as::<V>(text, &check.origin, overrides)?;
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
                verdict.divergence = Some(explain(check, &scenario, &run, d)?);
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
