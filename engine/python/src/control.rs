//! What a program does between ticks, from Python: fire any action the scenario's events can
//! (open, close, retarget, move_target, spawn, remove, release, set, regroup, stop), add and
//! remove agents, give one agent a goal, and find agents by id and by place. Each is part of
//! the run from then on: the same calls at the same ticks give the same hashes at any thread
//! count, and checkpoints carry them.

use numpy::PyArray1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use throng_engine::Simulation;
use throng_engine::math::Vector;
use throng_engine::pipeline::Passes;
use throng_engine::scenario::overrides::inline;

use crate::errors::{control_error, scenario_error};
use crate::scenario::PyScenario;
use crate::simulation::{PySimulation, column, with_sim};
use crate::values::{Point, point as read_point, points, toml_value};

/// The action `keys` describe, checked against `scenario` as its events are, then fired.
fn fire_in<V: Passes + Point>(
    sim: &mut Simulation<V>,
    scenario: &PyScenario,
    action_toml: &str,
) -> PyResult<Vec<u32>> {
    let action = throng_engine::parse_action::<V>(
        &scenario.text,
        &scenario.origin,
        &scenario.overrides,
        action_toml,
        "action",
    )
    .map_err(|mut e| {
        e.location = None; // a place in text the package wrote, not the caller's
        scenario_error(e)
    })?;
    sim.fire(&action).map_err(control_error)
}

/// The group `group` names: its name, or its index.
fn group_of<V: Passes>(sim: &Simulation<V>, group: &Bound<'_, PyAny>) -> PyResult<u16> {
    if let Ok(name) = group.extract::<String>() {
        return sim.group_named(&name).map_err(control_error);
    }
    let g: u16 = group.extract().map_err(|_| {
        PyTypeError::new_err(format!("group: expected a group's name or index, found {group}"))
    })?;
    let groups = sim.world().groups.len();
    if g as usize >= groups {
        return Err(control_error(throng_engine::ControlError::NoGroup { group: g, groups }));
    }
    Ok(g)
}

/// Adds one agent of `group` at each of `positions`: all, or none if a point is not finite.
fn add_all<V: Passes + Point>(
    sim: &mut Simulation<V>,
    group: &Bound<'_, PyAny>,
    positions: &Bound<'_, PyAny>,
) -> PyResult<Vec<u32>> {
    let g = group_of(sim, group)?;
    let at: Vec<V> = points(positions, "positions")?;
    if let Some(bad) = at.iter().position(|p| !Vector::is_finite(*p)) {
        return Err(PyTypeError::new_err(format!("positions[{bad}] is not finite")));
    }
    at.into_iter().map(|p| sim.spawn(g, p).map_err(control_error)).collect()
}

impl PySimulation {
    fn fire_text<'py>(&mut self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let scenario = self.scenario.get();
        let added = with_sim!(&mut self.sim, s => fire_in(s, scenario, text))?;
        Ok(column(py, added))
    }
}

#[pymethods]
impl PySimulation {
    /// Fires `action` now, with the keys an `[[events]]` entry of that action takes (as Python
    /// values: `door="east_door"`, `region={"kind": "rect", "min": [0, 0], "max": [5, 5]}`,
    /// `set={"max_speed": 0.8}`), exactly as the event would before the next tick. Names and
    /// values are checked as the scenario's events are (`ScenarioError`, with the key). Returns
    /// the ids of the agents it added (a `spawn`), else an empty array.
    #[pyo3(signature = (action, **keys))]
    fn fire<'py>(
        &mut self,
        py: Python<'py>,
        action: &str,
        keys: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let mut text = format!("action = {}\n", inline(&toml::Value::String(action.into())));
        for (k, v) in keys.into_iter().flat_map(|d| d.iter()) {
            let key: String = k.extract()?;
            let value = toml_value(&v, &key)?;
            text.push_str(&format!("{} = {}\n", inline(&toml::Value::String(key.clone())), inline(&value)));
        }
        self.fire_text(py, &text)
    }

    /// Adds one agent of `group` (its name or index) at each of `positions` (an (n, dims)
    /// array or a list of points), with the next ids, which it returns. Parameters are drawn
    /// from the group's, keyed by the seed and each agent's id.
    fn add_agents<'py>(
        &mut self,
        py: Python<'py>,
        group: &Bound<'py, PyAny>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let ids = with_sim!(&mut self.sim, s => add_all(s, group, positions))?;
        Ok(column(py, ids))
    }

    /// Removes the agents with these ids, as a `remove` event would (they count as removed);
    /// removes none if one of them is not alive.
    fn remove_agents(&mut self, ids: Vec<u32>) -> PyResult<()> {
        with_sim!(&mut self.sim, s => s.despawn_all(&ids)).map_err(control_error)
    }

    /// Gives agent `id` its own goal: the point its group's `kind = "own"` target steers it to.
    fn set_goal(&mut self, id: u32, goal: &Bound<'_, PyAny>) -> PyResult<()> {
        with_sim!(&mut self.sim, s => s.set_goal(id, read_point(goal, "goal")?)).map_err(control_error)
    }

    /// The row of agent `id` in the columns (`positions[row]`), or None when it is not alive.
    fn row_of(&self, id: u32) -> Option<usize> {
        with_sim!(&self.sim, s => s.row_of(id))
    }

    /// The ids of the live agents within `radius` of `point`, nearest first (ties by id).
    fn query_radius<'py>(
        &self,
        py: Python<'py>,
        point: &Bound<'py, PyAny>,
        radius: f32,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let ids = with_sim!(&self.sim, s => s.query_radius(read_point(point, "point")?, radius).map_err(control_error))?;
        Ok(column(py, ids))
    }

    /// The ids agent `id`'s group senses around it now (within its sensing radius, up to its
    /// `max_neighbours`), nearest first (ties by id).
    fn neighbours_of<'py>(&self, py: Python<'py>, id: u32) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let ids = with_sim!(&self.sim, s => s.neighbours_of(id).map_err(control_error))?;
        Ok(column(py, ids))
    }
}
