//! The per-tick metrics CSV: one row per tick, a column per metric, two per gate (crossings and
//! flow), three per measurement area (count, density, speed) and, with events, the names of
//! those that fired before the row's tick ran.

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use throng_engine::World;
use throng_engine::metrics::{Reading, TICK_METRICS, TickMetrics};
use throng_engine::scenario::expectation::PartyValue;
use throng_engine::world::Scene;

use super::Seconds;
use super::file::{self, ContinueAt, CsvWriter};
use super::meta::{self, RunInfo};

/// One value of a metrics row, as every format writes it.
pub(super) enum Value {
    /// A count.
    Int(u64),
    /// A measured number.
    Real(f64),
    /// The row's time (the CSV writes it as the step was written).
    Time,
    /// Names (the events that fired).
    Text(String),
}

impl From<Reading> for Value {
    fn from(r: Reading) -> Value {
        match r {
            Reading::Count(c) => Value::Int(c),
            Reading::Real(x) => Value::Real(x),
        }
    }
}

/// The leading columns' values in a row, in file order: `tick`, `time_s`, then every tick
/// metric of [`TICK_METRICS`]; per gate `gate_NAME` and `gate_NAME_flow` follow them, then per
/// measurement area `measure_NAME_count`, `measure_NAME_density`, `measure_NAME_speed`, then,
/// with events, `events`.
fn fixed_values(m: &TickMetrics) -> impl Iterator<Item = Value> + '_ {
    [Value::Int(m.tick), Value::Time].into_iter().chain(TICK_METRICS.iter().map(|t| (t.tick)(m).into()))
}

/// The leading columns' names, in [`fixed_values`] order.
fn fixed_names() -> impl Iterator<Item = &'static str> {
    ["tick", "time_s"].into_iter().chain(TICK_METRICS.iter().map(|t| t.name))
}

/// What a metrics column holds, for typed formats.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueKind {
    Int,
    Real,
    Text,
}

/// Every column of a run's metrics with what it holds: `world` gives the gates, the
/// measurement areas and whether there are events.
pub(super) fn columns<V: CliDimension>(world: &World<V>) -> Vec<(String, ValueKind)> {
    let blank = TickMetrics::default();
    let kinds: Vec<ValueKind> = fixed_values(&blank)
        .map(|value| match value {
            Value::Int(_) => ValueKind::Int,
            Value::Real(_) | Value::Time => ValueKind::Real,
            Value::Text(_) => ValueKind::Text,
        })
        .collect();
    let fixed = fixed_names().map(str::to_string).zip(kinds);
    let gates = world.scene.parts().gates.iter().flat_map(|g| {
        [(format!("gate_{}", g.name), ValueKind::Int), (format!("gate_{}_flow", g.name), ValueKind::Real)]
    });
    let areas = world.scene.parts().measures.iter().flat_map(|m| {
        [("count", ValueKind::Int), ("density", ValueKind::Real), ("speed", ValueKind::Real)]
            .map(|(what, kind)| (format!("measure_{}_{what}", m.name), kind))
    });
    let stages = world.scene.parts().stages.iter().flat_map(|s| {
        [
            ("agents", ValueKind::Int),
            ("queue", ValueKind::Int),
            ("finished", ValueKind::Int),
            ("mean_s", ValueKind::Real),
        ]
        .map(|(what, kind)| (format!("stage_{}_{what}", s.name), kind))
    });
    let parties =
        world.groups.iter().any(|g| g.parties.is_some()).then_some(PartyValue::ALL).into_iter().flatten();
    let parties = parties.map(|(v, what)| {
        (format!("party_{what}"), if v == PartyValue::Walking { ValueKind::Int } else { ValueKind::Real })
    });
    // With events, a last column names those that fired before the row's tick ran.
    let events = (!world.events.is_empty()).then(|| ("events".to_string(), ValueKind::Text));
    fixed.chain(gates).chain(areas).chain(stages).chain(parties).chain(events).collect()
}

/// The row of `m`, in [`columns`] order; `world` is the state it was observed on (for the
/// events column).
pub(super) fn values<V: CliDimension>(m: &TickMetrics, world: &World<V>) -> Vec<Value> {
    let fixed = fixed_values(m);
    let gates =
        m.gate_crossings.iter().zip(&m.gate_flow).flat_map(|(c, f)| [Value::Int(*c as u64), Value::Real(*f)]);
    let areas =
        m.areas.iter().flat_map(|a| [Value::Int(a.count), Value::Real(a.density), Value::Real(a.speed)]);
    let stages = m.stages.iter().flat_map(|s| {
        [Value::Int(s.agents), Value::Int(s.queue), Value::Int(s.finished), Value::Real(s.mean_s)]
    });
    let parties = m.parties.iter().flat_map(|r| {
        PartyValue::ALL.map(|(v, _)| match v {
            PartyValue::Walking => Value::Int(r.walking),
            _ => Value::Real(v.of(r)),
        })
    });
    // The events applied before this tick ran: those that last fired after tick - 1.
    let events = (!world.events.is_empty()).then(|| {
        let before = m.tick.checked_sub(1);
        let fired: Vec<&str> = world
            .events
            .iter()
            .filter(|e| before.is_some() && e.last_tick == before)
            .map(|e| e.name.as_str())
            .collect();
        Value::Text(fired.join("; "))
    });
    fixed.chain(gates).chain(areas).chain(stages).chain(parties).chain(events).collect()
}

/// A metrics file being written.
pub struct MetricsCsv {
    path: PathBuf,
    writer: CsvWriter,
    seconds: Seconds,
}

impl MetricsCsv {
    /// Opens the metrics file of a run, with its metadata sidecar: a new file, or, for a run
    /// resumed at tick `resumed_at`, the file it was writing, continued from there. `world`
    /// gives the gates, the measurement areas and the time step.
    pub fn open<V: CliDimension>(
        path: &Path,
        world: &World<V>,
        run: &RunInfo,
        resumed_at: Option<u64>,
    ) -> Result<MetricsCsv> {
        let columns: Vec<String> = columns(world).into_iter().map(|(name, _)| name).collect();
        let at = resumed_at.map(|tick| ContinueAt { tick, last_row_tick: tick });
        let writer = file::open(path, "metrics file", &columns, at)?;
        meta::write(path, "throng metrics", run, 1, &columns)?;
        Ok(MetricsCsv { path: path.to_owned(), writer, seconds: Seconds::of(world.dt) })
    }

    /// Writes the row of `m`; `world` is the state it was observed on (for the events column).
    pub fn write<V: CliDimension>(&mut self, m: &TickMetrics, world: &World<V>) -> Result<()> {
        let record: Vec<String> = values(m, world)
            .into_iter()
            .map(|v| match v {
                Value::Int(x) => x.to_string(),
                Value::Real(x) => x.to_string(),
                Value::Time => self.seconds.at(m.tick),
                Value::Text(s) => s,
            })
            .collect();
        self.writer
            .write_record(record)
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
