//! `World`: the simulation state. Everything here is hashed, compared and (later) checkpointed;
//! scratch that is rebuilt every tick lives in [`crate::Pipeline`] instead.
//!
//! Agents are stored as structure-of-arrays columns, one row per live agent. Rows are created
//! in agent-id order; the pipeline's `reorder` pass may put them in spatial order, which changes
//! no result. Everything that leaves the engine (hashes, digests, snapshots, checkpoints,
//! traces) reads rows in id order ([`World::id_ordered`]). A pass reads whole columns as slices
//! and writes only its own agent's rows.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::math::Vec2;
use crate::rng::AgentRng;

/// The simulated region.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub kind: BoundsKind,
    pub min: Vec2,
    pub max: Vec2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundsKind {
    /// Agents may leave the rectangle; it only frames spawn regions and output.
    Open,
    /// Toroidal: positions wrap, and every offset uses the minimum image across the seam.
    Wrap,
}

impl Bounds {
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// The offset from `from` to `to`: `to - from`, or its minimum image when wrapped.
    #[inline]
    pub fn offset(&self, from: Vec2, to: Vec2) -> Vec2 {
        let d = to - from;
        match self.kind {
            BoundsKind::Open => d,
            BoundsKind::Wrap => {
                let size = self.max - self.min;
                Vec2::new(min_image(d.x, size.x), min_image(d.y, size.y))
            }
        }
    }

    /// Brings a position back inside `[min, max)` on a wrapped world; identity when open.
    #[inline]
    pub fn wrap(&self, p: Vec2) -> Vec2 {
        match self.kind {
            BoundsKind::Open => p,
            BoundsKind::Wrap => {
                Vec2::new(wrap_axis(p.x, self.min.x, self.max.x), wrap_axis(p.y, self.min.y, self.max.y))
            }
        }
    }
}

#[inline]
fn min_image(d: f32, size: f32) -> f32 {
    if d > 0.5 * size {
        d - size
    } else if d < -0.5 * size {
        d + size
    } else {
        d
    }
}

#[inline]
fn wrap_axis(x: f32, lo: f32, hi: f32) -> f32 {
    if x >= lo && x < hi {
        return x;
    }
    let size = hi - lo;
    let w = lo + (x - lo).rem_euclid(size);
    // rem_euclid can round up to exactly `size` for tiny negative inputs.
    if w >= hi { lo } else { w }
}

/// Something a behaviour steers towards or away from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Target {
    /// A fixed point.
    Point(Vec2),
    /// A scripted point moving at `speed` along `waypoints` (looping back to the first): the
    /// headless stand-in for the tutorials' "seek the mouse".
    Moving { waypoints: Vec<Vec2>, speed: f32 },
    /// A specific agent, by id.
    Agent(u32),
    /// The nearest live agent of a group (never the seeker itself).
    NearestOf(u16),
    /// A point of the seeker's own, drawn uniformly in `region` from its generator, redrawn
    /// every `period_ticks` ticks (tick 0 included): the retargeting monsters of the
    /// leader-following demo, and the standard crowd's random goals. A group may use at most
    /// one such target; the point lives in `Agents::goal`.
    Random { region: Region, period_ticks: u32 },
}

/// A region of the plane: where agents spawn, exit, or find random goals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Region {
    Rect { min: Vec2, max: Vec2 },
    Circle { centre: Vec2, radius: f32 },
}

impl Region {
    pub fn contains(&self, p: Vec2) -> bool {
        match *self {
            Region::Rect { min, max } => p.cmpge(min).all() && p.cmple(max).all(),
            Region::Circle { centre, radius } => (p - centre).length_squared() <= radius * radius,
        }
    }

    /// A uniform point inside, from two draws of `rng`.
    pub fn sample(&self, rng: &mut AgentRng) -> Vec2 {
        match *self {
            Region::Rect { min, max } => {
                Vec2::new(crate::rng::uniform(rng, min.x, max.x), crate::rng::uniform(rng, min.y, max.y))
            }
            Region::Circle { centre, radius } => {
                let r = radius * crate::rng::unit(rng).sqrt();
                let (s, c) = crate::math::sin_cos(2.0 * crate::math::PI * crate::rng::unit(rng));
                centre + Vec2::new(c, s) * r
            }
        }
    }

