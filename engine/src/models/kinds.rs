//! The velocity models' parameter tables: each model's key, its source, and its parameters
//! with unit, default, range and meaning. One table drives the scenario validator
//! (`scenario/validate/model.rs`) and the model table of docs/models.md (checked by a test).

use crate::behaviours::params::{Args, Default, Invalid, Kind, MAX_LENGTH, ParamSpec, Range};
use crate::index::MAX_NEIGHBOURS;
use crate::world::{Model, Orca};

/// One velocity model: its `kind`, where it comes from, its parameters and how it is made.
#[derive(Clone, Copy, Debug)]
pub struct ModelSpec {
    /// The `kind` key's value (or the whole `model = "..."`).
    pub name: &'static str,
    /// What it is and its source, for the docs.
    pub source: &'static str,
    /// Its parameters, in the order they are checked and documented. A parameter whose unit
    /// is `"count"` must be a whole number.
    pub params: &'static [ParamSpec],
    /// The model from checked values.
    pub build: fn(&Args) -> Result<Model, Invalid>,
}

/// The steering model: no parameters.
pub const STEERING: ModelSpec = ModelSpec {
    name: "steering",
    source: "the sources' weighted sum of steering forces, integrated by Euler (the default)",
    params: &[],
    build: |_| Ok(Model::Steering),
};

/// A time horizon in seconds.
const fn seconds(key: &'static str, default: f32, meaning: &'static str) -> ParamSpec {
    ParamSpec { key, kind: Kind::Number(Range::Positive(1e4), Default::Value(default)), unit: "s", meaning }
}

/// ORCA, as RVO2 2.0 computes it.
pub const ORCA: ModelSpec = ModelSpec {
    name: "orca",
    source: "optimal reciprocal collision avoidance (van den Berg, Guy, Lin, Manocha 2011), as RVO2 2.0 computes it",
    params: &[
        seconds(
            "time_horizon",
            5.0,
            "velocities are kept free of collisions with other agents this far ahead",
        ),
        seconds("time_horizon_obst", 5.0, "the same for obstacles"),
        ParamSpec {
            key: "neighbour_dist",
            kind: Kind::Number(Range::Positive(MAX_LENGTH), Default::Value(15.0)),
            unit: "units",
            meaning: "agents within this distance are considered",
        },
        ParamSpec {
            key: "max_neighbours",
            kind: Kind::Number(Range::Between(1.0, MAX_NEIGHBOURS as f32), Default::Value(10.0)),
            unit: "count",
            meaning: "at most this many of them, nearest first",
        },
        ParamSpec {
            key: "preferred_speed",
            kind: Kind::Number(Range::Positive(MAX_LENGTH), Default::Absent("the agent's `max_speed`")),
            unit: "units/s",
            meaning: "the behaviours' wish is cut to this speed; the agent may go up to `max_speed` to avoid others",
        },
    ],
    build: |a| {
        Ok(Model::Orca(Orca {
            time_horizon: a.number("time_horizon"),
            time_horizon_obst: a.number("time_horizon_obst"),
            neighbour_dist: a.number("neighbour_dist"),
            max_neighbours: a.number("max_neighbours") as u32,
            preferred_speed: a.optional("preferred_speed"),
        }))
    },
};

/// Every model, in the order the docs list them.
pub const MODELS: &[&ModelSpec] = &[&STEERING, &ORCA];

/// The docs' model table (Markdown): one row per model with its source, then one per
/// parameter. docs/models.md holds it between markers; a test keeps the two equal.
pub fn docs_table() -> String {
    let mut out =
        String::from("| `model` | parameter | default | accepted | meaning |\n|---|---|---|---|---|\n");
    for m in MODELS {
        out.push_str(&format!("| `\"{}\"` | | | | {} |\n", m.name, m.source));
        for p in m.params {
            let Kind::Number(range, default) = p.kind else { unreachable!("models take numbers") };
            let default = match default {
                Default::Value(v) if p.unit == "count" => format!("`{v}`"),
                Default::Value(v) => format!("`{v:?}`"),
                Default::Absent(computed) => computed.to_string(),
                Default::Required => "required".into(),
                Default::SameAs(key) => format!("`{key}`"),
            };
            let accepted = match range {
                Range::Between(lo, hi) if p.unit == "count" => {
                    format!("a whole number from `{lo}` to `{hi}`")
                }
                _ => format!("{} ({})", range.short(), p.unit),
            };
            out.push_str(&format!("| | `{}` | {default} | {accepted} | {} |\n", p.key, p.meaning));
        }
    }
    out
}
