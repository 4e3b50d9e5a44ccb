//! The TOML shapes of a scenario file, as serde reads them (before validation).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};

use crate::world::Param;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioToml {
    pub(crate) version: i64,
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) description: String,
    /// 2 (the plane, the default) or 3 (space).
    pub(crate) dimensions: Option<i64>,
    pub(crate) seed: u64,
    pub(crate) dt: f32,
    pub(crate) ticks: u64,
    #[serde(default)]
    pub(crate) index: Option<String>,
    pub(crate) sensing_skin: Option<SkinToml>,
    pub(crate) bounds: BoundsToml,
    #[serde(default)]
    pub(crate) targets: BTreeMap<String, TargetToml>,
    pub(crate) groups: Vec<GroupToml>,
    #[serde(default = "yes")]
    pub(crate) solid_obstacles: bool,
    #[serde(default)]
    pub(crate) obstacles: Vec<ObstacleToml>,
    #[serde(default)]
    pub(crate) paths: BTreeMap<String, PathToml>,
    #[serde(default)]
    pub(crate) exits: Vec<ExitToml>,
    #[serde(default)]
    pub(crate) gates: Vec<GateToml>,
    #[serde(default)]
    pub(crate) sources: Vec<SourceToml>,
    #[serde(default)]
    pub(crate) metrics: Option<MetricsToml>,
    #[serde(default)]
    pub(crate) expect: Vec<ExpectToml>,
    #[serde(default)]
    pub(crate) measure: Vec<MeasureToml>,
    #[serde(default)]
    pub(crate) events: Vec<EventToml>,
    /// Waiting areas: the same keys as an exit.
    #[serde(default)]
    pub(crate) waiting: Vec<ExitToml>,
    /// The stages journeys lead through.
    #[serde(default)]
    pub(crate) stages: Vec<StageToml>,
    #[serde(default)]
    pub(crate) journeys: Vec<JourneyToml>,
    /// Named numbers for formulas; `formulas` reads and checks them from the document and
    /// replaces every formula before this is read, so nothing else reads them here.
    #[serde(default)]
    #[allow(dead_code)]
    pub(crate) params: BTreeMap<String, f64>,
}

/// An `[[events]]` entry: one trigger and one action; which keys each takes is the validator's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EventToml {
    pub(crate) name: Option<String>,
    pub(crate) at_s: Option<f64>,
    pub(crate) every_s: Option<f64>,
    pub(crate) start_s: Option<f64>,
    pub(crate) end_s: Option<f64>,
    pub(crate) when: Option<WhenToml>,
    pub(crate) repeat: Option<bool>,
    pub(crate) action: String,
    pub(crate) door: Option<String>,
    pub(crate) exit: Option<String>,
    pub(crate) gate: Option<String>,
    pub(crate) source: Option<String>,
    pub(crate) group: Option<String>,
    pub(crate) behaviour: Option<BehaviourRef>,
    pub(crate) target: Option<String>,
    pub(crate) to: Option<Pt>,
    pub(crate) count: Option<u64>,
    pub(crate) region: Option<RegionToml>,
    pub(crate) min_distance: Option<f32>,
    pub(crate) wall_distance: Option<f32>,
    pub(crate) area: Option<String>,
    pub(crate) set: Option<toml::Table>,
    pub(crate) into: Option<String>,
    pub(crate) journey: Option<String>,
    pub(crate) stage: Option<String>,
}

/// A behaviour of a group, by its index in the group's list or by kind (the first of it).
#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum BehaviourRef {
    Index(u32),
    Kind(String),
}

/// An event's condition: a count (`metric`) or the agents in a region, within bounds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WhenToml {
    pub(crate) metric: Option<String>,
    pub(crate) region: Option<RegionToml>,
    pub(crate) group: Option<String>,
    pub(crate) agent: Option<u32>,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
}

/// A `[[measure]]` entry: an area (`rect`/`circle` keys) or a line (`from`, `to`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MeasureToml {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    pub(crate) from: Option<Pt>,
    pub(crate) to: Option<Pt>,
    pub(crate) start_s: Option<f64>,
}

