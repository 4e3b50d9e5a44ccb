//! Crowd metrics, observed after a tick: counts, speeds, overlaps, obstacle penetrations,
//! stuck agents, queues, waiting time, polarisation and gate throughput.
//!
//! Everything here is deterministic: counts are integers (any summation order gives the same
//! total), and float means are summed serially in row (id) order, never through rayon.

use rayon::prelude::*;
use serde::Serialize;

use crate::behaviours::moving_point;
use crate::index::{IndexKind, SpatialIndex};
use crate::math::{Vec2, norm};
use crate::obstacles::{ObstacleIndex, penetration};
use crate::pipeline::TickEvents;
use crate::scenario::MetricsConfig;
use crate::world::{Behaviour, PathMode, Target, World};

/// A body reaching this far (world units) into an obstacle counts as a penetration.
pub const PENETRATION_TOLERANCE: f32 = 1e-3;

/// The metrics of one tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TickMetrics {
    pub tick: u64,
    pub time_s: f64,
    pub agents_active: u64,
    /// Removed by exits, since tick 0.
    pub agents_exited: u64,
    /// Added by spawn sources this tick.
    pub agents_spawned: u32,
    /// Mean |v| over live agents (units per second).
    pub mean_speed: f64,
    /// Pairs of live agents closer than the sum of their radii.
    pub overlap_pairs: u64,
    /// Live agents reaching more than `PENETRATION_TOLERANCE` into an obstacle.
    pub obstacle_penetrations: u64,
    /// Agents with a goal that moved less than `stuck_distance` over the last complete window
    /// while not within `goal_radius` of their goal.
    pub stuck_agents: u64,
    /// Agents that had a blocker (queue braking) this tick.
    pub queue_length: u32,
    /// |mean of normalised velocities| over moving agents: 1 when all head the same way.
    pub polarisation: f64,
    /// Crossings of each gate this tick, in gate order.
    pub gate_crossings: Vec<u32>,
}

/// A gate's throughput over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GateSummary {
    pub name: String,
    pub crossings: u64,
    pub per_s: f64,
}

/// The run's summary (`metrics` in `throng run --json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub agents_active: u64,
    pub agents_exited: u64,
    pub agents_spawned: u64,
    /// Final mean speed.
    pub mean_speed: f64,
    /// Maxima over the observed ticks.
    pub overlap_pairs: u64,
    pub obstacle_penetrations: u64,
    pub stuck_agents: u64,
    pub queue_length_max: u32,
    /// Seconds an agent spent braking behind a blocker, averaged over every agent that lived.
    pub mean_wait_s: f64,
    /// Final polarisation.
    pub polarisation: f64,
    pub gates: Vec<GateSummary>,
}

/// Observes a run tick by tick and keeps what the summary needs.
pub struct MetricsCollector {
    config: MetricsConfig,
    window_ticks: u64,
    index: SpatialIndex,
    targeted: Vec<bool>,
    /// Position at the last window boundary, by agent id (ids are dense).
    anchor: Vec<Vec2>,
    anchored: Vec<bool>,
    stuck: u64,
    blocked_agent_ticks: u64,
    spawned: u64,
    gate_totals: Vec<u64>,
    observed_ticks: u64,
    summary: Summary,
    last: TickMetrics,
}

impl MetricsCollector {
    pub fn new(config: MetricsConfig, world: &World) -> MetricsCollector {
        let window_ticks = ((config.stuck_window_s / world.dt).round() as u64).max(1);
        let mut c = MetricsCollector {
            config,
            window_ticks,
            index: SpatialIndex::new(IndexKind::Grid),
            targeted: vec![false; world.groups.len()],
            anchor: Vec::new(),
            anchored: Vec::new(),
            stuck: 0,
            blocked_agent_ticks: 0,
            spawned: 0,
            gate_totals: vec![0; world.gates.len()],
            observed_ticks: 0,
            summary: Summary::default(),
            last: TickMetrics::default(),
        };
        c.anchor_all(world);
        c
    }

    fn anchor_all(&mut self, world: &World) {
        let n = world.next_id as usize;
        self.anchor.resize(n, Vec2::ZERO);
        self.anchored.resize(n, false);
        for (&id, &p) in world.agents.id.iter().zip(&world.agents.position) {
            self.anchor[id as usize] = p;
            self.anchored[id as usize] = true;
        }
    }

