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

mod explain;
mod format;
mod record;
mod verify;

pub use format::*;
pub use record::*;
pub use verify::*;

use std::path::{Path, PathBuf};

use crate::pipeline::NonFinite;
use crate::scenario::ScenarioError;
use crate::simulation::SimulationError;

/// What goes wrong reading, recording or verifying (as opposed to a mismatch, which is a
/// [`Verdict`]).
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
        /// Why it does not decode ([`SnapshotError`] in words).
        message: String,
    },
    /// The recording options are invalid: `every` or `snapshot_every` is 0.
    #[error("{0}")]
    Options(String),
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex64(v: u64) -> String {
    format!("{v:016x}")
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
