//! The per-tick metrics as Parquet: the metrics CSV's columns (one list, `output/metrics.rs`),
//! counts as whole numbers, measures and the time as 64-bit floats, fired events as text; a
//! row group per 10,000 ticks and at every flush.

use crate::dimension::CliDimension;
use std::path::Path;

use anyhow::Result;
use throng_engine::World;
use throng_engine::metrics::TickMetrics;

use super::super::Seconds;
use super::super::meta::RunInfo;
use super::super::metrics::{Value, ValueKind, columns, values};
use super::resume::{self, ContinueParquet};
use super::table::{Cell, Column, GroupSize, Kind, ParquetTable};

const GROUP: GroupSize = GroupSize { rows: 10_000, batches: 10_000 };

/// A metrics file being written as Parquet.
pub struct MetricsParquet {
    table: ParquetTable,
    seconds: Seconds,
}

impl MetricsParquet {
    /// Opens the metrics file of a run: a new file, or, for a run resumed at tick
    /// `resumed_at`, the file it was writing, cut after that tick's row.
    pub fn open<V: CliDimension>(
        path: &Path,
        world: &World<V>,
        run: &RunInfo,
        resumed_at: Option<u64>,
    ) -> Result<MetricsParquet> {
        let columns: Vec<Column> = columns(world)
            .into_iter()
            .map(|(name, kind)| {
                let kind = match kind {
                    ValueKind::Int => Kind::Int,
                    ValueKind::Real => Kind::F64,
                    ValueKind::Text => Kind::Text,
                };
                Column::new(name, kind)
            })
            .collect();
        let key_values = run.key_values("throng metrics");
        let table = match resumed_at {
            None => ParquetTable::create(path, "metrics file", columns, &key_values, GROUP)?,
            Some(tick) => resume::continue_file(
                path,
                "metrics file",
                columns,
                &key_values,
                GROUP,
                ContinueParquet { tick, last_row_tick: tick, same: &["throng.dt"] },
            )?,
        };
        Ok(MetricsParquet { table, seconds: Seconds::of(world.dt) })
    }

    /// Writes the row of `m`; `world` is the state it was observed on (for the events column).
    pub fn write<V: CliDimension>(&mut self, m: &TickMetrics, world: &World<V>) -> Result<()> {
        let time: f64 = self.seconds.at(m.tick).parse()?;
        let row = values(m, world);
        let cells: Vec<Cell> = row
            .iter()
            .map(|v| match v {
                Value::Int(x) => Cell::Int(*x as i64),
                Value::Real(x) => Cell::F64(*x),
                Value::Time => Cell::F64(time),
                Value::Text(s) => Cell::Text(s),
            })
            .collect();
        self.table.push_row(&cells)?;
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
