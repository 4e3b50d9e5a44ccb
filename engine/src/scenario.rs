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
use crate::math::{PI, Vec2, sin_cos, trunc};
use crate::rng::{self, Purpose};
use crate::world::{
    Agents, Behaviour, Bounds, BoundsKind, EvadePrediction, Group, SeparationVariant, Target, TargetId,
    WeightedBehaviour, World,
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
    bounds: BoundsToml,
    #[serde(default)]
    targets: BTreeMap<String, TargetToml>,
    groups: Vec<GroupToml>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupToml {
    name: String,
    count: Option<u64>,
    spawn: SpawnToml,
    max_speed: Param,
    max_force: Param,
    #[serde(default = "Param::one")]
    mass: Param,
    #[serde(default = "Param::half")]
    radius: Param,
    #[serde(default = "Param::zero")]
    initial_speed: Param,
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

/// A per-agent parameter: one value for every agent, or a uniform range drawn per agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param {
    Value(f32),
    Range { min: f32, max: f32 },
}

impl Param {
    fn one() -> Param {
        Param::Value(1.0)
    }
    fn half() -> Param {
        Param::Value(0.5)
    }
    fn zero() -> Param {
        Param::Value(0.0)
    }

    /// The agent's value; always consumes exactly one draw, so switching a parameter between a
    /// value and a range never shifts the other parameters' draws.
    pub fn draw(&self, rng: &mut rng::AgentRng) -> f32 {
        let u = rng::unit(rng);
        match *self {
            Param::Value(v) => v,
            Param::Range { min, max } => min + (max - min) * u,
        }
    }

    pub fn max(&self) -> f32 {
        match *self {
            Param::Value(v) => v,
            Param::Range { max, .. } => max,
        }
    }
}

impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Param;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or a uniform range { min = .., max = .. }")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Param, E> {
                Ok(Param::Value(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Param, E> {
                Ok(Param::Value(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Param, E> {
                Ok(Param::Value(v as f32))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Param, A::Error> {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct R {
                    min: f32,
                    max: f32,
                }
                let r = R::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Param::Range { min: r.min, max: r.max })
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

/// Per-agent parameters of a group, each a value or a range.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentParams {
    pub max_speed: Param,
    pub max_force: Param,
    pub mass: Param,
    pub radius: Param,
    pub initial_speed: Param,
}

/// A group as the scenario describes it: its behaviour and how to populate it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    pub group: Group,
    pub count: u32,
    pub spawn: Spawn,
    pub params: AgentParams,
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
    pub bounds: Bounds,
    pub targets: Vec<Target>,
    pub groups: Vec<GroupSpec>,
    /// BLAKE3 of the file's bytes.
    pub content_hash: [u8; 32],
}

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let file = path.display().to_string();
        let whole = |message: String| ScenarioError {
            file: file.clone(),
            location: None,
            key: String::new(),
            message,
        };
        if path.is_dir() {
            return Err(whole("is a directory; expected a scenario file (.toml)".into()));
        }
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => whole("no such file".into()),
            _ => whole(format!("cannot read: {e}")),
        })?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let (line, col) = line_col(&String::from_utf8_lossy(&bytes[..e.valid_up_to()]), e.valid_up_to());
            ScenarioError {
                file: file.clone(),
                location: Some((line, col)),
                key: String::new(),
                message: "the file is not valid UTF-8".into(),
            }
        })?;
        Scenario::parse(text, &file)
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
        let mut v = Validator { origin, text, doc: &doc, error: None };
        let scenario = v.scenario(raw, text);
        match (scenario, v.error) {
            (Some(s), None) => Ok(s),
            (_, Some(e)) => Err(e),
            (None, None) => unreachable!("validation failed without an error"),
        }
    }

    pub fn agent_count(&self) -> u64 {
        self.groups.iter().map(|g| g.count as u64).sum()
    }

    /// The world at tick 0: every agent spawned, parameters drawn, generators seeded.
    pub fn build_world(&self) -> World {
        let n = self.agent_count() as usize;
        let mut a = Agents {
            id: Vec::with_capacity(n),
            group: Vec::with_capacity(n),
            position: Vec::with_capacity(n),
            velocity: Vec::with_capacity(n),
            max_speed: Vec::with_capacity(n),
            max_force: Vec::with_capacity(n),
            mass: Vec::with_capacity(n),
            radius: Vec::with_capacity(n),
            wander: Vec::with_capacity(n),
            flock_force: Vec::with_capacity(n),
            rng: Vec::with_capacity(n),
        };
        let mut next_id = 0u32;
        for (g, spec) in self.groups.iter().enumerate() {
            let spawner = rng::name_key(&spec.group.name);
            let wander_radius = spec.group.behaviours.iter().find_map(|b| match b.behaviour {
                Behaviour::Wander { radius, .. } => Some(radius),
                _ => None,
            });
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
                let mut params = rng::agent_rng(self.seed, key, Purpose::Params);
                let max_speed = spec.params.max_speed.draw(&mut params);
                let max_force = spec.params.max_force.draw(&mut params);
                let mass = spec.params.mass.draw(&mut params);
                let radius = spec.params.radius.draw(&mut params);
                let initial_speed = spec.params.initial_speed.draw(&mut params);
                let mut heading = rng::agent_rng(self.seed, key, Purpose::Heading);
                let (s, c) = sin_cos(2.0 * PI * rng::unit(&mut heading));
                let velocity = trunc(Vec2::new(c, s) * initial_speed, max_speed);
                let w = wander_radius.unwrap_or(0.0) * 0.707;

                a.id.push(next_id);
                a.group.push(g as u16);
                a.position.push(self.bounds.wrap(p));
                a.velocity.push(velocity);
                a.max_speed.push(max_speed);
                a.max_force.push(max_force);
                a.mass.push(mass);
                a.radius.push(radius);
                a.wander.push(Vec2::new(w, w));
                a.flock_force.push(Vec2::ZERO);
                a.rng.push(rng::agent_rng(self.seed, key, Purpose::Behaviour));
                next_id += 1;
            }
        }
        World {
            name: self.name.clone(),
            seed: self.seed,
            dt: self.dt,
            tick: 0,
            bounds: self.bounds,
            groups: self.groups.iter().map(|g| g.group.clone()).collect(),
            targets: self.targets.clone(),
            agents: a,
            next_id,
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
            Some(s) => {
                self.choice(&[Key("index")], s, &[("kd", IndexKind::Kd), ("brute", IndexKind::Brute)])?
            }
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
            targets.push(self.target(name, t, &group_names, total)?);
            target_names.push(name);
        }

        let mut groups = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            let spec = self.group(g, group, counts[g], &bounds, dt, &target_names, &mut targets)?;
            groups.push(spec);
        }
        // A nearest-of-group target cannot be used by a member of that same group.
        for (g, spec) in groups.iter().enumerate() {
            for (b, wb) in spec.group.behaviours.iter().enumerate() {
                if let Some(t) = behaviour_target(&wb.behaviour)
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
            bounds,
            targets,
            groups,
            content_hash: *blake3::hash(text.as_bytes()).as_bytes(),
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

    fn target(&mut self, name: &str, t: &TargetToml, groups: &[&str], agents: u64) -> Option<Target> {
        use Seg::Key;
        let base = [Key("targets"), Key(name)];
        let at = |k: &'static str| [Key("targets"), Key(name), Key(k)];
        let kind =
            self.choice(&at("kind"), &t.kind, &[("point", 0), ("moving", 1), ("agent", 2), ("nearest", 3)])?;
        let allowed: &[&str] = match kind {
            0 => &["position"],
            1 => &["waypoints", "speed"],
            2 => &["agent"],
            _ => &["group"],
        };
        let present = [
            ("position", t.position.is_some()),
            ("waypoints", t.waypoints.is_some()),
            ("speed", t.speed.is_some()),
            ("agent", t.agent.is_some()),
            ("group", t.group.is_some()),
        ];
        for (key, is) in present {
            if is && !allowed.contains(&key) {
                return self.fail(
                    &at(key),
                    format!(
                        "`{key}` is not a parameter of a \"{}\" target (it takes: {})",
                        t.kind,
                        allowed.join(", ")
                    ),
                );
            }
        }
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
            _ => {
                let Some(group) = &t.group else { return missing(self, "group") };
                match groups.iter().position(|g| g == group) {
                    Some(g) => Some(Target::NearestOf(g as u16)),
                    None => {
                        let hint = nearest_word(group, groups.iter().copied())
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default();
                        self.fail(
                            &at("group"),
                            format!("no group is named \"{group}\"{hint} (groups: {})", groups.join(", ")),
                        )
                    }
                }
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
        target_names: &[&str],
        targets: &mut Vec<Target>,
    ) -> Option<GroupSpec> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key(k)];
        let spawn = self.spawn(g, &raw.spawn)?;
        let params = AgentParams {
            max_speed: self.param(&at("max_speed"), raw.max_speed, Rule::Positive(MAX_MAGNITUDE))?,
            max_force: self.param(&at("max_force"), raw.max_force, Rule::Positive(1e9))?,
            mass: self.param(&at("mass"), raw.mass, Rule::Positive(1e9))?,
            radius: self.param(&at("radius"), raw.radius, Rule::Positive(MAX_MAGNITUDE))?,
            initial_speed: self.param(
                &at("initial_speed"),
                raw.initial_speed,
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
            behaviours.push(self.behaviour(g, b, raw_b, target_names, targets)?);
        }
        let needed = behaviours.iter().filter_map(|b| b.behaviour.neighbour_radius()).fold(0.0f32, f32::max);
        let sensing_radius = match raw.sensing_radius {
            None => needed,
            Some(r) => {
                let r = self.num(&at("sensing_radius"), r, Rule::NonNegative(MAX_MAGNITUDE))?;
                if r < needed {
                    return self.fail(&at("sensing_radius"), format!("sensing_radius {r} is smaller than a behaviour radius ({needed}); it must cover every neighbour behaviour"));
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
                "a group with separation, alignment or cohesion needs max_neighbours >= 1",
            );
        }
        if bounds.kind == BoundsKind::Wrap && 2.0 * sensing_radius >= bounds.size().min_element() {
            return self.fail(&at("sensing_radius"), format!("a wrapped world must be wider than twice the sensing radius ({sensing_radius}); it is {} x {}", bounds.size().x, bounds.size().y));
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
            },
            count,
            spawn,
            params,
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
        for (key, is) in present {
            if is && !allowed.contains(&key) {
                return self.fail(
                    &at(key),
                    format!(
                        "`{key}` is not a parameter of a \"{}\" spawn (it takes: {})",
                        s.kind,
                        allowed.join(", ")
                    ),
                );
            }
        }
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
        target_names: &[&str],
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
        let mut target = |v: &mut Self| -> Option<TargetId> {
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
                TargetRef::Named(name) => match target_names.iter().position(|n| n == name) {
                    Some(i) => Some(i as TargetId),
                    None => {
                        let hint = nearest_word(name, target_names.iter().copied())
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default();
                        let known = if target_names.is_empty() {
                            "none are defined".to_string()
                        } else {
                            target_names.join(", ")
                        };
                        v.fail(
                            &at("target"),
                            format!("no target is named \"{name}\"{hint} (targets: {known})"),
                        )
                    }
                },
            }
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
        let behaviour = match kind {
            "seek" => Behaviour::Seek { target: target(self)? },
            "flee" => Behaviour::Flee { target: target(self)? },
            "arrive" => Behaviour::Arrive {
                target: target(self)?,
                slowing_radius: self.num(
                    &at("slowing_radius"),
                    raw.slowing_radius.unwrap_or(5.0),
                    Rule::Positive(MAX_MAGNITUDE),
                )?,
            },
            "wander" => Behaviour::Wander {
                radius: self.num(&at("radius"), raw.radius.unwrap_or(1.0), Rule::Positive(MAX_MAGNITUDE))?,
                distance: self.num(
                    &at("distance"),
                    raw.distance.unwrap_or(2.0),
                    Rule::NonNegative(MAX_MAGNITUDE),
                )?,
                jitter: self.num(
                    &at("jitter"),
                    raw.jitter.unwrap_or(1.0),
                    Rule::NonNegative(MAX_MAGNITUDE),
                )?,
            },
            "pursuit" => Behaviour::Pursuit { target: target(self)?, look_ahead_s: look_ahead(self)? },
            "evade" => Behaviour::Evade {
                target: target(self)?,
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
                max_force: self.num(
                    &at("max_separation"),
                    raw.max_separation.unwrap_or(1.0),
                    Rule::NonNegative(1e9),
                )?,
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
                target: target(self)?,
                speed: self.num(&at("speed"), raw.speed.unwrap_or(1.0), Rule::NonNegative(MAX_MAGNITUDE))?,
            },
            _ => unreachable!("kinds come from BEHAVIOUR_KINDS"),
        };
        Some(WeightedBehaviour { weight, behaviour })
    }
}

/// The target a behaviour reads, if any.
fn behaviour_target(b: &Behaviour) -> Option<TargetId> {
    match *b {
        Behaviour::Seek { target }
        | Behaviour::Flee { target }
        | Behaviour::Arrive { target, .. }
        | Behaviour::Pursuit { target, .. }
        | Behaviour::Evade { target, .. }
        | Behaviour::FlockTarget { target, .. } => Some(target),
        _ => None,
    }
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
