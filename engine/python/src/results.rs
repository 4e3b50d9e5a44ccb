//! What a run leaves, from Python: the per-tick metrics as numpy columns named as the metrics
//! file names them, the events' records, the expectations' verdicts, a trajectory of the
//! positions and the walkable area (for PedPy).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use throng_engine::Simulation;
use throng_engine::metrics::{Reading, TICK_METRICS, TickMetrics};
use throng_engine::pipeline::Passes;
use throng_engine::world::Scene;

use crate::record::Trajectory;
use crate::simulation::{PySimulation, Sim, with_sim};

/// Puts `values` into `dict` as a read-only numpy column named `name`.
fn put<T: numpy::Element>(dict: &Bound<'_, PyDict>, name: &str, values: Vec<T>) -> PyResult<()> {
    dict.set_item(name, crate::simulation::column(dict.py(), values))
}

/// The metrics columns of `rows`, in the metrics file's order and names.
fn metrics_columns<'py, V: Passes>(
    py: Python<'py>,
    sim: &Simulation<V>,
    rows: &[TickMetrics],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    put(&d, "tick", rows.iter().map(|m| m.tick).collect())?;
    put(&d, "time_s", rows.iter().map(|m| m.time_s).collect())?;
    for metric in &TICK_METRICS {
        let readings: Vec<Reading> = rows.iter().map(|m| (metric.tick)(m)).collect();
        if readings.iter().all(|r| matches!(r, Reading::Count(_))) {
            let counts =
                readings.iter().map(|r| if let Reading::Count(c) = r { *c as i64 } else { 0 }).collect();
            put(&d, metric.name, counts)?;
        } else {
            put(&d, metric.name, readings.iter().map(|r| r.as_f64()).collect())?;
        }
    }
    let scene = sim.world().scene.parts();
    for (g, gate) in scene.gates.iter().enumerate() {
        let at = |m: &TickMetrics| m.gate_crossings.get(g).copied();
        put(&d, &format!("gate_{}", gate.name), rows.iter().map(|m| at(m).unwrap_or(0) as i64).collect())?;
        let flow = |m: &TickMetrics| m.gate_flow.get(g).copied().unwrap_or(0.0);
        put(&d, &format!("gate_{}_flow", gate.name), rows.iter().map(flow).collect())?;
    }
    for (k, area) in scene.measures.iter().enumerate() {
        let reading = |m: &TickMetrics| m.areas.get(k).copied().unwrap_or_default();
        put(
            &d,
            &format!("measure_{}_count", area.name),
            rows.iter().map(|m| reading(m).count as i64).collect(),
        )?;
        put(
            &d,
            &format!("measure_{}_density", area.name),
            rows.iter().map(|m| reading(m).density).collect(),
        )?;
        put(&d, &format!("measure_{}_speed", area.name), rows.iter().map(|m| reading(m).speed).collect())?;
    }
    Ok(d)
}

#[pymethods]
impl PySimulation {
    /// The crowd metrics of every tick observed since this simulation was made (the state it
    /// started in first), as a dict of numpy columns named as `throng run --metrics` names
    /// them: `tick`, `time_s`, `agents_active`, ..., `gate_NAME`, `measure_NAME_density`.
    /// Empty columns when metrics are off.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_sim!(&self.sim, s => metrics_columns(py, s, &self.recorder.metrics))
    }

    /// Each `[[events]]` entry's record: a dict with `name`, `fired` (times), `first_tick`
    /// and `last_tick` (None before it first fires).
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        with_sim!(&self.sim, s => s.world().events.iter().map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", &e.name)?;
            d.set_item("fired", e.fired)?;
            d.set_item("first_tick", e.first_tick)?;
            d.set_item("last_tick", e.last_tick)?;
            Ok(d)
        }).collect())
    }

    /// The verdicts of the scenario's `[[expect]]` entries on the run so far: dicts with
    /// `name`, `what`, `status` ("pass", "fail" or "unchecked"), `value`, `time_s` and `detail`.
    /// Empty when the scenario has none or metrics are off.
    fn verdicts<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let outcomes = with_sim!(&self.sim, s => s.outcomes()).unwrap_or_default();
        outcomes
            .into_iter()
            .map(|o| {
                let d = PyDict::new(py);
                d.set_item("name", o.name)?;
                d.set_item("what", o.what)?;
                d.set_item("status", o.status.word())?;
                d.set_item("value", o.value)?;
                d.set_item("time_s", o.time_s)?;
                d.set_item("detail", o.detail)?;
                Ok(d)
            })
            .collect()
    }

    /// Starts keeping the positions every `every` ticks (the current tick's first), for
    /// `trajectory()` and `to_pedpy()`; a second call starts afresh.
    #[pyo3(signature = (every = 1))]
    fn record_trajectory(&mut self, every: u64) -> PyResult<()> {
        if every == 0 {
            return Err(PyValueError::new_err("every must be at least 1"));
        }
        let mut t = Trajectory::new(every, self.tick());
        with_sim!(&self.sim, s => t.take(s));
        self.recorder.trajectory = Some(t);
        Ok(())
    }

    /// The recorded positions as columns `id`, `frame` (the tick), `x`, `y` (and `z` in
    /// space), one row per agent per frame; None when `record_trajectory` was not called.
    fn trajectory<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(t) = &self.recorder.trajectory else { return Ok(None) };
        let d = PyDict::new(py);
        put(&d, "id", t.id.clone())?;
        put(&d, "frame", t.frame.clone())?;
        let dims = self.dimensions() as usize;
        for (k, axis) in ["x", "y", "z"].into_iter().take(dims).enumerate() {
            put(&d, axis, t.coords.iter().skip(k).step_by(dims).copied().collect())?;
        }
        Ok(Some(d))
    }

    /// The tick of the first recorded frame (None when not recording).
    #[getter]
    fn trajectory_start(&self) -> Option<u64> {
        self.recorder.trajectory.as_ref().map(|t| t.start)
    }

    /// Ticks between the recorded frames (None when not recording).
    #[getter]
    fn trajectory_every(&self) -> Option<u64> {
        self.recorder.trajectory.as_ref().map(|t| t.every)
    }

    /// The walkable area now, as WKT: the bounds' rectangle minus the standing obstacles
    /// (what `throng run --trace x.sqlite` stores for PedPy). The plane only.
    fn walkable_area_wkt(&self) -> PyResult<String> {
        match &self.sim {
            Sim::Plane(s) => Ok(crate::walkable::wkt(s.world())),
            Sim::Space(_) => Err(PyValueError::new_err("a scenario in space has no walkable area")),
        }
    }
}
