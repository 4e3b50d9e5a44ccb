//! Output files of a run, each written from one column list: the trace (positions and
//! velocities per agent per tick) as CSV, Parquet, SQLite in JuPedSim's layout or PedPy's
//! text, and the per-tick metrics as CSV or Parquet, each with its metadata and continued, not
//! overwritten, by a resumed run.

mod file;
mod meta;
mod metrics;
pub mod parquet;
mod pedpy_txt;
mod sqlite;
mod trace;
mod walkable;

use std::path::Path;

use anyhow::Result;
use throng_engine::World;
use throng_engine::metrics::TickMetrics;

pub use meta::RunInfo;
pub use metrics::MetricsCsv;
pub use parquet::{MetricsParquet, TraceParquet};
pub use pedpy_txt::TraceTxt;
pub use sqlite::TraceSqlite;
pub use trace::{TRACE_COLUMNS, TRACE_COLUMNS_WITHOUT_RADIUS, TRACE_COLUMNS_WITHOUT_TIME, TraceCsv};

/// A trace being written, in the format its file's extension names: `.sqlite` or `.db`
/// JuPedSim's SQLite layout, `.txt` PedPy's text format, `.parquet` Parquet, anything else CSV.
pub enum Trace {
    Csv(TraceCsv),
    Sqlite(TraceSqlite),
    Txt(TraceTxt),
    Parquet(TraceParquet),
}

/// Whether `path` names a Parquet file (`.parquet`).
pub fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

impl Trace {
    /// Whether `path` names a SQLite trace.
    pub fn is_sqlite(path: &Path) -> bool {
        path.extension().is_some_and(|e| e.eq_ignore_ascii_case("sqlite") || e.eq_ignore_ascii_case("db"))
    }

    /// Opens the trace (see [`TraceCsv::open`], [`TraceSqlite::open`]).
    pub fn open(
        path: &Path,
        world: &World,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<Trace> {
        let txt = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("txt"));
        Ok(if Self::is_sqlite(path) {
            Trace::Sqlite(TraceSqlite::open(path, world, run, every, resumed_at)?)
        } else if txt {
            Trace::Txt(TraceTxt::open(path, world, run, every, resumed_at)?)
        } else if is_parquet(path) {
            Trace::Parquet(TraceParquet::open(path, world, run, every, resumed_at)?)
        } else {
            Trace::Csv(TraceCsv::open(path, world, run, every, resumed_at)?)
        })
    }

    /// Writes every agent of `world`.
    pub fn write(&mut self, world: &World) -> Result<()> {
        match self {
            Trace::Csv(t) => t.write(world),
            Trace::Sqlite(t) => t.write(world),
            Trace::Txt(t) => t.write(world),
            Trace::Parquet(t) => t.write(world),
        }
    }

    /// Puts what is written on disk, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        match self {
            Trace::Csv(t) => t.flush(),
            Trace::Sqlite(t) => t.flush(),
            Trace::Txt(t) => t.flush(),
            Trace::Parquet(t) => t.flush(),
        }
    }

    pub fn finish(self) -> Result<()> {
        match self {
            Trace::Csv(t) => t.finish(),
            Trace::Sqlite(t) => t.finish(),
            Trace::Txt(t) => t.finish(),
            Trace::Parquet(t) => t.finish(),
        }
    }
}

/// The per-tick metrics being written: Parquet for a `.parquet` file, CSV otherwise.
pub enum Metrics {
    Csv(MetricsCsv),
    Parquet(MetricsParquet),
}

impl Metrics {
    /// Opens the metrics file (see [`MetricsCsv::open`], [`MetricsParquet::open`]).
    pub fn open(path: &Path, world: &World, run: &RunInfo, resumed_at: Option<u64>) -> Result<Metrics> {
        Ok(if is_parquet(path) {
            Metrics::Parquet(MetricsParquet::open(path, world, run, resumed_at)?)
        } else {
            Metrics::Csv(MetricsCsv::open(path, world, run, resumed_at)?)
        })
    }

    /// Writes the row of `m`, observed on `world`.
    pub fn write(&mut self, m: &TickMetrics, world: &World) -> Result<()> {
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
