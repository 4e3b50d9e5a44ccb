//! What verifying a golden file found: where a run departs from it, and the other problems.

use crate::index::IndexKind;
use crate::state::fields::Diff;

use super::format::Settings;

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

/// A problem found by [`verify`](super::verify()) other than a divergence.
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

/// The outcome of [`verify`](super::verify()).
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
