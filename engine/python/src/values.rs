//! Python values read as the engine needs them: TOML values (for overrides and actions, so
//! they are checked by the scenario's own validator) and points of the plane or of space.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use throng_engine::math::{Vec2, Vec3};

/// A Python value as a TOML value: bool, int, float, str, a sequence (array) or a dict
/// (table); `what` names it in the error for anything else.
pub fn toml_value(v: &Bound<'_, PyAny>, what: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(v.extract::<i64>()?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(toml::Value::Table(toml_table(d, what)?));
    }
    // numpy scalars and arrays: as their Python values.
    if v.hasattr("tolist")? {
        return toml_value(&v.call_method0("tolist")?, what);
    }
    if let Ok(items) = v.try_iter() {
        let items: PyResult<Vec<toml::Value>> = items.map(|i| toml_value(&i?, what)).collect();
        return Ok(toml::Value::Array(items?));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected a number, a string, a bool, a list or a dict, found {}",
        v.get_type().name()?
    )))
}

/// A dict with string keys as a TOML table.
pub fn toml_table(d: &Bound<'_, PyDict>, what: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{what}: keys must be strings, found {k}")))?;
        let value = toml_value(&v, &format!("{what}[{key:?}]"))?;
        t.insert(key, value);
    }
    Ok(t)
}

/// A point of the world's dimension, read from a Python sequence of numbers.
pub trait Point: Sized + Copy {
    /// Coordinates per point.
    const DIMS: usize;
    /// The point of `coords` (exactly `DIMS` of them).
    fn of(coords: &[f32]) -> Self;
    /// Appends the coordinates to `out`.
    fn push_to(self, out: &mut Vec<f32>);
}

impl Point for Vec2 {
    const DIMS: usize = 2;
    fn of(c: &[f32]) -> Self {
        Vec2::new(c[0], c[1])
    }
    fn push_to(self, out: &mut Vec<f32>) {
        out.extend_from_slice(&[self.x, self.y]);
    }
}

impl Point for Vec3 {
    const DIMS: usize = 3;
    fn of(c: &[f32]) -> Self {
        Vec3::new(c[0], c[1], c[2])
    }
    fn push_to(self, out: &mut Vec<f32>) {
        out.extend_from_slice(&[self.x, self.y, self.z]);
    }
}

/// `v` (a sequence of numbers, a numpy row) as a point, `what` naming it in errors.
pub fn point<P: Point>(v: &Bound<'_, PyAny>, what: &str) -> PyResult<P> {
    let coords: Vec<f32> = v.extract().map_err(|_| {
        PyTypeError::new_err(format!("{what}: expected {} numbers, found {}", P::DIMS, describe(v)))
    })?;
    if coords.len() != P::DIMS {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected {} numbers, found {}",
            P::DIMS,
            coords.len()
        )));
    }
    Ok(P::of(&coords))
}

/// Every point of `v` (an (n, dims) array or a sequence of points).
pub fn points<P: Point>(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<P>> {
    let rows = if v.hasattr("tolist")? { v.call_method0("tolist")? } else { v.clone() };
    let mut out = Vec::new();
    for (k, row) in rows.try_iter()?.enumerate() {
        out.push(point(&row?, &format!("{what}[{k}]"))?);
    }
    Ok(out)
}

fn describe(v: &Bound<'_, PyAny>) -> String {
    v.repr().map(|r| r.to_string()).unwrap_or_else(|_| "a value".into())
}
