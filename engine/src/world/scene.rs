//! Scene items: targets, regions, paths, exits, gates and spawn sources.

use serde::{Deserialize, Serialize};

use super::Bounds;
use crate::math::{Vec2, Vector};
use crate::rng::AgentRng;

/// Something a behaviour steers towards or away from (`V`: a point of the plane or of space).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Target<V = Vec2> {
    /// A fixed point.
    Point(V),
    /// A scripted point moving at `speed` along `waypoints` (looping back to the first): the
    /// headless stand-in for the tutorials' "seek the mouse".
    Moving {
        /// The loop's corners, in order (world units; at least one). With one waypoint, or a
        /// loop of length 0, the point stays put.
        waypoints: Vec<V>,
        /// Speed along the loop (world units per second, ≥ 0 and ≤ 1e7). The point starts at
        /// the first waypoint at time 0; its position is computed from the time, so it never
        /// drifts.
        speed: f32,
    },
    /// A specific agent, by id.
    Agent(u32),
    /// The nearest live agent of a group (never the seeker itself).
    NearestOf(u16),
    /// A point of the seeker's own, drawn uniformly in `region` from its generator, redrawn
    /// every `period_ticks` ticks (tick 0 included): the retargeting monsters of the
    /// leader-following demo, and the standard crowd's random goals. A group may use at most
    /// one such target; the point lives in `Agents::goal`.
    Random {
        /// Where the goals are drawn, uniformly (a rectangle with `max > min`, or a disc of
        /// radius > 0).
        region: Region<V>,
        /// Ticks between redraws: the scenario's `every_s / dt`, rounded, at least 1.
        period_ticks: u32,
    },
    /// A point of the seeker's own, fixed at its spawn: the point opposite its spawn position
    /// across `centre` (`2 · centre − spawn`, wrapped), as in the antipodal circle scenes of
    /// the collision-avoidance literature. Shares `Agents::goal` with `Random`, so a group may
    /// use one of the two.
    Opposite {
        /// The point every agent's goal mirrors its spawn position through.
        centre: V,
    },
    /// A heading, not a place: for every seeker the target lies [`DIRECTION_REACH`] units
    /// away along `direction`, so seek walks that way for ever. The desired direction of a
    /// periodic corridor (a fundamental diagram) or of a walker told "go east".
    Direction {
        /// The heading (unit length).
        direction: V,
    },
    // Own comes last: earlier variants keep their place in the state's bytes.
    /// A point of each seeker's own that the program running the simulation sets
    /// (`Simulation::set_goal`): a game's or a notebook's goal for one agent. It starts at the
    /// agent's spawn position, so the agent stays put until given a goal. Shares
    /// `Agents::goal` with `Random` and `Opposite`, so a group may use one of the three.
    Own,
    /// Each seeker's current stage on its journey (`[[journeys]]`): its point lives in
    /// `Agents::goal` (shared with `Random`, `Opposite` and `Own`, so a group uses one of the
    /// four), and a routed behaviour follows that stage's distance field. A seeker on no
    /// journey has no target.
    Journey,
}

/// How far ahead of a seeker a [`Target::Direction`] lies: far enough that arrive never
/// slows for it and a random walk's cone never narrows, near enough for f32 offsets.
pub const DIRECTION_REACH: f32 = 1.0e6;

/// A region of the plane (or of space): where agents spawn, exit, or find random goals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Region<V = Vec2> {
    /// An axis-aligned rectangle (`kind = "rect"`; a box in space).
    Rect {
        /// Lower-left corner (world units).
        min: V,
        /// Upper-right corner (world units; `max > min` on every axis in a scenario).
        max: V,
    },
    /// A disc (`kind = "circle"`; a ball in space).
    Circle {
        /// The disc's centre (world units).
        centre: V,
        /// The disc's radius (world units, > 0 and ≤ 1e7 in a scenario).
        radius: f32,
    },
}

