//! Checkpoint files on disk: loading one, naming one by its tick, finding the latest in a
//! directory, and saving one atomically.

use std::path::{Path, PathBuf};

use super::{Checkpoint, CheckpointError, EXTENSION, RunIdentity, decode, encode};
use crate::metrics::MetricsState;
use crate::state::files::write_atomically;
use crate::world::World;

/// Reads and decodes a checkpoint file.
pub fn load(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| CheckpointError::Io {
        path: name.clone(),
        message: match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".into(),
            _ => format!("cannot read: {e}"),
        },
    })?;
    decode(&bytes, &name)
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
pub fn save(
    path: &Path,
    world: &World,
    metrics: Option<&MetricsState>,
    run: &RunIdentity<'_>,
) -> std::io::Result<()> {
    write_atomically(path, &encode(world, metrics, run))
}
