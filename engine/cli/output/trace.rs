//! The trace CSV: one row per agent per traced tick, agents in id order.

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use throng_engine::World;

use super::Seconds;
use super::file::{self, ContinueAt, CsvWriter};
use super::frame::Frame;
use super::meta::{self, RunInfo};

/// The trace's columns, in file order; `throng render` reads files by these names.
pub const TRACE_COLUMNS: [&str; 9] = ["tick", "time_s", "id", "group", "x", "y", "vx", "vy", "radius"];

/// The columns of a run in space's trace: the plane's with `z` after `y` and `vz` after `vy`.
pub const TRACE_COLUMNS_IN_SPACE: [&str; 11] =
    ["tick", "time_s", "id", "group", "x", "y", "z", "vx", "vy", "vz", "radius"];

/// The trace columns of a run in `dimensions` (2 or 3).
pub fn trace_columns(dimensions: usize) -> &'static [&'static str] {
    if dimensions == 3 { &TRACE_COLUMNS_IN_SPACE } else { &TRACE_COLUMNS }
}

/// The columns of traces written before `radius` was added; `throng render` still reads them.
pub const TRACE_COLUMNS_WITHOUT_RADIUS: [&str; 8] = ["tick", "time_s", "id", "group", "x", "y", "vx", "vy"];

/// The columns of traces written before `time_s` was added; `throng render` still reads them.
pub const TRACE_COLUMNS_WITHOUT_TIME: [&str; 7] = ["tick", "id", "group", "x", "y", "vx", "vy"];

/// The values of the `k`-th agent of `frame`, in [`trace_columns`] order (z and vz when the
/// frame has them).
fn row(frame: &Frame, groups: &[String], time: &str, k: usize, out: &mut Vec<String>) {
    let (p, v) = (frame.position[k], frame.velocity[k]);
    let space = !frame.z.is_empty();
    out.clear();
    out.extend([frame.tick.to_string(), time.to_string(), frame.id[k].to_string()]);
    out.push(groups[frame.group[k] as usize].clone());
    out.extend([number(p.x), number(p.y)]);
    if space {
        out.push(number(frame.z[k]));
    }
    out.extend([number(v.x), number(v.y)]);
    if space {
        out.push(number(frame.vz[k]));
    }
    out.push(number(frame.radius[k]));
}

/// A coordinate in its shortest round-trip form, never `-0` (adding +0 turns -0 into 0).
fn number(x: f32) -> String {
    (x + 0.0).to_string()
}

/// A trace being written.
pub struct TraceCsv {
    path: PathBuf,
    writer: CsvWriter,
    seconds: Seconds,
    groups: Vec<String>,
}

impl TraceCsv {
    /// Opens the trace of a run tracing every `every` ticks, with its metadata sidecar: a new
    /// file, or, for a run resumed at tick `resumed_at`, the file it was writing, continued
    /// from there. `world` gives the time step, the groups and the dimensions.
    pub fn open<V: CliDimension>(
        path: &Path,
        world: &World<V>,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<TraceCsv> {
        let columns: Vec<String> = trace_columns(V::DIMENSIONS).iter().map(|c| c.to_string()).collect();
        let at = resumed_at.map(|tick| ContinueAt { tick, last_row_tick: tick - tick % every });
        let writer = file::open(path, "trace file", &columns, at)?;
        meta::write(path, "throng trace", run, every, &columns)?;
        let groups = world.groups.iter().map(|g| g.name.clone()).collect();
        Ok(TraceCsv { path: path.to_owned(), writer, seconds: Seconds::of(world.dt), groups })
    }

    /// Writes every agent of `frame`.
    pub fn write(&mut self, frame: &Frame) -> Result<()> {
        let time = self.seconds.at(frame.tick);
        let mut values = Vec::with_capacity(TRACE_COLUMNS_IN_SPACE.len());
        for k in 0..frame.len() {
            row(frame, &self.groups, &time, k, &mut values);
            self.writer
                .write_record(&values)
                .with_context(|| format!("cannot write trace file {}", self.path.display()))?;
        }
        Ok(())
    }

    /// Writes out what is buffered, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("cannot write trace file {}", self.path.display()))
    }

    pub fn finish(mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("cannot write trace file {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn negative_zero_is_written_as_zero() {
        assert_eq!(super::number(-0.0), "0");
        assert_eq!(super::number(-0.5), "-0.5");
        assert_eq!(super::number(0.1), "0.1");
    }
}
