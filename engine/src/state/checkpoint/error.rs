//! `CheckpointError`: every way a checkpoint file can be refused, each naming the file.

use super::{ENGINE_VERSION, FORMAT_VERSION};

/// Why a checkpoint cannot be used.
///
/// Every variant names the checkpoint file in `path` (the path as given to [`load`](super::load), or the
/// name given to [`decode`](super::decode) or [`check_run`](super::check_run)).
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file cannot be read (missing, a directory, no permission).
    #[error("{path}: {message}")]
    Io {
        /// The checkpoint file.
        path: String,
        /// Why it cannot be read: "no such file", or "cannot read: " and the OS error.
        message: String,
    },
    /// The file does not start with [`MAGIC`](super::MAGIC): it is something else.
    #[error("{path}: not a throng checkpoint (no `THRONGCK` magic at the start)")]
    NotACheckpoint {
        /// The file.
        path: String,
    },
    /// The file ends early: inside the magic, inside the header, or before the payload's
    /// declared length (an interrupted copy, say; [`save`](super::save) itself writes atomically).
    #[error("{path}: truncated checkpoint: {detail}")]
    Truncated {
        /// The checkpoint file.
        path: String,
        /// Where it ends, and how long it is or should be.
        detail: String,
    },
    /// A format version this engine does not read (0, or above [`FORMAT_VERSION`](super::FORMAT_VERSION)).
    #[error("{path}: checkpoint format version {found}; this engine reads versions 1 to {FORMAT_VERSION}")]
    Format {
        /// The checkpoint file.
        path: String,
        /// The version in the file.
        found: u32,
    },
    /// A checksum or length does not match: the bytes were changed after writing.
    #[error("{path}: corrupted checkpoint: the {what} checksum does not match")]
    Corrupted {
        /// The checkpoint file.
        path: String,
        /// What failed: `"header"` (its checksum, or text that is not UTF-8), `"payload"` (its
        /// checksum) or `"payload length"` (bytes beyond the declared payload).
        what: &'static str,
    },
    /// Written by another engine version than [`ENGINE_VERSION`](super::ENGINE_VERSION): results could differ, so it
    /// is not resumed.
    #[error(
        "{path}: written by throng-engine {found}; this is {ENGINE_VERSION}, and a checkpoint is only resumed by the engine that wrote it"
    )]
    EngineVersion {
        /// The checkpoint file.
        path: String,
        /// The engine version in the file.
        found: String,
    },
    /// The run it holds is of other dimensions than the one resuming it (a run in space
    /// resumed as a planar one, or the other way).
    #[error(
        "{path}: the checkpoint holds a run in {} ({found} dimensions); this run is in {} ({expected} dimensions)",
        space_of(*found as usize), space_of(*expected)
    )]
    Dimensions {
        /// The checkpoint file.
        path: String,
        /// The dimensions in the file.
        found: u32,
        /// The dimensions of the run resuming it.
        expected: usize,
    },
    /// The columns the header lists differ from this engine's: the file was written by an
    /// engine with other state columns, although its payload decoded.
    #[error("{path}: the state layout differs from this engine's: {detail}")]
    Layout {
        /// The checkpoint file.
        path: String,
        /// The columns only in the checkpoint, and those only in this engine.
        detail: String,
    },
    /// Written for another scenario file: its content hash differs ([`check_run`](super::check_run)).
    #[error(
        "{path}: written for another scenario: the checkpoint's scenario has BLAKE3 {found}, {scenario} has {expected}"
    )]
    Scenario {
        /// The checkpoint file.
        path: String,
        /// The scenario file this run uses.
        scenario: String,
        /// BLAKE3 of the scenario the checkpoint was written for, hex.
        found: String,
        /// BLAKE3 of this run's scenario file, hex.
        expected: String,
    },
    /// Written with other overrides than this run's ([`check_run`](super::check_run)).
    #[error("{path}: written with other overrides: the checkpoint has [{found}], this run has [{expected}]")]
    Overrides {
        /// The checkpoint file.
        path: String,
        /// The checkpoint's overrides, canonical, joined with ", ".
        found: String,
        /// This run's overrides, canonical, joined with ", ".
        expected: String,
    },
    /// The checksums pass but the payload is not a consistent state of this engine: it does not
    /// decode, leaves bytes over, or disagrees with the header or itself (column lengths, id
    /// order, groups).
    #[error("{path}: cannot decode the state: {message}")]
    Decode {
        /// The checkpoint file.
        path: String,
        /// What does not decode or fit.
        message: String,
    },
}

/// "the plane" or "space", for `dimensions`.
fn space_of(dimensions: usize) -> &'static str {
    if dimensions == 3 { "space" } else { "the plane" }
}
