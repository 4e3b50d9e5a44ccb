//! `Pipeline`: the per-tick scratch (index, neighbour lists, steering, timers, thread pool) and
//! the step itself. Nothing here is state: a pipeline can be rebuilt at any time and the run
//! continues bit for bit.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::behaviours::{self, ResolvedTarget, SteerInputs, SteerState};
use crate::index::{self, IndexKind, Neighbours, SpatialIndex};
use crate::math::{Vec2, trunc};
use crate::obstacles::{self, NO_THREAT, ObstacleIndex};
use crate::rng::{self, Purpose};
use crate::world::{Bounds, Gate, Target, World};

/// The passes of one tick, in order.
pub const PASSES: [&str; 9] = [
    "build_index",
    "sense_neighbours",
    "find_threats",
    "steer",
    "queue_brake",
    "integrate",
    "collide",
    "exits",
    "spawns",
];

/// A pass name and its index in [`PASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Pass {
    BuildIndex = 0,
    SenseNeighbours = 1,
    FindThreats = 2,
    Steer = 3,
    QueueBrake = 4,
    Integrate = 5,
    Collide = 6,
    Exits = 7,
    Spawns = 8,
}

impl Pass {
    pub fn name(self) -> &'static str {
        PASSES[self as usize]
    }
}

/// Something in the state became NaN or infinite.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("non-finite {field} at tick {tick}, pass `{pass}`, agent {agent}: {value}")]
pub struct NonFinite {
    pub tick: u64,
    pub pass: &'static str,
    pub agent: u32,
    pub field: &'static str,
    pub value: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("cannot start a pool of {threads} worker threads: {source}")]
    ThreadPool { threads: usize, source: rayon::ThreadPoolBuildError },
    #[error("threads must be at least 1")]
    ZeroThreads,
}

/// Wall time spent in each pass, summed over ticks.
#[derive(Clone, Debug, Default)]
pub struct PassTimers {
    pub total: [Duration; PASSES.len()],
    pub ticks: u64,
}

impl PassTimers {
    /// Milliseconds per tick for each pass, in pass order.
    pub fn ms_per_tick(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        let ticks = self.ticks.max(1) as f64;
        PASSES.iter().zip(&self.total).map(move |(name, d)| (*name, d.as_secs_f64() * 1e3 / ticks))
    }

    fn time<R>(&mut self, pass: Pass, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let r = f();
        self.total[pass as usize] += start.elapsed();
        r
    }
}

/// What happened during the last tick, for metrics. All counts are integers, so they are
/// the same whatever the thread count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickEvents {
    /// Agents removed by exits.
    pub exited: u32,
    /// Agents added by spawn sources.
    pub spawned: u32,
    /// Agents that had a blocker in `queue_brake`.
    pub queue_length: u32,
    /// Crossings of each gate line (either direction), in gate order.
    pub gate_crossings: Vec<u32>,
}

/// Per-tick scratch and the worker threads.
pub struct Pipeline {
    pool: rayon::ThreadPool,
    threads: usize,
    index: SpatialIndex,
    neighbours: Neighbours,
    obstacle_index: Option<ObstacleIndex>,
    threat: Vec<u32>,
    steering: Vec<Vec2>,
    blocked: Vec<bool>,
    prev_position: Vec<Vec2>,
    keep: Vec<bool>,
    targets: Vec<ResolvedTarget>,
    /// Per group: does some `NearestOf` target name it?
    targeted: Vec<bool>,
    pub timers: PassTimers,
    /// What the last tick did.
    pub events: TickEvents,
}

