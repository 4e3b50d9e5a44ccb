//! Scenario files: TOML in, a validated [`Scenario`] out, then a [`World`] built from it.
//!
//! Loading has two stages. serde checks the shape (types, unknown and missing keys), with
//! toml's own spans. Then every value is checked against its documented range, and each
//! complaint names a key path that is resolved to a line and column through toml's spanned
//! document, so every error says file:line:col, the key, and what was expected.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::index::IndexKind;
use crate::math::{PI, Vec2, sin_cos};
use crate::rng::{self, Purpose};
pub use crate::world::{AgentParams, Param};
use crate::world::{
    Agents, Behaviour, Bounds, BoundsKind, EvadePrediction, Exit, Gate, Group, Obstacle, Path as PathDef,
    PathMode, Region, SeparationVariant, Source, Target, TargetId, WeightedBehaviour, World,
};

/// The scenario format version this engine reads.
pub const FORMAT_VERSION: u32 = 1;
/// Most agents a scenario may ask for (all groups together).
pub const MAX_AGENTS: u64 = 20_000_000;
/// Most neighbours any group may keep per agent.
pub const MAX_NEIGHBOURS: u32 = 256;
/// Largest magnitude accepted for coordinates, lengths and speeds.
pub const MAX_MAGNITUDE: f32 = 1e7;

/// A problem with a scenario file: where it is and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ScenarioError {
    /// The file (or the name given to an in-memory source).
    pub file: String,
    /// 1-based line and column, when the problem has a place in the file.
    pub location: Option<(usize, usize)>,
    /// Dotted key path, e.g. `groups[0].behaviours[1].radius`; empty for whole-file problems.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, col)) = self.location {
            write!(f, ":{line}:{col}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

// ---------------------------------------------------------------------------------------------
// The file's shape, as serde sees it.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioToml {
    version: i64,
    name: String,
    #[serde(default)]
    description: String,
    seed: u64,
    dt: f32,
    ticks: u64,
    #[serde(default)]
    index: Option<String>,
    sensing_skin: Option<f32>,
    bounds: BoundsToml,
    #[serde(default)]
    targets: BTreeMap<String, TargetToml>,
    groups: Vec<GroupToml>,
    #[serde(default = "yes")]
    solid_obstacles: bool,
    #[serde(default)]
    obstacles: Vec<ObstacleToml>,
    #[serde(default)]
    paths: BTreeMap<String, PathToml>,
    #[serde(default)]
    exits: Vec<ExitToml>,
    #[serde(default)]
    gates: Vec<GateToml>,
    #[serde(default)]
    sources: Vec<SourceToml>,
    #[serde(default)]
    metrics: Option<MetricsToml>,
}

fn yes() -> bool {
    true
}

