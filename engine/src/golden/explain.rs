//! Explaining a divergence: the expected state from a reference run or a snapshot.

use super::check::Check;
use super::error::GoldenError;
use super::replay::{compare, pass_digests, simulation};
use super::verdict::{Divergence, Expected};
use crate::index::IndexKind;
use crate::pipeline::Passes;
use crate::scenario::Scenario;
use crate::scenario::overrides;
use crate::simulation::Simulation;
use crate::state::fields::{self, Diff};

/// Finds the expected state for a divergence and compares field by field.
pub(super) fn explain<V: Passes>(
    check: &Check,
    scenario: &Scenario<V>,
    run: &Simulation<V>,
    mut d: Divergence,
) -> Result<Divergence, GoldenError> {
    let Check { golden, name, .. } = *check;
    let snapshot = golden.snapshot_at::<V>(d.recorded_tick, name)?;
    // With a record every tick and a snapshot there, the snapshot says everything.
    if let (Some(snap), Some(_)) = (&snapshot, d.tick) {
        d.diff = Some(fields::diff(snap, run.world()));
        d.expected = Some(Expected::Snapshot);
        return Ok(d);
    }
    if let Some(found) = reference_run(check, scenario, &d)? {
        return Ok(found);
    }
    if d.tick.is_none() {
        // The recorded pass outputs belong to the recorded tick, not to the unknown first one.
        d.passes.clear();
        d.passes_matching.clear();
    }
    match snapshot {
        Some(snap) => {
            d.diff = Some(fields::diff(&snap, run.world()));
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
fn reference_run<V: Passes>(
    check: &Check,
    scenario: &Scenario<V>,
    d: &Divergence,
) -> Result<Option<Divergence>, GoldenError> {
    let Check { golden, name, text, overrides, opts, .. } = *check;
    let index = IndexKind::parse(&golden.recorded_with.index).unwrap_or(IndexKind::Kd);
    // A hand-edited thread count must not exhaust the machine.
    let threads = golden.recorded_with.threads.clamp(1, 256);
    let same_inputs = text == golden.scenario.text;
    let same_settings = threads == opts.threads && index == opts.index;
    if same_inputs && same_settings {
        return Ok(None); // it would be the very run that diverged
    }
    let Ok(mut reference) =
        overrides::parse_as::<V>(&golden.scenario.text, &format!("{name} (recorded scenario)"), overrides)
    else {
        return Ok(None);
    };
    reference.seed = golden.seed;
    let mut expected = simulation(&reference, threads, index, opts.reorder_every)?;
    let mut actual = simulation(scenario, opts.threads, opts.index, opts.reorder_every)?;
    let expanded = golden.expanded();
    let mut records = golden.records.iter().zip(&expanded).peekable();
    let mut found: Option<(u64, Diff)> = None;
    let mut d = d.clone();
    loop {
        let tick = expected.tick();
        if tick <= d.recorded_tick
            && let Some((rec, full)) = records.next_if(|(r, _)| r.tick == tick)
            && !compare(golden, rec, full, expected.world(), expected.pipeline()).0
        {
            return Ok(None); // the engine's results changed: this run is no reference
        }
        if found.is_none() {
            let (e, a) = (fields::column_digests(expected.world()), fields::column_digests(actual.world()));
            if e != a {
                let diff = fields::diff(expected.world(), actual.world());
                found = Some((tick, diff));
                d.passes.clear();
                d.passes_matching.clear();
                if tick > 0 {
                    (d.passes, d.passes_matching) = compare_passes(&expected, &actual);
                }
            }
        }
        if let Some((t, diff)) = &found {
            let agent = if diff.agent.is_some() && *t == tick {
                Some((tick, diff.clone()))
            } else {
                let now = fields::diff(expected.world(), actual.world());
                now.agent.is_some().then_some((tick, now))
            };
            if let Some((agent_tick, agent_diff)) = agent {
                let mut diff = diff.clone();
                if agent_tick != *t {
                    diff.agent = agent_diff.agent;
                    d.agent_tick = Some(agent_tick);
                    // The passes of the tick that first moved an agent differently.
                    (d.passes, d.passes_matching) = compare_passes(&expected, &actual);
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

/// The pass outputs of the last tick that differ between the two runs, and those that match,
/// by pass name.
fn compare_passes<V: Passes>(expected: &Simulation<V>, actual: &Simulation<V>) -> (Vec<String>, Vec<String>) {
    let (e, a) = (pass_digests(expected.pipeline()), pass_digests(actual.pipeline()));
    let names =
        |same: bool| e.iter().zip(&a).filter(|(x, y)| (x == y) == same).map(|(x, _)| x.0.clone()).collect();
    (names(false), names(true))
}