impl Pipeline {
    /// A pipeline running its passes on `threads` workers (1 runs the very same code).
    pub fn new(threads: usize, index: IndexKind) -> Result<Pipeline, PipelineError> {
        if threads == 0 {
            return Err(PipelineError::ZeroThreads);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("throng-worker-{i}"))
            .build()
            .map_err(|source| PipelineError::ThreadPool { threads, source })?;
        Ok(Pipeline {
            pool,
            threads,
            index: SpatialIndex::new(index),
            neighbours: Neighbours::default(),
            obstacle_index: None,
            threat: Vec::new(),
            steering: Vec::new(),
            blocked: Vec::new(),
            prev_position: Vec::new(),
            keep: Vec::new(),
            targets: Vec::new(),
            targeted: Vec::new(),
            timers: PassTimers::default(),
            events: TickEvents::default(),
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    pub fn index_kind(&self) -> IndexKind {
        self.index.kind()
    }

    /// The neighbour lists of the last tick (row order of that tick, before exits).
    pub fn neighbours(&self) -> &Neighbours {
        &self.neighbours
    }

    /// The obstacle index, once a tick has run on a world with obstacles.
    pub fn obstacle_index(&self) -> Option<&ObstacleIndex> {
        self.obstacle_index.as_ref()
    }

    /// Which agents had a blocker in the last tick's `queue_brake` (row order before exits).
    pub fn blocked(&self) -> &[bool] {
        &self.blocked
    }

    /// Runs `f` on this pipeline's worker threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Advances `world` by one tick.
    pub fn step(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let Pipeline {
            pool,
            index,
            neighbours,
            obstacle_index,
            threat,
            steering,
            blocked,
            prev_position,
            keep,
            targets,
            targeted,
            timers,
            events,
            ..
        } = self;
        pool.install(|| {
            let tick = world.tick;
            let n = world.agents.len();
            check_finite(tick, Pass::BuildIndex, "position", &world.agents.id, &world.agents.position)?;
            events.exited = 0;
            events.spawned = 0;
            events.queue_length = 0;
            events.gate_crossings.clear();
            events.gate_crossings.resize(world.gates.len(), 0);

            // Pack positions and rebuild the k-d trees (all agents; targeted groups). The
            // obstacle index is built once: obstacles are static.
            timers.time(Pass::BuildIndex, || {
                targeted.clear();
                targeted.resize(world.groups.len(), false);
                for t in &world.targets {
                    if let Target::NearestOf(g) = t {
                        targeted[*g as usize] = true;
                    }
                }
                let a = &world.agents;
                index.build(&world.bounds, &a.position, &a.group, targeted);
                if world.obstacles.is_empty() {
                    *obstacle_index = None;
                } else if !obstacle_index.as_ref().is_some_and(|o| o.fits(&world.obstacles, &world.bounds)) {
                    *obstacle_index = Some(ObstacleIndex::build(&world.obstacles, &world.bounds));
                }
            });

            // Each agent's neighbours within its sensing radius, nearest first.
            timers.time(Pass::SenseNeighbours, || {
                let a = &world.agents;
                index::sense_neighbours(index, &world.bounds, &world.groups, &a.position, &a.id, &a.group, neighbours);
            });

            // Each avoiding agent's most threatening obstacle.
            timers.time(Pass::FindThreats, || {
                threat.clear();
                threat.resize(n, NO_THREAT);
                if let Some(oi) = obstacle_index.as_ref() {
                    let a = &world.agents;
                    obstacles::find_threats(
                        oi,
                        &world.obstacles,
                        &world.groups,
                        &a.group,
                        &a.position,
                        &a.velocity,
                        &a.max_speed,
                        &a.radius,
                        threat,
                    );
                }
            });

            // Weighted behaviour forces, from old positions and velocities.
            timers.time(Pass::Steer, || {
                let a = &mut world.agents;
                let ids = &a.id;
                behaviours::resolve_targets(
                    &world.targets,
                    world.tick as f64 * world.dt as f64,
                    |id| ids.binary_search(&id).ok(),
                    targets,
                );
                steering.resize(n, Vec2::ZERO);
                let inputs = SteerInputs {
                    tick,
                    dt: world.dt,
                    bounds: &world.bounds,
                    groups: &world.groups,
                    target_defs: &world.targets,
                    targets,
                    paths: &world.paths,
                    obstacles: &world.obstacles,
                    obstacle_index: obstacle_index.as_ref(),
                    threat,
                    id: &a.id,
                    group: &a.group,
                    position: &a.position,
                    velocity: &a.velocity,
                    max_speed: &a.max_speed,
                    neighbours,
                    index,
                };
                let state = SteerState {
                    wander: &mut a.wander,
                    flock_force: &mut a.flock_force,
                    rng: &mut a.rng,
                    path_node: &mut a.path_node,
                    path_dir: &mut a.path_dir,
                    waypoint: &mut a.waypoint,
                    walk_state: &mut a.walk_state,
                    goal: &mut a.goal,
                };
                behaviours::steer(&inputs, state, steering);
            });
            check_finite(tick, Pass::Steer, "steering", &world.agents.id, steering)?;

            // Braking behind a blocker; reads the summed steering.
            timers.time(Pass::QueueBrake, || {
                blocked.clear();
                blocked.resize(n, false);
                if world.groups.iter().any(|g| g.queue().is_some()) {
                    let a = &mut world.agents;
                    behaviours::queue_brake(
                        &world.bounds,
                        &world.groups,
                        &a.group,
                        &a.id,
                        &a.position,
                        neighbours,
                        steering,
                        &mut a.velocity,
                        blocked,
                    );
                    events.queue_length = blocked.par_iter().filter(|b| **b).count() as u32;
                }
            });
            check_finite(tick, Pass::QueueBrake, "steering", &world.agents.id, steering)?;

            // Euler step in seconds; each agent writes only its own row.
            timers.time(Pass::Integrate, || {
                let a = &mut world.agents;
                if !world.gates.is_empty() {
                    prev_position.clear();
                    prev_position.extend_from_slice(&a.position);
                }
                integrate(
                    world.dt,
                    &world.bounds,
                    steering,
                    &a.max_speed,
                    &a.max_force,
                    &a.mass,
                    &mut a.position,
                    &mut a.velocity,
                );
            });
            check_finite(tick, Pass::Integrate, "velocity", &world.agents.id, &world.agents.velocity)?;
            check_finite(tick, Pass::Integrate, "position", &world.agents.id, &world.agents.position)?;

            // Solid obstacles: nobody ends a tick inside one.
            timers.time(Pass::Collide, || {
                if let (true, Some(oi)) = (world.solid_obstacles, obstacle_index.as_ref()) {
                    let a = &mut world.agents;
                    obstacles::collide(oi, &world.obstacles, &world.bounds, &a.radius, &mut a.position, &mut a.velocity);
                }
                for (g, gate) in world.gates.iter().enumerate() {
                    events.gate_crossings[g] = count_crossings(&world.bounds, gate, prev_position, &world.agents.position);
                }
            });

            // Agents inside an exit leave; survivors keep their order.
            timers.time(Pass::Exits, || {
                if !world.exits.is_empty() {
                    let a = &world.agents;
                    keep.clear();
                    keep.resize(n, true);
                    keep.par_iter_mut().enumerate().with_min_len(1024).for_each(|(i, k)| {
                        *k = !world.exits.iter().any(|e| {
                            (e.groups.is_empty() || e.groups.contains(&a.group[i])) && e.region.contains(a.position[i])
                        });
                    });
                    let gone = keep.iter().filter(|k| !**k).count();
                    if gone > 0 {
                        world.agents.retain_rows(keep);
                        world.exited += gone as u64;
                        events.exited = gone as u32;
                    }
                }
            });

            // New agents from spawn sources, in source order, with the next ids.
            timers.time(Pass::Spawns, || {
                let end_of_tick = (tick + 1) as f64 * world.dt as f64;
                for s in 0..world.sources.len() {
                    let source = &world.sources[s];
                    let due = source.due_by(end_of_tick);
                    let (first, group, region) = (source.spawned, source.group, source.region);
                    let spawner = rng::name_key(&format!("source/{}", source.name));
                    for k in first..due {
                        let key = rng::agent_key(spawner, k as u64);
                        let p = region.sample(&mut rng::agent_rng(world.seed, key, Purpose::Spawn));
                        world.push_agent(group, key, p);
                    }
                    if due > first {
                        events.spawned += due - first;
                        world.sources[s].spawned = due;
                    }
                }
            });

            timers.ticks += 1;
            world.tick += 1;
            Ok(())
        })
    }
}

/// Crossings of `gate` by agents moving from `before` to `after` (same rows), either way.
fn count_crossings(bounds: &Bounds, gate: &Gate, before: &[Vec2], after: &[Vec2]) -> u32 {
    before
        .par_iter()
        .zip(after)
        .with_min_len(1024)
        .filter(|&(&a, &b)| {
            // The move as a short segment, even across a wrapped seam.
            let b = a + bounds.offset(a, b);
            segments_cross(a, b, gate.from, gate.to)
        })
        .count() as u32
}

/// Do segments `ab` and `cd` cross? Touching at an end point of `ab` counts once: the start is
/// excluded, so an agent standing on a gate is not counted every tick.
pub fn segments_cross(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p - o).perp_dot(q - o);
    let d1 = cross(c, d, a);
    let d2 = cross(c, d, b);
    let d3 = cross(a, b, c);
    let d4 = cross(a, b, d);
    d1 != 0.0 && ((d1 > 0.0) != (d2 > 0.0) || d2 == 0.0) && ((d3 > 0.0) != (d4 > 0.0) || d3 == 0.0 || d4 == 0.0)
}

/// The `integrate` pass, exactly as the spec gives it:
/// `steering = trunc(steering, max_force); accel = steering / m;
///  v = trunc(v + accel · dt, max_speed); p = p + v · dt` (then wrapped on a toroidal world).
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn integrate(
    dt: f32,
    bounds: &Bounds,
    steering: &[Vec2],
    max_speed: &[f32],
    max_force: &[f32],
    mass: &[f32],
    position: &mut [Vec2],
    velocity: &mut [Vec2],
) {
    position.par_iter_mut().zip(velocity.par_iter_mut()).enumerate().with_min_len(256).for_each(
        |(i, (p, v))| {
            let accel = trunc(steering[i], max_force[i]) / mass[i];
            *v = trunc(*v + accel * dt, max_speed[i]);
            *p = bounds.wrap(*p + *v * dt);
        },
    );
}

/// The first row (lowest id) whose value is not finite, as an error.
fn check_finite(
    tick: u64,
    pass: Pass,
    field: &'static str,
    ids: &[u32],
    values: &[Vec2],
) -> Result<(), NonFinite> {
    match values.par_iter().position_first(|v| !v.is_finite()) {
        None => Ok(()),
        Some(row) => Err(NonFinite {
            tick,
            pass: pass.name(),
            agent: ids[row],
            field,
            value: format!("({}, {})", values[row].x, values[row].y),
        }),
    }
}
