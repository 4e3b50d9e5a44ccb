//! Scenarios: TOML → validated [`Scenario`] → [`World`] at tick 0.
//!
//! `schema` holds the TOML shapes, `bulk` the long point lists read beside the parser, `validate` the range checks, `locate` the spans, line:col and
//! "did you mean" shared by every located error (scenarios, overrides, batch files),
//! `expectation` what `[[expect]]` entries ask,
//! `overrides` the dotted-key overrides applied before validation.

mod any;
mod bulk;
mod error;
pub mod expectation;
mod formulas;
mod host_action;
mod locate;
mod memory;
pub mod overrides;
mod schema;
pub mod spawn;
mod validate;
mod wide;

pub use any::AnyScenario;
use bulk::BulkLists;
use error::shown;
pub use error::{ScaleError, ScenarioError};
pub use host_action::parse_action;
pub use locate::nearest_word;
use locate::toml_error;
pub(crate) use locate::{line_col, read_source, table_given_twice, value_reason};
pub use memory::{AGENT_BYTES, BASE_BYTES, CANDIDATE_SLOT_BYTES, MemoryEstimate, NEIGHBOUR_SLOT_BYTES};
use schema::ScenarioToml;
pub use spawn::{Spacing, SpawnError};
use validate::Validator;

use std::path::Path;

use serde::Deserialize;
use toml::de::DeTable;

use crate::index::IndexKind;
use crate::math::{Vec2, Vec3, Vector};
use crate::rng::{self, Purpose};
use crate::world::{
    Action, Agents, Bounds, Diversion, Door, Event, Exit, Gate, Group, Journey, MeasureArea, Path as PathDef,
    Quantity, Region, Source, Stage, Target, Trigger, WaitingArea, World,
};
use crate::world::{Dimension, PlaneScene, Scene};

/// The scenario format version this engine reads.
pub const FORMAT_VERSION: u32 = 1;
/// Most agents a scenario may ask for (all groups together).
pub const MAX_AGENTS: u64 = 20_000_000;
pub use crate::index::MAX_NEIGHBOURS;
pub use crate::metrics::MetricsConfig;
/// Largest magnitude accepted for coordinates, lengths and speeds.
pub const MAX_MAGNITUDE: f32 = 1e7;

/// Where a group's initial agents appear (points of the plane, or of space).
#[derive(Clone, Debug, PartialEq)]
pub enum Spawn<V = Vec2> {
    /// Uniform in the rectangle (the box, in space).
    Rect {
        /// Lower-left corner (world units, each coordinate within ±[`MAX_MAGNITUDE`]).
        min: V,
        /// Upper-right corner (world units, ≥ `min` on every axis; equal gives a line or a
        /// point).
        max: V,
    },
    /// Uniform in the disc (the ball, in space).
    Circle {
        /// The disc's centre (world units, each coordinate within ±[`MAX_MAGNITUDE`]).
        centre: V,
        /// The disc's radius (world units, ≥ 0 and ≤ [`MAX_MAGNITUDE`]; 0 puts every agent at
        /// the centre).
        radius: f32,
    },
    /// Agent `k` at `points[k]`.
    Points(Vec<V>),
}

/// A group as the scenario describes it: its behaviour and how to populate it.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec<V = Vec2> {
    /// The group, with its behaviours and per-agent parameters.
    pub group: Group,
    /// Agents at tick 0 (1 to [`MAX_AGENTS`], all groups together at most that).
    pub count: u32,
    /// Where those agents appear, drawn from each agent's own spawn generator.
    pub spawn: Spawn<V>,
    /// The distances the spawn keeps between agents and from obstacles (none by default).
    pub spacing: Spacing,
}

