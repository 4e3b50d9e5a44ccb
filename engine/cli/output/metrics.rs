//! The per-tick metrics CSV: one row per tick, a column per metric, two per gate (crossings and
//! flow), three per measurement area (count, density, speed) and, with events, the names of
//! those that fired before the row's tick ran.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use throng_engine::World;
use throng_engine::metrics::TickMetrics;

use super::Seconds;
use super::file::{self, ContinueAt, CsvWriter};
use super::meta::{self, RunInfo};

/// A column: its name and how its value is written (times by the file's [`Seconds`]).
type Column = (&'static str, fn(&TickMetrics, &Seconds) -> String);

/// The metric columns, in file order; per gate `gate_NAME` and `gate_NAME_flow` follow them,
/// then per measurement area `measure_NAME_count`, `measure_NAME_density`, `measure_NAME_speed`.
const COLUMNS: [Column; 11] = [
    ("tick", |m, _| m.tick.to_string()),
    ("time_s", |m, t| t.at(m.tick)),
    ("agents_active", |m, _| m.agents_active.to_string()),
    ("agents_exited", |m, _| m.agents_exited.to_string()),
    ("agents_spawned", |m, _| m.agents_spawned.to_string()),
    ("mean_speed", |m, _| m.mean_speed.to_string()),
    ("overlap_pairs", |m, _| m.overlap_pairs.to_string()),
    ("obstacle_penetrations", |m, _| m.obstacle_penetrations.to_string()),
    ("stuck_agents", |m, _| m.stuck_agents.to_string()),
    ("queue_length", |m, _| m.queue_length.to_string()),
    ("polarisation", |m, _| m.polarisation.to_string()),
];

/// A metrics file being written.
pub struct MetricsCsv {
    path: PathBuf,
    writer: CsvWriter,
    seconds: Seconds,
    /// Whether the file has the `events` column.
    events: bool,
}

impl MetricsCsv {
    /// Opens the metrics file of a run, with its metadata sidecar: a new file, or, for a run
    /// resumed at tick `resumed_at`, the file it was writing, continued from there. `world`
    /// gives the gates, the measurement areas and the time step.
    pub fn open(path: &Path, world: &World, run: &RunInfo, resumed_at: Option<u64>) -> Result<MetricsCsv> {
        let header = COLUMNS.iter().map(|(name, _)| name.to_string());
        let gates =
            world.gates.iter().flat_map(|g| [format!("gate_{}", g.name), format!("gate_{}_flow", g.name)]);
        let areas = world
            .measures
            .iter()
            .flat_map(|m| ["count", "density", "speed"].map(|what| format!("measure_{}_{what}", m.name)));
        // With events, a last column names those that fired before the row's tick ran.
        let events = (!world.events.is_empty()).then(|| "events".to_string());
        let columns: Vec<String> = header.chain(gates).chain(areas).chain(events).collect();
        let at = resumed_at.map(|tick| ContinueAt { tick, last_row_tick: tick });
        let writer = file::open(path, "metrics file", &columns, at)?;
        meta::write(path, "throng metrics", run, 1, &columns)?;
        Ok(MetricsCsv {
            path: path.to_owned(),
            writer,
            seconds: Seconds::of(world.dt),
            events: !world.events.is_empty(),
        })
    }

    /// Writes the row of `m`; `world` is the state it was observed on (for the events column).
    pub fn write(&mut self, m: &TickMetrics, world: &World) -> Result<()> {
        let values = COLUMNS.iter().map(|(_, value)| value(m, &self.seconds));
        let gates =
            m.gate_crossings.iter().zip(&m.gate_flow).flat_map(|(c, f)| [c.to_string(), f.to_string()]);
        let areas =
            m.areas.iter().flat_map(|a| [a.count.to_string(), a.density.to_string(), a.speed.to_string()]);
        // The events applied before this tick ran: those that last fired after tick - 1.
        let events = self.events.then(|| {
            let before = m.tick.checked_sub(1);
            let fired: Vec<&str> = world
                .events
                .iter()
                .filter(|e| before.is_some() && e.last_tick == before)
                .map(|e| e.name.as_str())
                .collect();
            fired.join("; ")
        });
        self.writer
            .write_record(values.chain(gates).chain(areas).chain(events).collect::<Vec<_>>())
            .with_context(|| format!("cannot write metrics file {}", self.path.display()))
    }

    /// Writes out what is buffered, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("cannot write metrics file {}", self.path.display()))
    }

    pub fn finish(mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("cannot write metrics file {}", self.path.display()))
    }
}
