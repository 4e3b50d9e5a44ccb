//! `Pipeline`: the per-tick scratch (index, neighbour lists, steering, timers, thread pool) and
//! the step itself. Nothing here is state: a pipeline can be rebuilt at any time and the run
//! continues bit for bit.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::behaviours::{self, ResolvedTarget, SteerInputs, SteerState};
use crate::index::{self, IndexKind, Neighbours, SpatialIndex};
use crate::math::{Vec2, trunc};
use crate::world::{Bounds, Target, World};

/// The passes of one tick, in order.
pub const PASSES: [&str; 4] = ["build_index", "sense_neighbours", "steer", "integrate"];

/// A pass name and its index in [`PASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Pass {
    BuildIndex = 0,
    SenseNeighbours = 1,
    Steer = 2,
    Integrate = 3,
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

/// Per-tick scratch and the worker threads.
pub struct Pipeline {
    pool: rayon::ThreadPool,
    threads: usize,
    index: SpatialIndex,
    neighbours: Neighbours,
    steering: Vec<Vec2>,
    targets: Vec<ResolvedTarget>,
    /// Per group: does some `NearestOf` target name it?
    targeted: Vec<bool>,
    pub timers: PassTimers,
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
            steering: Vec::new(),
            targets: Vec::new(),
            targeted: Vec::new(),
            timers: PassTimers::default(),
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    pub fn index_kind(&self) -> IndexKind {
        self.index.kind()
    }

    /// The neighbour lists of the last tick (row order of that tick).
    pub fn neighbours(&self) -> &Neighbours {
        &self.neighbours
    }

    /// Advances `world` by one tick.
    pub fn step(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let Pipeline { pool, index, neighbours, steering, targets, targeted, timers, .. } = self;
        pool.install(|| {
            let tick = world.tick;
            let a = &mut world.agents;
            check_finite(tick, Pass::BuildIndex, "position", &a.id, &a.position)?;

            // Pack positions and rebuild the k-d trees (all agents; targeted groups).
            timers.time(Pass::BuildIndex, || {
                targeted.clear();
                targeted.resize(world.groups.len(), false);
                for t in &world.targets {
                    if let Target::NearestOf(g) = t {
                        targeted[*g as usize] = true;
                    }
                }
                index.build(&world.bounds, &a.position, &a.group, targeted);
            });

            // Each agent's neighbours within its sensing radius, nearest first.
            timers.time(Pass::SenseNeighbours, || {
                index::sense_neighbours(
                    index,
                    &world.bounds,
                    &world.groups,
                    &a.position,
                    &a.id,
                    &a.group,
                    neighbours,
                );
            });

            // Weighted behaviour forces, from old positions and velocities.
            timers.time(Pass::Steer, || {
                let ids = &a.id;
                behaviours::resolve_targets(
                    &world.targets,
                    world.tick as f64 * world.dt as f64,
                    |id| ids.binary_search(&id).ok(),
                    targets,
                );
                steering.resize(a.len(), Vec2::ZERO);
                let inputs = SteerInputs {
                    tick,
                    dt: world.dt,
                    bounds: &world.bounds,
                    groups: &world.groups,
                    targets,
                    id: &a.id,
                    group: &a.group,
                    position: &a.position,
                    velocity: &a.velocity,
                    max_speed: &a.max_speed,
                    neighbours,
                    index,
                };
                let state =
                    SteerState { wander: &mut a.wander, flock_force: &mut a.flock_force, rng: &mut a.rng };
                behaviours::steer(&inputs, state, steering);
            });
            check_finite(tick, Pass::Steer, "steering", &a.id, steering)?;

            // Euler step in seconds; each agent writes only its own row.
            timers.time(Pass::Integrate, || {
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
            check_finite(tick, Pass::Integrate, "velocity", &a.id, &a.velocity)?;
            check_finite(tick, Pass::Integrate, "position", &a.id, &a.position)?;

            timers.ticks += 1;
            world.tick += 1;
            Ok(())
        })
    }
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
