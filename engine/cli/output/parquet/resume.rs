//! A Parquet file a killed run left without its footer: made readable (`throng recover`), or
//! cut back to a checkpoint's tick and continued by a resumed run, with the footer kept beside
//! it (footer.rs).

use std::fs::File;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::RowGroupMetaData;
use parquet::file::statistics::Statistics;

use super::footer::{end_of, footer_path, metadata, remove};
use super::table::{Column, GroupSize, ParquetTable, Sink, open_at};

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
