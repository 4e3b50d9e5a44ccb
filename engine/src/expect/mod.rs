//! Expectations: checks on a run's outcome written in the scenario (`[[expect]]`), watched tick
//! by tick and judged at the end.
//!
//! An expectation (its data: `crate::scenario::expectation`, re-exported here) reads one value
//! per observed tick (a metric, or the agents inside a region) and checks it at the end, at a
//! time, at every tick of a window, at some tick of a window, or by the time it first comes
//! within bounds; or it checks that an agent (every agent of a group) reaches a region by a
//! time. `watch` follows a run (its state goes into checkpoints, so a resumed run is judged as
//! the uninterrupted one), `outcome` says how each came out. Everything is computed serially
//! from the world and the metrics, so verdicts are as deterministic as the run.

mod group_stats;
mod outcome;
mod watch;

pub use crate::scenario::expectation::{
    Check, Expectation, Metric, SUMMARY_METRICS, SceneNames, Stat, Subject, Who, describe, tick_at,
};
pub use outcome::{Outcome, Status};
pub use watch::{WatchState, WatchStateError, Watcher};