/// A validated scenario, ready to build worlds from: planar (`V = Vec2`), or in space
/// (`Vec3`, a file with `dimensions = 3`), where the planar parts (walls, doors, exits,
/// gates, measures, sources, waiting areas, events) are empty.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario<V: Dimension = Vec2> {
    /// Where it was read from (for messages).
    pub origin: String,
    /// The scenario's `name` (not empty or blank); also the name of the worlds built from it.
    pub name: String,
    /// The scenario's `description`: free text, `""` when absent.
    pub description: String,
    /// Seeds every random draw of a run (spawn positions, agent parameters, behaviours).
    /// Runs may replace it (`throng run --seed`, batch `seeds`) before building the world.
    pub seed: u64,
    /// Seconds per tick (> 0 and ≤ 10).
    pub dt: f32,
    /// How many ticks a run of the scenario runs (1 to 1e9); `throng run --ticks` overrides it.
    pub ticks: u64,
    /// The neighbour-search backend (default [`IndexKind::Auto`]). Results do not depend on it.
    pub index: IndexKind,
    /// Extra reach of reused sensing candidates (`Pipeline::set_sensing_skin`); 0: off.
    pub sensing_skin: f32,
    /// `sensing_skin` was picked by `index::auto_skin` (the file sets
    /// `"auto"`, or nothing): a run drops it where the lists are capped far below the
    /// candidates (`Pipeline::set_auto_sensing_skin`).
    pub sensing_skin_auto: bool,
    /// The world rectangle (box, in space), open or wrapped.
    pub bounds: Bounds<V>,
    /// The `[targets]` entries in name order, then the points behaviours give inline as
    /// `target = [x, y]`; a behaviour's [`TargetId`](crate::world::TargetId) indexes this.
    pub targets: Vec<Target<V>>,
    /// The names of the `[targets]` entries, in the order of `targets` (the inline points
    /// after them have none).
    pub target_names: Vec<String>,
    /// The groups with their counts and spawns, in file order (at most 65,535).
    pub groups: Vec<GroupSpec<V>>,
    /// The unnamed obstacles, in file order: circles, rectangles, polygons and walls in the
    /// plane; balls and boxes in space.
    pub obstacles: Vec<V::Obstacle>,
    /// Push agents' bodies out of obstacles after integration (default `true`).
    pub solid_obstacles: bool,
    /// The `[paths]` entries, in name order; `follow_path` indexes this.
    pub paths: Vec<PathDef<V>>,
    /// Regions that remove agents, in file order.
    pub exits: Vec<Exit>,
    /// Lines whose crossings are counted, in file order.
    pub gates: Vec<Gate>,
    /// Spawn sources that add agents during the run, in file order.
    pub sources: Vec<Source>,
    /// Settings of the stuck-agent metric (defaults when the file has no `[metrics]`).
    pub metrics: MetricsConfig,
    /// The named obstacles, which events open and close (closed at tick 0 unless `open`).
    pub doors: Vec<Door>,
    /// The `[[events]]` entries, in file order.
    pub events: Vec<Event<V>>,
    /// The groups' `on_closed` entries, in group order.
    pub diversions: Vec<Diversion>,
    /// The `[[waiting]]` areas, in file order.
    pub waiting: Vec<WaitingArea>,
    /// The `[[stages]]` of journeys, in file order.
    pub stages: Vec<Stage>,
    /// The `[[journeys]]`, in file order.
    pub journeys: Vec<Journey>,
    /// The `[[measure]]` areas, in file order (its lines are among `gates`).
    pub measures: Vec<MeasureArea>,
    /// The `[[expect]]` entries, in file order: checks on the run's outcome.
    pub expectations: Vec<expectation::Expectation<V>>,
    /// Problems that do not stop a run (e.g. an exit outside the bounds), located like errors.
    pub warnings: Vec<ScenarioError>,
    /// BLAKE3 of the file's bytes.
    pub content_hash: [u8; 32],
    /// The overrides applied to the file, canonical (`key = value`, sorted), as checkpoints
    /// and batch run ids record them; empty for the file as it is.
    pub overrides: Vec<String>,
}

impl Scenario {
    /// Reads and validates a planar scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let (file, text) = read_source(path, "a scenario file (.toml)")?;
        Scenario::parse(&text, &file)
    }

    /// Validates planar scenario text; `origin` names it in errors. A scenario with
    /// `dimensions = 3` is refused here (at that key): read it with
    /// `Scenario::<Vec3>::parse_as`.
    pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        Scenario::parse_as(text, origin)
    }
}

/// The `dimensions` a scenario text declares at its top level (2 when it says none); `None`
/// when the text is not TOML or the value is not a whole number (the loader then says why).
/// Lets a command pick `Scenario::parse` or `Scenario::<Vec3>::parse_as` before reading.
pub fn declared_dimensions(text: &str) -> Option<i64> {
    let doc = DeTable::parse(text).ok()?;
    let found = doc.get_ref().iter().find(|(k, _)| k.get_ref() == "dimensions");
    match found.map(|(_, v)| v.get_ref()) {
        None => Some(2),
        Some(toml::de::DeValue::Integer(i)) => i64::from_str_radix(i.as_str(), i.radix()).ok(),
        Some(_) => None,
    }
}

