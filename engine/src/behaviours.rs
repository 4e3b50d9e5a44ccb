//! The steering behaviours, as in `shared/spec/behaviours.md`, and the `steer` pass.
//!
//! Each formula is a small pure function of offsets and velocities, so it can be tested against
//! values computed by hand. Offsets (`to_target = t - p`) come from `Bounds::offset`, which is
//! the minimum image on a wrapped world; on an open world it is exactly `t - p`.

use rayon::prelude::*;

use crate::index::{Neighbours, SpatialIndex};
use crate::math::{PI, Vec2, lerp, norm, rotate};
use crate::obstacles::{self, NO_THREAT, ObstacleIndex};
use crate::rng::{self, AgentRng};
use crate::world::{
    Behaviour, Bounds, EvadePrediction, Group, Obstacle, Path, PathMode, SeparationVariant, Target, TargetId,
};

/// seek: `desired = norm(t - p) · max_speed; force = desired - v`.
#[inline]
pub fn seek(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(to_target) * max_speed - v
}

/// flee: `desired = norm(p - t) · max_speed; force = desired - v`.
#[inline]
pub fn flee(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(-to_target) * max_speed - v
}

/// arrive: `desired = norm(t - p) · max_speed · min(1, d / slowing_radius); force = desired - v`.
#[inline]
pub fn arrive(to_target: Vec2, v: Vec2, max_speed: f32, slowing_radius: f32) -> Vec2 {
    let d = to_target.length();
    norm(to_target) * (max_speed * (d / slowing_radius).min(1.0)) - v
}

/// The wander circle's jitter step: `c = norm(c + (ux, uy) · jitter · dt) · R`, with `ux`, `uy`
/// uniform in [-1, 1).
#[inline]
pub fn wander_jitter(c: Vec2, ux: f32, uy: f32, jitter: f32, dt: f32, radius: f32) -> Vec2 {
    norm(c + Vec2::new(ux, uy) * (jitter * dt)) * radius
}

/// wander: `w = p + norm(v) · D + c; force = norm(w - p) · max_speed - v`.
#[inline]
pub fn wander(v: Vec2, c: Vec2, distance: f32, max_speed: f32) -> Vec2 {
    seek(norm(v) * distance + c, v, max_speed)
}

/// pursuit: `T = |q.p - p| / max_speed` (or a fixed look-ahead),
/// `future = q.p + q.v · T; force = seek(future)`.
#[inline]
pub fn pursuit(to_quarry: Vec2, quarry_v: Vec2, v: Vec2, max_speed: f32, look_ahead_s: Option<f32>) -> Vec2 {
    let t = look_ahead_s.unwrap_or_else(|| to_quarry.length() / max_speed);
    seek(to_quarry + quarry_v * t, v, max_speed)
}

/// evade: `T = |q.p - p| / (max_speed + |q.v|)` (or `/ max_speed`, or fixed),
/// `future = q.p + q.v · T; force = flee(future)`.
#[inline]
pub fn evade(
    to_pursuer: Vec2,
    pursuer_v: Vec2,
    v: Vec2,
    max_speed: f32,
    look_ahead_s: Option<f32>,
    prediction: EvadePrediction,
) -> Vec2 {
    let t = look_ahead_s.unwrap_or_else(|| {
        let d = to_pursuer.length();
        match prediction {
            EvadePrediction::TargetSpeed => d / (max_speed + pursuer_v.length()),
            EvadePrediction::OwnSpeed => d / max_speed,
        }
    });
    flee(to_pursuer + pursuer_v * t, v, max_speed)
}

