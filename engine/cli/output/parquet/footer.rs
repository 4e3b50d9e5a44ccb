//! The footer of a Parquet file being written, kept beside it as `FILE-footer`.
//!
//! A Parquet file is readable only once its footer (the list of row groups) is at its end,
//! which a writer adds when it closes. So after every row group the table puts the bytes on
//! disk and then replaces `FILE-footer` (atomically) with a footer naming every row group
//! written. A run killed outright leaves the file without its footer but with that one beside
//! it: [`recover`] cuts the file after the last whole row group and appends the footer
//! (`throng recover FILE`), and a resumed run does the same before it goes on
//! ([`continue_file`]). A file that was closed has its own footer and no `FILE-footer`.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::{
    FileMetaData, ParquetMetaData, ParquetMetaDataReader, ParquetMetaDataWriter, RowGroupMetaData,
};
use parquet::file::statistics::Statistics;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::SchemaDescriptor;
use throng_engine::state::files::write_atomically;

use super::table::{Column, GroupSize, ParquetTable, Sink, open_at};

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
fn metadata(path: &Path) -> Result<(ParquetMetaData, bool)> {
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
fn end_of(groups: &[RowGroupMetaData]) -> u64 {
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

/// What [`recover`] did.
pub struct Recovered {
    /// Whether the file was already whole (closed with its footer).
    pub was_whole: bool,
    pub row_groups: usize,
    pub rows: i64,
    /// Bytes cut off the end: a row group the kill left half-written.
    pub cut_bytes: u64,
}

/// Makes a Parquet file that a killed run left without its footer readable: cuts it after its
/// last whole row group and appends the footer kept beside it, then removes that.
pub fn recover(path: &Path) -> Result<Recovered> {
    let (meta, whole) = metadata(path)?;
    let groups = meta.row_groups();
    let rows = groups.iter().map(RowGroupMetaData::num_rows).sum();
    if whole {
        remove(path)?;
        return Ok(Recovered { was_whole: true, row_groups: groups.len(), rows, cut_bytes: 0 });
    }
    let end = end_of(groups);
    let len = std::fs::metadata(path)?.len();
    if len < end {
        bail!(
            "{} is shorter ({len} bytes) than its footer says ({end} bytes): it cannot be recovered",
            path.display()
        );
    }
    let side = footer_path(path);
    let footer = std::fs::read(&side).with_context(|| format!("cannot read {}", side.display()))?;
    let mut file = open_at(path, end).with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(&footer)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    remove(path)?;
    Ok(Recovered { was_whole: false, row_groups: groups.len(), rows, cut_bytes: len - end })
}

/// The largest value of a row group's first column (the tick), from its statistics.
fn last_tick(group: &RowGroupMetaData) -> Option<i64> {
    match group.columns().first()?.statistics()? {
        Statistics::Int64(s) => s.max_opt().copied(),
        _ => None,
    }
}

/// What a continued file must hold: the rows up to `tick` (the checkpoint's), whose last
/// batch is `last_row_tick`'s; and the metadata keys whose values must not have changed.
pub struct ContinueParquet<'a> {
    pub tick: u64,
    pub last_row_tick: u64,
    pub same: &'a [&'a str],
}

/// Opens the Parquet file a resumed run was writing, to go on after `at.tick`: its row groups
/// past that tick are cut off (the writer closes a group at every flush, so those up to a
/// checkpoint are whole), and writing continues after the rest. Refused, with the reason, if
/// the file was written with other columns or settings or does not reach the checkpoint.
pub fn continue_file(
    path: &Path,
    what: &'static str,
    columns: Vec<Column>,
    key_values: &[(String, String)],
    size: GroupSize,
    at: ContinueParquet,
) -> Result<ParquetTable> {
    let cannot = |why: String| anyhow!("cannot continue {what} {}: {why}", path.display());
    if !path.is_file() {
        return Err(cannot("it does not exist".into()));
    }
    let (meta, _) = metadata(path).map_err(|e| cannot(e.to_string()))?;
    let file_meta = meta.file_metadata();
    let names: Vec<&str> = file_meta.schema_descr().columns().iter().map(|c| c.name()).collect();
    let ours: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    if names != ours || super::table::schema(&columns)?.as_ref() != file_meta.schema() {
        return Err(cannot(format!("it has the columns {names:?}, this run writes {ours:?}")));
    }
    let stored = |key: &str| {
        file_meta
            .key_value_metadata()
            .and_then(|kv| kv.iter().find(|e| e.key == key))
            .and_then(|e| e.value.clone())
    };
    for key in at.same {
        let now = key_values.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        if stored(key) != now {
            return Err(cannot(format!(
                "it was written with {key} = {}, this run has {}",
                stored(key).unwrap_or_else(|| "nothing".into()),
                now.unwrap_or_else(|| "nothing".into())
            )));
        }
    }
    let groups = meta.row_groups();
    let mut keep = 0;
    while keep < groups.len() && last_tick(&groups[keep]).is_some_and(|t| t >= 0 && t as u64 <= at.tick) {
        keep += 1;
    }
    let reached = keep.checked_sub(1).and_then(|k| last_tick(&groups[k]));
    if reached != Some(at.last_row_tick as i64) {
        return Err(cannot(format!(
            "it holds rows up to tick {}, the checkpoint needs them up to tick {}",
            reached.map_or("(none)".into(), |t| t.to_string()),
            at.last_row_tick
        )));
    }
    let kept = &groups[..keep];
    let end = end_of(kept);
    let source = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let file = open_at(path, end).with_context(|| format!("cannot write {}", path.display()))?;
    // The writer writes the kept row groups again from the start: those bytes are already
    // there, so the sink drops them and the writer's offsets come out as the file's.
    let mut table = ParquetTable::start(path, what, columns, key_values, size, Sink { file, skip: end })?;
    let fail = |e: parquet::errors::ParquetError| cannot(e.to_string());
    for group in kept {
        let mut out = table.writer().next_row_group().map_err(fail)?;
        for column in group.columns() {
            let close = ColumnCloseResult {
                bytes_written: column.compressed_size() as u64,
                rows_written: group.num_rows() as u64,
                metadata: column.clone(),
                bloom_filter: None,
                column_index: None,
                offset_index: None,
            };
            out.append_column(&source, close).map_err(fail)?;
        }
        out.close().map_err(fail)?;
    }
    table.writer().flush().with_context(|| format!("cannot write {}", path.display()))?;
    if table.writer().inner().skip != 0 {
        return Err(cannot("its row groups are not where its footer says".into()));
    }
    table.flush()?;
    Ok(table)
}