impl Scenario<Vec3> {
    /// Reads and validates a scenario file with `dimensions = 3`.
    pub fn load_in_space(path: &Path) -> Result<Scenario<Vec3>, ScenarioError> {
        let (file, text) = read_source(path, "a scenario file (.toml)")?;
        Scenario::parse_as(&text, &file)
    }
}

impl<V: crate::world::Dimension> Scenario<V> {
    /// Validates scenario text whose points are `V`s: `Vec2` reads planar scenarios (no
    /// `dimensions`, or `dimensions = 2`), `Vec3` those with `dimensions = 3`; the other kind
    /// is refused at the `dimensions` key. `origin` names the text in errors.
    pub fn parse_as(text: &str, origin: &str) -> Result<Scenario<V>, ScenarioError> {
        if text.trim().is_empty() {
            return Err(ScenarioError {
                file: origin.into(),
                location: Some((1, 1)),
                key: String::new(),
                message: "the file is empty; a scenario needs version, name, seed, dt, ticks, [bounds] and [[groups]]".into(),
            });
        }
        // Formulas over `[params]` become their numbers first, in place (see `formulas`); the
        // scenario's content hash stays the file's own.
        let substituted = formulas::substitute(text, origin)?;
        if let std::borrow::Cow::Owned(numbers) = &substituted {
            let mut s = Scenario::parse_numbers(numbers, origin)?;
            s.content_hash = *blake3::hash(text.as_bytes()).as_bytes();
            return Ok(s);
        }
        Scenario::parse_numbers(text, origin)
    }

    /// [`Scenario::parse_as`] of a text without formulas.
    fn parse_numbers(text: &str, origin: &str) -> Result<Scenario<V>, ScenarioError> {
        // Long point lists are read beside the parser (see `bulk`); when the blanked text
        // does not parse or a list sits where points do not belong, the original text is
        // parsed instead, so errors read the same either way.
        if let Some((mut bulk, blanked)) = BulkLists::extract(text)
            && let Ok(doc) = DeTable::parse(&blanked)
            && let Ok(mut raw) = ScenarioToml::deserialize(toml::de::Deserializer::from(doc.clone()))
            && bulk.fill(&mut raw, &doc)
        {
            return Scenario::validate(raw, text, origin, &doc, &bulk);
        }
        let doc = DeTable::parse(text).map_err(|e| toml_error(origin, text, None, &e))?;
        // A batch file given where a scenario is expected: say what it is.
        let table = doc.get_ref();
        if let Some((key, _)) = table.iter().find(|(k, _)| k.get_ref() == "sweep")
            && !table.iter().any(|(k, _)| k.get_ref() == "groups")
        {
            return Err(ScenarioError {
                file: origin.into(),
                location: Some(line_col(text, key.span().start)),
                key: "sweep".into(),
                message: "this is a batch file (it has [[sweep]] tables), not a scenario; run it as a batch"
                    .into(),
            });
        }
        let raw = ScenarioToml::deserialize(toml::de::Deserializer::from(doc.clone()))
            .map_err(|e| toml_error(origin, text, Some(&doc), &e))?;
        Scenario::validate(raw, text, origin, &doc, &BulkLists::default())
    }

