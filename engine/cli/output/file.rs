//! An output CSV of a run, opened either fresh (created, with its header) or to continue a
//! resumed run: rows past the checkpoint's tick (and any half-written last line) are cut off
//! and the run appends from there, so the finished file equals an uninterrupted run's. Rows
//! reach the file whole ([`WholeRows`]), so a run killed outright between two writes leaves no
//! torn row; killed inside one, the kernel may cut the write short, leaving an unfinished last
//! line that continuing cuts off.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The writer of an output CSV.
pub type CsvWriter = csv::Writer<WholeRows>;

/// Buffers what the CSV writer hands over and writes only whole rows (up to a newline) to the
/// file, 64 KiB at a time: a process killed between two writes leaves every row whole. (A
/// quoted field holding a newline could be split; the run's files hold names and numbers.)
pub struct WholeRows {
    file: File,
    pending: Vec<u8>,
}

impl WholeRows {
    pub(super) fn new(file: File) -> WholeRows {
        WholeRows { file, pending: Vec::with_capacity(1 << 17) }
    }

    /// Writes the complete rows pending.
    fn write_rows(&mut self) -> std::io::Result<()> {
        if let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') {
            self.file.write_all(&self.pending[..=end])?;
            self.pending.drain(..=end);
        }
        Ok(())
    }
}

impl Write for WholeRows {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        if self.pending.len() >= 1 << 16 {
            self.write_rows()?;
        }
        Ok(buf.len())
    }

    /// Writes every complete row (the CSV writer flushes between records, so that is all).
    fn flush(&mut self) -> std::io::Result<()> {
        self.write_rows()?;
        self.file.flush()
    }
}

/// Where a continued file must pick up: the checkpoint's tick, and the last tick whose rows
/// the file must already hold (the checkpoint's, or the last one written before it).
pub struct ContinueAt {
    pub tick: u64,
    pub last_row_tick: u64,
}

/// Opens the output CSV `path` (`what` names it in errors, e.g. "trace file"), whose first
/// column is the tick: a fresh file with `header`, or, with `at`, the existing file cut back to
/// its rows up to `at.tick`.
pub fn open(path: &Path, what: &str, header: &[String], at: Option<ContinueAt>) -> Result<CsvWriter> {
    let Some(at) = at else {
        let file = File::create(path).with_context(|| format!("cannot create {what} {}", path.display()))?;
        let mut writer = csv::Writer::from_writer(WholeRows::new(file));
        writer.write_record(header).with_context(|| format!("cannot write {what} {}", path.display()))?;
        // The header at once: from the start the file is a CSV, if an empty one.
        writer.flush().with_context(|| format!("cannot write {what} {}", path.display()))?;
        return Ok(writer);
    };
    let keep = rows_up_to(path, what, header, &at)?;
    let mut file = OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open {what} {} to continue it", path.display()))?;
    file.set_len(keep).with_context(|| format!("cannot cut {what} {} back", path.display()))?;
    file.seek(SeekFrom::End(0))?;
    Ok(csv::Writer::from_writer(WholeRows::new(file)))
}

/// The length of `path`'s header and rows up to `at.tick`, after checking the header and that
/// the rows reach `at.last_row_tick`.
fn rows_up_to(path: &Path, what: &str, header: &[String], at: &ContinueAt) -> Result<u64> {
    let shown = path.display();
    let file = File::open(path).with_context(|| {
        format!(
            "cannot continue {what} {shown}, which the resumed run was writing (was it moved or deleted?)"
        )
    })?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut keep = reader.read_until(b'\n', &mut line)? as u64;
    let mut expected = csv::Writer::from_writer(Vec::new());
    expected.write_record(header)?;
    let expected = expected.into_inner().map_err(|e| e.into_error())?;
    if line != expected {
        let first = String::from_utf8_lossy(&expected).trim_end().to_string();
        bail!("{shown}: not the {what} this run writes (its first line should be `{first}`)");
    }
    let mut last = None;
    for number in 2u64.. {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 || !line.ends_with(b"\n") {
            break; // the end, or a line cut short when the run was stopped
        }
        let first = line.split(|&b| b == b',').next().unwrap_or_default();
        let tick: u64 = std::str::from_utf8(first)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .with_context(|| format!("{shown}:{number}: a row should start with its tick"))?;
        if tick > at.tick {
            break;
        }
        keep += n as u64;
        last = Some(tick);
    }
    if last != Some(at.last_row_tick) {
        let ends = last.map_or("has no rows".to_string(), |t| format!("ends at tick {t}"));
        bail!(
            "{shown} {ends}, but the checkpoint is at tick {}: the {what} cannot be continued from \
             there. Resume from an earlier checkpoint (--resume FILE) that the {what} reaches, or \
             start the run again",
            at.tick
        );
    }
    Ok(keep)
}