impl<V: Vector> Region<V> {
    /// Whether `p` lies in the region, edges included. `p` is taken as given: no minimum image
    /// is taken on a wrapped world.
    pub fn contains(&self, p: V) -> bool {
        match *self {
            Region::Rect { min, max } => {
                (0..V::DIMENSIONS).all(|a| p.axis(a) >= min.axis(a) && p.axis(a) <= max.axis(a))
            }
            Region::Circle { centre, radius } => (p - centre).length_squared() <= radius * radius,
        }
    }

    /// A uniform point inside, from two draws of `rng` in the plane (a box in space: three;
    /// a ball: three, [`Vector::in_ball`]).
    pub fn sample(&self, rng: &mut AgentRng) -> V {
        match *self {
            Region::Rect { min, max } => V::from_fn(|a| crate::rng::uniform(rng, min.axis(a), max.axis(a))),
            Region::Circle { centre, radius } => centre + V::in_ball(radius, || crate::rng::unit(rng)),
        }
    }

    /// The smallest axis-aligned box holding the region.
    pub fn aabb(&self) -> (V, V) {
        match *self {
            Region::Rect { min, max } => (min, max),
            Region::Circle { centre, radius } => (centre - V::splat(radius), centre + V::splat(radius)),
        }
    }
}

/// A named path: nodes and the radius within which a node counts as reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub struct Path<V = Vec2> {
    /// The path's key in the scenario's `[paths]` table.
    pub name: String,
    /// The nodes, in order (world units; at least one, and at least two for the `loop` and
    /// `patrol` modes).
    pub nodes: Vec<V>,
    /// A follower within this distance of the node it seeks moves on to the next (world
    /// units, > 0 and ≤ 1e7).
    pub radius: f32,
}

/// How an agent walks a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathMode {
    /// Node 0 to the last, then arrive there.
    Once,
    /// Node 0 to the last, then node 0 again.
    Loop,
    /// Back and forth: 0, 1, …, n−1, n−2, …, 0, 1, …
    Patrol,
}

/// An exit: agents (of the listed groups, or all) whose centre enters it are removed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exit {
    /// The exit's `name` in the scenario, unique among exits.
    pub name: String,
    /// Where agents leave: an agent whose centre is inside it (edges included) is removed.
    /// For an exit at each agent's own goal, a circle whose radius is the reach (its centre
    /// unused).
    pub region: Region,
    /// Groups that leave here; empty means every group.
    pub groups: Vec<u16>,
    /// Whether it removes agents (state: events close and open it; open at tick 0).
    pub open: bool,
    /// `kind = "goal"`: an agent leaves within the region's radius of its own goal
    /// (`Agents::goal`, from a `random` or `opposite` target), wherever that is.
    pub at_own_goal: bool,
}

impl Exit {
    /// Whether an agent of group `group` at `p`, whose own goal is `goal`, leaves here now.
    #[inline]
    pub fn takes(&self, group: u16, p: Vec2, goal: Vec2, bounds: &Bounds) -> bool {
        if !self.open || !(self.groups.is_empty() || self.groups.contains(&group)) {
            return false;
        }
        match (self.at_own_goal, self.region) {
            (true, Region::Circle { radius, .. }) => {
                bounds.offset(p, goal).length_squared() <= radius * radius
            }
            _ => self.region.contains(p),
        }
    }
}

/// A gate line; crossings in either direction are counted (doorway throughput).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    /// The gate's `name` in the scenario, unique among gates: the metrics CSV column
    /// `gate_NAME`.
    pub name: String,
    /// One end of the gate's segment (world units).
    pub from: Vec2,
    /// The other end (world units; different from `from`).
    pub to: Vec2,
    /// Whether it counts crossings (state: events close and open it; open at tick 0).
    pub open: bool,
}

