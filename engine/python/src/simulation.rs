//! `throng.Simulation`: a scenario being run, from Python. Ticks run with the GIL released
//! (other Python threads go on) in chunks of about 50 ms, between which Ctrl-C raises
//! `KeyboardInterrupt` with the state at a whole tick. Columns come out as numpy arrays that
//! are copies, made read-only: the engine moves and reallocates rows as agents spawn, leave
//! and are re-sorted, so a view into its memory would not stay true.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use throng_engine::math::{Vec2, Vec3};
use throng_engine::pipeline::Passes;
use throng_engine::scenario::AnyScenario;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::errors::simulation_error;
use crate::record::Recorder;
use crate::scenario::PyScenario;
use crate::values::Point;

/// How long ticks run with the GIL released before signals are checked.
const CHUNK: Duration = Duration::from_millis(50);

/// A simulation of the plane or of space. (Not boxed: one lives per Python object, and the
/// plane's is the larger only by its scene.)
#[allow(clippy::large_enum_variant)]
pub enum Sim {
    Plane(Simulation<Vec2>),
    Space(Simulation<Vec3>),
}

/// `$body` with `$s` the simulation, whichever its dimension.
macro_rules! with_sim {
    ($sim:expr, $s:ident => $body:expr) => {
        match $sim {
            crate::simulation::Sim::Plane($s) => $body,
            crate::simulation::Sim::Space($s) => $body,
        }
    };
}
pub(crate) use with_sim;

/// A scenario being run: step it, read its agents, control it between ticks, save it.
#[pyclass(name = "Simulation", module = "throng._throng", subclass)]
pub struct PySimulation {
    pub sim: Sim,
    pub scenario: Py<PyScenario>,
    pub recorder: Recorder,
}

fn settings(threads: usize, index: Option<&str>, metrics: bool) -> PyResult<RunSettings> {
    if threads == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    let index = match index {
        None => None,
        Some(name) => Some(IndexKind::parse(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "index: expected one of {}, found {name:?}",
                IndexKind::NAMES.join(", ")
            ))
        })?),
    };
    Ok(RunSettings { index, metrics, ..RunSettings::embedded(threads) })
}

fn reseeded<V: throng_engine::world::Dimension>(s: &Scenario<V>, seed: Option<u64>) -> Scenario<V> {
    let mut s = s.clone();
    if let Some(seed) = seed {
        s.seed = seed;
    }
    s
}

