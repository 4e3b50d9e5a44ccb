//! The footer of a Parquet file being written, kept beside it as `FILE-footer`.
//!
//! A Parquet file is readable only once its footer (the list of row groups) is at its end,
//! which a writer adds when it closes. So after every row group the table puts the bytes on
//! disk and then replaces `FILE-footer` (atomically) with a footer naming every row group
//! written. A run killed outright leaves the file without its footer but with that one beside
//! it: `resume.rs` cuts the file after the last whole row group and appends the footer
//! (`throng recover FILE`), and a resumed run does the same before it goes on. A file that
//! was closed has its own footer and no `FILE-footer`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use parquet::file::metadata::{
    FileMetaData, ParquetMetaData, ParquetMetaDataReader, ParquetMetaDataWriter, RowGroupMetaData,
};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use throng_engine::state::files::write_atomically;

/// Parquet's magic bytes, at both ends of a file.
const MAGIC: &[u8; 4] = b"PAR1";

/// `FILE-footer`, beside `FILE`.
pub(super) fn footer_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-footer");
    PathBuf::from(name)
}

/// Replaces the footer kept beside `path` with one naming every row group `writer` has written.
pub(super) fn save<W: Write + Send>(path: &Path, writer: &SerializedFileWriter<W>) -> Result<()> {
    let props = writer.properties();
    let groups = writer.flushed_row_groups().to_vec();
    let rows = groups.iter().map(RowGroupMetaData::num_rows).sum();
    let schema = Arc::new(SchemaDescriptor::new(writer.schema_descr().root_schema_ptr()));
    let file = FileMetaData::new(
        props.writer_version().as_num(),
        rows,
        Some(props.created_by().to_string()),
        props.key_value_metadata().cloned(),
        schema,
        None,
    );
    let mut bytes = Vec::new();
    ParquetMetaDataWriter::new(&mut bytes, &ParquetMetaData::new(file, groups)).finish()?;
    Ok(write_atomically(&footer_path(path), &bytes)?)
}

/// Removes the footer kept beside `path`, if there is one.
pub(super) fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(footer_path(path)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The metadata of a Parquet file: its own footer when it was closed, else the one kept
/// beside it (a run killed outright), with which of the two it was.
pub(super) fn metadata(path: &Path) -> Result<(ParquetMetaData, bool)> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    if ends_with_magic(&file)?
        && let Ok(m) = ParquetMetaDataReader::new().parse_and_finish(&file)
    {
        return Ok((m, true));
    }
    let side = footer_path(path);
    let bytes = match std::fs::read(&side) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "{} is not a whole Parquet file (no footer at its end) and has no {} beside it: it cannot be recovered",
            path.display(),
            side.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", side.display())),
    };
    if bytes.len() < 8 || &bytes[bytes.len() - 4..] != MAGIC {
        bail!("{} is not a Parquet footer", side.display());
    }
    let m = ParquetMetaDataReader::decode_metadata(&bytes[..bytes.len() - 8])
        .map_err(|e| anyhow!("{} is not a Parquet footer: {e}", side.display()))?;
    Ok((m, false))
}

fn ends_with_magic(mut file: &File) -> Result<bool> {
    let len = file.metadata()?.len();
    if len < 12 {
        return Ok(false);
    }
    let mut end = [0u8; 4];
    file.seek(SeekFrom::End(-4))?;
    file.read_exact(&mut end)?;
    Ok(&end == MAGIC)
}

/// Where the bytes of the first `groups` row groups end (4, the magic, for none).
pub(super) fn end_of(groups: &[RowGroupMetaData]) -> u64 {
    groups
        .iter()
        .flat_map(|g| g.columns())
        .map(|c| {
            let (start, len) = c.byte_range();
            start + len
        })
        .max()
        .unwrap_or(MAGIC.len() as u64)
}
