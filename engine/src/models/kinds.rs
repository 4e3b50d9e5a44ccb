//! The velocity models' parameter tables: each model's key, its source, and its parameters
//! with unit, default, range and meaning. One table drives the scenario validator
//! (`scenario/validate/model.rs`) and the model table of docs/models.md (checked by a test).

use crate::behaviours::params::{Args, Default, Invalid, Kind, MAX_LENGTH, ParamSpec, Range};
use crate::index::MAX_NEIGHBOURS;
use crate::world::{Cfsm, Model, Orca, SocialForce};

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
    /// Named parameter sets a scenario can ask for (`preset = "NAME"`); keys the scenario
    /// gives still win.
    pub presets: &'static [Preset],
}

/// A named set of parameter values, and what it was calibrated against.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The `preset` key's value.
    pub name: &'static str,
    /// Where its values come from, for the docs.
    pub about: &'static str,
    /// The parameters it sets, by key; the others keep their defaults.
    pub values: &'static [(&'static str, f32)],
}

impl Preset {
    /// The value the preset gives `key`, if it sets it.
    pub fn value(&self, key: &str) -> Option<f32> {
        self.values.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }
}

/// The steering model: no parameters.
pub const STEERING: ModelSpec = ModelSpec {
    name: "steering",
    source: "the sources' weighted sum of steering forces, integrated by Euler (the default)",
    params: &[],
    build: |_| Ok(Model::Steering),
    presets: &[],
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
    presets: &[],
};

/// A length in world units, greater than zero.
const fn length(key: &'static str, default: f32, meaning: &'static str) -> ParamSpec {
    ParamSpec {
        key,
        kind: Kind::Number(Range::Positive(MAX_LENGTH), Default::Value(default)),
        unit: "units",
        meaning,
    }
}

/// A pure number, zero allowed.
const fn number(key: &'static str, default: f32, unit: &'static str, meaning: &'static str) -> ParamSpec {
    ParamSpec { key, kind: Kind::Number(Range::NonNegative(1e9), Default::Value(default)), unit, meaning }
}

/// `neighbour_dist`, `max_neighbours` and `preferred_speed`, which every velocity model takes.
macro_rules! reach {
    ($dist:expr, $count:expr) => {
        [
            length("neighbour_dist", $dist, "neighbours and obstacles within this distance are considered"),
            ParamSpec {
                key: "max_neighbours",
                kind: Kind::Number(Range::Between(1.0, MAX_NEIGHBOURS as f32), Default::Value($count)),
                unit: "count",
                meaning: "at most this many neighbours, nearest first",
            },
            ParamSpec {
                key: "preferred_speed",
                kind: Kind::Number(Range::Positive(MAX_LENGTH), Default::Absent("the agent's `max_speed`")),
                unit: "units/s",
                meaning: "the behaviours' wish is cut to this speed",
            },
        ]
    };
}

const CFSM_REACH: [ParamSpec; 3] = reach!(3.0, 24.0);

/// The collision-free speed model, with JuPedSim's defaults.
pub const CFSM: ModelSpec = ModelSpec {
    name: "cfsm",
    source: "the collision-free speed model (Tordeux, Chraibi, Seyfried 2016), as JuPedSim's CollisionFreeSpeedModel defines it",
    params: &[
        seconds("time_gap", 1.0, "the speed is the free spacing ahead divided by it"),
        number("strength", 8.0, "", "strength of the repulsion from neighbours"),
        length("range", 0.1, "range of the repulsion from neighbours"),
        number("wall_strength", 5.0, "", "strength of the repulsion from obstacles"),
        length("wall_range", 0.02, "range of the repulsion from obstacles"),
        CFSM_REACH[0],
        CFSM_REACH[1],
        CFSM_REACH[2],
    ],
    build: |a| {
        Ok(Model::Cfsm(Cfsm {
            time_gap: a.number("time_gap"),
            strength: a.number("strength"),
            range: a.number("range"),
            wall_strength: a.number("wall_strength"),
            wall_range: a.number("wall_range"),
            neighbour_dist: a.number("neighbour_dist"),
            max_neighbours: a.number("max_neighbours") as u32,
            preferred_speed: a.optional("preferred_speed"),
        }))
    },
    presets: &[CFSM_BOTTLENECK, CFSM_CORRIDOR],
};

/// CFSM calibrated against the bottleneck experiments (docs/models.md, "The experiments"). No
/// one parameter set meets these and the corridor's fundamental diagram (the docs give the
/// search), hence two presets.
pub const CFSM_BOTTLENECK: Preset = Preset {
    name: "bottleneck",
    about: "bottleneck flows within ±15 % of Seyfried et al. 2009, Kretz et al. 2006 and Liddle et al. 2011 from 0.8 to 2.0 m (scenarios/batches/bottleneck_widths.toml)",
    values: &[("time_gap", 0.4), ("strength", 16.0)],
};

