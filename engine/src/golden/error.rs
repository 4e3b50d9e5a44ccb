//! What goes wrong reading, recording or verifying a golden file (as opposed to a mismatch).

use crate::pipeline::NonFinite;
use crate::scenario::ScenarioError;
use crate::simulation::SimulationError;

/// What goes wrong reading, recording or verifying (as opposed to a mismatch, which is a
/// [`Verdict`](super::Verdict)).
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    /// The golden file cannot be read (missing, a directory, no permission).
    #[error("{path}: {message}")]
    Io {
        /// The golden file.
        path: String,
        /// Why it cannot be read: "no such file", or "cannot read: " and the OS error.
        message: String,
    },
    /// The file is not a golden file this engine reads: not JSON, another `format` or
    /// `format_version`, missing fields, or records that are out of order, do not start at
    /// tick 0, do not end at `ticks`, or do not match `columns`.
    #[error("{path}: not a golden file: {message}")]
    Format {
        /// The golden file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// The scenario cannot be read or validated, or an override does not apply (the recorded
    /// ones included).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// The run cannot be made: 0 threads asked for, or the worker threads could not start.
    #[error(transparent)]
    Simulation(#[from] SimulationError),
    /// While recording, a value became NaN or infinite: the run cannot be recorded.
    #[error("the recorded run stopped")]
    Run(#[from] NonFinite),
    /// A snapshot stored in the golden file does not decode into a world of this engine.
    #[error("{path}: snapshot at tick {tick} cannot be decoded: {message}")]
    Snapshot {
        /// The golden file.
        path: String,
        /// The snapshot's tick.
        tick: u64,
        /// Why it does not decode ([`SnapshotError`](super::SnapshotError) in words).
        message: String,
    },
    /// The recording options are invalid: `every` or `snapshot_every` is 0.
    #[error("{0}")]
    Options(String),
}
