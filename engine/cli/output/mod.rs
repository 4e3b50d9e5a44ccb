//! Output files of a run, each written from one column list: the trace (positions and
//! velocities per agent per tick) as CSV, Parquet, SQLite in JuPedSim's layout or PedPy's
//! text, and the per-tick metrics as CSV or Parquet, each with its metadata and continued, not
//! overwritten, by a resumed run.

mod file;
mod frame;
mod meta;
mod metrics;
pub mod parquet;
mod pedpy_txt;
mod sqlite;
mod trace;
mod walkable;

use crate::dimension::CliDimension;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow, bail};
use throng_engine::World;
use throng_engine::metrics::TickMetrics;

pub use frame::Frame;
pub use meta::RunInfo;
pub use metrics::MetricsCsv;
pub use parquet::{MetricsParquet, TraceParquet};
pub use pedpy_txt::TraceTxt;
pub use sqlite::TraceSqlite;
pub use trace::{
    TRACE_COLUMNS, TRACE_COLUMNS_IN_SPACE, TRACE_COLUMNS_WITHOUT_RADIUS, TRACE_COLUMNS_WITHOUT_TIME, TraceCsv,
};

/// The formats a trace is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// CSV with a header, and FILE.meta.json beside it.
    Csv,
    /// Parquet (zstd), the run in its key-value metadata.
    Parquet,
    /// SQLite in JuPedSim's trajectory layout (PedPy reads it).
    Sqlite,
    /// PedPy's text format (`id frame x y`).
    Txt,
}

impl TraceFormat {
    /// The format `given`, else the one `path`'s extension names: `.parquet` Parquet,
    /// `.sqlite` or `.db` SQLite, `.txt` PedPy's text, anything else CSV.
    pub fn of(path: &Path, given: Option<TraceFormat>) -> TraceFormat {
        let ext = |names: &[&str]| {
            path.extension().is_some_and(|e| names.iter().any(|n| e.eq_ignore_ascii_case(n)))
        };
        given.unwrap_or(if ext(&["parquet"]) {
            TraceFormat::Parquet
        } else if ext(&["sqlite", "db"]) {
            TraceFormat::Sqlite
        } else if ext(&["txt"]) {
            TraceFormat::Txt
        } else {
            TraceFormat::Csv
        })
    }
}

/// The formats the per-tick metrics are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricsFormat {
    /// CSV with a header, and FILE.meta.json beside it.
    Csv,
    /// Parquet (zstd), the run in its key-value metadata.
    Parquet,
}

impl MetricsFormat {
    /// The format `given`, else Parquet for a `.parquet` file and CSV otherwise.
    pub fn of(path: &Path, given: Option<MetricsFormat>) -> MetricsFormat {
        let parquet = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
        given.unwrap_or(if parquet { MetricsFormat::Parquet } else { MetricsFormat::Csv })
    }
}

/// A trace's writer, in its [`TraceFormat`].
enum TraceWriter {
    Csv(TraceCsv),
    Sqlite(TraceSqlite),
    Txt(TraceTxt),
    Parquet(TraceParquet),
}

impl TraceWriter {
    fn write(&mut self, frame: &Frame, geometry: Option<&str>) -> Result<()> {
        match self {
            TraceWriter::Csv(t) => t.write(frame),
            TraceWriter::Sqlite(t) => t.write(frame, geometry),
            TraceWriter::Txt(t) => t.write(frame),
            TraceWriter::Parquet(t) => t.write(frame),
        }
    }

    fn flush(&mut self) -> Result<()> {
        match self {
            TraceWriter::Csv(t) => t.flush(),
            TraceWriter::Sqlite(t) => t.flush(),
            TraceWriter::Txt(t) => t.flush(),
            TraceWriter::Parquet(t) => t.flush(),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            TraceWriter::Csv(t) => t.finish(),
            TraceWriter::Sqlite(t) => t.finish(),
            TraceWriter::Txt(t) => t.finish(),
            TraceWriter::Parquet(t) => t.finish(),
        }
    }
}