/// CFSM calibrated against the corridor's fundamental diagram (docs/models.md, "The
/// experiments"): a shorter time gap than JuPedSim's and a wider repulsion, so walkers spread
/// across the corridor rather than queue in tidy lanes.
pub const CFSM_CORRIDOR: Preset = Preset {
    name: "corridor",
    about: "speed against density in a corridor inside the band of Weidmann 1993 and the Jülich corridor experiments (±15 %) from 0.5 to 3 per m², 34 % below Weidmann at 3.5 (scenarios/batches/fundamental_diagram.toml)",
    values: &[("time_gap", 0.6), ("strength", 10.0), ("range", 0.3)],
};

const SOCIAL_FORCE_REACH: [ParamSpec; 3] = reach!(3.0, 16.0);

/// Social force, with Helbing, Farkas and Vicsek's values per 80 kg of mass.
pub const SOCIAL_FORCE: ModelSpec = ModelSpec {
    name: "social_force",
    source: "social force (Helbing and Molnár 1995), with the body, friction and wall forces of Helbing, Farkas and Vicsek 2000, per unit of mass",
    params: &[
        seconds("relaxation_time", 0.5, "time to relax to the preferred velocity, τ"),
        number("strength", 25.0, "units/s²", "strength of the exponential repulsion, A/m (2000 N at 80 kg)"),
        length("range", 0.08, "range of the exponential repulsion, B"),
        ParamSpec {
            key: "wall_strength",
            kind: Kind::Number(Range::NonNegative(1e9), Default::SameAs("strength")),
            unit: "units/s²",
            meaning: "strength of the exponential repulsion from obstacles (JuPedSim's `obstacle_scale` per unit of mass)",
        },
        number(
            "body",
            1500.0,
            "1/s²",
            "body force of touching bodies, k/m (1.2e5 kg/s² at 80 kg); 0 leaves it out",
        ),
        number(
            "friction",
            3000.0,
            "1/(units·s)",
            "sliding friction of touching bodies, κ/m (2.4e5 kg/(m·s) at 80 kg); 0 leaves it out",
        ),
        ParamSpec {
            key: "anisotropy",
            kind: Kind::Number(Range::Between(0.0, 1.0), Default::Value(1.0)),
            unit: "",
            meaning: "λ: a neighbour straight behind counts λ times one ahead (1: isotropic)",
        },
        SOCIAL_FORCE_REACH[0],
        SOCIAL_FORCE_REACH[1],
        SOCIAL_FORCE_REACH[2],
    ],
    build: |a| {
        Ok(Model::SocialForce(SocialForce {
            relaxation_time: a.number("relaxation_time"),
            strength: a.number("strength"),
            range: a.number("range"),
            wall_strength: a.optional("wall_strength").unwrap_or_else(|| a.number("strength")),
            body: a.number("body"),
            friction: a.number("friction"),
            anisotropy: a.number("anisotropy"),
            neighbour_dist: a.number("neighbour_dist"),
            max_neighbours: a.number("max_neighbours") as u32,
            preferred_speed: a.optional("preferred_speed"),
        }))
    },
    presets: &[SOCIAL_FORCE_BOTTLENECK],
};

/// Social force calibrated against the bottleneck experiments (docs/models.md, "The
/// experiments"): a wider, stronger repulsion between agents and a weaker one from walls.
/// No parameters put it inside the corridor's fundamental diagram (the docs say why).
pub const SOCIAL_FORCE_BOTTLENECK: Preset = Preset {
    name: "bottleneck",
    about: "bottleneck flows within ±15 % of Seyfried et al. 2009, Kretz et al. 2006 and Liddle et al. 2011 from 0.8 to 2.0 m (scenarios/batches/bottleneck_widths.toml)",
    values: &[("strength", 50.0), ("range", 0.12), ("wall_strength", 10.0)],
};

/// Every model, in the order the docs list them.
pub const MODELS: &[&ModelSpec] = &[&STEERING, &ORCA, &CFSM, &SOCIAL_FORCE];

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
                _ if p.unit.is_empty() => range.short(),
                _ => format!("{} ({})", range.short(), p.unit),
            };
            out.push_str(&format!("| | `{}` | {default} | {accepted} | {} |\n", p.key, p.meaning));
        }
        for preset in m.presets {
            let values: Vec<String> = preset.values.iter().map(|(k, v)| format!("`{k} = {v}`")).collect();
            out.push_str(&format!(
                "| | `preset = \"{}\"` | | | {}: {}; the file's own keys win |\n",
                preset.name,
                values.join(", "),
                preset.about
            ));
        }
    }
    out
}
