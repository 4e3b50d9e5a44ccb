//! A table written to a Parquet file as a run goes: typed columns buffered for one row group,
//! written out when the group is full or at a flush, with the file's footer kept beside it
//! (see [`super::footer`]) so a killed run's complete row groups can be recovered.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use parquet::basic::{Compression, Encoding, LogicalType, Repetition, Type as Physical, ZstdLevel};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, FloatType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type};

use super::footer;

/// What a column holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Whole numbers (INT64, delta-encoded: ticks and ids cost almost nothing).
    Int,
    /// 32-bit floats, as the engine holds positions (byte-stream split, which zstd compresses
    /// well).
    F32,
    /// 64-bit floats.
    F64,
    /// 64-bit floats that repeat within a row group (a trace's time): dictionary-encoded.
    F64Repeated,
    /// UTF-8 text, dictionary-encoded (group names, event names).
    Text,
}

/// A column of the table: its name, what it holds, and whether a row may have no value.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub kind: Kind,
    pub nullable: bool,
}

impl Column {
    /// A column every row has a value in.
    pub fn new(name: impl Into<String>, kind: Kind) -> Column {
        Column { name: name.into(), kind, nullable: false }
    }

    /// A column a row may leave empty ([`Cell::Null`]).
    pub fn nullable(name: impl Into<String>, kind: Kind) -> Column {
        Column { name: name.into(), kind, nullable: true }
    }
}

/// One value of a row (see [`ParquetTable::push_row`]).
pub enum Cell<'a> {
    Int(i64),
    F64(f64),
    Text(&'a str),
    /// No value (only in a nullable column).
    Null,
}

/// The values of one column waiting for their row group.
pub enum Values {
    Int(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    Text(Vec<ByteArray>),
}

impl Values {
    fn of(kind: Kind) -> Values {
        match kind {
            Kind::Int => Values::Int(Vec::new()),
            Kind::F32 => Values::F32(Vec::new()),
            Kind::F64 | Kind::F64Repeated => Values::F64(Vec::new()),
            Kind::Text => Values::Text(Vec::new()),
        }
    }
}

/// The Parquet schema of `columns` (flat; required unless nullable).
pub(super) fn schema(columns: &[Column]) -> Result<Arc<Type>> {
    let fields = columns
        .iter()
        .map(|c| {
            let (physical, logical) = match c.kind {
                Kind::Int => (Physical::INT64, None),
                Kind::F32 => (Physical::FLOAT, None),
                Kind::F64 | Kind::F64Repeated => (Physical::DOUBLE, None),
                Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            };
            let repetition = if c.nullable { Repetition::OPTIONAL } else { Repetition::REQUIRED };
            Type::primitive_type_builder(&c.name, physical)
                .with_repetition(repetition)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
        })
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    Ok(Arc::new(Type::group_type_builder("throng").with_fields(fields).build()?))
}

/// How the file is written: zstd, per-column encodings, statistics per column chunk (a
/// resumed run reads the ticks a row group holds from them), no page index (the footer kept
/// beside the file must be the whole footer), and the run's key-value metadata.
fn properties(columns: &[Column], key_values: &[(String, String)]) -> Result<Arc<WriterProperties>> {
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true)
        .set_created_by(format!("throng {}", throng_engine::state::checkpoint::ENGINE_VERSION))
        .set_key_value_metadata(Some(
            key_values.iter().map(|(k, v)| KeyValue::new(k.clone(), v.clone())).collect(),
        ));
    for c in columns {
        let path = ColumnPath::from(c.name.as_str());
        props = match c.kind {
            Kind::Int => props.set_column_encoding(path, Encoding::DELTA_BINARY_PACKED),
            Kind::F32 => props.set_column_encoding(path, Encoding::BYTE_STREAM_SPLIT),
            Kind::F64 => props,
            Kind::F64Repeated | Kind::Text => props.set_column_dictionary_enabled(path, true),
        };
    }
    Ok(Arc::new(props.build()))
}