/// A measurement area (`[[measure]]` with a region): each tick the metrics read how many live
/// agents are inside it, their density and their mean speed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeasureArea {
    /// The entry's `name`, unique among measurement areas: the metrics CSV columns
    /// `measure_NAME_count`, `measure_NAME_density`, `measure_NAME_speed`.
    pub name: String,
    /// Where it measures (edges included).
    pub region: Region,
    /// The run's summary of it covers the ticks from this one on (its `start_s`, so a
    /// fundamental diagram leaves out the start); per-tick readings are there from tick 1.
    pub start_tick: u64,
}

impl MeasureArea {
    /// Its area in square world units (`π r²` for a disc).
    pub fn area(&self) -> f64 {
        match self.region {
            Region::Rect { min, max } => (max.x - min.x) as f64 * (max.y - min.y) as f64,
            Region::Circle { radius, .. } => std::f64::consts::PI * radius as f64 * radius as f64,
        }
    }

    /// How many of `agents` stand inside it: an integer count, whatever the row order. Areas
    /// are planar; an agent in space is never inside one.
    pub fn count<V: Vector>(&self, agents: &super::Agents<V>) -> u64 {
        agents.position.iter().filter(|p| p.to_plane().is_some_and(|p| self.region.contains(p))).count()
            as u64
    }
}

/// A spawn source: adds agents of `group` in `region` at `rate_per_s` between `start_s` and
/// `end_s`, at most `max` in all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The source's `name` in the scenario, unique among sources: it keys the spawned agents'
    /// random draws.
    pub name: String,
    /// The new agents' group: an index into `World::groups` (behaviours and parameters).
    pub group: u16,
    /// Where new agents appear, uniformly.
    pub region: Region,
    /// Spawn rate (agents per second, ≥ 0 and ≤ 1e7; the scenario's `rate`).
    pub rate_per_s: f32,
    /// When the source starts: by time `t` it owes `floor(rate_per_s · (t − start_s))` agents
    /// (seconds, ≥ 0 and ≤ 1e9; default 0).
    pub start_s: f32,
    /// Time after which the source adds no more agents (seconds, ≥ `start_s` and ≤ 1e9;
    /// default: the run's length, `ticks · dt`).
    pub end_s: f32,
    /// Most agents the source adds in all (the scenario's `max_agents`, at most
    /// [`MAX_AGENTS`](crate::scenario::MAX_AGENTS)).
    pub max: u32,
    /// Agents spawned so far (state).
    pub spawned: u32,
    /// Whether it spawns (state; events open and close a source, `open = false` starts it
    /// closed). A closed source pauses: it owes nothing for the time it is closed.
    pub open: bool,
    /// Ticks it spent closed between `start_s` and `end_s` (state): its schedule runs that
    /// much behind.
    pub closed_ticks: u64,
    /// The distances a new agent keeps from every live agent and from the obstacles (the
    /// source's `min_distance` and `wall_distance`; none by default). An agent with no room
    /// waits: the source owes it, and the ones after it, until a later tick has room. Kept
    /// outside the world's serialized bytes ([`SpawnSpacing`](super::SpawnSpacing)).
    #[serde(skip)]
    pub spacing: super::Spacing,
    /// The journey its agents start on, if not their group's (an index into the world's
    /// journeys).
    pub journey: Option<u16>,
    /// The stage of that journey its agents start at, if not the journey's `start` (an index
    /// into the world's stages): a platform's arrivals start at its own stairs.
    pub stage: Option<u16>,
}

impl Source {
    /// How many agents the source should have spawned by time `t_s`: `floor(rate · (t −
    /// start − paused))` clamped to [0, max], with `paused` its closed ticks times `dt`,
    /// evaluated in f64 from tick counts so it never drifts.
    pub fn due_by(&self, t_s: f64, dt: f32) -> u32 {
        let paused = self.closed_ticks as f64 * dt as f64;
        let t = t_s.min(self.end_s as f64) - self.start_s as f64 - paused;
        if t <= 0.0 {
            return 0;
        }
        ((self.rate_per_s as f64 * t).floor() as u64).min(self.max as u64) as u32
    }
}

/// Where a behaviour's target comes from: an index into `World::targets`.
pub type TargetId = u16;
