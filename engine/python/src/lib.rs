//! `throng._throng`: the Python extension module. It binds the engine's public API
//! (`Scenario`, `Simulation`, the calls a host makes between ticks) and nothing else; the
//! Python package (`python/throng/`) adds DataFrames and PedPy on top.
//!
//! - `errors.rs`: the Python exceptions and how engine errors become them.
//! - `values.rs`: Python values as TOML values (overrides, actions) and points.
//! - `scenario.rs`: `Scenario` (a file or text, with overrides).
//! - `simulation.rs`: `Simulation`: made, resumed, stepped, read.
//! - `control.rs`: what a program does between ticks (actions, agents, goals, queries).
//! - `results.rs`: what a run leaves (metrics, events, verdicts, trajectories).
//! - `record.rs`: what is kept after each tick for `results.rs`.

mod control;
mod errors;
mod record;
mod results;
mod scenario;
mod simulation;
mod values;
#[path = "../../cli/output/walkable.rs"]
#[allow(dead_code)]
mod walkable;

use pyo3::prelude::*;

#[pymodule]
fn _throng(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<scenario::PyScenario>()?;
    m.add_class::<simulation::PySimulation>()?;
    m.add("ScenarioError", py.get_type::<errors::ScenarioError>())?;
    m.add("SimulationError", py.get_type::<errors::SimulationError>())?;
    m.add("ControlError", py.get_type::<errors::ControlError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
