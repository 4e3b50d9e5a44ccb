//! The package's exceptions, and engine errors turned into them: `ScenarioError` carries the
//! file, line, column and key the command line prints; `SimulationError` a simulation that
//! could not be made or went non-finite; `ControlError` a call between ticks that was refused
//! (the simulation unchanged).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _throng,
    ScenarioError,
    PyValueError,
    "A scenario (or an override, or an action) that does not read or validate: `file`, `line`, \
     `column` (None when the problem has no place), `key` (dotted, '' for the whole file) and \
     `message`; str() is the command line's one-line message."
);
create_exception!(
    _throng,
    SimulationError,
    PyException,
    "A simulation that could not be made or resumed (a checkpoint of another scenario, no room \
     to spawn), or whose state became non-finite (the tick, pass and agent are in the message)."
);
create_exception!(
    _throng,
    ControlError,
    PyValueError,
    "A call between ticks that cannot be carried out (no such agent, group or door; a point \
     that is not finite); the simulation is unchanged."
);

/// The Python `ScenarioError` for an engine one, its parts as attributes.
pub fn scenario_error(e: throng_engine::ScenarioError) -> PyErr {
    Python::attach(|py| {
        let err = ScenarioError::new_err(e.to_string());
        let value = err.value(py);
        let (line, column) = match e.location {
            Some((l, c)) => (Some(l), Some(c)),
            None => (None, None),
        };
        let set = || -> PyResult<()> {
            value.setattr("file", &e.file)?;
            value.setattr("line", line)?;
            value.setattr("column", column)?;
            value.setattr("key", &e.key)?;
            value.setattr("message", &e.message)?;
            Ok(())
        };
        match set() {
            Ok(()) => err,
            Err(other) => other,
        }
    })
}

/// A `SimulationError` with the error's message (its chain of causes included).
pub fn simulation_error(e: impl std::error::Error) -> PyErr {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message.push_str(&format!(": {text}"));
        }
        source = s.source();
    }
    SimulationError::new_err(message)
}

/// A `ControlError` with the engine's words.
pub fn control_error(e: throng_engine::ControlError) -> PyErr {
    ControlError::new_err(e.to_string())
}