/// What the run's thread asks of the trace's thread.
enum Message {
    /// A frame, with the walkable area as WKT when the trace keeps it and it changed since the
    /// last frame (the first frame, a door opened or closed).
    Frame(Box<Frame>, Option<String>),
    /// Put everything written on disk, then answer.
    Flush(mpsc::SyncSender<Result<()>>),
}

/// A trace being written. Each traced tick is copied out of the world on the run's thread (a
/// [`Frame`], agents in id order) and written on a thread of the trace's own, so encoding and
/// I/O overlap the next ticks; at most two frames wait, so memory stays bounded. A flush
/// (before each checkpoint) and the finish wait until everything is written.
pub struct Trace {
    sender: Option<mpsc::SyncSender<Message>>,
    thread: Option<JoinHandle<Result<()>>>,
    /// Whether frames carry the walkable area (SQLite keeps it), and the doors' states of the
    /// last frame (a new area when they change).
    geometry: bool,
    doors: Option<Vec<bool>>,
}

impl Trace {
    /// Opens the trace (see [`TraceCsv::open`], [`TraceSqlite::open`], ...) and starts its
    /// thread.
    pub fn open<V: CliDimension>(
        path: &Path,
        format: TraceFormat,
        world: &World<V>,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<Trace> {
        let plane = match (format, V::plane(world)) {
            (TraceFormat::Sqlite | TraceFormat::Txt, None) => bail!(
                "{}: {} trajectories are planar (PedPy and JuPedSim read x and y): a run in space writes its trace as CSV or Parquet (x, y, z)",
                path.display(),
                if format == TraceFormat::Sqlite { "SQLite" } else { "PedPy's text" }
            ),
            (_, plane) => plane,
        };
        let mut writer = match (format, plane) {
            (TraceFormat::Sqlite, Some(world)) => {
                TraceWriter::Sqlite(TraceSqlite::open(path, world, run, every, resumed_at)?)
            }
            (TraceFormat::Txt, Some(world)) => {
                TraceWriter::Txt(TraceTxt::open(path, world, run, every, resumed_at)?)
            }
            (TraceFormat::Parquet, _) => {
                TraceWriter::Parquet(TraceParquet::open(path, world, run, every, resumed_at)?)
            }
            (_, _) => TraceWriter::Csv(TraceCsv::open(path, world, run, every, resumed_at)?),
        };
        let (sender, frames) = mpsc::sync_channel::<Message>(1);
        let thread = std::thread::Builder::new()
            .name("throng-trace".into())
            .spawn(move || -> Result<()> {
                for message in frames {
                    match message {
                        Message::Frame(frame, geometry) => writer.write(&frame, geometry.as_deref())?,
                        Message::Flush(answer) => {
                            let result = writer.flush();
                            let failed = result.as_ref().err().map(|e| format!("{e:#}"));
                            let _ = answer.send(result);
                            if let Some(e) = failed {
                                return Err(anyhow!(e));
                            }
                        }
                    }
                }
                writer.finish()
            })
            .context("cannot start the trace's writer thread")?;
        Ok(Trace {
            sender: Some(sender),
            thread: Some(thread),
            geometry: format == TraceFormat::Sqlite,
            doors: None,
        })
    }

    /// The error the trace's thread stopped with (it stops at its first).
    fn stopped(&mut self) -> anyhow::Error {
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => e,
            Some(Err(_)) => anyhow!("the trace's writer thread failed"),
            _ => anyhow!("the trace's writer thread has stopped"),
        }
    }

    fn send(&mut self, message: Message) -> Result<()> {
        match &self.sender {
            Some(s) if s.send(message).is_ok() => Ok(()),
            _ => Err(self.stopped()),
        }
    }