/// Runs ticks up to `end` (fewer if the run stops) for at most `CHUNK`, recording each; true
/// when it reached `end` or stopped.
fn run_chunk<V: Passes + Point>(
    sim: &mut Simulation<V>,
    rec: &mut Recorder,
    end: u64,
) -> Result<bool, String> {
    let start = Instant::now();
    let ended = sim
        .run_until(end, |sim| {
            rec.after_tick(sim);
            if start.elapsed() > CHUNK { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .map_err(|e| e.to_string())?;
    Ok(!matches!(ended, throng_engine::RunEnd::Broken(())))
}

impl PySimulation {
    /// A Python simulation of `sim`, its metrics starting with the state it starts in.
    fn made(scenario: Py<PyScenario>, mut sim: Sim) -> PySimulation {
        let mut recorder = Recorder::default();
        if let Some(m) = with_sim!(&mut sim, s => s.initial_metrics()) {
            recorder.metrics.push(m);
        }
        PySimulation { sim, scenario, recorder }
    }

    /// Runs up to tick `end`, in chunks with the GIL released and signals checked between.
    fn run_to(&mut self, py: Python<'_>, end: u64) -> PyResult<u64> {
        let start = with_sim!(&self.sim, s => s.tick());
        loop {
            let (sim, rec) = (&mut self.sim, &mut self.recorder);
            let done = py.detach(|| with_sim!(sim, s => run_chunk(s, rec, end)));
            let done = done.map_err(crate::errors::SimulationError::new_err)?;
            py.check_signals()?;
            if done {
                break;
            }
        }
        Ok(with_sim!(&self.sim, s => s.tick()) - start)
    }
}

/// `values` as a read-only numpy array: the one way a column leaves the engine (a copy, since
/// rows move between ticks).
pub(crate) fn column<T: numpy::Element>(py: Python<'_>, values: Vec<T>) -> Bound<'_, PyArray1<T>> {
    let a = values.into_pyarray(py);
    a.readwrite().make_nonwriteable();
    a
}

fn points_column<'py, V: Point>(py: Python<'py>, values: &[V]) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let mut flat = Vec::with_capacity(values.len() * V::DIMS);
    for p in values {
        p.push_to(&mut flat);
    }
    let a = Array2::from_shape_vec((values.len(), V::DIMS), flat)
        .map_err(|e| PyValueError::new_err(e.to_string()))?
        .into_pyarray(py);
    a.readwrite().make_nonwriteable();
    Ok(a)
}

#[pymethods]
impl PySimulation {
    /// A new simulation of `scenario` at tick 0, on `threads` worker threads (they sleep
    /// between ticks), with the neighbour `index` ("auto", "kd", "grid", "brute"; default the
    /// scenario's), crowd `metrics` observed after every tick (on by default; expectations
    /// need them) and, when given, another `seed`. None of these but the seed changes a result.
    /// With `checkpoint` (a file written by `save_checkpoint` or by `throng run
    /// --checkpoint-every`, for this very scenario and overrides), the run it holds continues.
    #[new]
    #[pyo3(signature = (scenario, threads = 1, index = None, metrics = true, seed = None, checkpoint = None))]
    fn new(
        py: Python<'_>,
        scenario: Py<PyScenario>,
        threads: usize,
        index: Option<&str>,
        metrics: bool,
        seed: Option<u64>,
        checkpoint: Option<std::path::PathBuf>,
    ) -> PyResult<PySimulation> {
        let settings = settings(threads, index, metrics)?;
        let parsed = &scenario.get().parsed;
        // Building a large world takes a while: other Python threads go on meanwhile.
        let sim = py.detach(|| -> PyResult<Sim> {
            Ok(match (parsed, checkpoint) {
                (_, Some(_)) if seed.is_some() => {
                    return Err(PyValueError::new_err(
                        "a resumed run keeps its checkpoint's seed: leave seed out",
                    ));
                }
                (AnyScenario::Plane(s), None) => {
                    Sim::Plane(Simulation::new(&reseeded(s, seed), settings).map_err(simulation_error)?)
                }
                (AnyScenario::Space(s), None) => {
                    Sim::Space(Simulation::new(&reseeded(s, seed), settings).map_err(simulation_error)?)
                }
                (AnyScenario::Plane(s), Some(path)) => {
                    Sim::Plane(Simulation::resume(s, &path, settings).map_err(simulation_error)?)
                }
                (AnyScenario::Space(s), Some(path)) => {
                    Sim::Space(Simulation::resume(s, &path, settings).map_err(simulation_error)?)
                }
            })
        })?;
        Ok(PySimulation::made(scenario, sim))
    }

    /// Runs one tick (none once the run has stopped).
    fn step(&mut self, py: Python<'_>) -> PyResult<()> {
        let end = with_sim!(&self.sim, s => s.tick()) + 1;
        self.run_to(py, end).map(|_| ())
    }

    /// Runs `ticks` ticks, or to the scenario's end (`Scenario.ticks`) when None; fewer if a
    /// `stop` event ends the run. Returns the ticks run.
    #[pyo3(signature = (ticks = None))]
    fn run(&mut self, py: Python<'_>, ticks: Option<u64>) -> PyResult<u64> {
        let now = with_sim!(&self.sim, s => s.tick());
        let end = match ticks {
            Some(t) => now.saturating_add(t),
            None => self.scenario.get().parsed.ticks(),
        };
        self.run_to(py, end)
    }

    /// The scenario this simulation runs.
    #[getter]
    fn scenario(&self, py: Python<'_>) -> Py<PyScenario> {
        self.scenario.clone_ref(py)
    }

    /// Ticks completed.
    #[getter]
    pub fn tick(&self) -> u64 {
        with_sim!(&self.sim, s => s.tick())
    }

    /// Seconds per tick.
    #[getter]
    fn dt(&self) -> f32 {
        with_sim!(&self.sim, s => s.world().dt)
    }

    /// Simulated time, `tick · dt` (seconds).
    #[getter]
    fn time_s(&self) -> f64 {
        with_sim!(&self.sim, s => s.tick() as f64 * s.world().dt as f64)
    }

    /// Whether a `stop` event has ended the run (further steps do nothing).
    #[getter]
    fn stopped(&self) -> bool {
        with_sim!(&self.sim, s => s.stopped())
    }

    /// Live agents.
    #[getter]
    fn agent_count(&self) -> usize {
        with_sim!(&self.sim, s => s.world().agents.len())
    }

    /// 2 (the plane) or 3 (space).
    #[getter]
    pub fn dimensions(&self) -> u32 {
        match self.sim {
            Sim::Plane(_) => 2,
            Sim::Space(_) => 3,
        }
    }

    /// The run's seed.
    #[getter]
    fn seed(&self) -> u64 {
        with_sim!(&self.sim, s => s.world().seed)
    }

    /// The state hash now (64 hex digits): equal hashes mean equal futures; `throng run`
    /// prints the same for the same run.
    #[getter]
    fn hash(&self) -> String {
        with_sim!(&self.sim, s => s.hash().to_string())
    }

    /// Agents' positions, shape (agents, dimensions), float32, in row order (a copy).
    #[getter]
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        with_sim!(&self.sim, s => points_column(py, &s.world().agents.position))
    }

    /// Agents' velocities (units per second), shape (agents, dimensions), float32 (a copy).
    #[getter]
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        with_sim!(&self.sim, s => points_column(py, &s.world().agents.velocity))
    }

    /// Agents' ids, uint32, in row order (a copy): stable, never reused.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.id.clone()))
    }

    /// Agents' group indexes (into `Scenario.group_names`), uint16 (a copy).
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u16>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.group.clone()))
    }

    /// Agents' body radii, float32 (a copy).
    #[getter]
    fn radii<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.radius.clone()))
    }

    /// Agents' top speeds (units per second), float32 (a copy).
    #[getter]
    fn max_speeds<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.max_speed.clone()))
    }

    /// Agents' journeys (indexes into `Scenario.journey_names`; 65535 for none), uint16 (a
    /// copy).
    #[getter]
    fn journeys<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u16>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.journey.clone()))
    }

    /// Agents' current journey stages (indexes into `Scenario.stage_names`; 0 on no
    /// journey), uint16 (a copy).
    #[getter]
    fn stages<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u16>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.stage.clone()))
    }

    /// Agents' parties (the smallest member id; 4294967295 alone), uint32 (a copy).
    #[getter]
    fn parties<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        with_sim!(&self.sim, s => column(py, s.world().agents.party.clone()))
    }

    /// The checkpoint of this tick, as bytes (what `save_checkpoint` writes).
    fn checkpoint<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &with_sim!(&self.sim, s => s.checkpoint()))
    }

    /// Writes the checkpoint of this tick to `path`, atomically (an interrupted write leaves
    /// the old file or none). `Simulation.resume` and `throng run SCENARIO --resume PATH`
    /// continue it, bit for bit.
    fn save_checkpoint(&self, path: std::path::PathBuf) -> PyResult<()> {
        with_sim!(&self.sim, s => s.save_checkpoint(&path))
            .map_err(|e| crate::errors::SimulationError::new_err(format!("{}: {e}", path.display())))
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation(scenario={:?}, tick={}, agents={}, stopped={})",
            self.scenario.get().parsed.name(),
            self.tick(),
            self.agent_count(),
            self.stopped()
        )
    }
}