/// separation (mean): `s = Σ (n.p - p) / count; force = norm(-s) · max_force`; zero with no
/// neighbours. `offsets` are `n.p - p`.
pub fn separation(offsets: impl Iterator<Item = Vec2>, max_force: f32, variant: SeparationVariant) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    match variant {
        SeparationVariant::Mean => {
            for o in offsets {
                sum += o;
                count += 1;
            }
            if count == 0 {
                return Vec2::ZERO;
            }
            norm(-(sum / count as f32)) * max_force
        }
        SeparationVariant::InverseDistance => {
            for o in offsets {
                let d_sq = o.length_squared();
                // Coincident neighbours give no direction; skipping them keeps the sum finite.
                if d_sq > 1e-12 {
                    sum += norm(-o) / d_sq.sqrt();
                }
            }
            crate::math::trunc(sum, max_force)
        }
    }
}

/// alignment: `h = Σ norm(n.v) / count; force = h - norm(v)`; zero with no neighbours.
pub fn alignment(neighbour_velocities: impl Iterator<Item = Vec2>, v: Vec2) -> Vec2 {
    alignment_of_headings(neighbour_velocities.map(norm), norm(v))
}

/// [`alignment`] given the headings (`norm(v)`) already, which the steer pass computes once per
/// agent and tick rather than once per neighbour.
#[inline]
pub fn alignment_of_headings(neighbour_headings: impl Iterator<Item = Vec2>, heading: Vec2) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    for h in neighbour_headings {
        sum += h;
        count += 1;
    }
    if count == 0 {
        return Vec2::ZERO;
    }
    sum / count as f32 - heading
}

/// cohesion: `c = Σ n.p / count; force = seek(c)`, written with offsets (`c - p = Σ (n.p - p) /
/// count`) so it also holds across a wrapped seam. Zero with no neighbours.
pub fn cohesion(offsets: impl Iterator<Item = Vec2>, v: Vec2, max_speed: f32) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    for o in offsets {
        sum += o;
        count += 1;
    }
    if count == 0 {
        return Vec2::ZERO;
    }
    seek(sum / count as f32, v, max_speed)
}

/// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
#[inline]
pub fn flock_target(to_target: Vec2, v: Vec2, speed: f32) -> Vec2 {
    (norm(to_target) - norm(v)) * speed
}

/// Path following: the cursor after this tick's reach test. When the agent is within
/// `radius` of node `current`, it moves on: `once` stops at the last node, `loop` wraps to
/// node 0, `patrol` reverses at either end (0, 1, …, n−1, n−2, …, 0, 1, …).
pub fn path_advance(
    dist_to_node: f32,
    radius: f32,
    current: u32,
    dir: i8,
    nodes: u32,
    mode: PathMode,
) -> (u32, i8) {
    if dist_to_node > radius {
        return (current, dir);
    }
    match mode {
        PathMode::Once => ((current + 1).min(nodes - 1), dir),
        PathMode::Loop => ((current + 1) % nodes, dir),
        PathMode::Patrol => {
            let next = current as i64 + dir as i64;
            if next < 0 || next >= nodes as i64 {
                let dir = -dir;
                ((current as i64 + dir as i64) as u32, dir)
            } else {
                (next as u32, dir)
            }
        }
    }
}

/// Path following's force: `seek(nodes[current])`, or `arrive` at the last node of a `once`
/// path.
#[inline]
pub fn follow_path(to_node: Vec2, v: Vec2, max_speed: f32, arrive_here: bool, slowing_radius: f32) -> Vec2 {
    if arrive_here { arrive(to_node, v, max_speed, slowing_radius) } else { seek(to_node, v, max_speed) }
}

/// Leader following: `tv = norm(leader.v) · behind_dist; ahead = leader.p + tv;
/// behind = leader.p - tv; force = arrive(behind) + separation + evade(leader)` when `ahead`
/// or the leader is within `sight_radius`. `separation` is computed by the caller.
#[allow(clippy::too_many_arguments)] // the spec's parameters, one each
pub fn follow_leader(
    to_leader: Vec2,
    leader_v: Vec2,
    v: Vec2,
    max_speed: f32,
    behind_dist: f32,
    slowing_radius: f32,
    sight_radius: f32,
    separation: Vec2,
) -> Vec2 {
    let tv = norm(leader_v) * behind_dist;
    let to_ahead = to_leader + tv;
    let to_behind = to_leader - tv;
    let mut force = arrive(to_behind, v, max_speed, slowing_radius) + separation;
    if to_ahead.length() <= sight_radius || to_leader.length() <= sight_radius {
        force += evade(to_leader, leader_v, v, max_speed, None, EvadePrediction::TargetSpeed);
    }
    force
}

