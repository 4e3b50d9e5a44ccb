//! The `steer` pass: every agent's weighted sum of behaviour forces, `Σ weight · force` over
//! its group's behaviours in declared order. Reads: old positions and velocities of every
//! agent, headings, the neighbour lists, the resolved targets, threats, paths, obstacles.
//! Writes: row `i` of the steering column and of the behaviour-state columns (wander circle,
//! cached flocking force, generator, path cursor, random-walk waypoint, goal), for agent `i`
//! only. Parallel: per agent, pieces of at most `PIECE_ROWS` rows.

use rayon::prelude::*;

use super::integrate::MOVING_SHARE;
use crate::behaviours::{
    Following, Leader, NO_THREAT, ResolvedTarget, WALK_FINAL, WALK_NONE, WALK_WAYPOINT,
    alignment_of_headings, arrive, avoid_force, avoid_solid_force, cohesion, cruise, evade, flee,
    flock_target, follow_leader, follow_path, path_advance, pursuit, random_walk_step, seek, separation,
    wander, wander_jitter,
};
use crate::behaviours::seek_lanes::SeekLanes;
use crate::index::{Neighbours, ObstacleIndex, Point, SpatialIndex};
use crate::math::lanes::{self, LANES};
use crate::math::{Vec3, Vector, norm};
use crate::rng;
use crate::routing::Goal;
use crate::world::{
    AgentMut, Behaviour, Bounds, BoundsKind, DIRECTION_REACH, Group, Model, NO_JOURNEY, Obstacle, Path,
    PathMode, Region, SeparationVariant, Solid, SteerState, Target, TargetId,
};

/// Everything `steer` reads: old state, the neighbour lists, the indexes and the threats.
pub struct SteerInputs<'a, V: Point> {
    /// The distance fields of routed targets (`route = "field"`); `None` in space, which has no
    /// routing.
    pub router: Option<&'a crate::routing::Router>,
    /// The tick being computed (ticks completed before it): decides flocking-cache refreshes
    /// and random-goal redraws.
    pub tick: u64,
    /// Seconds per tick (wander's jitter step is `jitter · dt`).
    pub dt: f32,
    /// The world's bounds: every offset to a target, node or waypoint goes through them.
    pub bounds: &'a Bounds<V>,
    /// The world's groups, indexed by `group`: each agent's behaviours and weights.
    pub groups: &'a [Group],
    /// The world's targets (for random-goal regions) and their resolution for this tick.
    pub target_defs: &'a [Target<V>],
    /// `target_defs` resolved for this tick ([`resolve_targets`](crate::behaviours::resolve_targets)), same indices.
    pub targets: &'a [ResolvedTarget<V>],
    /// The world's paths, indexed by [`Behaviour::FollowPath`]'s `path`.
    pub paths: &'a [Path<V>],
    /// The world's obstacles in the plane, indexed by `threat` (empty in space).
    pub obstacles: &'a [Obstacle],
    /// The world's solids in space, indexed by `threat` (empty in the plane).
    pub solids: &'a [Solid],
    /// The bounds as space's (the solids' frame); `None` in the plane.
    pub space_bounds: Option<&'a Bounds<Vec3>>,
    /// The obstacle index; `None` when the world has no obstacles, and then obstacle
    /// avoidance adds nothing.
    pub obstacle_index: Option<&'a ObstacleIndex>,
    /// Most threatening obstacle per agent, from `find_threats`.
    pub threat: &'a [u32],
    /// The agents' `id` column (staggers flocking refreshes, breaks nearest-agent ties).
    pub id: &'a [u32],
    /// The agents' `group` column: an index into `groups`.
    pub group: &'a [u16],
    /// The agents' positions before this tick's integration (world units).
    pub position: &'a [V],
    /// The agents' velocities before this tick's integration (world units per second).
    pub velocity: &'a [V],
    /// `norm(velocity)` of every agent, computed once per tick for alignment.
    pub heading: &'a [V],
    /// The agents' `journey` column: `NO_JOURNEY` for an agent on none.
    pub journey: &'a [u16],
    /// The agents' `stage` column: the stage whose distance field a routed `journey` target
    /// follows.
    pub stage: &'a [u16],
    /// The agents' `last_heading` column: where a stopped leader last moved.
    pub last_heading: &'a [V],
    /// The agents' `max_speed` column (world units per second): the desired speed of seek,
    /// flee, arrive and the rest.
    pub max_speed: &'a [f32],
    /// This tick's neighbour lists, from `sense_neighbours`.
    pub neighbours: &'a Neighbours<V>,
    /// This tick's agent index, for targets of kind `"nearest"`.
    pub index: &'a SpatialIndex<V>,
}