    /// Records the tick just run. `events` and `obstacles` come from the pipeline that ran it;
    /// call it after every tick so the counters see every event, and run `pool` as the
    /// pipeline's `install` to use its threads.
    pub fn observe(
        &mut self,
        world: &World,
        events: &TickEvents,
        obstacles: Option<&ObstacleIndex>,
    ) -> &TickMetrics {
        let a = &world.agents;
        let n = a.len();
        self.observed_ticks += 1;
        self.spawned += events.spawned as u64;
        self.blocked_agent_ticks += events.queue_length as u64;
        for (t, c) in self.gate_totals.iter_mut().zip(&events.gate_crossings) {
            *t += *c as u64;
        }

        // Serial, in id order: the float means depend neither on the thread count nor on a
        // spatial reordering of the rows.
        let mut speed_sum = 0.0f64;
        let mut heading = (0.0f64, 0.0f64);
        let mut moving = 0u64;
        let order = a.id_order();
        let rows: Box<dyn Iterator<Item = usize>> = match &order {
            None => Box::new(0..n),
            Some(o) => Box::new(o.iter().map(|&r| r as usize)),
        };
        for v in rows.map(|r| &a.velocity[r]) {
            let s = v.length();
            speed_sum += s as f64;
            if s > 0.0 {
                let h = norm(*v);
                heading.0 += h.x as f64;
                heading.1 += h.y as f64;
                moving += 1;
            }
        }
        let mean_speed = if n > 0 { speed_sum / n as f64 } else { 0.0 };
        let polarisation = if moving > 0 {
            (heading.0 * heading.0 + heading.1 * heading.1).sqrt() / moving as f64
        } else {
            0.0
        };

        let overlap_pairs = self.overlap_pairs(world);
        let obstacle_penetrations = match obstacles {
            Some(oi) => a
                .position
                .par_iter()
                .zip(&a.radius)
                .filter(|&(&p, &r)| penetration(oi, &world.obstacles, p, r) > PENETRATION_TOLERANCE)
                .count() as u64,
            None => 0,
        };
        if world.tick.is_multiple_of(self.window_ticks) {
            self.stuck = self.count_stuck(world);
            self.anchor_all(world);
        }

        self.last = TickMetrics {
            tick: world.tick,
            time_s: world.time_s(),
            agents_active: n as u64,
            agents_exited: world.exited,
            agents_spawned: events.spawned,
            mean_speed,
            overlap_pairs,
            obstacle_penetrations,
            stuck_agents: self.stuck,
            queue_length: events.queue_length,
            polarisation,
            gate_crossings: events.gate_crossings.clone(),
        };
        let s = &mut self.summary;
        s.overlap_pairs = s.overlap_pairs.max(overlap_pairs);
        s.obstacle_penetrations = s.obstacle_penetrations.max(obstacle_penetrations);
        s.stuck_agents = s.stuck_agents.max(self.stuck);
        s.queue_length_max = s.queue_length_max.max(events.queue_length);
        &self.last
    }

    /// The metrics of the last observed tick.
    pub fn last(&self) -> &TickMetrics {
        &self.last
    }

    /// The summary of everything observed so far.
    pub fn summary(&self, world: &World) -> Summary {
        let mut s = self.summary.clone();
        s.agents_active = world.agents.len() as u64;
        s.agents_exited = world.exited;
        s.agents_spawned = self.spawned;
        s.mean_speed = self.last.mean_speed;
        s.polarisation = self.last.polarisation;
        let lived = world.next_id.max(1) as f64;
        s.mean_wait_s = self.blocked_agent_ticks as f64 * world.dt as f64 / lived;
        let seconds = (self.observed_ticks as f64 * world.dt as f64).max(f64::MIN_POSITIVE);
        s.gates = world
            .gates
            .iter()
            .zip(&self.gate_totals)
            .map(|(g, &c)| GateSummary { name: g.name.clone(), crossings: c, per_s: c as f64 / seconds })
            .collect();
        s
    }

    /// Pairs closer than the sum of their radii, each counted once (by the lower id).
    fn overlap_pairs(&mut self, world: &World) -> u64 {
        let a = &world.agents;
        let max_r = a.radius.iter().copied().fold(0.0f32, f32::max);
        // A grid with cells as wide as the widest pair's reach: a query reads 3 × 3 cells of a
        // fraction of an agent each, where a k-d query would scan whole 64-point leaves. The
        // count is exact with either index.
        self.index.build_with_cell(&world.bounds, &a.position, &a.id, &a.group, &self.targeted, 2.0 * max_r);
        let index = &self.index;
        (0..a.len())
            .into_par_iter()
            .with_min_len(256)
            .map(|i| {
                let mut count = 0u64;
                let p = a.position[i];
                index.candidates(p, a.radius[i] + max_r, |row| {
                    let j = row as usize;
                    if a.id[j] > a.id[i] {
                        let reach = a.radius[i] + a.radius[j];
                        if world.bounds.offset(p, a.position[j]).length_squared() < reach * reach {
                            count += 1;
                        }
                    }
                });
                count
            })
            .sum()
    }

    /// Agents with a goal, not within `goal_radius` of it, that moved less than
    /// `stuck_distance` since the last window boundary.
    fn count_stuck(&self, world: &World) -> u64 {
        let a = &world.agents;
        let t = world.time_s();
        let mut stuck = 0;
        for i in 0..a.len() {
            let id = a.id[i] as usize;
            if !self.anchored.get(id).copied().unwrap_or(false) {
                continue;
            }
            let moved = world.bounds.offset(self.anchor[id], a.position[i]).length();
            if moved >= self.config.stuck_distance {
                continue;
            }
            if let Some(goal) = goal_of(world, i, t)
                && world.bounds.offset(a.position[i], goal).length() > self.config.goal_radius
            {
                stuck += 1;
            }
        }
        stuck
    }
}

/// Where agent row `i` is trying to get to, if it has a destination: the target of its
/// group's first seek, arrive or random walk, or the last node of a `once` path.
pub fn goal_of(world: &World, i: usize, time_s: f64) -> Option<Vec2> {
    let group = &world.groups[world.agents.group[i] as usize];
    group.behaviours.iter().find_map(|b| match b.behaviour {
        Behaviour::Seek { target }
        | Behaviour::Arrive { target, .. }
        | Behaviour::RandomWalk { target, .. } => match &world.targets[target as usize] {
            Target::Point(p) => Some(*p),
            Target::Moving { waypoints, speed } => Some(moving_point(waypoints, *speed, time_s).0),
            Target::Agent(id) => world.row_of(*id).map(|r| world.agents.position[r]),
            Target::Random { .. } => Some(world.agents.goal[i]),
            Target::NearestOf(_) => None,
        },
        Behaviour::FollowPath { path, mode: PathMode::Once, .. } => {
            world.paths[path as usize].nodes.last().copied()
        }
        _ => None,
    })
}