/// Region keys, shared by exits, sources and random targets: `kind` with `min`/`max` (rect) or
/// `centre`/`radius` (circle).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObstacleToml {
    kind: String,
    min: Option<[f32; 2]>,
    max: Option<[f32; 2]>,
    centre: Option<[f32; 2]>,
    radius: Option<f32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathToml {
    nodes: Vec<[f32; 2]>,
    radius: f32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExitToml {
    name: String,
    kind: String,
    min: Option<[f32; 2]>,
    max: Option<[f32; 2]>,
    centre: Option<[f32; 2]>,
    radius: Option<f32>,
    #[serde(default)]
    groups: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GateToml {
    name: String,
    from: [f32; 2],
    to: [f32; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SourceToml {
    name: String,
    group: String,
    kind: String,
    min: Option<[f32; 2]>,
    max: Option<[f32; 2]>,
    centre: Option<[f32; 2]>,
    radius: Option<f32>,
    rate: f32,
    #[serde(default)]
    start_s: f32,
    end_s: Option<f32>,
    max_agents: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetricsToml {
    stuck_distance: Option<f32>,
    stuck_window_s: Option<f32>,
    goal_radius: Option<f32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoundsToml {
    #[serde(default)]
    kind: Option<String>,
    min: [f32; 2],
    max: [f32; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetToml {
    kind: String,
    position: Option<[f32; 2]>,
    waypoints: Option<Vec<[f32; 2]>>,
    speed: Option<f32>,
    agent: Option<u32>,
    group: Option<String>,
    min: Option<[f32; 2]>,
    max: Option<[f32; 2]>,
    centre: Option<[f32; 2]>,
    radius: Option<f32>,
    every_s: Option<f32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupToml {
    name: String,
    count: Option<u64>,
    spawn: SpawnToml,
    max_speed: ParamToml,
    max_force: ParamToml,
    #[serde(default = "param_one")]
    mass: ParamToml,
    #[serde(default = "param_half")]
    radius: ParamToml,
    #[serde(default = "param_zero")]
    initial_speed: ParamToml,
    sensing_radius: Option<f32>,
    max_neighbours: Option<u32>,
    #[serde(default)]
    flocking_interval: f32,
    #[serde(default)]
    behaviours: Vec<BehaviourToml>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpawnToml {
    kind: String,
    min: Option<[f32; 2]>,
    max: Option<[f32; 2]>,
    centre: Option<[f32; 2]>,
    radius: Option<f32>,
    points: Option<Vec<[f32; 2]>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BehaviourToml {
    kind: String,
    #[serde(default = "one")]
    weight: f32,
    target: Option<TargetRef>,
    slowing_radius: Option<f32>,
    radius: Option<f32>,
    distance: Option<f32>,
    jitter: Option<f32>,
    look_ahead_s: Option<f32>,
    prediction: Option<String>,
    max_separation: Option<f32>,
    variant: Option<String>,
    speed: Option<f32>,
    see_ahead: Option<f32>,
    max_avoid_force: Option<f32>,
    path: Option<String>,
    mode: Option<String>,
    leader: Option<String>,
    behind_dist: Option<f32>,
    sight_radius: Option<f32>,
    separation_radius: Option<f32>,
    queue_ahead: Option<f32>,
    queue_radius: Option<f32>,
    brake_factor: Option<f32>,
    hard_stop_factor: Option<f32>,
    aggro_radius: Option<f32>,
    min_step: Option<f32>,
    max_step: Option<f32>,
    reach_radius: Option<f32>,
}

fn one() -> f32 {
    1.0
}

impl BehaviourToml {
    /// The optional parameters present in the file, by key.
    fn present(&self) -> Vec<&'static str> {
        let keys = [
            ("target", self.target.is_some()),
            ("slowing_radius", self.slowing_radius.is_some()),
            ("radius", self.radius.is_some()),
            ("distance", self.distance.is_some()),
            ("jitter", self.jitter.is_some()),
            ("look_ahead_s", self.look_ahead_s.is_some()),
            ("prediction", self.prediction.is_some()),
            ("max_separation", self.max_separation.is_some()),
            ("variant", self.variant.is_some()),
            ("speed", self.speed.is_some()),
            ("see_ahead", self.see_ahead.is_some()),
            ("max_avoid_force", self.max_avoid_force.is_some()),
            ("path", self.path.is_some()),
            ("mode", self.mode.is_some()),
            ("leader", self.leader.is_some()),
            ("behind_dist", self.behind_dist.is_some()),
            ("sight_radius", self.sight_radius.is_some()),
            ("separation_radius", self.separation_radius.is_some()),
            ("queue_ahead", self.queue_ahead.is_some()),
            ("queue_radius", self.queue_radius.is_some()),
            ("brake_factor", self.brake_factor.is_some()),
            ("hard_stop_factor", self.hard_stop_factor.is_some()),
            ("aggro_radius", self.aggro_radius.is_some()),
            ("min_step", self.min_step.is_some()),
            ("max_step", self.max_step.is_some()),
            ("reach_radius", self.reach_radius.is_some()),
        ];
        keys.iter().filter(|(_, p)| *p).map(|(k, _)| *k).collect()
    }
}

/// The behaviour kinds and the parameters each takes (besides `kind` and `weight`).
pub const BEHAVIOUR_KINDS: &[(&str, &[&str])] = &[
    ("seek", &["target"]),
    ("flee", &["target"]),
    ("arrive", &["target", "slowing_radius"]),
    ("wander", &["radius", "distance", "jitter"]),
    ("pursuit", &["target", "look_ahead_s"]),
    ("evade", &["target", "look_ahead_s", "prediction"]),
    ("separation", &["radius", "max_separation", "variant"]),
    ("alignment", &["radius"]),
    ("cohesion", &["radius"]),
    ("flock_target", &["target", "speed"]),
    ("avoid_obstacles", &["see_ahead", "max_avoid_force"]),
    ("follow_path", &["path", "mode", "slowing_radius"]),
    (
        "follow_leader",
        &["leader", "behind_dist", "slowing_radius", "sight_radius", "separation_radius", "max_separation"],
    ),
    (
        "queue",
        &[
            "queue_ahead",
            "queue_radius",
            "brake_factor",
            "hard_stop_factor",
            "separation_radius",
            "max_separation",
        ],
    ),
    ("random_walk", &["target", "aggro_radius", "min_step", "max_step", "reach_radius", "slowing_radius"]),
];

/// A behaviour's target in the file: the name of a `[targets.NAME]` entry, or a fixed point.
enum TargetRef {
    Named(String),
    Point([f32; 2]),
}

impl<'de> Deserialize<'de> for TargetRef {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TargetRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a target name (a key of [targets]) or a point [x, y]")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<TargetRef, E> {
                Ok(TargetRef::Named(s.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<TargetRef, A::Error> {
                let p = <[f32; 2]>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(TargetRef::Point(p))
            }
        }
        d.deserialize_any(V)
    }
}

fn param_one() -> ParamToml {
    ParamToml(Param::Value(1.0))
}
fn param_half() -> ParamToml {
    ParamToml(Param::Value(0.5))
}
fn param_zero() -> ParamToml {
    ParamToml(Param::Value(0.0))
}

/// A per-agent parameter in the file: a number, or a uniform range `{ min, max }`.
struct ParamToml(Param);

impl<'de> Deserialize<'de> for ParamToml {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ParamToml;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or a uniform range { min = .., max = .. }")
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
                }
                let r = R::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(ParamToml(Param::Range { min: r.min, max: r.max }))
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// The validated scenario.

/// Where a group's initial agents appear.
#[derive(Clone, Debug, PartialEq)]
pub enum Spawn {
    /// Uniform in the rectangle.
    Rect { min: Vec2, max: Vec2 },
    /// Uniform in the disc.
    Circle { centre: Vec2, radius: f32 },
    /// Agent `k` at `points[k]`.
    Points(Vec<Vec2>),
}

/// A group as the scenario describes it: its behaviour and how to populate it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// The group, with its behaviours and per-agent parameters.
    pub group: Group,
    /// Agents at tick 0.
    pub count: u32,
    pub spawn: Spawn,
}

/// Settings of the metrics `throng run` reports (see `metrics`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricsConfig {
    /// An agent that moved less than this (world units) over a window is stuck.
    pub stuck_distance: f32,
    /// The window, in seconds.
    pub stuck_window_s: f32,
    /// An agent this close to its goal is at its goal, not stuck.
    pub goal_radius: f32,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig { stuck_distance: 0.5, stuck_window_s: 10.0, goal_radius: 2.0 }
    }
}

/// A validated scenario, ready to build worlds from.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Where it was read from (for messages).
    pub origin: String,
    pub name: String,
    pub description: String,
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    pub ticks: u64,
    pub index: IndexKind,
    /// Extra reach of reused sensing candidates (`Pipeline::set_sensing_skin`); 0: off.
    pub sensing_skin: f32,
    pub bounds: Bounds,
    pub targets: Vec<Target>,
    pub groups: Vec<GroupSpec>,
    pub obstacles: Vec<Obstacle>,
    pub solid_obstacles: bool,
    pub paths: Vec<PathDef>,
    pub exits: Vec<Exit>,
    pub gates: Vec<Gate>,
    pub sources: Vec<Source>,
    pub metrics: MetricsConfig,
    /// Problems that do not stop a run (e.g. an exit outside the bounds), located like errors.
    pub warnings: Vec<ScenarioError>,
    /// BLAKE3 of the file's bytes.
    pub content_hash: [u8; 32],
}

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let (file, text) = read_source(path, "a scenario file (.toml)")?;
        Scenario::parse(&text, &file)
    }

    /// Validates scenario text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        if text.trim().is_empty() {
            return Err(ScenarioError {
                file: origin.into(),
                location: Some((1, 1)),
                key: String::new(),
                message: "the file is empty; a scenario needs version, name, seed, dt, ticks, [bounds] and [[groups]]".into(),
            });
        }
        let doc = DeTable::parse(text).map_err(|e| toml_error(origin, text, None, &e))?;
        let raw = ScenarioToml::deserialize(toml::de::Deserializer::from(doc.clone()))
            .map_err(|e| toml_error(origin, text, Some(&doc), &e))?;
        let mut v = Validator { origin, text, doc: &doc, error: None, warnings: Vec::new() };
        let scenario = v.scenario(raw, text);
        match (scenario, v.error) {
            (Some(mut s), None) => {
                s.warnings = v.warnings;
                Ok(s)
            }
            (_, Some(e)) => Err(e),
            (None, None) => unreachable!("validation failed without an error"),
        }
    }

    pub fn agent_count(&self) -> u64 {
        self.groups.iter().map(|g| g.count as u64).sum()
    }

    /// The same scenario with about `agents` agents at the same density: every count (and
    /// every source's rate and maximum) is multiplied by `k = agents / agent_count()`, and all
    /// geometry (bounds, spawn regions, targets, obstacles, paths, exits, gates, source regions)
    /// by `√k` about the origin. Agent parameters, radii and sensing stay as they are, so each
    /// agent sees the same neighbourhood. Fails for `points` spawns, which cannot grow.
    pub fn scaled(&self, agents: u64) -> Result<Scenario, String> {
        if agents == 0 || agents > MAX_AGENTS {
            return Err(format!("cannot scale to {agents} agents (1 to {MAX_AGENTS})"));
        }
        let k = agents as f64 / self.agent_count() as f64;
        let s = k.sqrt() as f32;
        let mut out = self.clone();
        let mut remaining = agents;
        let last = out.groups.len() - 1;
        for (g, spec) in out.groups.iter_mut().enumerate() {
            if let Spawn::Points(_) = spec.spawn {
                return Err(format!(
                    "group \"{}\" spawns at listed points, which cannot be scaled",
                    spec.group.name
                ));
            }
            // Counts in proportion; the last group takes the remainder so the total is exact.
            let count = if g == last {
                remaining
            } else {
                ((spec.count as f64 * k).round() as u64).clamp(1, remaining)
            };
            remaining = remaining.saturating_sub(count);
            spec.count = count.max(1) as u32;
        }
        for src in &mut out.sources {
            src.rate_per_s *= k as f32;
            src.max = ((src.max as f64 * k).round() as u64).min(MAX_AGENTS) as u32;
        }
        out.scale_geometry(s);
        out.name = format!("{} x{:.3}", self.name, k);
        Ok(out)
    }

    /// Multiplies all geometry (bounds, spawn regions, targets, obstacles, paths, exits,
    /// gates, source regions) by `s` about the origin; counts and agent parameters stay. With
    /// uniform spawns this divides the density by `s²`.
    pub fn scale_geometry(&mut self, s: f32) {
        let region = |r: &Region| match *r {
            Region::Rect { min, max } => Region::Rect { min: min * s, max: max * s },
            Region::Circle { centre, radius } => Region::Circle { centre: centre * s, radius: radius * s },
        };
        self.bounds.min *= s;
        self.bounds.max *= s;
        for spec in &mut self.groups {
            spec.spawn = match &spec.spawn {
                Spawn::Rect { min, max } => Spawn::Rect { min: *min * s, max: *max * s },
                Spawn::Circle { centre, radius } => Spawn::Circle { centre: *centre * s, radius: radius * s },
                Spawn::Points(points) => Spawn::Points(points.iter().map(|p| *p * s).collect()),
            };
        }
        for t in &mut self.targets {
            match t {
                Target::Point(p) => *p *= s,
                Target::Moving { waypoints, .. } => waypoints.iter_mut().for_each(|w| *w *= s),
                Target::Random { region: r, .. } => *r = region(r),
                Target::Agent(_) | Target::NearestOf(_) => {}
            }
        }
        for o in &mut self.obstacles {
            *o = match *o {
                Obstacle::Circle { centre, radius } => {
                    Obstacle::Circle { centre: centre * s, radius: radius * s }
                }
                Obstacle::Rect { min, max } => Obstacle::Rect { min: min * s, max: max * s },
            };
        }
        for p in &mut self.paths {
            p.nodes.iter_mut().for_each(|n| *n *= s);
        }
        for e in &mut self.exits {
            e.region = region(&e.region);
        }
        for g in &mut self.gates {
            g.from *= s;
            g.to *= s;
        }
        for src in &mut self.sources {
            src.region = region(&src.region);
        }
    }

    /// The world at tick 0: every agent spawned, parameters drawn, generators seeded.
    pub fn build_world(&self) -> World {
        let mut world = World {
            name: self.name.clone(),
            seed: self.seed,
            dt: self.dt,
            tick: 0,
            bounds: self.bounds,
            groups: self.groups.iter().map(|g| g.group.clone()).collect(),
            targets: self.targets.clone(),
            obstacles: self.obstacles.clone(),
            solid_obstacles: self.solid_obstacles,
            paths: self.paths.clone(),
            exits: self.exits.clone(),
            gates: self.gates.clone(),
            sources: self.sources.clone(),
            agents: Agents::default(),
            next_id: 0,
            exited: 0,
        };
        for (g, spec) in self.groups.iter().enumerate() {
            let spawner = rng::name_key(&spec.group.name);
            for k in 0..spec.count {
                let key = rng::agent_key(spawner, k as u64);
                let mut spawn_rng = rng::agent_rng(self.seed, key, Purpose::Spawn);
                let p = match &spec.spawn {
                    Spawn::Rect { min, max } => Vec2::new(
                        rng::uniform(&mut spawn_rng, min.x, max.x),
                        rng::uniform(&mut spawn_rng, min.y, max.y),
                    ),
                    Spawn::Circle { centre, radius } => {
                        let r = radius * rng::unit(&mut spawn_rng).sqrt();
                        let (s, c) = sin_cos(2.0 * PI * rng::unit(&mut spawn_rng));
                        *centre + Vec2::new(c, s) * r
                    }
                    Spawn::Points(points) => points[k as usize],
                };
                world.push_agent(g as u16, key, p);
            }
        }
        world
    }
}

/// Reads a TOML source file for the loaders: the path as it will be named in errors, and the
/// text. A directory, a missing or unreadable file, and invalid UTF-8 (located at the first bad
/// byte) are errors; `expected` says what the file should have been.
pub(crate) fn read_source(path: &Path, expected: &str) -> Result<(String, String), ScenarioError> {
    let file = path.display().to_string();
    let whole =
        |message: String| ScenarioError { file: file.clone(), location: None, key: String::new(), message };
    if path.is_dir() {
        return Err(whole(format!("is a directory; expected {expected}")));
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => whole("no such file".into()),
        _ => whole(format!("cannot read: {e}")),
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((file, text)),
        Err(e) => {
            let bytes = e.as_bytes();
            let valid = e.utf8_error().valid_up_to();
            let location = Some(line_col(&String::from_utf8_lossy(&bytes[..valid]), valid));
            Err(ScenarioError {
                file,
                location,
                key: String::new(),
                message: "the file is not valid UTF-8".into(),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Locating keys and values in the source.

/// One step of a key path.
#[derive(Clone, Copy, Debug)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

/// The span of the value at `path`, or of the deepest part of it that exists.
fn span_of(doc: &Spanned<DeTable>, path: &[Seg]) -> Range<usize> {
    let mut span = doc.span();
    let mut value: Option<&DeValue> = None;
    let mut table: Option<&DeTable> = Some(doc.get_ref());
    for seg in path {
        let next = match (seg, table, value) {
            (Seg::Key(k), Some(t), _) => t.get(*k),
            (Seg::Index(i), _, Some(DeValue::Array(items))) => items.get(*i),
            _ => None,
        };
        let Some(next) = next else { break };
        span = next.span();
        value = Some(next.get_ref());
        table = match next.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    span
}

/// The key path of the innermost key or value containing byte `at`. A table written with a
/// `[header]` (or `[[header]]`) spans only its header line, not its keys, so every table is
/// searched, not only those whose span contains `at`.
fn path_at(doc: &Spanned<DeTable>, at: usize) -> String {
    let mut out = String::new();
    find_path(doc.get_ref(), &mut out, &|k, v| k.is_some_and(|k| k.contains(&at)) || v.contains(&at));
    out
}

/// The key path of the innermost table or value whose span is exactly `span` (serde reports a
/// missing key at the span of the table that lacks it); empty for the top level.
fn path_of_span(doc: &Spanned<DeTable>, span: &Range<usize>) -> String {
    let mut out = String::new();
    find_path(doc.get_ref(), &mut out, &|_, v| v == *span);
    out
}

/// Depth-first search for the innermost entry below `table` that `hit(key span, value span)`
/// accepts; appends its path to `out` and returns whether one was found.
fn find_path(
    table: &DeTable,
    out: &mut String,
    hit: &dyn Fn(Option<Range<usize>>, Range<usize>) -> bool,
) -> bool {
    fn value(
        v: &Spanned<DeValue>,
        key: Option<Range<usize>>,
        out: &mut String,
        hit: &dyn Fn(Option<Range<usize>>, Range<usize>) -> bool,
    ) -> bool {
        let deeper = match v.get_ref() {
            DeValue::Table(t) => find_path(t, out, hit),
            DeValue::Array(items) => items.iter().enumerate().any(|(i, item)| {
                let len = out.len();
                out.push_str(&format!("[{i}]"));
                if value(item, None, out, hit) {
                    return true;
                }
                out.truncate(len);
                false
            }),
            _ => false,
        };
        deeper || hit(key, v.span())
    }
    table.iter().any(|(k, v)| {
        let len = out.len();
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(k.get_ref());
        if value(v, Some(k.span()), out, hit) {
            return true;
        }
        out.truncate(len);
        false
    })
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate nearest to `word`, if it is near enough to be a plausible typo.
pub fn nearest_word<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Turns a toml/serde error into a located one, rewording unknown keys with a suggestion.
fn toml_error(
    origin: &str,
    text: &str,
    doc: Option<&Spanned<DeTable>>,
    e: &toml::de::Error,
) -> ScenarioError {
    let location = e.span().map(|s| line_col(text, s.start));
    let mut message = e.message().trim().to_string();
    let missing = message.strip_prefix("missing field `").map(|rest| rest.trim_end_matches('`').to_string());
    let key = match (doc, e.span()) {
        (Some(doc), Some(s)) if missing.is_some() => path_of_span(doc, &s),
        (Some(doc), Some(s)) => path_at(doc, s.start),
        _ => String::new(),
    };
    if let Some(field) = missing {
        message = format!("missing key `{field}`");
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (field, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let mut m = format!("unknown key `{field}`");
        if let Some(near) = nearest_word(field, names.iter().copied()) {
            m.push_str(&format!("; did you mean `{near}`?"));
        }
        if !names.is_empty() {
            m.push_str(&format!(" (expected one of: {})", names.join(", ")));
        }
        message = m;
    }
    ScenarioError { file: origin.into(), location, key, message }
}

// ---------------------------------------------------------------------------------------------
// Range checks.

struct Validator<'a> {
    origin: &'a str,
    text: &'a str,
    doc: &'a Spanned<DeTable<'a>>,
    /// The first problem found; validation stops reporting after it.
    error: Option<ScenarioError>,
    warnings: Vec<ScenarioError>,
}

/// What a number must be.
#[derive(Clone, Copy)]
enum Rule {
    /// `0 < x <= max`
    Positive(f32),
    /// `0 <= x <= max`
    NonNegative(f32),
    /// `|x| <= max`
    Finite(f32),
}

impl Rule {
    fn holds(self, x: f32) -> bool {
        x.is_finite()
            && match self {
                Rule::Positive(max) => x > 0.0 && x <= max,
                Rule::NonNegative(max) => (0.0..=max).contains(&x),
                Rule::Finite(max) => x.abs() <= max,
            }
    }

    fn describe(self) -> String {
        match self {
            Rule::Positive(max) => format!("a finite number > 0 and <= {max:e}"),
            Rule::NonNegative(max) => format!("a finite number >= 0 and <= {max:e}"),
            Rule::Finite(max) => format!("a finite number between {:e} and {max:e}", -max),
        }
    }
}

impl<'a> Validator<'a> {
    /// Records a problem at `path` (the first one wins) and returns `None` to stop the caller.
    fn fail<T>(&mut self, path: &[Seg], message: impl Into<String>) -> Option<T> {
        if self.error.is_none() {
            let span = span_of(self.doc, path);
            self.error = Some(ScenarioError {
                file: self.origin.into(),
                location: Some(line_col(self.text, span.start)),
                key: path_string(path),
                message: message.into(),
            });
        }
        None
    }

    /// Records a warning at `path`.
    fn warn(&mut self, path: &[Seg], message: impl Into<String>) {
        let span = span_of(self.doc, path);
        self.warnings.push(ScenarioError {
            file: self.origin.into(),
            location: Some(line_col(self.text, span.start)),
            key: path_string(path),
            message: message.into(),
        });
    }

    /// Rejects a key present in the table at `base` that its kind does not take (`what`
    /// names the kind, e.g. `a "rect" spawn`).
    fn only_allowed(
        &mut self,
        base: &[Seg],
        present: &[(&'static str, bool)],
        allowed: &[&str],
        what: &str,
    ) -> Option<()> {
        for &(key, is) in present {
            if is && !allowed.contains(&key) {
                let path = [base, &[Seg::Key(key)]].concat();
                return self.fail(
                    &path,
                    format!("`{key}` is not a parameter of {what} (it takes: {})", allowed.join(", ")),
                );
            }
        }
        Some(())
    }

    /// A region from `kind` and its keys; `base` is the table holding them.
    #[allow(clippy::too_many_arguments)] // the four optional region keys of one table
    fn region(
        &mut self,
        base: &[Seg],
        kind: &str,
        min: Option<[f32; 2]>,
        max: Option<[f32; 2]>,
        centre: Option<[f32; 2]>,
        radius: Option<f32>,
        what: &str,
    ) -> Option<Region> {
        let at = |k: &'static str| [base, &[Seg::Key(k)]].concat();
        let k = self.choice(&at("kind"), kind, &[("rect", 0), ("circle", 1)])?;
        let present = [
            ("min", min.is_some()),
            ("max", max.is_some()),
            ("centre", centre.is_some()),
            ("radius", radius.is_some()),
        ];
        let allowed: &[&str] = if k == 0 { &["min", "max"] } else { &["centre", "radius"] };
        self.only_allowed(base, &present, allowed, &format!("a \"{kind}\" {what}"))?;
        if let Some((key, _)) = present.iter().find(|(k, is)| !is && allowed.contains(k)) {
            return self.fail(base, format!("missing key `{key}` for a \"{kind}\" {what}"));
        }
        if k == 0 {
            let min = self.point(&at("min"), min?)?;
            let max = self.point(&at("max"), max?)?;
            if !(min.x < max.x && min.y < max.y) {
                return self.fail(&at("max"), format!("an inverted or empty rectangle: expected max > min on both axes, found min {min} and max {max}"));
            }
            Some(Region::Rect { min, max })
        } else {
            let centre = self.point(&at("centre"), centre?)?;
            let radius = self.num(&at("radius"), radius?, Rule::Positive(MAX_MAGNITUDE))?;
            Some(Region::Circle { centre, radius })
        }
    }

    fn num(&mut self, path: &[Seg], x: f32, rule: Rule) -> Option<f32> {
        if rule.holds(x) {
            Some(x)
        } else {
            self.fail(path, format!("expected {}, found {x}", rule.describe()))
        }
    }

    fn point(&mut self, path: &[Seg], p: [f32; 2]) -> Option<Vec2> {
        let rule = Rule::Finite(MAX_MAGNITUDE);
        if rule.holds(p[0]) && rule.holds(p[1]) {
            Some(Vec2::new(p[0], p[1]))
        } else {
            self.fail(
                path,
                format!("expected a point [x, y] of {}, found [{}, {}]", rule.describe(), p[0], p[1]),
            )
        }
    }

    fn param(&mut self, path: &[Seg], p: Param, rule: Rule) -> Option<Param> {
        match p {
            Param::Value(v) => self.num(path, v, rule).map(Param::Value),
            Param::Range { min, max } => {
                let lo = [path, &[Seg::Key("min")]].concat();
                let hi = [path, &[Seg::Key("max")]].concat();
                self.num(&lo, min, rule)?;
                self.num(&hi, max, rule)?;
                if min > max {
                    return self.fail(&lo, format!("a range needs min <= max, found min {min} > max {max}"));
                }
                Some(p)
            }
        }
    }

    fn choice<T: Copy>(&mut self, path: &[Seg], value: &str, options: &[(&str, T)]) -> Option<T> {
        if let Some((_, t)) = options.iter().find(|(name, _)| *name == value) {
            return Some(*t);
        }
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let hint = nearest_word(value, names.iter().copied())
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        self.fail(path, format!("unknown value \"{value}\"{hint} (expected one of: {})", names.join(", ")))
    }

    fn scenario(&mut self, raw: ScenarioToml, text: &str) -> Option<Scenario> {
        use Seg::Key;
        if raw.version != FORMAT_VERSION as i64 {
            return self.fail(
                &[Key("version")],
                format!("this engine reads scenario format version {FORMAT_VERSION}, found {}", raw.version),
            );
        }
        if raw.name.trim().is_empty() {
            return self.fail(&[Key("name")], "expected a non-empty name");
        }
        let dt = self.num(&[Key("dt")], raw.dt, Rule::Positive(10.0))?;
        if raw.ticks == 0 || raw.ticks > 1_000_000_000 {
            return self
                .fail(&[Key("ticks")], format!("expected a tick count from 1 to 1e9, found {}", raw.ticks));
        }
        let index = match &raw.index {
            None => IndexKind::Kd,
            Some(s) => self.choice(
                &[Key("index")],
                s,
                &[("kd", IndexKind::Kd), ("brute", IndexKind::Brute), ("grid", IndexKind::Grid)],
            )?,
        };
        let sensing_skin = match raw.sensing_skin {
            None => 0.0,
            Some(s) => self.num(&[Key("sensing_skin")], s, Rule::NonNegative(1e4))?,
        };
        let bounds = self.bounds(&raw.bounds)?;

        if raw.groups.is_empty() {
            return self.fail(&[Key("groups")], "expected at least one [[groups]] entry");
        }
        if raw.groups.len() > u16::MAX as usize {
            return self.fail(&[Key("groups")], format!("at most {} groups", u16::MAX));
        }
        let mut group_names: Vec<&str> = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            let path = [Key("groups"), Seg::Index(g), Key("name")];
            if group.name.trim().is_empty() {
                return self.fail(&path, "expected a non-empty group name");
            }
            if group_names.contains(&group.name.as_str()) {
                return self.fail(&path, format!("group name \"{}\" is used twice", group.name));
            }
            group_names.push(&group.name);
        }

        // Named targets, in name order (BTreeMap), then anonymous points appended by behaviours.
        let mut targets = Vec::new();
        let mut target_names: Vec<&str> = Vec::new();
        let mut counts = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            counts.push(self.count(g, group)?);
        }
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        if total > MAX_AGENTS {
            return self.fail(
                &[Key("groups")],
                format!("{total} agents in all; at most {MAX_AGENTS} are supported"),
            );
        }
        for (name, t) in &raw.targets {
            targets.push(self.target(name, t, &group_names, total, dt)?);
            target_names.push(name);
        }

        let mut paths = Vec::new();
        for (name, p) in &raw.paths {
            paths.push(self.path(name, p)?);
        }
        let path_names: Vec<&str> = raw.paths.keys().map(|k| k.as_str()).collect();
        let mut obstacles = Vec::new();
        for (o, raw_o) in raw.obstacles.iter().enumerate() {
            let base = [Key("obstacles"), Seg::Index(o)];
            let region = self.region(
                &base,
                &raw_o.kind,
                raw_o.min,
                raw_o.max,
                raw_o.centre,
                raw_o.radius,
                "obstacle",
            )?;
            obstacles.push(match region {
                Region::Rect { min, max } => Obstacle::Rect { min, max },
                Region::Circle { centre, radius } => Obstacle::Circle { centre, radius },
            });
        }
        let names =
            Names { groups: &group_names, targets: &target_names, paths: &path_names, counts: &counts };

        let mut groups = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            let spec = self.group(g, group, counts[g], &bounds, dt, &names, &mut targets)?;
            groups.push(spec);
        }
        let exits = self.exits(&raw.exits, &group_names, &bounds)?;
        let mut gates = Vec::new();
        for (i, gate) in raw.gates.iter().enumerate() {
            let at = |k: &'static str| [Key("gates"), Seg::Index(i), Key(k)];
            let from = self.point(&at("from"), gate.from)?;
            let to = self.point(&at("to"), gate.to)?;
            if from == to {
                return self.fail(&at("to"), "a gate needs two different end points");
            }
            if raw.gates[..i].iter().any(|g| g.name == gate.name) {
                return self.fail(&at("name"), format!("gate name \"{}\" is used twice", gate.name));
            }
            gates.push(Gate { name: gate.name.clone(), from, to });
        }
        let mut sources = Vec::new();
        let mut capacity = total;
        for (i, raw_s) in raw.sources.iter().enumerate() {
            if raw.sources[..i].iter().any(|o| o.name == raw_s.name) {
                return self.fail(
                    &[Key("sources"), Seg::Index(i), Key("name")],
                    format!("source name \"{}\" is used twice", raw_s.name),
                );
            }
            let source = self.source(i, raw_s, &group_names, dt * raw.ticks as f32)?;
            capacity += source.max as u64;
            sources.push(source);
        }
        if capacity > MAX_AGENTS {
            return self.fail(
                &[Key("sources")],
                format!(
                    "up to {capacity} agents with the sources' max_agents; at most {MAX_AGENTS} are supported"
                ),
            );
        }
        let metrics = match &raw.metrics {
            None => MetricsConfig::default(),
            Some(m) => {
                let d = MetricsConfig::default();
                let at = |k: &'static str| [Key("metrics"), Key(k)];
                MetricsConfig {
                    stuck_distance: self.num(
                        &at("stuck_distance"),
                        m.stuck_distance.unwrap_or(d.stuck_distance),
                        Rule::NonNegative(MAX_MAGNITUDE),
                    )?,
                    stuck_window_s: self.num(
                        &at("stuck_window_s"),
                        m.stuck_window_s.unwrap_or(d.stuck_window_s),
                        Rule::Positive(1e6),
                    )?,
                    goal_radius: self.num(
                        &at("goal_radius"),
                        m.goal_radius.unwrap_or(d.goal_radius),
                        Rule::NonNegative(MAX_MAGNITUDE),
                    )?,
                }
            }
        };
        // A nearest-of-group target cannot be used by a member of that same group.
        for (g, spec) in groups.iter().enumerate() {
            for (b, wb) in spec.group.behaviours.iter().enumerate() {
                if let Some(t) = wb.behaviour.target()
                    && targets[t as usize] == Target::NearestOf(g as u16)
                {
                    let path =
                        [Key("groups"), Seg::Index(g), Key("behaviours"), Seg::Index(b), Key("target")];
                    return self.fail(&path, format!("the target is the nearest agent of group \"{}\", this behaviour's own group; a group cannot target the nearest of its own members", spec.group.name));
                }
            }
        }
        Some(Scenario {
            origin: self.origin.into(),
            name: raw.name,
            description: raw.description,
            seed: raw.seed,
            dt,
            ticks: raw.ticks,
            index,
            sensing_skin,
            bounds,
            targets,
            groups,
            obstacles,
            solid_obstacles: raw.solid_obstacles,
            paths,
            exits,
            gates,
            sources,
            metrics,
            warnings: Vec::new(),
            content_hash: *blake3::hash(text.as_bytes()).as_bytes(),
        })
    }

    fn path(&mut self, name: &str, p: &PathToml) -> Option<PathDef> {
        use Seg::Key;
        let at = |k: &'static str| [Key("paths"), Key(name), Key(k)];
        if p.nodes.is_empty() {
            return self.fail(&at("nodes"), "expected at least one node [x, y]");
        }
        let mut nodes = Vec::new();
        for (i, n) in p.nodes.iter().enumerate() {
            nodes.push(self.point(&[Key("paths"), Key(name), Key("nodes"), Seg::Index(i)], *n)?);
        }
        let radius = self.num(&at("radius"), p.radius, Rule::Positive(MAX_MAGNITUDE))?;
        Some(PathDef { name: name.into(), nodes, radius })
    }

    fn group_index(&mut self, path: &[Seg], name: &str, groups: &[&str]) -> Option<u16> {
        match groups.iter().position(|g| *g == name) {
            Some(g) => Some(g as u16),
            None => {
                let hint = nearest_word(name, groups.iter().copied())
                    .map(|n| format!("; did you mean \"{n}\"?"))
                    .unwrap_or_default();
                self.fail(path, format!("no group is named \"{name}\"{hint} (groups: {})", groups.join(", ")))
            }
        }
    }

    fn exits(&mut self, raw: &[ExitToml], groups: &[&str], bounds: &Bounds) -> Option<Vec<Exit>> {
        use Seg::{Index, Key};
        let mut exits = Vec::new();
        for (i, e) in raw.iter().enumerate() {
            let base = [Key("exits"), Index(i)];
            let region = self.region(&base, &e.kind, e.min, e.max, e.centre, e.radius, "exit")?;
            if raw[..i].iter().any(|x| x.name == e.name) {
                return self.fail(
                    &[Key("exits"), Index(i), Key("name")],
                    format!("exit name \"{}\" is used twice", e.name),
                );
            }
            let mut gs = Vec::new();
            for (k, g) in e.groups.iter().enumerate() {
                gs.push(self.group_index(&[Key("exits"), Index(i), Key("groups"), Index(k)], g, groups)?);
            }
            let (lo, hi) = region.aabb();
            let overlaps =
                lo.x <= bounds.max.x && hi.x >= bounds.min.x && lo.y <= bounds.max.y && hi.y >= bounds.min.y;
            if !overlaps {
                let hint = if bounds.kind == BoundsKind::Wrap {
                    "no agent can reach it"
                } else {
                    "agents must leave the bounds to reach it"
                };
                self.warn(&base, format!("exit \"{}\" lies outside the bounds; {hint}", e.name));
            }
            exits.push(Exit { name: e.name.clone(), region, groups: gs });
        }
        Some(exits)
    }

    fn source(&mut self, i: usize, s: &SourceToml, groups: &[&str], run_s: f32) -> Option<Source> {
        use Seg::{Index, Key};
        let base = [Key("sources"), Index(i)];
        let at = |k: &'static str| [Key("sources"), Index(i), Key(k)];
        let group = self.group_index(&at("group"), &s.group, groups)?;
        let region = self.region(&base, &s.kind, s.min, s.max, s.centre, s.radius, "spawn source")?;
        let rate_per_s = self.num(&at("rate"), s.rate, Rule::NonNegative(1e7))?;
        let start_s = self.num(&at("start_s"), s.start_s, Rule::NonNegative(1e9))?;
        let end_s = match s.end_s {
            None => run_s.max(start_s),
            Some(e) => self.num(&at("end_s"), e, Rule::NonNegative(1e9))?,
        };
        if end_s < start_s {
            return self.fail(&at("end_s"), format!("end_s {end_s} is before start_s {start_s}"));
        }
        if s.max_agents > MAX_AGENTS {
            return self
                .fail(&at("max_agents"), format!("expected at most {MAX_AGENTS}, found {}", s.max_agents));
        }
        Some(Source {
            name: s.name.clone(),
            group,
            region,
            rate_per_s,
            start_s,
            end_s,
            max: s.max_agents as u32,
            spawned: 0,
        })
    }

    fn bounds(&mut self, b: &BoundsToml) -> Option<Bounds> {
        use Seg::Key;
        let kind = match &b.kind {
            None => BoundsKind::Open,
            Some(s) => self.choice(
                &[Key("bounds"), Key("kind")],
                s,
                &[("open", BoundsKind::Open), ("wrap", BoundsKind::Wrap)],
            )?,
        };
        let min = self.point(&[Key("bounds"), Key("min")], b.min)?;
        let max = self.point(&[Key("bounds"), Key("max")], b.max)?;
        if !(min.x < max.x && min.y < max.y) {
            return self.fail(
                &[Key("bounds"), Key("max")],
                format!("expected max > min on both axes, found min {min} and max {max}"),
            );
        }
        Some(Bounds { kind, min, max })
    }

    fn count(&mut self, g: usize, group: &GroupToml) -> Option<u32> {
        use Seg::{Index, Key};
        let points = match &group.spawn.points {
            Some(p) if group.spawn.kind == "points" => Some(p.len() as u64),
            _ => None,
        };
        let count = match (group.count, points) {
            (None, Some(n)) => n,
            (None, None) => {
                return self.fail(
                    &[Key("groups"), Index(g)],
                    "missing key `count` (the number of agents in the group)",
                );
            }
            (Some(c), Some(n)) if c != n => {
                return self.fail(
                    &[Key("groups"), Index(g), Key("count")],
                    format!("count is {c} but spawn.points lists {n} points"),
                );
            }
            (Some(c), _) => c,
        };
        if count == 0 || count > MAX_AGENTS {
            return self.fail(
                &[Key("groups"), Index(g), Key("count")],
                format!("expected an agent count from 1 to {MAX_AGENTS}, found {count}"),
            );
        }
        Some(count as u32)
    }

    fn target(
        &mut self,
        name: &str,
        t: &TargetToml,
        groups: &[&str],
        agents: u64,
        dt: f32,
    ) -> Option<Target> {
        use Seg::Key;
        let base = [Key("targets"), Key(name)];
        let at = |k: &'static str| [Key("targets"), Key(name), Key(k)];
        let kind = self.choice(
            &at("kind"),
            &t.kind,
            &[("point", 0), ("moving", 1), ("agent", 2), ("nearest", 3), ("random", 4)],
        )?;
        let allowed: &[&str] = match kind {
            0 => &["position"],
            1 => &["waypoints", "speed"],
            2 => &["agent"],
            3 => &["group"],
            _ => &["min", "max", "centre", "radius", "every_s"],
        };
        let present = [
            ("position", t.position.is_some()),
            ("waypoints", t.waypoints.is_some()),
            ("speed", t.speed.is_some()),
            ("agent", t.agent.is_some()),
            ("group", t.group.is_some()),
            ("min", t.min.is_some()),
            ("max", t.max.is_some()),
            ("centre", t.centre.is_some()),
            ("radius", t.radius.is_some()),
            ("every_s", t.every_s.is_some()),
        ];
        self.only_allowed(&base, &present, allowed, &format!("a \"{}\" target", t.kind))?;
        let missing = |v: &mut Self, key: &str| {
            v.fail::<Target>(&base, format!("missing key `{key}` for a \"{}\" target", t.kind))
        };
        match kind {
            0 => {
                let Some(p) = t.position else { return missing(self, "position") };
                Some(Target::Point(self.point(&at("position"), p)?))
            }
            1 => {
                let Some(wps) = &t.waypoints else { return missing(self, "waypoints") };
                let Some(speed) = t.speed else { return missing(self, "speed") };
                if wps.is_empty() {
                    return self.fail(&at("waypoints"), "expected at least one waypoint [x, y]");
                }
                let mut waypoints = Vec::new();
                for (i, p) in wps.iter().enumerate() {
                    waypoints
                        .push(self.point(&[Key("targets"), Key(name), Key("waypoints"), Seg::Index(i)], *p)?);
                }
                let speed = self.num(&at("speed"), speed, Rule::NonNegative(MAX_MAGNITUDE))?;
                Some(Target::Moving { waypoints, speed })
            }
            2 => {
                let Some(id) = t.agent else { return missing(self, "agent") };
                if id as u64 >= agents {
                    return self.fail(
                        &at("agent"),
                        format!("no agent has id {id}: the scenario spawns ids 0 to {}", agents - 1),
                    );
                }
                Some(Target::Agent(id))
            }
            3 => {
                let Some(group) = &t.group else { return missing(self, "group") };
                self.group_index(&at("group"), group, groups).map(Target::NearestOf)
            }
            _ => {
                let kind = if t.centre.is_some() || t.radius.is_some() { "circle" } else { "rect" };
                let region = self.region(&base, kind, t.min, t.max, t.centre, t.radius, "random target")?;
                let Some(every_s) = t.every_s else { return missing(self, "every_s") };
                let every_s = self.num(&at("every_s"), every_s, Rule::Positive(1e7))?;
                let period_ticks = ((every_s / dt).round() as u32).max(1);
                Some(Target::Random { region, period_ticks })
            }
        }
    }

    #[allow(clippy::too_many_arguments)] // the group's context: every piece is read
    fn group(
        &mut self,
        g: usize,
        raw: &GroupToml,
        count: u32,
        bounds: &Bounds,
        dt: f32,
        names: &Names,
        targets: &mut Vec<Target>,
    ) -> Option<GroupSpec> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key(k)];
        let spawn = self.spawn(g, &raw.spawn)?;
        let params = AgentParams {
            max_speed: self.param(&at("max_speed"), raw.max_speed.0, Rule::Positive(MAX_MAGNITUDE))?,
            max_force: self.param(&at("max_force"), raw.max_force.0, Rule::Positive(1e9))?,
            mass: self.param(&at("mass"), raw.mass.0, Rule::Positive(1e9))?,
            radius: self.param(&at("radius"), raw.radius.0, Rule::Positive(MAX_MAGNITUDE))?,
            initial_speed: self.param(
                &at("initial_speed"),
                raw.initial_speed.0,
                Rule::NonNegative(MAX_MAGNITUDE),
            )?,
        };
        if let Param::Value(m) | Param::Range { min: m, .. } = params.mass
            && m < 1e-6
        {
            return self.fail(&at("mass"), format!("expected a mass >= 1e-6, found {m}"));
        }

        let mut behaviours = Vec::new();
        for (b, raw_b) in raw.behaviours.iter().enumerate() {
            behaviours.push(self.behaviour(g, b, raw_b, names, targets)?);
        }
        // Behaviours whose per-agent state has one column may appear once per group.
        let singles = ["avoid_obstacles", "follow_path", "queue", "random_walk"];
        for (b, wb) in behaviours.iter().enumerate() {
            let name = wb.behaviour.name();
            if singles.contains(&name) && behaviours[..b].iter().any(|o| o.behaviour.name() == name) {
                return self.fail(
                    &[Key("groups"), Index(g), Key("behaviours"), Index(b), Key("kind")],
                    format!("a group may have only one `{name}` behaviour"),
                );
            }
        }
        let mut random_target = None;
        for (b, wb) in behaviours.iter().enumerate() {
            if let Some(t) = wb.behaviour.target()
                && matches!(targets[t as usize], Target::Random { .. })
            {
                if random_target.is_some_and(|r| r != t) {
                    return self.fail(
                        &[Key("groups"), Index(g), Key("behaviours"), Index(b), Key("target")],
                        "a group may use only one target of kind \"random\" (each agent keeps one random goal)",
                    );
                }
                random_target = Some(t);
            }
        }
        let needed = behaviours.iter().filter_map(|b| b.behaviour.neighbour_radius()).fold(0.0f32, f32::max);
        let sensing_radius = match raw.sensing_radius {
            None => needed,
            Some(r) => {
                let r = self.num(&at("sensing_radius"), r, Rule::NonNegative(MAX_MAGNITUDE))?;
                if r < needed {
                    return self.fail(
                        &at("sensing_radius"),
                        format!(
                            "sensing_radius {r} is smaller than a behaviour's neighbour radius ({needed}); it must cover every neighbour behaviour (for queue: queue_ahead + queue_radius)"
                        ),
                    );
                }
                r
            }
        };
        let max_neighbours = raw.max_neighbours.unwrap_or(if needed > 0.0 { 16 } else { 0 });
        if max_neighbours > MAX_NEIGHBOURS {
            return self.fail(
                &at("max_neighbours"),
                format!("expected at most {MAX_NEIGHBOURS} neighbours, found {max_neighbours}"),
            );
        }
        if needed > 0.0 && max_neighbours == 0 {
            return self.fail(
                &at("max_neighbours"),
                "a group with a neighbour behaviour (separation, alignment, cohesion, follow_leader, queue) needs max_neighbours >= 1",
            );
        }
        if bounds.kind == BoundsKind::Wrap && 2.0 * sensing_radius >= bounds.size().min_element() {
            return self.fail(
                &at("sensing_radius"),
                format!(
                    "a wrapped world must be wider than twice the sensing radius ({sensing_radius}); it is {} x {}",
                    bounds.size().x,
                    bounds.size().y
                ),
            );
        }
        let interval =
            self.num(&at("flocking_interval"), raw.flocking_interval, Rule::NonNegative(3600.0))?;
        let flocking_interval_ticks = ((interval / dt).round() as u32).max(1);

        Some(GroupSpec {
            group: Group {
                name: raw.name.clone(),
                behaviours,
                sensing_radius,
                max_neighbours,
                flocking_interval_ticks,
                params,
            },
            count,
            spawn,
        })
    }

    fn spawn(&mut self, g: usize, s: &SpawnToml) -> Option<Spawn> {
        use Seg::{Index, Key};
        let base = [Key("groups"), Index(g), Key("spawn")];
        let at = |k: &'static str| [Key("groups"), Index(g), Key("spawn"), Key(k)];
        let kind = self.choice(&at("kind"), &s.kind, &[("rect", 0), ("circle", 1), ("points", 2)])?;
        let allowed: &[&str] = match kind {
            0 => &["min", "max"],
            1 => &["centre", "radius"],
            _ => &["points"],
        };
        let present = [
            ("min", s.min.is_some()),
            ("max", s.max.is_some()),
            ("centre", s.centre.is_some()),
            ("radius", s.radius.is_some()),
            ("points", s.points.is_some()),
        ];
        self.only_allowed(&base, &present, allowed, &format!("a \"{}\" spawn", s.kind))?;
        for key in allowed {
            let is = present.iter().any(|(k, p)| k == key && *p);
            if !is {
                return self.fail(&base, format!("missing key `{key}` for a \"{}\" spawn", s.kind));
            }
        }
        match kind {
            0 => {
                let min = self.point(&at("min"), s.min?)?;
                let max = self.point(&at("max"), s.max?)?;
                if !(min.x <= max.x && min.y <= max.y) {
                    return self.fail(
                        &at("max"),
                        format!("expected max >= min on both axes, found min {min} and max {max}"),
                    );
                }
                Some(Spawn::Rect { min, max })
            }
            1 => {
                let centre = self.point(&at("centre"), s.centre?)?;
                let radius = self.num(&at("radius"), s.radius?, Rule::NonNegative(MAX_MAGNITUDE))?;
                Some(Spawn::Circle { centre, radius })
            }
            _ => {
                let mut points = Vec::new();
                for (i, p) in s.points.as_ref()?.iter().enumerate() {
                    points.push(
                        self.point(&[Key("groups"), Index(g), Key("spawn"), Key("points"), Index(i)], *p)?,
                    );
                }
                Some(Spawn::Points(points))
            }
        }
    }

    fn behaviour(
        &mut self,
        g: usize,
        b: usize,
        raw: &BehaviourToml,
        names: &Names,
        targets: &mut Vec<Target>,
    ) -> Option<WeightedBehaviour> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(k)];
        let base = [Key("groups"), Index(g), Key("behaviours"), Index(b)];
        let kinds: Vec<(&str, usize)> =
            BEHAVIOUR_KINDS.iter().enumerate().map(|(i, (n, _))| (*n, i)).collect();
        let k = self.choice(&at("kind"), &raw.kind, &kinds)?;
        let (kind, allowed) = BEHAVIOUR_KINDS[k];
        for key in raw.present() {
            if !allowed.contains(&key) {
                let path = [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(key)];
                return self.fail(
                    &path,
                    format!(
                        "`{key}` is not a parameter of `{kind}` (it takes: weight, {})",
                        allowed.join(", ")
                    ),
                );
            }
        }
        let weight = self.num(&at("weight"), raw.weight, Rule::Finite(1e6))?;
        if kind == "queue" && weight != 1.0 {
            return self.fail(
                &at("weight"),
                "`queue` takes no weight: it brakes after the weighted sum (see docs/behaviours.md)",
            );
        }
        let named_target =
            |v: &mut Self, key: &'static str, name: &str, targets: &[Target]| -> Option<TargetId> {
                let _ = targets;
                match names.targets.iter().position(|n| *n == name) {
                    Some(i) => Some(i as TargetId),
                    None => {
                        let hint = nearest_word(name, names.targets.iter().copied())
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default();
                        let known = if names.targets.is_empty() {
                            "none are defined".to_string()
                        } else {
                            names.targets.join(", ")
                        };
                        v.fail(&at(key), format!("no target is named \"{name}\"{hint} (targets: {known})"))
                    }
                }
            };
        let target = |v: &mut Self, targets: &mut Vec<Target>| -> Option<TargetId> {
            let Some(t) = &raw.target else {
                return v.fail(
                    &base,
                    format!("missing key `target` for `{kind}` (a name from [targets] or a point [x, y])"),
                );
            };
            match t {
                TargetRef::Point(p) => {
                    let p = v.point(&at("target"), *p)?;
                    targets.push(Target::Point(p));
                    Some((targets.len() - 1) as TargetId)
                }
                TargetRef::Named(name) => named_target(v, "target", name, targets),
            }
        };
        // An optional parameter with a default, checked against its rule.
        let opt = |v: &mut Self, key: &'static str, value: Option<f32>, default: f32, rule: Rule| {
            v.num(&at(key), value.unwrap_or(default), rule)
        };
        let required_radius = |v: &mut Self| -> Option<f32> {
            match raw.radius {
                None => v.fail(
                    &base,
                    format!("missing key `radius` for `{kind}` (the neighbour radius, world units)"),
                ),
                Some(r) => v.num(&at("radius"), r, Rule::Positive(MAX_MAGNITUDE)),
            }
        };
        let look_ahead = |v: &mut Self| -> Option<Option<f32>> {
            match raw.look_ahead_s {
                None => Some(None),
                Some(t) => v.num(&at("look_ahead_s"), t, Rule::NonNegative(3600.0)).map(Some),
            }
        };
        const LEN: Rule = Rule::Positive(MAX_MAGNITUDE);
        const LEN0: Rule = Rule::NonNegative(MAX_MAGNITUDE);
        let behaviour = match kind {
            "seek" => Behaviour::Seek { target: target(self, targets)? },
            "flee" => Behaviour::Flee { target: target(self, targets)? },
            "arrive" => Behaviour::Arrive {
                target: target(self, targets)?,
                slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 5.0, LEN)?,
            },
            "wander" => Behaviour::Wander {
                radius: opt(self, "radius", raw.radius, 1.0, LEN)?,
                distance: opt(self, "distance", raw.distance, 2.0, LEN0)?,
                jitter: opt(self, "jitter", raw.jitter, 1.0, LEN0)?,
            },
            "pursuit" => {
                Behaviour::Pursuit { target: target(self, targets)?, look_ahead_s: look_ahead(self)? }
            }
            "evade" => Behaviour::Evade {
                target: target(self, targets)?,
                look_ahead_s: look_ahead(self)?,
                prediction: match &raw.prediction {
                    None => EvadePrediction::TargetSpeed,
                    Some(p) => self.choice(
                        &at("prediction"),
                        p,
                        &[
                            ("target_speed", EvadePrediction::TargetSpeed),
                            ("own_speed", EvadePrediction::OwnSpeed),
                        ],
                    )?,
                },
            },
            "separation" => Behaviour::Separation {
                radius: required_radius(self)?,
                max_force: opt(self, "max_separation", raw.max_separation, 1.0, Rule::NonNegative(1e9))?,
                variant: match &raw.variant {
                    None => SeparationVariant::Mean,
                    Some(p) => self.choice(
                        &at("variant"),
                        p,
                        &[
                            ("mean", SeparationVariant::Mean),
                            ("inverse_distance", SeparationVariant::InverseDistance),
                        ],
                    )?,
                },
            },
            "alignment" => Behaviour::Alignment { radius: required_radius(self)? },
            "cohesion" => Behaviour::Cohesion { radius: required_radius(self)? },
            "flock_target" => Behaviour::FlockTarget {
                target: target(self, targets)?,
                speed: opt(self, "speed", raw.speed, 1.0, LEN0)?,
            },
            "avoid_obstacles" => Behaviour::AvoidObstacles {
                see_ahead: opt(self, "see_ahead", raw.see_ahead, 5.0, LEN)?,
                max_avoid_force: opt(
                    self,
                    "max_avoid_force",
                    raw.max_avoid_force,
                    1.0,
                    Rule::NonNegative(1e9),
                )?,
            },
            "follow_path" => {
                let Some(name) = &raw.path else {
                    return self.fail(&base, "missing key `path` for `follow_path` (a name from [paths])");
                };
                let Some(path) = names.paths.iter().position(|p| p == name) else {
                    let hint = nearest_word(name, names.paths.iter().copied())
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    let known = if names.paths.is_empty() {
                        "none are defined".to_string()
                    } else {
                        names.paths.join(", ")
                    };
                    return self
                        .fail(&at("path"), format!("no path is named \"{name}\"{hint} (paths: {known})"));
                };
                let mode = match &raw.mode {
                    None => PathMode::Loop,
                    Some(m) => self.choice(
                        &at("mode"),
                        m,
                        &[("once", PathMode::Once), ("loop", PathMode::Loop), ("patrol", PathMode::Patrol)],
                    )?,
                };
                let nodes = self.path_len(name);
                if mode != PathMode::Once && nodes < 2 {
                    return self.fail(
                        &at("mode"),
                        format!(
                            "path \"{name}\" has {nodes} node; mode \"{}\" needs at least 2",
                            raw.mode.as_deref().unwrap_or("loop")
                        ),
                    );
                }
                Behaviour::FollowPath {
                    path: path as u16,
                    mode,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 3.0, LEN)?,
                }
            }
            "follow_leader" => {
                let Some(name) = &raw.leader else {
                    return self.fail(
                        &base,
                        "missing key `leader` for `follow_leader` (a target of kind \"agent\")",
                    );
                };
                let leader = named_target(self, "leader", name, targets)?;
                let Target::Agent(id) = targets[leader as usize] else {
                    return self.fail(
                        &at("leader"),
                        format!("the leader must be a target of kind \"agent\"; \"{name}\" is not"),
                    );
                };
                // Ids are sequential over groups in file order.
                let first: u64 = names.counts[..g].iter().map(|&c| c as u64).sum();
                if (first..first + names.counts[g] as u64).contains(&(id as u64)) {
                    return self.fail(
                        &at("leader"),
                        format!(
                            "agent {id} belongs to group \"{}\" itself: a leader cannot follow itself; put the leader in a group of its own",
                            names.groups[g]
                        ),
                    );
                }
                Behaviour::FollowLeader {
                    leader,
                    behind_dist: opt(self, "behind_dist", raw.behind_dist, 2.0, LEN0)?,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 5.0, LEN)?,
                    sight_radius: opt(self, "sight_radius", raw.sight_radius, 3.0, LEN0)?,
                    separation_radius: opt(self, "separation_radius", raw.separation_radius, 1.0, LEN)?,
                    max_separation: opt(
                        self,
                        "max_separation",
                        raw.max_separation,
                        1.0,
                        Rule::NonNegative(1e9),
                    )?,
                }
            }
            "queue" => {
                let queue_radius = opt(self, "queue_radius", raw.queue_radius, 1.0, LEN)?;
                Behaviour::Queue {
                    queue_ahead: opt(self, "queue_ahead", raw.queue_ahead, 2.0, LEN0)?,
                    queue_radius,
                    brake_factor: opt(self, "brake_factor", raw.brake_factor, 0.8, Rule::NonNegative(10.0))?,
                    hard_stop_factor: opt(
                        self,
                        "hard_stop_factor",
                        raw.hard_stop_factor,
                        0.3,
                        Rule::NonNegative(1.0),
                    )?,
                    separation_radius: opt(
                        self,
                        "separation_radius",
                        raw.separation_radius,
                        queue_radius,
                        LEN,
                    )?,
                    max_separation: opt(
                        self,
                        "max_separation",
                        raw.max_separation,
                        1.0,
                        Rule::NonNegative(1e9),
                    )?,
                }
            }
            "random_walk" => {
                let min_step = opt(self, "min_step", raw.min_step, 1.0, LEN)?;
                let max_step = opt(self, "max_step", raw.max_step, 10.0, LEN)?;
                if min_step > max_step {
                    return self
                        .fail(&at("max_step"), format!("max_step {max_step} is below min_step {min_step}"));
                }
                Behaviour::RandomWalk {
                    target: target(self, targets)?,
                    aggro_radius: opt(self, "aggro_radius", raw.aggro_radius, 30.0, LEN)?,
                    min_step,
                    max_step,
                    reach_radius: opt(self, "reach_radius", raw.reach_radius, 0.5, LEN)?,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 3.0, LEN)?,
                }
            }
            _ => unreachable!("kinds come from BEHAVIOUR_KINDS"),
        };
        Some(WeightedBehaviour { weight, behaviour })
    }

    /// Number of nodes of the path called `name` in the file.
    fn path_len(&self, name: &str) -> usize {
        match self.doc.get_ref().get("paths").map(|p| p.get_ref()) {
            Some(DeValue::Table(t)) => match t.get(name).map(|p| p.get_ref()) {
                Some(DeValue::Table(p)) => match p.get("nodes").map(|n| n.get_ref()) {
                    Some(DeValue::Array(a)) => a.len(),
                    _ => 0,
                },
                _ => 0,
            },
            _ => 0,
        }
    }
}

/// Names a group's behaviours may refer to, and the group sizes (ids are sequential).
struct Names<'a> {
    groups: &'a [&'a str],
    targets: &'a [&'a str],
    paths: &'a [&'a str],
    counts: &'a [u32],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\ncdé\nf";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, t.len() - 1), (3, 1));
    }

    #[test]
    fn nearest_word_suggests_typos_only() {
        assert_eq!(nearest_word("mas", ["mass", "radius"]), Some("mass"));
        assert_eq!(nearest_word("zzzzzz", ["mass", "radius"]), None);
    }
}