    /// The smallest axis-aligned box holding the region.
    pub fn aabb(&self) -> (Vec2, Vec2) {
        match *self {
            Region::Rect { min, max } => (min, max),
            Region::Circle { centre, radius } => (centre - Vec2::splat(radius), centre + Vec2::splat(radius)),
        }
    }
}

/// A static obstacle. Rectangles are axis-aligned; a doorway is two rectangles with a gap.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Obstacle {
    Circle { centre: Vec2, radius: f32 },
    Rect { min: Vec2, max: Vec2 },
}

/// A named path: nodes and the radius within which a node counts as reached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Path {
    pub name: String,
    pub nodes: Vec<Vec2>,
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
    pub name: String,
    pub region: Region,
    /// Groups that leave here; empty means every group.
    pub groups: Vec<u16>,
}

/// A gate line; crossings in either direction are counted (doorway throughput).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub name: String,
    pub from: Vec2,
    pub to: Vec2,
}

/// A spawn source: adds agents of `group` in `region` at `rate_per_s` between `start_s` and
/// `end_s`, at most `max` in all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub name: String,
    pub group: u16,
    pub region: Region,
    pub rate_per_s: f32,
    pub start_s: f32,
    pub end_s: f32,
    pub max: u32,
    /// Agents spawned so far (state).
    pub spawned: u32,
}

impl Source {
    /// How many agents the source should have spawned by time `t_s`: `floor(rate · (t −
    /// start))` clamped to [0, max], evaluated in f64 from the tick count so it never drifts.
    pub fn due_by(&self, t_s: f64) -> u32 {
        let t = t_s.min(self.end_s as f64) - self.start_s as f64;
        if t <= 0.0 {
            return 0;
        }
        ((self.rate_per_s as f64 * t).floor() as u64).min(self.max as u64) as u32
    }
}

/// Where a behaviour's target comes from: an index into `World::targets`.
pub type TargetId = u16;

/// How evade predicts the pursuer's future position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EvadePrediction {
    /// `T = d / (max_speed + |q.v|)` (the default).
    TargetSpeed,
    /// `T = d / max_speed`.
    OwnSpeed,
}

/// How separation weighs its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeparationVariant {
    /// `force = norm(-Σ(n.p - p) / count) · max_force` (the default).
    Mean,
    /// `force = trunc(Σ norm(p - n.p) / |p - n.p|, max_force)`; coincident neighbours are skipped.
    InverseDistance,
}

/// One steering behaviour with its parameters. Units: lengths in world units, times in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Behaviour {
    Seek {
        target: TargetId,
    },
    Flee {
        target: TargetId,
    },
    Arrive {
        target: TargetId,
        slowing_radius: f32,
    },
    Wander {
        radius: f32,
        distance: f32,
        jitter: f32,
    },
    Pursuit {
        target: TargetId,
        look_ahead_s: Option<f32>,
    },
    Evade {
        target: TargetId,
        look_ahead_s: Option<f32>,
        prediction: EvadePrediction,
    },
    Separation {
        radius: f32,
        max_force: f32,
        variant: SeparationVariant,
    },
    Alignment {
        radius: f32,
    },
    Cohesion {
        radius: f32,
    },
    /// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
    FlockTarget {
        target: TargetId,
        speed: f32,
    },
    /// Steer away from the most threatening obstacle found by the `find_threats` pass.
    AvoidObstacles {
        see_ahead: f32,
        max_avoid_force: f32,
    },
    /// Seek the current node of a path; the cursor lives in `Agents::path_node`/`path_dir`.
    FollowPath {
        path: u16,
        mode: PathMode,
        slowing_radius: f32,
    },
    /// Arrive behind the leader, keep apart from the other followers, and evade the leader when
    /// in its sight.
    FollowLeader {
        leader: TargetId,
        behind_dist: f32,
        slowing_radius: f32,
        sight_radius: f32,
        separation_radius: f32,
        max_separation: f32,
    },
    /// Queue braking. Not part of the weighted sum: the `queue_brake` pass applies it after
    /// the sum, because it reads the summed steering.
    Queue {
        queue_ahead: f32,
        queue_radius: f32,
        brake_factor: f32,
        hard_stop_factor: f32,
        separation_radius: f32,
        max_separation: f32,
    },
    /// Random walk towards a target through waypoints in a cone that narrows as the agent
    /// closes in; the waypoint lives in `Agents::waypoint`.
    RandomWalk {
        target: TargetId,
        aggro_radius: f32,
        min_step: f32,
        max_step: f32,
        reach_radius: f32,
        slowing_radius: f32,
    },
}