    /// Writes every agent of `world` (copied here, written on the trace's thread).
    pub fn write<V: CliDimension>(&mut self, world: &World<V>) -> Result<()> {
        let mut geometry = None;
        if let (true, Some(world)) = (self.geometry, V::plane(world)) {
            let doors: Vec<bool> = world.scene.doors.iter().map(|d| d.closed).collect();
            if self.doors.as_ref() != Some(&doors) {
                geometry = Some(walkable::wkt(world));
                self.doors = Some(doors);
            }
        }
        self.send(Message::Frame(Box::new(Frame::of(world)), geometry))
    }

    /// Puts everything written on disk, e.g. before a checkpoint, and waits for it.
    pub fn flush(&mut self) -> Result<()> {
        let (answer, done) = mpsc::sync_channel(1);
        self.send(Message::Flush(answer))?;
        match done.recv() {
            Ok(result) => result,
            Err(_) => Err(self.stopped()),
        }
    }

    /// Writes the rest, closes the file and ends the trace's thread.
    pub fn finish(mut self) -> Result<()> {
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(anyhow!("the trace's writer thread failed")),
            None => Ok(()),
        }
    }
}

impl Drop for Trace {
    /// A trace dropped on an error path still closes its file before the process goes on.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The per-tick metrics being written, in its [`MetricsFormat`].
pub enum Metrics {
    Csv(MetricsCsv),
    Parquet(MetricsParquet),
}

impl Metrics {
    /// Opens the metrics file (see [`MetricsCsv::open`], [`MetricsParquet::open`]).
    pub fn open<V: CliDimension>(
        path: &Path,
        format: MetricsFormat,
        world: &World<V>,
        run: &RunInfo,
        resumed_at: Option<u64>,
    ) -> Result<Metrics> {
        Ok(match format {
            MetricsFormat::Parquet => Metrics::Parquet(MetricsParquet::open(path, world, run, resumed_at)?),
            MetricsFormat::Csv => Metrics::Csv(MetricsCsv::open(path, world, run, resumed_at)?),
        })
    }

    /// Writes the row of `m`, observed on `world`.
    pub fn write<V: CliDimension>(&mut self, m: &TickMetrics, world: &World<V>) -> Result<()> {
        match self {
            Metrics::Csv(f) => f.write(m, world),
            Metrics::Parquet(f) => f.write(m, world),
        }
    }

    /// Puts what is written on disk, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        match self {
            Metrics::Csv(f) => f.flush(),
            Metrics::Parquet(f) => f.flush(),
        }
    }

    pub fn finish(self) -> Result<()> {
        match self {
            Metrics::Csv(f) => f.finish(),
            Metrics::Parquet(f) => f.finish(),
        }
    }
}

/// Simulated time as the scenario's step writes it: `0.1` rather than 0.10000000149011612,
/// `20.1` rather than 20.10000029951334. The f32 step's shortest decimal form is taken as the
/// step the user wrote, and times are printed to as many decimals as it has.
pub(crate) struct Seconds {
    dt: f64,
    decimals: usize,
}

impl Seconds {
    pub(crate) fn of(dt: f32) -> Seconds {
        let text = dt.to_string();
        Seconds {
            dt: text.parse().unwrap_or(dt as f64),
            decimals: text.split_once('.').map_or(0, |(_, d)| d.len()),
        }
    }

    /// The time at the end of tick `tick`.
    pub(crate) fn at(&self, tick: u64) -> String {
        format!("{:.*}", self.decimals, tick as f64 * self.dt)
    }
}

#[cfg(test)]
mod tests {
    use super::Seconds;

    #[test]
    fn times_read_as_the_step_was_written() {
        let s = Seconds::of(0.1);
        assert_eq!((s.at(1), s.at(201), s.at(0)), ("0.1".into(), "20.1".into(), "0.0".into()));
        let s = Seconds::of(0.05);
        assert_eq!((s.at(3), s.at(2000)), ("0.15".into(), "100.00".into()));
        assert_eq!(Seconds::of(1.0).at(7), "7");
    }
}