/// Random walk: the next waypoint, as an offset from the agent, and whether it is the target
/// itself (the last, straight leg). `u` in [0, 1) and `left` are the agent's own draws.
/// `step = clamp(d/2, min_step, max_step)`; past the target, go straight; otherwise turn
/// `U(0, half_fov)` to a random side, `half_fov = lerp(0, π/2, min(d, aggro)/aggro) / 2`.
pub fn random_walk_step(
    to_target: Vec2,
    aggro_radius: f32,
    min_step: f32,
    max_step: f32,
    u: f32,
    left: bool,
) -> (Vec2, bool) {
    let d = to_target.length();
    let step = (d * 0.5).clamp(min_step, max_step);
    if step > d {
        return (to_target, true);
    }
    let half_fov = lerp(0.0, PI / 2.0, d.clamp(0.0, aggro_radius) / aggro_radius) * 0.5;
    let angle = u * half_fov * if left { 1.0 } else { -1.0 };
    (rotate(norm(to_target) * step, angle), false)
}

/// The queue's brake: `-steering · brake_factor - v + separation`.
#[inline]
pub fn queue_brake_force(steering: Vec2, v: Vec2, brake_factor: f32, separation: Vec2) -> Vec2 {
    -steering * brake_factor - v + separation
}

/// A target as seen during one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResolvedTarget {
    /// A point with a velocity (scripted points move; fixed ones have zero velocity).
    Point { position: Vec2, velocity: Vec2 },
    /// A specific agent's row, or `None` once it is gone.
    Row(Option<usize>),
    /// The nearest agent of this group, looked up per seeker.
    NearestOf(u16),
    /// The seeker's own random goal (`Agents::goal`).
    OwnGoal,
}

/// Position and velocity of a scripted point moving at `speed` along the closed loop through
/// `waypoints`, at time `t` seconds. Computed in f64 from the tick count, so it never drifts.
pub fn moving_point(waypoints: &[Vec2], speed: f32, t: f64) -> (Vec2, Vec2) {
    let first = waypoints[0];
    let n = waypoints.len();
    let seg = |k: usize| (waypoints[k], waypoints[(k + 1) % n]);
    let seg_len = |k: usize| {
        let (a, b) = seg(k);
        let (dx, dy) = (b.x as f64 - a.x as f64, b.y as f64 - a.y as f64);
        (dx * dx + dy * dy).sqrt()
    };
    let total: f64 = (0..n).map(seg_len).sum();
    if n < 2 || total <= 0.0 {
        return (first, Vec2::ZERO);
    }
    let mut s = (speed as f64 * t) % total;
    for k in 0..n {
        let len = seg_len(k);
        if s < len || k == n - 1 {
            let (a, b) = seg(k);
            let f = if len > 0.0 { (s / len).min(1.0) } else { 0.0 };
            let x = a.x as f64 + (b.x as f64 - a.x as f64) * f;
            let y = a.y as f64 + (b.y as f64 - a.y as f64) * f;
            return (Vec2::new(x as f32, y as f32), norm(b - a) * speed);
        }
        s -= len;
    }
    unreachable!("the loop returns on its last segment")
}

/// Resolves every target for the tick starting at `time_s`.
pub fn resolve_targets(
    targets: &[Target],
    time_s: f64,
    row_of: impl Fn(u32) -> Option<usize>,
    out: &mut Vec<ResolvedTarget>,
) {
    out.clear();
    out.extend(targets.iter().map(|t| match t {
        Target::Point(p) => ResolvedTarget::Point { position: *p, velocity: Vec2::ZERO },
        Target::Moving { waypoints, speed } => {
            let (position, velocity) = moving_point(waypoints, *speed, time_s);
            ResolvedTarget::Point { position, velocity }
        }
        Target::Agent(id) => ResolvedTarget::Row(row_of(*id)),
        Target::NearestOf(g) => ResolvedTarget::NearestOf(*g),
        Target::Random { .. } => ResolvedTarget::OwnGoal,
    }));
}