impl<V: Point> SteerInputs<'_, V> {
    /// Offset from agent `i` to target `t`, and the target's velocity; `None` if it is gone.
    /// Inlined: returned through memory from a call, the pair stalled the seek that reads it
    /// (a store forwarded to a wider load).
    #[inline(always)]
    fn target(&self, t: TargetId, i: usize, goal: V) -> Option<(V, V)> {
        let p = self.position[i];
        let row = match self.targets[t as usize] {
            ResolvedTarget::Point { position, velocity } => {
                return Some((self.bounds.offset(p, position), velocity));
            }
            ResolvedTarget::OwnGoal => return Some((self.bounds.offset(p, goal), V::ZERO)),
            ResolvedTarget::Stage if self.journey[i] == NO_JOURNEY => return None,
            ResolvedTarget::Stage => return Some((self.bounds.offset(p, goal), V::ZERO)),
            ResolvedTarget::Direction(d) => return Some((d * DIRECTION_REACH, V::ZERO)),
            ResolvedTarget::Row(row) => row?,
            ResolvedTarget::NearestOf(g) => self.index.nearest_of_group(g, p, self.position, self.id)?,
        };
        Some((self.bounds.offset(p, self.position[row]), self.velocity[row]))
    }

    /// The field a routed behaviour of agent `i` follows to target `t`: the target's own, or
    /// for a `journey` target the field of the agent's current stage.
    fn field_of(&self, t: TargetId, i: usize) -> Goal {
        match self.targets[t as usize] {
            ResolvedTarget::Stage => Goal::Stage(self.stage[i]),
            _ => Goal::Target(t),
        }
    }

    /// The routing field's offset towards `goal` from `p` (planar: `None` in space, where
    /// there are no walls to route around).
    fn routed(&self, goal: Goal, p: V) -> Option<V> {
        p.to_plane().zip(self.router).and_then(|(p, router)| router.offset(goal, p)).map(V::from_plane)
    }

    /// Offsets `n.p - p` to agent `i`'s neighbours within `radius`, nearest first (as sensing
    /// computed them with `Bounds::offset`).
    fn neighbour_offsets(&self, i: usize, radius: f32) -> impl Iterator<Item = V> + '_ {
        let n = self.neighbours.within(i, radius);
        self.neighbours.offsets(i)[..n].iter().copied()
    }

    /// Headings `norm(n.v)` of agent `i`'s neighbours within `radius`, nearest first.
    fn neighbour_headings(&self, i: usize, radius: f32) -> impl Iterator<Item = V> + '_ {
        let (rows, _) = self.neighbours.of(i);
        let n = self.neighbours.within(i, radius);
        rows[..n].iter().map(move |&row| self.heading[row as usize])
    }

    /// One behaviour's force on agent `i`.
    #[inline(always)]
    fn force(&self, b: &Behaviour, i: usize, st: &mut AgentMut<'_, V>) -> V {
        let v = self.velocity[i];
        let max_speed = self.max_speed[i];
        let goal = *st.goal;
        let target = |t: TargetId| self.target(t, i, goal);
        match *b {
            Behaviour::Seek { target: t } => target(t).map_or(V::ZERO, |(o, _)| seek(o, v, max_speed)),
            Behaviour::Flee { target: t } => target(t).map_or(V::ZERO, |(o, _)| flee(o, v, max_speed)),
            Behaviour::Arrive { target: t, slowing_radius } => {
                target(t).map_or(V::ZERO, |(o, _)| arrive(o, v, max_speed, slowing_radius))
            }
            // Routed: the field's offset (direction × walking distance left), else the line.
            Behaviour::SeekField { target: t } => {
                let p = self.position[i];
                let o = target(t).map(|(o, _)| self.routed(self.field_of(t, i), p).unwrap_or(o));
                o.map_or(V::ZERO, |o| seek(o, v, max_speed))
            }
            Behaviour::ArriveField { target: t, slowing_radius } => {
                let p = self.position[i];
                let o = target(t).map(|(o, _)| self.routed(self.field_of(t, i), p).unwrap_or(o));
                o.map_or(V::ZERO, |o| arrive(o, v, max_speed, slowing_radius))
            }
            Behaviour::Wander { radius, distance, jitter } => {
                let u = rng::uniform_vector(st.rng, -1.0, 1.0);
                *st.wander = wander_jitter(*st.wander, u, jitter, self.dt, radius);
                wander(v, *st.wander, distance, max_speed)
            }
            Behaviour::Pursuit { target: t, look_ahead_s } => {
                target(t).map_or(V::ZERO, |(o, qv)| pursuit(o, qv, v, max_speed, look_ahead_s))
            }
            Behaviour::Evade { target: t, look_ahead_s, prediction } => {
                target(t).map_or(V::ZERO, |(o, qv)| evade(o, qv, v, max_speed, look_ahead_s, prediction))
            }
            Behaviour::Separation { radius, max_force, variant } => {
                separation(self.neighbour_offsets(i, radius), max_force, variant)
            }
            Behaviour::Alignment { radius } => {
                alignment_of_headings(self.neighbour_headings(i, radius), self.heading[i])
            }
            Behaviour::Cohesion { radius, form } => {
                cohesion(self.neighbour_offsets(i, radius), v, max_speed, form)
            }
            Behaviour::Cruise { speed } => cruise(v, speed),
            Behaviour::FlockTarget { target: t, speed } => {
                target(t).map_or(V::ZERO, |(o, _)| flock_target(o, v, speed))
            }
            Behaviour::AvoidObstacles { see_ahead, max_avoid_force } => {
                let o = match self.threat.get(i) {
                    Some(&o) if o != NO_THREAT => o as usize,
                    _ => return V::ZERO,
                };
                // Walls in the plane, solids in space.
                let plane = (self.obstacle_index, self.position[i].to_plane(), v.to_plane());
                let space = (self.space_bounds, self.position[i].to_space(), v.to_space());
                match (plane, space) {
                    ((Some(index), Some(p), Some(v)), _) => V::from_plane(avoid_force(
                        &self.obstacles[o],
                        index.local(o as u32, p),
                        v,
                        max_speed,
                        see_ahead,
                        max_avoid_force,
                    )),
                    (_, (Some(bounds), Some(p), Some(v))) => V::from_space(avoid_solid_force(
                        &self.solids[o],
                        bounds,
                        p,
                        v,
                        max_speed,
                        see_ahead,
                        max_avoid_force,
                    )),
                    _ => V::ZERO,
                }
            }
            Behaviour::FollowPath { path, mode, slowing_radius }
            | Behaviour::FollowPathField { path, mode, slowing_radius } => {
                let routed = matches!(b, Behaviour::FollowPathField { .. });
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
                let straight = || self.bounds.offset(p, nodes[next as usize]);
                let routed = routed.then(|| self.routed(Goal::Node { path, node: next }, p)).flatten();
                follow_path(routed.unwrap_or_else(straight), v, max_speed, arrive_here, slowing_radius)
            }
            Behaviour::FollowLeader {
                leader,
                behind_dist,
                slowing_radius,
                sight_radius,
                separation_radius,
                max_separation,
                keep_heading,
            } => target(leader).map_or(V::ZERO, |(to_leader, leader_v)| {
                // The sources' `norm(leader.v)`; with `keep_heading`, a stopped leader's last one.
                let heading = match self.targets[leader as usize] {
                    ResolvedTarget::Row(Some(row)) if keep_heading => {
                        let moving = self.max_speed[row] * MOVING_SHARE;
                        if leader_v.length_squared() > moving * moving {
                            norm(leader_v)
                        } else {
                            self.last_heading[row]
                        }
                    }
                    _ => norm(leader_v),
                };
                let sep = separation(
                    self.neighbour_offsets(i, separation_radius),
                    max_separation,
                    SeparationVariant::Mean,
                );
                follow_leader(
                    Leader { offset: to_leader, velocity: leader_v, heading },
                    v,
                    max_speed,
                    Following { behind_dist, slowing_radius, sight_radius },
                    sep,
                )
            }),
            // Applied by the queue_brake pass, after the sum.
            Behaviour::Queue { .. } => V::ZERO,
            // Rotates the sum, in `steer_agent`.
            Behaviour::TieBreak { .. } => V::ZERO,
            Behaviour::RandomWalk {
                target: t,
                aggro_radius,
                min_step,
                max_step,
                reach_radius,
                slowing_radius,
            } => {
                let Some((to_target, _)) = target(t) else { return V::ZERO };
                let p = self.position[i];
                if *st.walk_state != WALK_FINAL
                    && (*st.walk_state == WALK_NONE
                        || self.bounds.offset(p, *st.waypoint).length() <= reach_radius)
                {
                    let u = rng::unit(st.rng);
                    let spin = rng::spin::<V>(st.rng);
                    let (step, last) = random_walk_step(to_target, aggro_radius, min_step, max_step, u, spin);
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

    /// Agent `i`'s steering: `Σ weight · force` over its group's acting behaviours
    /// ([`Group::acting`]), in declared order.
    /// With a flocking interval above one tick, the flocking part is the cached sum, refreshed
    /// on ticks where `(tick + id) % interval == 0` (staggered so the work spreads evenly).
    /// A random goal is redrawn first, on ticks that are multiples of its period; a `tie_break`
    /// rotates the sum last.
    fn steer_agent(&self, i: usize, st: &mut AgentMut<'_, V>) -> V {
        let g = &self.groups[self.group[i] as usize];
        if let Some(region) = self.goal_redrawn(g) {
            *st.goal = self.bounds.wrap(region.sample(st.rng));
        }
        let interval = g.flocking_interval_ticks.max(1) as u64;
        let cached = interval > 1;
        let refresh = !cached || self.tick == 0 || (self.tick + self.id[i] as u64).is_multiple_of(interval);
        let mut steering = V::ZERO;
        let mut flocking = V::ZERO;
        let mut tie_break = None;
        // `Group::acting`, written out: this loop is the hottest in a tick, and the check runs
        // only under a velocity model.
        let velocity_model = !matches!(g.model, Model::Steering);
        for wb in &g.behaviours {
            if velocity_model && wb.behaviour.avoids_collisions() {
                continue;
            }
            if let Behaviour::TieBreak { angle } = wb.behaviour {
                tie_break = Some(angle);
            } else if cached && wb.behaviour.is_flocking() {
                if refresh {
                    flocking += self.force(&wb.behaviour, i, st) * wb.weight;
                }
            } else {
                steering += self.force(&wb.behaviour, i, st) * wb.weight;
            }
        }
        if cached {
            if refresh {
                *st.flock_force = flocking;
            }
            steering += *st.flock_force;
        }
        if let Some(angle) = tie_break {
            // A turn of `|u|` towards the side of `u`'s sign in the plane (the rotation by `u`
            // exactly); in space towards a drawn azimuth.
            let u = rng::uniform(st.rng, -angle, angle);
            let spin =
                if V::DIMENSIONS == 2 { if u >= 0.0 { 0.25 } else { 0.75 } } else { rng::unit(st.rng) };
            steering = steering.cone_turn(u.abs(), spin);
        }
        steering
    }
}

/// The `steer` pass. Reads old positions and velocities of every agent; writes row `i` of
/// `steering`, and of the behaviour-state columns, for agent `i` only.
///
/// In the plane on an open world, with AVX2, rows go in blocks of eight: a block whose agents
/// are all of one group that only seeks or arrives ([`SteerInputs::lane_seek`]) takes its
/// steering in lanes (`behaviours::seek_lanes`, the same bits), every other agent alone.
pub fn steer<V: Point>(inputs: &SteerInputs<'_, V>, state: SteerState<'_, V>, steering: &mut [V]) {
    let pieces = (64, crate::par::PIECE_ROWS);
    let in_lanes = V::DIMENSIONS == 2 && inputs.bounds.kind == BoundsKind::Open && lanes::available();
    if !in_lanes || !inputs.groups.iter().any(|g| inputs.lane_seek(g).is_some()) {
        state.par_rows(steering, pieces, |i, out, mut st| {
            *out = inputs.steer_agent(i, &mut st);
        });
        return;
    }
    state.par_blocks(steering, LANES, (pieces.0 / LANES, pieces.1 / LANES), |first, out, mut st| {
        let group = &inputs.group[first..first + out.len()];
        let plan = (out.len() == LANES && group.iter().all(|&g| g == group[0]))
            .then(|| inputs.lane_seek(&inputs.groups[group[0] as usize]))
            .flatten();
        let Some(plan) = plan else {
            for (k, out) in out.iter_mut().enumerate() {
                *out = inputs.steer_agent(first + k, &mut st.row(k));
            }
            return;
        };
        let mut block = SeekLanes::default();
        for k in 0..LANES {
            let i = first + k;
            let to = inputs.bounds.offset(inputs.position[i], plan.point.unwrap_or(st.goal[k]));
            let (v, max_speed) = (inputs.velocity[i], inputs.max_speed[i]);
            for a in 0..2 {
                block.to[a].0[k] = to.axis(a);
                block.velocity[a].0[k] = v.axis(a);
            }
            block.max_speed.0[k] = max_speed;
        }
        let (forces, plain) = block.weighted(plan.slowing_radius, plan.weight);
        for (k, out) in out.iter_mut().enumerate() {
            *out = if plain[k] {
                V::from_fn(|a| forces[k][a])
            } else {
                inputs.steer_agent(first + k, &mut st.row(k))
            };
        }
    });
}

/// A group's steering in lanes (see [`steer`]): its one acting behaviour, a seek or an arrive
/// with `weight` (and `slowing_radius`), towards `point`, or each agent's own goal when `None`.
#[derive(Clone, Copy)]
struct LaneSeek<V> {
    weight: f32,
    slowing_radius: Option<f32>,
    point: Option<V>,
}

impl<V: Point> SteerInputs<'_, V> {
    /// The random goal that group `g`'s agents redraw this tick (on ticks that are multiples
    /// of its period): its region, if one is due.
    fn goal_redrawn(&self, g: &Group) -> Option<&Region<V>> {
        let random = g
            .behaviours
            .iter()
            .filter_map(|b| b.behaviour.target())
            .map(|t| &self.target_defs[t as usize])
            .find(|t| matches!(t, Target::Random { .. }));
        match random {
            Some(Target::Random { region, period_ticks }) if self.tick.is_multiple_of(*period_ticks as u64) => {
                Some(region)
            }
            _ => None,
        }
    }

    /// How group `g`'s agents steer in lanes this tick, if they may: their one acting
    /// behaviour ([`Group::acting`]) is a seek or an arrive (not routed) towards a point or
    /// their own goal, with no goal to redraw, no flocking cache and no tie break, so that
    /// `steer_agent` would give exactly `0 + weight · force`.
    fn lane_seek(&self, g: &Group) -> Option<LaneSeek<V>> {
        if g.flocking_interval_ticks > 1 || self.goal_redrawn(g).is_some() {
            return None;
        }
        let mut acting = g.acting();
        let (Some(wb), None) = (acting.next(), acting.next()) else { return None };
        let (target, slowing_radius) = match wb.behaviour {
            Behaviour::Seek { target } => (target, None),
            Behaviour::Arrive { target, slowing_radius } => (target, Some(slowing_radius)),
            _ => return None,
        };
        let point = match self.targets[target as usize] {
            ResolvedTarget::Point { position, .. } => Some(position),
            ResolvedTarget::OwnGoal => None,
            _ => return None,
        };
        Some(LaneSeek { weight: wb.weight, slowing_radius, point })
    }
}

/// `norm(velocity)` of every agent, which alignment reads once per neighbour (the `headings`
/// pass). It runs beside the index build and costs about 2 ns per agent: serial below
/// `PARALLEL_SCAN` rows, in parallel above (at 10M agents 29 ms serial, on the path of every
/// tick that reuses sensing candidates, whose index build is short). None when no group
/// aligns: the column is left empty.
pub fn headings<V: Vector>(groups: &[Group], velocity: &[V], heading: &mut Vec<V>) {
    heading.clear();
    if !groups.iter().any(Group::aligns) {
        return;
    }
    if velocity.len() >= crate::par::PARALLEL_SCAN {
        heading.par_extend(velocity.par_iter().with_min_len(crate::par::SCAN_CHUNK).map(|&v| norm(v)));
    } else {
        heading.extend(velocity.iter().map(|&v| norm(v)));
    }
}
