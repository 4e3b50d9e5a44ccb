//! `throng.Scenario`: a validated scenario of the plane or of space, from a file or from text,
//! with overrides given as a dict (`{"groups.crowd.max_speed": 1.8, "agents": 10_000}`), each
//! checked as `throng run --set` checks it. It keeps its text, so that actions fired later are
//! checked against it as its own events are.

use std::path::Path;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use throng_engine::scenario::AnyScenario;
use throng_engine::scenario::overrides::{self, Override};

use crate::errors::scenario_error;
use crate::values::toml_value;

/// A scenario, validated: a file's (or a text's) content with overrides applied.
#[pyclass(name = "Scenario", module = "throng._throng", frozen)]
pub struct PyScenario {
    pub text: String,
    pub origin: String,
    pub overrides: Vec<Override>,
    pub parsed: AnyScenario,
}

/// The overrides a dict gives, as `--set KEY=VALUE` would give them.
fn overrides_of(dict: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<Override>> {
    let mut out = Vec::new();
    for (k, v) in dict.into_iter().flat_map(|d| d.iter()) {
        let key: String = k.extract()?;
        let value = toml_value(&v, &format!("overrides[{key:?}]"))?;
        let arg = format!("{key}={}", overrides::inline(&value));
        out.extend(overrides::parse_set(&arg, "overrides").map_err(scenario_error)?);
    }
    overrides::check_unique(&out).map_err(scenario_error)?;
    Ok(out)
}

impl PyScenario {
    fn parse(text: String, origin: String, overrides: Vec<Override>) -> PyResult<PyScenario> {
        let parsed = AnyScenario::parse(&text, &origin, &overrides).map_err(scenario_error)?;
        Ok(PyScenario { text, origin, overrides, parsed })
    }
}

#[pymethods]
impl PyScenario {
    /// Reads and validates the scenario file at `path`, with `overrides` applied.
    #[staticmethod]
    #[pyo3(signature = (path, overrides = None))]
    fn load(path: std::path::PathBuf, overrides: Option<&Bound<'_, PyDict>>) -> PyResult<PyScenario> {
        let overrides = overrides_of(overrides)?;
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            // The engine's own words for a file that does not read.
            Err(e) => {
                return Err(match AnyScenario::load(Path::new(&path)) {
                    Err(err) => scenario_error(err),
                    Ok(_) => crate::errors::SimulationError::new_err(format!("{}: {e}", path.display())),
                });
            }
        };
        PyScenario::parse(text, path.display().to_string(), overrides)
    }

    /// Validates scenario `text` (errors name it `origin`, by default `<string>`), with
    /// `overrides` applied.
    #[staticmethod]
    #[pyo3(signature = (text, overrides = None, origin = None))]
    fn from_toml(
        text: String,
        overrides: Option<&Bound<'_, PyDict>>,
        origin: Option<String>,
    ) -> PyResult<PyScenario> {
        let origin = origin.unwrap_or_else(|| "<string>".into());
        PyScenario::parse(text, origin, overrides_of(overrides)?)
    }

    /// This scenario with more overrides (on top of its own; a key may not be set twice).
    fn with_overrides(&self, overrides: &Bound<'_, PyDict>) -> PyResult<PyScenario> {
        let mut all = self.overrides.clone();
        all.extend(overrides_of(Some(overrides))?);
        overrides::check_unique(&all).map_err(scenario_error)?;
        PyScenario::parse(self.text.clone(), self.origin.clone(), all)
    }

    /// The scenario's `name`.
    #[getter]
    fn name(&self) -> &str {
        self.parsed.name()
    }

    /// Where it was read from (`"<string>"` for text).
    #[getter]
    fn origin(&self) -> &str {
        &self.origin
    }

    /// The seed every random draw of a run is keyed by.
    #[getter]
    fn seed(&self) -> u64 {
        self.parsed.seed()
    }

    /// The ticks a run of it runs.
    #[getter]
    fn ticks(&self) -> u64 {
        self.parsed.ticks()
    }

    /// Seconds per tick.
    #[getter]
    fn dt(&self) -> f32 {
        match &self.parsed {
            AnyScenario::Plane(s) => s.dt,
            AnyScenario::Space(s) => s.dt,
        }
    }

    /// 2 (the plane) or 3 (space).
    #[getter]
    fn dimensions(&self) -> u32 {
        match self.parsed {
            AnyScenario::Plane(_) => 2,
            AnyScenario::Space(_) => 3,
        }
    }

    /// The groups' names, in file order (a group's index is its place here).
    #[getter]
    fn group_names(&self) -> Vec<String> {
        match &self.parsed {
            AnyScenario::Plane(s) => s.groups.iter().map(|g| g.group.name.clone()).collect(),
            AnyScenario::Space(s) => s.groups.iter().map(|g| g.group.name.clone()).collect(),
        }
    }

    /// The journey stages' names, in `[[stages]]` order (a stage's index is its place here;
    /// none in space).
    #[getter]
    fn stage_names(&self) -> Vec<String> {
        match &self.parsed {
            AnyScenario::Plane(s) => s.stages.iter().map(|x| x.name.clone()).collect(),
            AnyScenario::Space(_) => Vec::new(),
        }
    }

    /// The journeys' names, in `[[journeys]]` order (none in space).
    #[getter]
    fn journey_names(&self) -> Vec<String> {
        match &self.parsed {
            AnyScenario::Plane(s) => s.journeys.iter().map(|x| x.name.clone()).collect(),
            AnyScenario::Space(_) => Vec::new(),
        }
    }

    /// The overrides applied, canonical (`key = value`, sorted), as checkpoints record them.
    #[getter]
    fn overrides(&self) -> Vec<String> {
        overrides::canonical(&self.overrides)
    }

    /// Problems that do not stop a run (an exit outside the bounds, say), as messages.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        let w = match &self.parsed {
            AnyScenario::Plane(s) => &s.warnings,
            AnyScenario::Space(s) => &s.warnings,
        };
        w.iter().map(ToString::to_string).collect()
    }

    /// The scenario's expectations' names, in file order.
    #[getter]
    fn expectation_names(&self) -> Vec<String> {
        self.parsed.expectation_names().into_iter().map(String::from).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario(name={:?}, origin={:?}, overrides={:?})",
            self.name(),
            self.origin,
            self.overrides()
        )
    }
}