/// An `[[expect]]` entry: which keys a check takes is the validator's business.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectToml {
    pub(crate) name: Option<String>,
    pub(crate) check: Option<String>,
    pub(crate) metric: Option<String>,
    pub(crate) minus: Option<String>,
    pub(crate) region: Option<RegionToml>,
    pub(crate) group: Option<String>,
    pub(crate) agent: Option<u32>,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) at_s: Option<f64>,
    pub(crate) from_s: Option<f64>,
    pub(crate) to_s: Option<f64>,
    pub(crate) after_s: Option<f64>,
    pub(crate) before_s: Option<f64>,
}

/// A region written as its own (usually inline) table: `{ kind = "circle", centre, radius }`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RegionToml {
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
}

pub(crate) fn yes() -> bool {
    true
}

/// Region keys, shared by exits, sources and random targets: `kind` with `min`/`max` (rect) or
/// `centre`/`radius` (circle).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ObstacleToml {
    /// A named obstacle is a door: events open and close it.
    pub(crate) name: Option<String>,
    /// A door that starts open (default: closed).
    pub(crate) open: Option<bool>,
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    /// A polygon's vertices.
    pub(crate) vertices: Option<Vec<Pt>>,
    /// A wall's polyline.
    pub(crate) points: Option<Vec<Pt>>,
    /// A wall's thickness (default 0).
    pub(crate) thickness: Option<f32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathToml {
    pub(crate) nodes: Vec<Pt>,
    pub(crate) radius: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExitToml {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    #[serde(default)]
    pub(crate) groups: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GateToml {
    pub(crate) name: String,
    pub(crate) from: Pt,
    pub(crate) to: Pt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceToml {
    pub(crate) name: String,
    pub(crate) group: String,
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    pub(crate) rate: f32,
    #[serde(default)]
    pub(crate) start_s: f32,
    pub(crate) end_s: Option<f32>,
    pub(crate) max_agents: u64,
    /// A source that starts closed (default: open); events open it.
    pub(crate) open: Option<bool>,
    pub(crate) min_distance: Option<f32>,
    pub(crate) wall_distance: Option<f32>,
    pub(crate) journey: Option<String>,
    pub(crate) stage: Option<String>,
}

/// A `[[stages]]` entry: which keys each kind takes is the validator's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StageToml {
    pub(crate) name: String,
    pub(crate) kind: String,
    pub(crate) position: Option<Pt>,
    pub(crate) radius: Option<f32>,
    pub(crate) exit: Option<String>,
    pub(crate) area: Option<String>,
    /// A queue's slots: a list of points, or `from`, `to` and `count` along a line.
    pub(crate) slots: Option<Vec<Pt>>,
    pub(crate) from: Option<Pt>,
    pub(crate) to: Option<Pt>,
    pub(crate) count: Option<u64>,
    pub(crate) service_s: Option<f32>,
    pub(crate) room: Option<u64>,
}

/// A `[[journeys]]` entry: its first stage and what follows each stage.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct JourneyToml {
    pub(crate) name: String,
    pub(crate) start: String,
    #[serde(default)]
    pub(crate) transitions: Vec<TransitionToml>,
}

/// A journey's `[[journeys.transitions]]` entry.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TransitionToml {
    pub(crate) from: String,
    pub(crate) choose: Option<String>,
    pub(crate) to: OneOrMore,
    pub(crate) weights: Option<Vec<f64>>,
}

/// One name, or a list of them.
pub(crate) struct OneOrMore(pub(crate) Vec<String>);

impl OneOrMore {
    /// The names, in order.
    pub(crate) fn names(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }
}

