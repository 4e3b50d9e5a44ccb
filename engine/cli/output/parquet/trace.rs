//! The trace as Parquet: the CSV trace's columns, typed (ticks and ids as whole numbers,
//! positions, velocities and radii as the engine's 32-bit floats, the group name
//! dictionary-encoded), zstd-compressed, one row group per million rows or 1,000 traced ticks
//! (and one ends at every flush), written as the run goes, so the trace is never held in
//! memory. The run's metadata is in the file's key-value metadata.

use crate::dimension::CliDimension;
use std::path::Path;

use anyhow::{Result, bail};
use parquet::data_type::ByteArray;
use throng_engine::World;

use super::super::Seconds;
use super::super::frame::Frame;
use super::super::meta::RunInfo;
use super::super::trace::trace_columns;
use super::resume::{self, ContinueParquet};
use super::table::{Column, GroupSize, Kind, ParquetTable, Values};

/// Row groups end after this many rows or traced ticks.
const GROUP: GroupSize = GroupSize { rows: 1 << 20, batches: 1000 };

/// The columns of a run in `dimensions`, named as the CSV trace's ([`trace_columns`]).
fn columns(dimensions: usize) -> Vec<Column> {
    let kind = |name: &str| match name {
        "tick" | "id" => Kind::Int,
        "time_s" => Kind::F64Repeated,
        "group" => Kind::Text,
        _ => Kind::F32,
    };
    trace_columns(dimensions).iter().map(|name| Column::new(*name, kind(name))).collect()
}

/// A trace being written to Parquet.
pub struct TraceParquet {
    table: ParquetTable,
    seconds: Seconds,
    /// The groups' names, made once (a clone shares the bytes).
    groups: Vec<ByteArray>,
}

impl TraceParquet {
    /// Opens the trace of a run tracing every `every` ticks: a new file, or, for a run resumed
    /// at tick `resumed_at`, the file it was writing, cut after that tick's rows.
    pub fn open<V: CliDimension>(
        path: &Path,
        world: &World<V>,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<TraceParquet> {
        let mut key_values = run.key_values("throng trace");
        key_values.push(("throng.trace_every".into(), every.to_string()));
        let table = match resumed_at {
            None => ParquetTable::create(path, "trace file", columns(V::DIMENSIONS), &key_values, GROUP)?,
            Some(tick) => resume::continue_file(
                path,
                "trace file",
                columns(V::DIMENSIONS),
                &key_values,
                GROUP,
                ContinueParquet {
                    tick,
                    last_row_tick: tick - tick % every,
                    same: &["throng.dt", "throng.trace_every"],
                },
            )?,
        };
        let groups = world.groups.iter().map(|g| ByteArray::from(g.name.as_str())).collect();
        Ok(TraceParquet { table, seconds: Seconds::of(world.dt), groups })
    }

    /// Writes every agent of `frame`.
    pub fn write(&mut self, frame: &Frame) -> Result<()> {
        let n = frame.len();
        // The time as the step was written (0.3, not 0.30000000000000004).
        let time: f64 = self.seconds.at(frame.tick).parse()?;
        let (tick, time_s, id, group, x, y, z, vx, vy, vz, radius) = match self.table.values_mut() {
            [
                Values::Int(tick),
                Values::F64(time_s),
                Values::Int(id),
                Values::Text(group),
                Values::F32(x),
                Values::F32(y),
                Values::F32(vx),
                Values::F32(vy),
                Values::F32(radius),
            ] if frame.z.is_empty() => (tick, time_s, id, group, x, y, None, vx, vy, None, radius),
            [
                Values::Int(tick),
                Values::F64(time_s),
                Values::Int(id),
                Values::Text(group),
                Values::F32(x),
                Values::F32(y),
                Values::F32(z),
                Values::F32(vx),
                Values::F32(vy),
                Values::F32(vz),
                Values::F32(radius),
            ] if !frame.z.is_empty() || n == 0 => {
                (tick, time_s, id, group, x, y, Some(z), vx, vy, Some(vz), radius)
            }
            _ => bail!("the trace's columns are not the trace's"),
        };
        tick.extend(std::iter::repeat_n(frame.tick as i64, n));
        time_s.extend(std::iter::repeat_n(time, n));
        id.extend(frame.id.iter().map(|&i| i as i64));
        group.extend(frame.group.iter().map(|&g| self.groups[g as usize].clone()));
        // Never -0 (adding +0 turns -0 into 0), as the CSV writes them.
        x.extend(frame.position.iter().map(|p| p.x + 0.0));
        y.extend(frame.position.iter().map(|p| p.y + 0.0));
        vx.extend(frame.velocity.iter().map(|v| v.x + 0.0));
        vy.extend(frame.velocity.iter().map(|v| v.y + 0.0));
        if let (Some(z), Some(vz)) = (z, vz) {
            z.extend(frame.z.iter().map(|c| c + 0.0));
            vz.extend(frame.vz.iter().map(|c| c + 0.0));
        }
        radius.extend(frame.radius.iter().map(|r| r + 0.0));
        self.table.end_batch()
    }

    /// Writes out what is buffered as a row group, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.table.flush()
    }

    /// Writes the rest and the file's footer.
    pub fn finish(self) -> Result<()> {
        self.table.finish()
    }
}