/// Everything `steer` reads: old state, the neighbour lists, the indexes and the threats.
pub struct SteerInputs<'a> {
    pub tick: u64,
    pub dt: f32,
    pub bounds: &'a Bounds,
    pub groups: &'a [Group],
    /// The world's targets (for random-goal regions) and their resolution for this tick.
    pub target_defs: &'a [Target],
    pub targets: &'a [ResolvedTarget],
    pub paths: &'a [Path],
    pub obstacles: &'a [Obstacle],
    pub obstacle_index: Option<&'a ObstacleIndex>,
    /// Most threatening obstacle per agent, from `find_threats`.
    pub threat: &'a [u32],
    pub id: &'a [u32],
    pub group: &'a [u16],
    pub position: &'a [Vec2],
    pub velocity: &'a [Vec2],
    /// `norm(velocity)` of every agent, computed once per tick for alignment.
    pub heading: &'a [Vec2],
    pub max_speed: &'a [f32],
    pub neighbours: &'a Neighbours,
    pub index: &'a SpatialIndex,
}

/// The agent columns `steer` writes (besides the steering output), one row per agent.
pub struct SteerState<'a> {
    pub wander: &'a mut [Vec2],
    pub flock_force: &'a mut [Vec2],
    pub rng: &'a mut [AgentRng],
    pub path_node: &'a mut [u32],
    pub path_dir: &'a mut [i8],
    pub waypoint: &'a mut [Vec2],
    pub walk_state: &'a mut [u8],
    pub goal: &'a mut [Vec2],
}

/// One agent's writable rows, borrowed out of [`SteerState`].
pub struct AgentMut<'a> {
    pub wander: &'a mut Vec2,
    pub flock_force: &'a mut Vec2,
    pub rng: &'a mut AgentRng,
    pub path_node: &'a mut u32,
    pub path_dir: &'a mut i8,
    pub waypoint: &'a mut Vec2,
    pub walk_state: &'a mut u8,
    pub goal: &'a mut Vec2,
}

/// Random-walk states (`Agents::walk_state`).
pub const WALK_NONE: u8 = 0;
pub const WALK_WAYPOINT: u8 = 1;
pub const WALK_FINAL: u8 = 2;