impl Behaviour {
    pub fn name(&self) -> &'static str {
        match self {
            Behaviour::Seek { .. } => "seek",
            Behaviour::Flee { .. } => "flee",
            Behaviour::Arrive { .. } => "arrive",
            Behaviour::Wander { .. } => "wander",
            Behaviour::Pursuit { .. } => "pursuit",
            Behaviour::Evade { .. } => "evade",
            Behaviour::Separation { .. } => "separation",
            Behaviour::Alignment { .. } => "alignment",
            Behaviour::Cohesion { .. } => "cohesion",
            Behaviour::FlockTarget { .. } => "flock_target",
            Behaviour::AvoidObstacles { .. } => "avoid_obstacles",
            Behaviour::FollowPath { .. } => "follow_path",
            Behaviour::FollowLeader { .. } => "follow_leader",
            Behaviour::Queue { .. } => "queue",
            Behaviour::RandomWalk { .. } => "random_walk",
        }
    }

    /// Separation, alignment and cohesion: the behaviours whose forces a group may cache for
    /// `flocking_interval` ticks.
    pub fn is_flocking(&self) -> bool {
        matches!(
            self,
            Behaviour::Separation { .. } | Behaviour::Alignment { .. } | Behaviour::Cohesion { .. }
        )
    }

    /// The neighbour radius this behaviour reads, if it reads neighbours.
    pub fn neighbour_radius(&self) -> Option<f32> {
        match *self {
            Behaviour::Separation { radius, .. }
            | Behaviour::Alignment { radius }
            | Behaviour::Cohesion { radius } => Some(radius),
            Behaviour::FollowLeader { separation_radius, .. } => Some(separation_radius),
            // The blocker search looks `queue_ahead` ahead, then `queue_radius` around that.
            Behaviour::Queue { queue_ahead, queue_radius, separation_radius, .. } => {
                Some((queue_ahead + queue_radius).max(separation_radius))
            }
            _ => None,
        }
    }

    /// The target this behaviour reads, if any.
    pub fn target(&self) -> Option<TargetId> {
        match *self {
            Behaviour::Seek { target }
            | Behaviour::Flee { target }
            | Behaviour::Arrive { target, .. }
            | Behaviour::Pursuit { target, .. }
            | Behaviour::Evade { target, .. }
            | Behaviour::FlockTarget { target, .. }
            | Behaviour::RandomWalk { target, .. } => Some(target),
            Behaviour::FollowLeader { leader, .. } => Some(leader),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeightedBehaviour {
    pub weight: f32,
    pub behaviour: Behaviour,
}

/// A group: agents sharing a behaviour list and sensing parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub name: String,
    /// Steering is `Σ weight · force` over this list, in this order.
    pub behaviours: Vec<WeightedBehaviour>,
    /// Radius of the neighbour query (world units); at least every behaviour's radius.
    pub sensing_radius: f32,
    /// Neighbours kept per agent, nearest first (ties by id).
    pub max_neighbours: u32,
    /// Flocking forces are recomputed every this many ticks (1 = every tick), staggered by id.
    pub flocking_interval_ticks: u32,
    /// How new agents of this group are made (initial population and spawn sources).
    pub params: AgentParams,
}

impl Group {
    /// The `see_ahead` of the group's obstacle avoidance, if it avoids obstacles.
    pub fn see_ahead(&self) -> Option<f32> {
        self.behaviours.iter().find_map(|b| match b.behaviour {
            Behaviour::AvoidObstacles { see_ahead, .. } => Some(see_ahead),
            _ => None,
        })
    }

    /// The group's queue parameters, if it queues.
    pub fn queue(&self) -> Option<&Behaviour> {
        self.behaviours.iter().map(|b| &b.behaviour).find(|b| matches!(b, Behaviour::Queue { .. }))
    }

    /// The radius of the group's first wander circle (0 without wander).
    pub fn wander_radius(&self) -> f32 {
        self.behaviours
            .iter()
            .find_map(|b| match b.behaviour {
                Behaviour::Wander { radius, .. } => Some(radius),
                _ => None,
            })
            .unwrap_or(0.0)
    }
}

/// A per-agent parameter: one value for every agent, or a uniform range drawn per agent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Param {
    Value(f32),
    Range { min: f32, max: f32 },
}