    fn validate(
        raw: ScenarioToml,
        text: &str,
        origin: &str,
        doc: &toml::Spanned<DeTable>,
        bulk: &BulkLists,
    ) -> Result<Scenario<V>, ScenarioError> {
        let mut v = Validator {
            origin,
            text,
            doc,
            bulk,
            error: None,
            warnings: Vec::new(),
            space: std::marker::PhantomData,
        };
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

    /// Agents at tick 0, all groups together (spawn sources not included).
    pub fn agent_count(&self) -> u64 {
        self.groups.iter().map(|g| g.count as u64).sum()
    }

    /// The same scenario with about `agents` agents at the same density: every count (and
    /// every source's rate and maximum) is multiplied by `k = agents / agent_count()`, and all
    /// geometry (bounds, spawn regions, targets, obstacles, paths, exits, gates, source regions)
    /// by `√k` about the origin. Agent parameters, radii and sensing stay as they are, so each
    /// agent sees the same neighbourhood. Fails for `points` spawns, which cannot grow, unless
    /// `agents` is the scenario's own count: then the scenario comes back as it is.
    pub fn scaled(&self, agents: u64) -> Result<Scenario<V>, ScaleError> {
        if agents == 0 || agents > MAX_AGENTS {
            return Err(ScaleError::Agents { agents });
        }
        if self.agent_count() == 0 {
            return Err(ScaleError::NoAgents);
        }
        if agents == self.agent_count() {
            return Ok(self.clone());
        }
        let k = agents as f64 / self.agent_count() as f64;
        // Lengths grow as the square root of the count in the plane, the cube root in space.
        let s = if V::DIMENSIONS == 2 { k.sqrt() } else { k.cbrt() } as f32;
        let mut out = self.clone();
        let mut remaining = agents;
        // Groups only spawn sources fill (count 0) stay empty; their sources scale below.
        let last = out.groups.iter().rposition(|g| g.count > 0).unwrap_or(0);
        for (g, spec) in out.groups.iter_mut().enumerate() {
            if let Spawn::Points(_) = spec.spawn {
                return Err(ScaleError::ListedPoints { group: spec.group.name.clone() });
            }
            if spec.count == 0 {
                continue;
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

    /// Multiplies all geometry (bounds, spawn regions, targets, obstacles, solids, paths, exits,
    /// gates, source regions, measurement areas, waiting areas, stages, doors, events' regions and
    /// points, expectations' regions) by `s` about the origin; counts and agent parameters
    /// (also those `set` events give) stay. With
    /// uniform spawns this divides the density by `s²`.
    pub fn scale_geometry(&mut self, s: f32) {
        fn scaled<W: Vector>(r: &Region<W>, s: f32) -> Region<W> {
            match *r {
                Region::Rect { min, max } => Region::Rect { min: min * s, max: max * s },
                Region::Circle { centre, radius } => {
                    Region::Circle { centre: centre * s, radius: radius * s }
                }
            }
        }
        let region = |r: &Region| scaled(r, s);
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
                Target::Random { region: r, .. } => *r = scaled(r, s),
                Target::Opposite { centre } => *centre *= s,
                Target::Agent(_)
                | Target::NearestOf(_)
                | Target::Direction { .. }
                | Target::Own
                | Target::Journey => {}
            }
        }
        for o in &mut self.obstacles {
            *o = V::scaled_obstacle(o, s);
        }
        for d in &mut self.doors {
            d.obstacle = d.obstacle.scaled(s);
        }
        for e in &mut self.events {
            if let Trigger::When {
                value: Quantity::InRegion { region: r, .. } | Quantity::AgentInRegion { region: r, .. },
                ..
            } = &mut e.trigger
            {
                *r = scaled(r, s);
            }
            match &mut e.action {
                Action::MoveTarget { to, .. } => *to *= s,
                Action::Spawn { region: r, .. } | Action::Remove { region: r, .. } => *r = scaled(r, s),
                Action::Regroup { region: Some(r), .. } | Action::Journey { region: Some(r), .. } => {
                    *r = scaled(r, s)
                }
                _ => {}
            }
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
        for w in &mut self.waiting {
            w.region = region(&w.region);
        }
        for stage in &mut self.stages {
            stage.point *= s;
            if let crate::world::StageKind::Waypoint { position, radius } = &mut stage.kind {
                *position *= s;
                *radius *= s;
            }
            if let Some(q) = stage.queue.as_mut() {
                q.slots.iter_mut().for_each(|p| *p *= s);
                q.radius *= s;
            }
        }
        for src in &mut self.sources {
            src.region = region(&src.region);
        }
        for m in &mut self.measures {
            m.region = region(&m.region);
        }
        for e in &mut self.expectations {
            use expectation::{Check, Subject};
            if let Subject::InRegion { region: r, .. } = &mut e.subject {
                *r = scaled(r, s);
            }
            if let Check::Reach { region: r, .. } = &mut e.check {
                *r = scaled(r, s);
            }
        }
    }

    /// The world at tick 0: every agent spawned, parameters drawn, generators seeded.
    ///
    /// # Panics
    /// When a spawn cannot place its agents at its `min_distance` and `wall_distance`; a
    /// program that runs users' scenarios calls [`Scenario::try_build_world`] (as
    /// `Simulation::new` does) to get the error instead.
    pub fn build_world(&self) -> World<V> {
        self.try_build_world().unwrap_or_else(|e| panic!("{}: {e}", self.origin))
    }

    /// The world at tick 0, or the spawn that could not place its agents (see
    /// [`spawn`]).
    pub fn try_build_world(&self) -> Result<World<V>, SpawnError> {
        let mut world = World {
            name: self.name.clone(),
            seed: self.seed,
            dt: self.dt,
            tick: 0,
            bounds: self.bounds,
            groups: self.groups.iter().map(|g| g.group.clone()).collect(),
            targets: self.targets.clone(),
            obstacles: self.obstacles.clone(),
            fixed_obstacles: self.obstacles.len() as u32,
            solid_obstacles: self.solid_obstacles,
            paths: self.paths.clone(),
            scene: V::Scene::default(),
            agents: Agents::default(),
            next_id: 0,
            exited: 0,
            removed: 0,
            queue_length: 0,
            events: self.events.clone(),
            stopped: false,
        };
        // The planar parts (empty in space: its scenario cannot declare them), then the
        // closed doors among the obstacles. A door closed from the start diverts its groups
        // from the start.
        let parts = PlaneScene {
            doors: self.doors.clone(),
            exits: self.exits.clone(),
            gates: self.gates.clone(),
            measures: self.measures.clone(),
            sources: self.sources.clone(),
            waiting: self.waiting.clone(),
            gate_totals: vec![0; self.gates.len()],
            diversions: self.diversions.clone(),
            stages: self.stages.clone(),
            journeys: self.journeys.clone(),
        };
        world.scene = V::Scene::from_parts(parts).unwrap_or_else(|part| {
            unreachable!("validation refuses {part} in a scenario of {} dimensions", V::DIMENSIONS)
        });
        world.refresh_obstacles();
        for d in 0..self.doors.len() {
            if self.doors[d].closed {
                crate::passes::divert(&mut world, crate::world::Switch::Door(d as u32), false);
            }
        }
        // Spawns that keep distances see every agent placed before theirs (spawn.rs).
        let spaced = self.groups.iter().any(|g| g.spacing.keeps_any());
        let (bounds, obstacles) = (world.bounds, if spaced { world.obstacles.clone() } else { Vec::new() });
        let largest = self.groups.iter().map(|g| g.spacing.min_distance).fold(0.0, f32::max);
        let mut placed = spawn::Placed::new(&bounds, &obstacles, largest);
        for (g, spec) in self.groups.iter().enumerate() {
            let spawner = rng::name_key(&spec.group.name);
            let spacing = spec.spacing;
            for k in 0..spec.count {
                let key = rng::agent_key(spawner, k as u64);
                let mut spawn_rng = rng::agent_rng(self.seed, key, Purpose::Spawn);
                let mut draw = || match &spec.spawn {
                    Spawn::Rect { min, max } => {
                        V::from_fn(|a| rng::uniform(&mut spawn_rng, min.axis(a), max.axis(a)))
                    }
                    Spawn::Circle { centre, radius } => {
                        *centre + V::in_ball(*radius, || rng::unit(&mut spawn_rng))
                    }
                    Spawn::Points(points) => points[k as usize],
                };
                let mut p = draw();
                if let Spawn::Points(_) = spec.spawn {
                    if spacing.keeps_any() {
                        spawn::check_point(&placed, g, k as usize, p, spacing)?;
                    }
                } else {
                    let mut tries = 1;
                    while spacing.keeps_any() && !placed.keeps(p, spacing) {
                        if tries == spawn::MAX_TRIES {
                            return Err(SpawnError::Crowded {
                                group: g,
                                agent: k,
                                count: spec.count,
                                min_distance: spacing.min_distance,
                                wall_distance: spacing.wall_distance,
                            });
                        }
                        p = draw();
                        tries += 1;
                    }
                }
                if spaced {
                    placed.add(p);
                }
                world.push_agent(g as u16, key, p);
            }
            if let Some(parties) = &spec.group.parties {
                // This group's agents are the last `count` rows, in id order (nothing has
                // reordered them yet).
                let a = &mut world.agents;
                let first = a.len() - spec.count as usize;
                let dealt = crate::world::form_parties(
                    &parties.shares,
                    &a.id[first..],
                    &a.position[first..],
                    self.seed,
                    spawner,
                );
                a.party[first..].copy_from_slice(&dealt);
            }
        }
        Ok(world)
    }
}