impl SteerInputs<'_> {
    /// Offset from agent `i` to target `t`, and the target's velocity; `None` if it is gone.
    fn target(&self, t: TargetId, i: usize, goal: Vec2) -> Option<(Vec2, Vec2)> {
        let p = self.position[i];
        let row = match self.targets[t as usize] {
            ResolvedTarget::Point { position, velocity } => {
                return Some((self.bounds.offset(p, position), velocity));
            }
            ResolvedTarget::OwnGoal => return Some((self.bounds.offset(p, goal), Vec2::ZERO)),
            ResolvedTarget::Row(row) => row?,
            ResolvedTarget::NearestOf(g) => self.index.nearest_of_group(g, p, self.position, self.id)?,
        };
        Some((self.bounds.offset(p, self.position[row]), self.velocity[row]))
    }

    /// Offsets `n.p - p` to agent `i`'s neighbours within `radius`, nearest first (as sensing
    /// computed them with `Bounds::offset`).
    fn neighbour_offsets(&self, i: usize, radius: f32) -> impl Iterator<Item = Vec2> + '_ {
        let n = self.neighbours.within(i, radius);
        self.neighbours.offsets(i)[..n].iter().copied()
    }

    /// Headings `norm(n.v)` of agent `i`'s neighbours within `radius`, nearest first.
    fn neighbour_headings(&self, i: usize, radius: f32) -> impl Iterator<Item = Vec2> + '_ {
        let (rows, _) = self.neighbours.of(i);
        let n = self.neighbours.within(i, radius);
        rows[..n].iter().map(move |&row| self.heading[row as usize])
    }

    /// One behaviour's force on agent `i`.
    #[inline(always)]
    fn force(&self, b: &Behaviour, i: usize, st: &mut AgentMut<'_>) -> Vec2 {
        let v = self.velocity[i];
        let max_speed = self.max_speed[i];
        let goal = *st.goal;
        let target = |t: TargetId| self.target(t, i, goal);
        match *b {
            Behaviour::Seek { target: t } => target(t).map_or(Vec2::ZERO, |(o, _)| seek(o, v, max_speed)),
            Behaviour::Flee { target: t } => target(t).map_or(Vec2::ZERO, |(o, _)| flee(o, v, max_speed)),
            Behaviour::Arrive { target: t, slowing_radius } => {
                target(t).map_or(Vec2::ZERO, |(o, _)| arrive(o, v, max_speed, slowing_radius))
            }
            Behaviour::Wander { radius, distance, jitter } => {
                let ux = rng::uniform(st.rng, -1.0, 1.0);
                let uy = rng::uniform(st.rng, -1.0, 1.0);
                *st.wander = wander_jitter(*st.wander, ux, uy, jitter, self.dt, radius);
                wander(v, *st.wander, distance, max_speed)
            }
            Behaviour::Pursuit { target: t, look_ahead_s } => {
                target(t).map_or(Vec2::ZERO, |(o, qv)| pursuit(o, qv, v, max_speed, look_ahead_s))
            }
            Behaviour::Evade { target: t, look_ahead_s, prediction } => {
                target(t).map_or(Vec2::ZERO, |(o, qv)| evade(o, qv, v, max_speed, look_ahead_s, prediction))
            }
            Behaviour::Separation { radius, max_force, variant } => {
                separation(self.neighbour_offsets(i, radius), max_force, variant)
            }
            Behaviour::Alignment { radius } => {
                alignment_of_headings(self.neighbour_headings(i, radius), self.heading[i])
            }
            Behaviour::Cohesion { radius } => cohesion(self.neighbour_offsets(i, radius), v, max_speed),
            Behaviour::FlockTarget { target: t, speed } => {
                target(t).map_or(Vec2::ZERO, |(o, _)| flock_target(o, v, speed))
            }
            Behaviour::AvoidObstacles { see_ahead, max_avoid_force } => {
                match (self.obstacle_index, self.threat[i]) {
                    (Some(index), o) if o != NO_THREAT => obstacles::avoid_force(
                        index,
                        &self.obstacles[o as usize],
                        self.position[i],
                        v,
                        max_speed,
                        see_ahead,
                        max_avoid_force,
                    ),
                    _ => Vec2::ZERO,
                }
            }
            Behaviour::FollowPath { path, mode, slowing_radius } => {
                let nodes = &self.paths[path as usize].nodes;
                let radius = self.paths[path as usize].radius;
                let p = self.position[i];
                let n = nodes.len() as u32;
                let current = (*st.path_node).min(n - 1);
                let d = self.bounds.offset(p, nodes[current as usize]).length();
                let (next, dir) = path_advance(d, radius, current, *st.path_dir, n, mode);
                *st.path_node = next;
                *st.path_dir = dir;
                let arrive_here = mode == PathMode::Once && next == n - 1;
                follow_path(
                    self.bounds.offset(p, nodes[next as usize]),
                    v,
                    max_speed,
                    arrive_here,
                    slowing_radius,
                )
            }
            Behaviour::FollowLeader {
                leader,
                behind_dist,
                slowing_radius,
                sight_radius,
                separation_radius,
                max_separation,
            } => target(leader).map_or(Vec2::ZERO, |(to_leader, leader_v)| {
                let sep = separation(
                    self.neighbour_offsets(i, separation_radius),
                    max_separation,
                    SeparationVariant::Mean,
                );
                follow_leader(
                    to_leader,
                    leader_v,
                    v,
                    max_speed,
                    behind_dist,
                    slowing_radius,
                    sight_radius,
                    sep,
                )
            }),
            // Applied by the queue_brake pass, after the sum.
            Behaviour::Queue { .. } => Vec2::ZERO,
            Behaviour::RandomWalk {
                target: t,
                aggro_radius,
                min_step,
                max_step,
                reach_radius,
                slowing_radius,
            } => {
                let Some((to_target, _)) = target(t) else { return Vec2::ZERO };
                let p = self.position[i];
                if *st.walk_state != WALK_FINAL
                    && (*st.walk_state == WALK_NONE
                        || self.bounds.offset(p, *st.waypoint).length() <= reach_radius)
                {
                    let u = rng::unit(st.rng);
                    let left = rng::coin(st.rng);
                    let (step, last) = random_walk_step(to_target, aggro_radius, min_step, max_step, u, left);
                    *st.waypoint = self.bounds.wrap(p + step);
                    *st.walk_state = if last { WALK_FINAL } else { WALK_WAYPOINT };
                }
                if *st.walk_state == WALK_FINAL {
                    arrive(to_target, v, max_speed, slowing_radius)
                } else {
                    seek(self.bounds.offset(p, *st.waypoint), v, max_speed)
                }
            }
        }
    }

    /// Agent `i`'s steering: `Σ weight · force` over its group's behaviours, in declared order.
    /// With a flocking interval above one tick, the flocking part is the cached sum, refreshed
    /// on ticks where `(tick + id) % interval == 0` (staggered so the work spreads evenly).
    /// A random goal is redrawn first, on ticks that are multiples of its period.
    fn steer_agent(&self, i: usize, st: &mut AgentMut<'_>) -> Vec2 {
        let g = &self.groups[self.group[i] as usize];
        if let Some(Target::Random { region, period_ticks }) = g
            .behaviours
            .iter()
            .filter_map(|b| b.behaviour.target())
            .map(|t| &self.target_defs[t as usize])
            .find(|t| matches!(t, Target::Random { .. }))
            && self.tick.is_multiple_of(*period_ticks as u64)
        {
            *st.goal = self.bounds.wrap(region.sample(st.rng));
        }
        let interval = g.flocking_interval_ticks.max(1) as u64;
        let cached = interval > 1;
        let refresh = !cached || self.tick == 0 || (self.tick + self.id[i] as u64).is_multiple_of(interval);
        let mut steering = Vec2::ZERO;
        let mut flocking = Vec2::ZERO;
        for wb in &g.behaviours {
            if cached && wb.behaviour.is_flocking() {
                if refresh {
                    flocking += wb.weight * self.force(&wb.behaviour, i, st);
                }
            } else {
                steering += wb.weight * self.force(&wb.behaviour, i, st);
            }
        }
        if cached {
            if refresh {
                *st.flock_force = flocking;
            }
            steering += *st.flock_force;
        }
        steering
    }
}