impl Param {
    /// The agent's value; always consumes exactly one draw, so switching a parameter between a
    /// value and a range never shifts the other parameters' draws.
    pub fn draw(&self, rng: &mut AgentRng) -> f32 {
        let u = crate::rng::unit(rng);
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

/// Per-agent parameters of a group, each a value or a range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentParams {
    pub max_speed: Param,
    pub max_force: Param,
    pub mass: Param,
    pub radius: Param,
    pub initial_speed: Param,
}

/// Reusable scratch for [`Agents::permute_rows_with`].
#[derive(Clone, Debug, Default)]
pub struct PermuteScratch {
    done: Vec<bool>,
    /// The first row of every cycle longer than one row.
    leaders: Vec<u32>,
}

/// One agent column, as [`Agents::permute_rows_with`] moves it.
trait Column: Send {
    /// Moves row `order[k]` to row `k`, following the cycles that start at `leaders`.
    fn follow_cycles(&mut self, order: &[u32], leaders: &[u32]);
}

impl<T: Send> Column for Vec<T> {
    fn follow_cycles(&mut self, order: &[u32], leaders: &[u32]) {
        for &start in leaders {
            // Row `start` holds its old value; each swap puts the right one in row `j` and
            // carries the old value of `start` along the cycle, to its last row.
            let start = start as usize;
            let mut j = start;
            loop {
                let k = order[j] as usize;
                if k == start {
                    break;
                }
                self.swap(j, k);
                j = k;
            }
        }
    }
}

/// Agent columns. Row `i` of every column describes the same agent. Rows are in id order
/// unless the pipeline reordered them spatially (`Pipeline::set_reorder_every`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Agents {
    /// Stable id: never reused, assigned in spawn order.
    pub id: Vec<u32>,
    /// Index into `World::groups`.
    pub group: Vec<u16>,
    pub position: Vec<Vec2>,
    pub velocity: Vec<Vec2>,
    /// World units per second.
    pub max_speed: Vec<f32>,
    /// Steering force limit (mass · units / s²).
    pub max_force: Vec<f32>,
    pub mass: Vec<f32>,
    /// Body radius (world units).
    pub radius: Vec<f32>,
    /// Wander circle offset `c` (spec: wander).
    pub wander: Vec<Vec2>,
    /// The weighted sum of flocking forces, reused between recomputations.
    pub flock_force: Vec<Vec2>,
    /// The agent's own generator, drawn from only inside its own update.
    pub rng: Vec<AgentRng>,
    /// Path following: index of the node being sought.
    pub path_node: Vec<u32>,
    /// Path following: +1 or -1 (patrol reverses it).
    pub path_dir: Vec<i8>,
    /// Random walk: the current waypoint.
    pub waypoint: Vec<Vec2>,
    /// Random walk: 0 no waypoint yet, 1 walking to a waypoint, 2 on the last, straight leg.
    pub walk_state: Vec<u8>,
    /// The agent's own random goal (targets of kind `random`).
    pub goal: Vec<Vec2>,
}

impl Agents {
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// The row of agent `id`. Rows are in id order unless the pipeline reordered them
    /// spatially (`Pipeline::set_reorder_every`); then this falls back to a scan.
    pub fn row_of(&self, id: u32) -> Option<usize> {
        match self.id.binary_search(&id) {
            Ok(row) => Some(row),
            Err(_) if self.is_id_ordered() => None,
            Err(_) => self.id.iter().position(|&x| x == id),
        }
    }

