//! Files that are never left half-written: write to a temporary beside the target, then rename.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that a crash at any moment leaves either the old file or the
/// new one, never a part: a temporary file in the same directory, flushed to disk, renamed
/// over `path`, then the directory flushed so the rename itself is durable.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        // Flushing a directory is how POSIX makes a rename durable; not every platform allows
        // opening one, and the rename is already atomic without it.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Whether a file name is a temporary file left by [`write_atomically`] (after a crash).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}