/// The `steer` pass. Reads old positions and velocities of every agent; writes row `i` of
/// `steering`, and of the behaviour-state columns, for agent `i` only.
pub fn steer(inputs: &SteerInputs<'_>, state: SteerState<'_>, steering: &mut [Vec2]) {
    steering
        .par_iter_mut()
        .zip(state.wander.par_iter_mut())
        .zip(state.flock_force.par_iter_mut())
        .zip(state.rng.par_iter_mut())
        .zip(state.path_node.par_iter_mut())
        .zip(state.path_dir.par_iter_mut())
        .zip(state.waypoint.par_iter_mut())
        .zip(state.walk_state.par_iter_mut())
        .zip(state.goal.par_iter_mut())
        .enumerate()
        .with_min_len(64)
        .with_max_len(crate::PIECE_ROWS)
        .for_each(
            |(
                i,
                (
                    (((((((out, wander), flock_force), rng), path_node), path_dir), waypoint), walk_state),
                    goal,
                ),
            )| {
                let mut st =
                    AgentMut { wander, flock_force, rng, path_node, path_dir, waypoint, walk_state, goal };
                *out = inputs.steer_agent(i, &mut st);
            },
        );
}

/// The `queue_brake` pass, after `steer` because it reads the summed steering. For an agent
/// of a queueing group: `ahead = p + norm(v) · queue_ahead`; the blocker is the neighbour
/// nearest to `ahead` within `queue_radius` of it (ties by id). With a blocker,
/// `steering += -steering · brake_factor - v + separation`, and if the blocker is within
/// `queue_radius` of the agent itself, `v *= hard_stop_factor` before integration.
/// Reads positions (all agents) and the neighbour lists; writes row `i` of steering,
/// velocity and `blocked`.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn queue_brake(
    bounds: &Bounds,
    groups: &[Group],
    group: &[u16],
    id: &[u32],
    position: &[Vec2],
    neighbours: &Neighbours,
    steering: &mut [Vec2],
    velocity: &mut [Vec2],
    blocked: &mut [bool],
) {
    steering
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .zip(blocked.par_iter_mut())
        .enumerate()
        .with_min_len(128)
        .with_max_len(crate::PIECE_ROWS)
        .for_each(|(i, ((steer, v), blocked))| {
            *blocked = false;
            let Some(&Behaviour::Queue {
                queue_ahead,
                queue_radius,
                brake_factor,
                hard_stop_factor,
                separation_radius,
                max_separation,
            }) = groups[group[i] as usize].queue()
            else {
                return;
            };
            let p = position[i];
            let ahead = p + norm(*v) * queue_ahead;
            // A blocker lies within `queue_radius` of `ahead`, so within `queue_ahead +
            // queue_radius` of the agent (plus slack for rounding): the nearer prefix of the
            // list holds every possible one, and the exact test below decides.
            let (rows, _) = neighbours.of(i);
            let reach = (queue_ahead.abs() + queue_radius) * 1.001 + 1e-6;
            let rows = &rows[..neighbours.within(i, reach)];
            let mut blocker: Option<(f32, u32, usize)> = None;
            for &row in rows {
                let row = row as usize;
                let d_sq = bounds.offset(ahead, position[row]).length_squared();
                if d_sq <= queue_radius * queue_radius
                    && blocker.is_none_or(|(bd, bid, _)| d_sq < bd || (d_sq == bd && id[row] < bid))
                {
                    blocker = Some((d_sq, id[row], row));
                }
            }
            let Some((_, _, b)) = blocker else { return };
            *blocked = true;
            let near = neighbours.within(i, separation_radius);
            let offsets = neighbours.offsets(i)[..near].iter().copied();
            let sep = separation(offsets, max_separation, SeparationVariant::Mean);
            let brake = queue_brake_force(*steer, *v, brake_factor, sep);
            if bounds.offset(p, position[b]).length_squared() <= queue_radius * queue_radius {
                *v *= hard_stop_factor;
            }
            *steer += brake;
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_point_loops_at_constant_speed() {
        let square = [Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0), Vec2::new(0.0, 10.0)];
        assert_eq!(moving_point(&square, 2.0, 0.0), (Vec2::ZERO, Vec2::new(2.0, 0.0)));
        assert_eq!(moving_point(&square, 2.0, 2.5), (Vec2::new(5.0, 0.0), Vec2::new(2.0, 0.0)));
        assert_eq!(moving_point(&square, 2.0, 7.5), (Vec2::new(10.0, 5.0), Vec2::new(0.0, 2.0)));
        // One lap is 40 units: 20 s later the point is back where it was.
        assert_eq!(moving_point(&square, 2.0, 22.5).0, Vec2::new(5.0, 0.0));
        assert_eq!(moving_point(&[Vec2::ONE], 2.0, 3.0), (Vec2::ONE, Vec2::ZERO));
    }
}
