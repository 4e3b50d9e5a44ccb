//! Golden files: a recorded run that a later run must reproduce bit for bit.
//!
//! `throng record` writes one (JSON); `throng verify` re-runs and compares. A golden file holds
//! what the run was made from (engine version, the scenario's path, BLAKE3 and full text, its
//! overrides, the seed, the tick count, the threads and index it was recorded with) and what it
//! gave: at every K-th tick (and the last) the state hash, a 64-bit digest of every column
//! ([`fields::column_digests`](crate::state::fields::column_digests)) and of the pass outputs
//! the pipeline exposes (neighbour lists, queue flags); optionally, within a byte budget,
//! whole-world snapshots (postcard, base64).
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

mod check;
mod error;
mod explain;
mod format;
mod paths;
mod record;
mod replay;
mod verdict;
mod verify;

pub use error::GoldenError;
pub use format::{
    FORMAT, FORMAT_VERSION, Golden, Record, ScenarioRecord, Settings, Snapshot, SnapshotError, base64_decode,
    base64_encode,
};
pub use paths::relative_path;
pub use record::{DEFAULT_SNAPSHOT_BUDGET, RecordOptions, record};
pub use verdict::{Divergence, Expected, Problem, Verdict, VerifyOptions};
pub use verify::verify;