/// The file under the Parquet writer. A continued file already holds the bytes the writer
/// re-emits for the row groups it keeps (see [`continue_file`](super::resume::continue_file)): the first `skip`
/// bytes written are those, and are dropped.
pub(super) struct Sink {
    pub(super) file: File,
    pub(super) skip: u64,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.skip > 0 {
            let n = (self.skip as usize).min(buf.len());
            self.skip -= n as u64;
            return Ok(n);
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// When a row group is written out: after this many rows, or this many batches (ticks).
#[derive(Clone, Copy)]
pub struct GroupSize {
    pub rows: usize,
    pub batches: usize,
}

/// A Parquet table being written.
pub struct ParquetTable {
    path: PathBuf,
    /// "trace file", "metrics file": for messages.
    what: &'static str,
    writer: SerializedFileWriter<Sink>,
    values: Vec<Values>,
    /// Per nullable column, whether each buffered row has a value (Parquet's definition
    /// levels, 1 or 0); `None` for a required column.
    defined: Vec<Option<Vec<i16>>>,
    /// Rows and batches buffered for the next row group.
    rows: usize,
    batches: usize,
    size: GroupSize,
    /// Whether the footer is kept beside the file while it is written (a file written as a
    /// run goes); a file written whole under a temporary name does without.
    footer_beside: bool,
}

impl ParquetTable {
    /// Creates the file (replacing any old one, and the footer an unfinished one left).
    pub fn create(
        path: &Path,
        what: &'static str,
        columns: Vec<Column>,
        key_values: &[(String, String)],
        size: GroupSize,
    ) -> Result<ParquetTable> {
        footer::remove(path).with_context(|| format!("cannot replace {what} {}", path.display()))?;
        let file = File::create(path).with_context(|| format!("cannot create {what} {}", path.display()))?;
        let mut table = Self::start(path, what, columns, key_values, size, Sink { file, skip: 0 })?;
        table.save_footer()?;
        Ok(table)
    }

    /// A writer over `sink` (a new file, or a continued one positioned at its end). The footer
    /// beside the file is left as it is until the first row group or flush.
    pub(super) fn start(
        path: &Path,
        what: &'static str,
        columns: Vec<Column>,
        key_values: &[(String, String)],
        size: GroupSize,
        sink: Sink,
    ) -> Result<ParquetTable> {
        let writer = SerializedFileWriter::new(sink, schema(&columns)?, properties(&columns, key_values)?)
            .map_err(|e| anyhow!("cannot write {what} {}: {e}", path.display()))?;
        let values = columns.iter().map(|c| Values::of(c.kind)).collect();
        let defined = columns.iter().map(|c| c.nullable.then(Vec::new)).collect();
        Ok(ParquetTable {
            path: path.to_owned(),
            what,
            writer,
            values,
            defined,
            rows: 0,
            batches: 0,
            size: GroupSize { rows: size.rows.max(1), batches: size.batches.max(1) },
            footer_beside: true,
        })
    }

    /// The writer, for [`continue_file`](super::resume::continue_file) to re-emit the row groups it keeps.
    pub(super) fn writer(&mut self) -> &mut SerializedFileWriter<Sink> {
        &mut self.writer
    }

    /// The buffers of the next row group, one per column in order: push the same number of
    /// values to each, then call [`Self::end_batch`]. For required columns only.
    pub fn values_mut(&mut self) -> &mut [Values] {
        &mut self.values
    }

    /// Appends one row; its cells must match the columns' kinds (or be `Null` in a nullable
    /// column).
    pub fn push_row(&mut self, cells: &[Cell]) -> Result<()> {
        if cells.len() != self.values.len() {
            bail!("a row of {} values for {} columns", cells.len(), self.values.len());
        }
        for ((cell, values), defined) in cells.iter().zip(&mut self.values).zip(&mut self.defined) {
            match (cell, values, defined) {
                (Cell::Null, _, Some(d)) => d.push(0),
                (Cell::Null, _, None) => bail!("no value for a column that needs one"),
                (cell, values, defined) => {
                    match (cell, values) {
                        (Cell::Int(x), Values::Int(v)) => v.push(*x),
                        (Cell::F64(x), Values::F64(v)) => v.push(*x),
                        (Cell::Text(s), Values::Text(v)) => v.push(ByteArray::from(*s)),
                        _ => bail!("a value of the wrong kind for its column"),
                    }
                    if let Some(d) = defined {
                        d.push(1);
                    }
                }
            }
        }
        Ok(())
    }

    /// Ends a batch of rows that belong together (a tick): the row group is written out once
    /// it holds enough rows or batches, never in the middle of a batch.
    pub fn end_batch(&mut self) -> Result<()> {
        self.rows = self.buffered_rows();
        self.batches += 1;
        if self.rows >= self.size.rows || self.batches >= self.size.batches {
            self.write_group()?;
        }
        Ok(())
    }

    /// The rows buffered (those of the first column).
    fn buffered_rows(&self) -> usize {
        match (self.defined.first(), self.values.first()) {
            (Some(Some(d)), _) => d.len(),
            (_, Some(v)) => values_len(v),
            _ => 0,
        }
    }

    /// Writes the buffered rows as a row group, puts them on disk and the footer beside them.
    fn write_group(&mut self) -> Result<()> {
        let (path, what) = (self.path.clone(), self.what);
        self.rows = self.buffered_rows();
        let fail = |e: parquet::errors::ParquetError| anyhow!("cannot write {what} {}: {e}", path.display());
        let mut lengths = self.values.iter().zip(&self.defined).map(|(v, d)| match d {
            Some(d) => (d.len(), d.iter().filter(|&&x| x == 1).count() == values_len(v)),
            None => (values_len(v), true),
        });
        if lengths.any(|(n, consistent)| n != self.rows || !consistent) {
            bail!("cannot write {what} {}: columns of different lengths", path.display());
        }
        if self.rows > 0 {
            let mut group = self.writer.next_row_group().map_err(fail)?;
            for (values, defined) in self.values.iter_mut().zip(&mut self.defined) {
                let mut column =
                    group.next_column().map_err(fail)?.ok_or_else(|| anyhow!("too few columns"))?;
                let def = defined.as_deref();
                match values {
                    Values::Int(v) => {
                        column.typed::<Int64Type>().write_batch(v, def, None).map(|_| v.clear())
                    }
                    Values::F32(v) => {
                        column.typed::<FloatType>().write_batch(v, def, None).map(|_| v.clear())
                    }
                    Values::F64(v) => {
                        column.typed::<DoubleType>().write_batch(v, def, None).map(|_| v.clear())
                    }
                    Values::Text(v) => {
                        column.typed::<ByteArrayType>().write_batch(v, def, None).map(|_| v.clear())
                    }
                }
                .map_err(fail)?;
                if let Some(d) = defined {
                    d.clear();
                }
                column.close().map_err(fail)?;
            }
            group.close().map_err(fail)?;
        }
        self.rows = 0;
        self.batches = 0;
        self.save_footer()
    }

    /// Flushes the file to disk, then replaces the footer kept beside it with one naming every
    /// row group written: a kill at any moment leaves a footer whose row groups are all whole.
    fn save_footer(&mut self) -> Result<()> {
        let (path, what) = (self.path.clone(), self.what);
        let fail = |e: std::io::Error| anyhow!("cannot write {what} {}: {e}", path.display());
        self.writer.flush().map_err(fail)?;
        if !self.footer_beside {
            return Ok(());
        }
        self.writer.inner().file.sync_data().map_err(fail)?;
        footer::save(&path, &self.writer).with_context(|| format!("cannot write {what} {}", path.display()))
    }

    /// Writes out what is buffered as a row group, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.write_group()
    }

    /// Writes the rest and the file's own footer; the footer beside it is removed.
    pub fn finish(mut self) -> Result<()> {
        self.write_group()?;
        let (path, what) = (self.path.clone(), self.what);
        self.writer.finish().map_err(|e| anyhow!("cannot write {what} {}: {e}", path.display()))?;
        self.writer
            .inner()
            .file
            .sync_data()
            .with_context(|| format!("cannot write {what} {}", path.display()))?;
        footer::remove(&path).with_context(|| format!("cannot write {what} {}", path.display()))
    }
}

/// Writes a whole table to `path` atomically: to a temporary file beside it (named as
/// `write_atomically`'s, so a batch's start removes one a crash left), filled by `fill`,
/// closed, put on disk, then renamed over `path`. Readers see the old file or the new one.
pub fn write_whole(
    path: &Path,
    what: &'static str,
    columns: Vec<Column>,
    key_values: &[(String, String)],
    fill: impl FnOnce(&mut ParquetTable) -> Result<()>,
) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let file = File::create(&tmp).with_context(|| format!("cannot create {what} {}", tmp.display()))?;
        let size = GroupSize { rows: 1 << 20, batches: usize::MAX };
        let mut table = ParquetTable::start(path, what, columns, key_values, size, Sink { file, skip: 0 })?;
        table.footer_beside = false;
        fill(&mut table)?;
        table.write_group()?;
        table.writer.finish().map_err(|e| anyhow!("cannot write {what} {}: {e}", path.display()))?;
        table
            .writer
            .inner()
            .file
            .sync_all()
            .with_context(|| format!("cannot write {what} {}", path.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {what} {}", path.display()))?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn values_len(v: &Values) -> usize {
    match v {
        Values::Int(v) => v.len(),
        Values::F32(v) => v.len(),
        Values::F64(v) => v.len(),
        Values::Text(v) => v.len(),
    }
}

/// Opens `path` for writing after its first `len` bytes (the rest cut off).
pub(super) fn open_at(path: &Path, len: u64) -> std::io::Result<File> {
    let file = OpenOptions::new().write(true).open(path)?;
    file.set_len(len)?;
    let mut file = file;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(len))?;
    Ok(file)
}