    /// Are the rows in ascending id order (the canonical order)?
    pub fn is_id_ordered(&self) -> bool {
        self.id.windows(2).all(|w| w[0] < w[1])
    }

    /// The rows in ascending id order: `None` when they already are, else the permutation.
    ///
    /// Ids are unique and, unless most agents have left, dense: each row is then put in a slot
    /// by its id and the slots read in order, in O(rows + largest id) rather than a sort's
    /// O(rows · log rows) of scattered reads (60 ms at 1M rows, paid by every metrics tick,
    /// state hash, trace row set and checkpoint of a reordered world).
    pub fn id_order(&self) -> Option<Vec<u32>> {
        if self.is_id_ordered() {
            return None;
        }
        let slots = self.id.iter().copied().max().map_or(0, |m| m as usize + 1);
        if slots > 4 * self.len() {
            let mut order: Vec<u32> = (0..self.len() as u32).collect();
            order.sort_unstable_by_key(|&r| self.id[r as usize]);
            return Some(order);
        }
        let mut row_of = vec![u32::MAX; slots];
        for (row, &id) in self.id.iter().enumerate() {
            row_of[id as usize] = row as u32;
        }
        row_of.retain(|&row| row != u32::MAX);
        Some(row_of)
    }

    /// Moves row `order[k]` to row `k` in every column (`order` is a permutation of the rows).
    /// Results never depend on row order (every tie is broken by id, every output is written
    /// in id order), so a spatial order only changes speed.
    pub fn permute_rows(&mut self, order: &[u32]) {
        self.permute_rows_with(order, &mut PermuteScratch::default());
    }

    /// As [`Agents::permute_rows`], in place, with reusable scratch (a warm caller allocates
    /// nothing). The permutation's cycles are found once; then each column follows them on its
    /// own, the columns side by side when called on a rayon pool of several threads. A column's
    /// result does not depend on which thread moved it.
    pub fn permute_rows_with(&mut self, order: &[u32], scratch: &mut PermuteScratch) {
        assert_eq!(order.len(), self.len(), "a permutation of every row");
        let PermuteScratch { done, leaders } = scratch;
        done.clear();
        done.resize(order.len(), false);
        leaders.clear();
        // At most one cycle per two rows: room for the most there can be, so a later
        // permutation with more cycles (a near-identity one has thousands) never reallocates.
        leaders.reserve(order.len() / 2);
        for start in 0..order.len() {
            if done[start] {
                continue;
            }
            if order[start] as usize != start {
                leaders.push(start as u32);
            }
            let mut j = start;
            while !done[j] {
                done[j] = true;
                j = order[j] as usize;
            }
        }
        if leaders.is_empty() {
            return;
        }
        let columns: [&mut dyn Column; 16] = [
            &mut self.id,
            &mut self.group,
            &mut self.position,
            &mut self.velocity,
            &mut self.max_speed,
            &mut self.max_force,
            &mut self.mass,
            &mut self.radius,
            &mut self.wander,
            &mut self.flock_force,
            &mut self.rng,
            &mut self.path_node,
            &mut self.path_dir,
            &mut self.waypoint,
            &mut self.walk_state,
            &mut self.goal,
        ];
        let leaders = &leaders[..];
        if rayon::current_thread_index().is_some() && rayon::current_num_threads() > 1 {
            columns.into_par_iter().for_each(|c| c.follow_cycles(order, leaders));
        } else {
            columns.into_iter().for_each(|c| c.follow_cycles(order, leaders));
        }
    }

