//! Checkpoint files on disk: loading one, naming one by its tick, finding the latest in a
//! directory, and saving one atomically.

use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError, EXTENSION, Header, RunIdentity, decode, decode_header, encode};
use crate::metrics::MetricsState;
use crate::state::files::write_atomically;
use crate::world::{Dimension, World};

/// Reads and decodes a checkpoint file of a run in `V`'s dimensions.
pub fn load<V: Dimension>(path: &Path) -> Result<Checkpoint<V>, CheckpointError> {
    let name = path.display().to_string();
    decode(&read(path)?, &name)
}

/// Reads a checkpoint file's header (every check on the header and both checksums pass), for
/// a program that must know the run's plan or dimensions before loading its state.
pub fn load_header(path: &Path) -> Result<Header, CheckpointError> {
    let name = path.display().to_string();
    Ok(decode_header(&read(path)?, &name)?.0)
}

fn read(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    std::fs::read(path).map_err(|e| CheckpointError::Io {
        path: path.display().to_string(),
        message: match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".into(),
            _ => format!("cannot read: {e}"),
        },
    })
}

/// The file name of the checkpoint at `tick` in a checkpoint directory.
pub fn file_name(tick: u64) -> String {
    format!("tick-{tick:010}.{EXTENSION}")
}

/// The checkpoint with the highest tick in `dir`, by file name.
pub fn latest_in(dir: &Path) -> std::io::Result<Option<PathBuf>> {
    let mut best: Option<(u64, PathBuf)> = None;
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let Some(tick) = name
            .strip_prefix("tick-")
            .and_then(|r| r.strip_suffix(&format!(".{EXTENSION}")))
            .and_then(|t| t.parse::<u64>().ok())
        else {
            continue;
        };
        if best.as_ref().is_none_or(|(t, _)| tick > *t) {
            best = Some((tick, path));
        }
    }
    Ok(best.map(|(_, p)| p))
}

/// Saves a checkpoint of `world` (and the run's metrics state) atomically.
pub fn save<V: Dimension>(
    path: &Path,
    world: &World<V>,
    metrics: Option<&MetricsState<V>>,
    run: &RunIdentity<'_>,
) -> std::io::Result<()> {
    write_atomically(path, &encode(world, metrics, run))
}