impl<'de> Deserialize<'de> for OneOrMore {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> Visitor<'de> for Names {
            type Value = OneOrMore;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a stage's name, or a list of stage names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<OneOrMore, E> {
                Ok(OneOrMore(vec![v.to_string()]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMore, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Ok(OneOrMore(names))
            }
        }
        d.deserialize_any(Names)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MetricsToml {
    pub(crate) stuck_distance: Option<f32>,
    pub(crate) stuck_window_s: Option<f32>,
    pub(crate) goal_radius: Option<f32>,
    pub(crate) steerbench: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BoundsToml {
    #[serde(default)]
    pub(crate) kind: Option<String>,
    pub(crate) min: Pt,
    pub(crate) max: Pt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TargetToml {
    pub(crate) kind: String,
    pub(crate) position: Option<Pt>,
    pub(crate) waypoints: Option<Vec<Pt>>,
    pub(crate) speed: Option<f32>,
    pub(crate) agent: Option<u32>,
    pub(crate) group: Option<String>,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    pub(crate) every_s: Option<f32>,
    pub(crate) direction: Option<Pt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupToml {
    pub(crate) name: String,
    pub(crate) count: Option<u64>,
    pub(crate) spawn: SpawnToml,
    pub(crate) max_speed: ParamToml,
    pub(crate) max_force: ParamToml,
    #[serde(default = "param_one")]
    pub(crate) mass: ParamToml,
    #[serde(default = "param_half")]
    pub(crate) radius: ParamToml,
    #[serde(default = "param_zero")]
    pub(crate) initial_speed: ParamToml,
    pub(crate) sensing_radius: Option<f32>,
    pub(crate) max_neighbours: Option<u32>,
    #[serde(default)]
    pub(crate) flocking_interval: f32,
    #[serde(default)]
    pub(crate) behaviours: Vec<BehaviourToml>,
    #[serde(default)]
    pub(crate) on_closed: Vec<OnClosedToml>,
    /// The velocity model: a name, or a table with `kind` and its parameters.
    pub(crate) model: Option<toml::Value>,
    /// The journey its agents start on.
    pub(crate) journey: Option<String>,
    /// How its agents walk in parties (social groups).
    pub(crate) parties: Option<PartiesToml>,
}

/// A group's `parties` table: the shares of its agents alone, in pairs, in triples...; the
/// group force's parameters (defaults in `world::PartyForce`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PartiesToml {
    pub(crate) shares: Vec<f32>,
    pub(crate) gaze: Option<f32>,
    pub(crate) attraction: Option<f32>,
    pub(crate) repulsion: Option<f32>,
    pub(crate) vision_deg: Option<f32>,
    pub(crate) repulsion_range: Option<f32>,
    pub(crate) response_s: Option<f32>,
    #[serde(default)]
    pub(crate) leave_together: bool,
}

/// A group's `on_closed` entry: a door or an exit, and where the group goes while it is closed.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OnClosedToml {
    pub(crate) door: Option<String>,
    pub(crate) exit: Option<String>,
    pub(crate) target: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SpawnToml {
    pub(crate) kind: String,
    pub(crate) min: Option<Pt>,
    pub(crate) max: Option<Pt>,
    pub(crate) centre: Option<Pt>,
    pub(crate) radius: Option<f32>,
    pub(crate) points: Option<Vec<Pt>>,
    pub(crate) min_distance: Option<f32>,
    pub(crate) wall_distance: Option<f32>,
}

/// A behaviour entry: its kind, its weight, and its kind's parameters (checked against the
/// kind's table in `validate::behaviour`).
#[derive(Clone, Deserialize)]
pub(crate) struct BehaviourToml {
    pub(crate) kind: String,
    #[serde(default = "one")]
    pub(crate) weight: f32,
    #[serde(flatten)]
    pub(crate) params: toml::Table,
}

pub(crate) fn one() -> f32 {
    1.0
}

pub(crate) fn param_one() -> ParamToml {
    ParamToml(Param::Value(1.0))
}
pub(crate) fn param_half() -> ParamToml {
    ParamToml(Param::Value(0.5))
}
pub(crate) fn param_zero() -> ParamToml {
    ParamToml(Param::Value(0.0))
}

/// `sensing_skin`: a distance, or a word (`"auto"`, checked by the validator).
pub(crate) enum SkinToml {
    Distance(f32),
    Word(String),
}

impl<'de> Deserialize<'de> for SkinToml {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SkinToml;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a distance of 0 or more, or \"auto\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<SkinToml, E> {
                Ok(SkinToml::Distance(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<SkinToml, E> {
                Ok(SkinToml::Distance(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<SkinToml, E> {
                Ok(SkinToml::Distance(v as f32))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SkinToml, E> {
                Ok(SkinToml::Word(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A per-agent parameter in the file: a number, a uniform range `{ min, max }`, or a truncated
/// normal distribution `{ mean, sd, min, max }`.
pub(crate) struct ParamToml(pub(crate) Param);

impl<'de> Deserialize<'de> for ParamToml {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ParamToml;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a number, a uniform range { min = .., max = .. }, or a normal distribution \
                     { mean = .., sd = .., min = .., max = .. }",
                )
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ParamToml, E> {
                Ok(ParamToml(Param::Value(v as f32)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ParamToml, E> {
                Ok(ParamToml(Param::Value(v as f32)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ParamToml, E> {
                Ok(ParamToml(Param::Value(v as f32)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ParamToml, A::Error> {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct R {
                    min: f32,
                    max: f32,
                    mean: Option<f32>,
                    sd: Option<f32>,
                }
                let r = R::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match (r.mean, r.sd) {
                    (None, None) => Ok(ParamToml(Param::Range { min: r.min, max: r.max })),
                    (Some(mean), Some(sd)) => {
                        Ok(ParamToml(Param::Normal { mean, sd, min: r.min, max: r.max }))
                    }
                    (Some(_), None) => {
                        Err(de::Error::custom("a normal distribution needs `sd` beside `mean`"))
                    }
                    (None, Some(_)) => {
                        Err(de::Error::custom("a normal distribution needs `mean` beside `sd`"))
                    }
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A point `[x, y]` or `[x, y, z]` in the file: two or three numbers, as read; the validator
/// checks the count against the scenario's `dimensions` (a third coordinate in the plane is an
/// error, not dropped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pt {
    /// The coordinates, x first; `coords[2]` is 0 for a point of two.
    pub(crate) coords: [f32; 3],
    /// How many the file gave: 2 or 3.
    pub(crate) len: usize,
}

impl Pt {
    /// The point `[x, y]`.
    pub(crate) fn plane(x: f32, y: f32) -> Pt {
        Pt { coords: [x, y, 0.0], len: 2 }
    }

    /// The coordinates as the file wrote them, for messages: `[x, y]` or `[x, y, z]`.
    pub(crate) fn shown(&self) -> String {
        let shown: Vec<String> = self.coords[..self.len].iter().map(|&c| super::shown(c)).collect();
        format!("[{}]", shown.join(", "))
    }
}

/// What a point is, in the words of the messages (anything but an array is "expected" this).
const A_POINT: &str = "a point [x, y] of two numbers (or [x, y, z] with `dimensions = 3`)";

/// Reads a point's array of values; anything else is refused as "expected a point".
struct PtVisitor;

impl<'de> de::Visitor<'de> for PtVisitor {
    type Value = Vec<toml::Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(A_POINT)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<toml::Value>()? {
            items.push(item);
        }
        Ok(items)
    }
}

impl<'de> Deserialize<'de> for Pt {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let items = d.deserialize_seq(PtVisitor)?;
        let number = |v: &toml::Value| match v {
            toml::Value::Integer(i) => Some(*i as f32),
            toml::Value::Float(f) => Some(*f as f32),
            _ => None,
        };
        let numbers: Vec<f32> = items.iter().filter_map(number).collect();
        match (items.len(), numbers.len() == items.len()) {
            (2, true) => Ok(Pt::plane(numbers[0], numbers[1])),
            (3, true) => Ok(Pt { coords: [numbers[0], numbers[1], numbers[2]], len: 3 }),
            _ => {
                let shown: Vec<String> = items.iter().map(|v| v.to_string()).collect();
                Err(de::Error::custom(format!("expected {A_POINT}, found [{}]", shown.join(", "))))
            }
        }
    }
}