    /// Keeps the rows for which `keep(row)` is true, in order (ids stay sorted).
    pub fn retain_rows(&mut self, keep: &[bool]) {
        fn retain<T>(col: &mut Vec<T>, keep: &[bool]) {
            let mut k = keep.iter();
            col.retain(|_| *k.next().expect("one flag per row"));
        }
        retain(&mut self.id, keep);
        retain(&mut self.group, keep);
        retain(&mut self.position, keep);
        retain(&mut self.velocity, keep);
        retain(&mut self.max_speed, keep);
        retain(&mut self.max_force, keep);
        retain(&mut self.mass, keep);
        retain(&mut self.radius, keep);
        retain(&mut self.wander, keep);
        retain(&mut self.flock_force, keep);
        retain(&mut self.rng, keep);
        retain(&mut self.path_node, keep);
        retain(&mut self.path_dir, keep);
        retain(&mut self.waypoint, keep);
        retain(&mut self.walk_state, keep);
        retain(&mut self.goal, keep);
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

/// The whole simulation state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct World {
    pub name: String,
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// Ticks completed so far.
    pub tick: u64,
    pub bounds: Bounds,
    pub groups: Vec<Group>,
    pub targets: Vec<Target>,
    pub obstacles: Vec<Obstacle>,
    /// Agents are pushed out of obstacles after integration (on by default).
    pub solid_obstacles: bool,
    pub paths: Vec<Path>,
    pub exits: Vec<Exit>,
    pub gates: Vec<Gate>,
    pub sources: Vec<Source>,
    pub agents: Agents,
    /// The id the next spawned agent gets.
    pub next_id: u32,
    /// Agents removed by exits so far.
    pub exited: u64,
}

impl World {
    /// Simulated time at the start of the next tick, in seconds.
    pub fn time_s(&self) -> f64 {
        self.tick as f64 * self.dt as f64
    }

    /// The row of agent `id`, if it is alive (see [`Agents::row_of`]).
    pub fn row_of(&self, id: u32) -> Option<usize> {
        self.agents.row_of(id)
    }

    /// This world with its rows in id order: itself when they already are (no copy), else a
    /// copy with the rows permuted. Everything that leaves the engine in row form (column
    /// digests, snapshots, checkpoints, field-by-field differences) goes through it, so no
    /// output depends on the pipeline's spatial reordering.
    pub fn id_ordered(&self) -> Cow<'_, World> {
        match self.agents.id_order() {
            None => Cow::Borrowed(self),
            Some(order) => {
                let mut w = self.clone();
                w.agents.permute_rows(&order);
                Cow::Owned(w)
            }
        }
    }

    /// Appends a new agent of group `g` at `position` with the next id. Every random draw is
    /// keyed by (seed, `key`, purpose), so an agent's values depend only on who made it and
    /// its ordinal there (see `rng::agent_key`), never on other groups or thread counts.
    pub fn push_agent(&mut self, g: u16, key: u64, position: Vec2) -> u32 {
        use crate::rng::{Purpose, agent_rng, unit};
        let group = &self.groups[g as usize];
        let mut params = agent_rng(self.seed, key, Purpose::Params);
        let max_speed = group.params.max_speed.draw(&mut params);
        let max_force = group.params.max_force.draw(&mut params);
        let mass = group.params.mass.draw(&mut params);
        let radius = group.params.radius.draw(&mut params);
        let initial_speed = group.params.initial_speed.draw(&mut params);
        let mut heading = agent_rng(self.seed, key, Purpose::Heading);
        let (s, c) = crate::math::sin_cos(2.0 * crate::math::PI * unit(&mut heading));
        let velocity = crate::math::trunc(Vec2::new(c, s) * initial_speed, max_speed);
        let w = group.wander_radius() * 0.707;

        let id = self.next_id;
        self.next_id += 1;
        let a = &mut self.agents;
        a.id.push(id);
        a.group.push(g);
        a.position.push(self.bounds.wrap(position));
        a.velocity.push(velocity);
        a.max_speed.push(max_speed);
        a.max_force.push(max_force);
        a.mass.push(mass);
        a.radius.push(radius);
        a.wander.push(Vec2::new(w, w));
        a.flock_force.push(Vec2::ZERO);
        a.rng.push(agent_rng(self.seed, key, Purpose::Behaviour));
        a.path_node.push(0);
        a.path_dir.push(1);
        a.waypoint.push(position);
        a.walk_state.push(0);
        a.goal.push(position);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_image_crosses_the_seam() {
        let b = Bounds { kind: BoundsKind::Wrap, min: Vec2::ZERO, max: Vec2::new(10.0, 10.0) };
        assert_eq!(b.offset(Vec2::new(9.5, 5.0), Vec2::new(0.5, 5.0)), Vec2::new(1.0, 0.0));
        assert_eq!(b.offset(Vec2::new(0.5, 0.5), Vec2::new(9.5, 9.5)), Vec2::new(-1.0, -1.0));
        assert_eq!(b.wrap(Vec2::new(10.0, -0.5)), Vec2::new(0.0, 9.5));
        assert_eq!(b.wrap(Vec2::new(-1e-9, 3.0)).x, 0.0);
    }

    #[test]
    fn permuting_in_place_gathers_every_column() {
        let n = 97u32;
        let mut a = Agents::default();
        for i in 0..n {
            a.id.push(i);
            a.group.push(i as u16);
            a.position.push(Vec2::new(i as f32, -(i as f32)));
            a.goal.push(Vec2::splat(i as f32));
        }
        let fill = |v: &mut Vec<_>, x| v.resize(n as usize, x);
        fill(&mut a.velocity, Vec2::ZERO);
        fill(&mut a.wander, Vec2::ZERO);
        fill(&mut a.flock_force, Vec2::ZERO);
        fill(&mut a.waypoint, Vec2::ZERO);
        a.max_speed = (0..n).map(|i| i as f32).collect();
        a.max_force = a.max_speed.clone();
        a.mass = a.max_speed.clone();
        a.radius = a.max_speed.clone();
        a.rng = (0..n).map(|i| crate::rng::agent_rng(1, i as u64, crate::rng::Purpose::Behaviour)).collect();
        a.path_node = (0..n).collect();
        a.path_dir = vec![1; n as usize];
        a.walk_state = vec![0; n as usize];
        // k -> 31k + 7 (mod 97): a permutation (31 is prime to 97) with one fixed point.
        let order: Vec<u32> = (0..n).map(|k| (k * 31 + 7) % n).collect();
        let mut done = PermuteScratch::default();
        let mut b = a.clone();
        b.permute_rows_with(&order, &mut done);
        for (k, &r) in order.iter().enumerate() {
            assert_eq!(b.id[k], a.id[r as usize]);
            assert_eq!(b.position[k], a.position[r as usize]);
            assert_eq!(b.rng[k], a.rng[r as usize]);
            assert_eq!(b.goal[k], a.goal[r as usize]);
        }
        // Back to id order.
        let back = b.id_order().expect("not in id order");
        b.permute_rows_with(&back, &mut done);
        assert_eq!(b, a);
        // On a pool of several threads the columns move side by side: the same rows.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("pool");
        let mut c = a.clone();
        pool.install(|| c.permute_rows_with(&order, &mut done));
        let mut serial = a.clone();
        serial.permute_rows_with(&order, &mut done);
        assert_eq!(c, serial);
        pool.install(|| c.permute_rows_with(&back, &mut done));
        assert_eq!(c, a);
        // The identity moves nothing.
        let identity: Vec<u32> = (0..n).collect();
        pool.install(|| c.permute_rows_with(&identity, &mut done));
        assert_eq!(c, a);
    }

    /// `id_order` by slots (dense ids) and by sorting (ids sparse after most agents left)
    /// gives the rows in ascending id order either way.
    #[test]
    fn id_order_lists_rows_by_ascending_id_for_dense_and_sparse_ids() {
        let by_sort = |a: &Agents| {
            let mut order: Vec<u32> = (0..a.len() as u32).collect();
            order.sort_by_key(|&r| a.id[r as usize]);
            order
        };
        let mut a = Agents::default();
        // 97 rows, ids a permutation of 0..97 with gaps cut out: dense.
        a.id = (0..97u32).map(|k| (k * 31 + 7) % 97 * 3 / 2).collect();
        assert_eq!(a.id_order(), Some(by_sort(&a)));
        // Ids over 4 × the rows: sparse.
        a.id = (0..97u32).map(|k| (k * 31 + 7) % 97 * 1000).collect();
        assert_eq!(a.id_order(), Some(by_sort(&a)));
        let order = a.id_order().expect("not in id order");
        assert!(order.windows(2).all(|w| a.id[w[0] as usize] < a.id[w[1] as usize]));
        // Already in id order: nothing to do.
        a.id = (0..97u32).map(|k| k * 5).collect();
        assert_eq!(a.id_order(), None);
    }
}
