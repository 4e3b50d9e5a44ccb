//! `Pipeline`: the per-tick scratch (index, neighbour lists, steering, timers, thread pool) and
//! the step itself. Nothing here is state: a pipeline can be rebuilt at any time and the run
//! continues bit for bit.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::behaviours::{self, ResolvedTarget, SteerInputs, SteerState};
use crate::index::{self, CandidateLists, IndexKind, Neighbours, SpatialIndex};
use crate::math::{Vec2, norm, trunc};
use crate::obstacles::{self, NO_THREAT, ObstacleIndex};
use crate::rng::{self, Purpose};
use crate::world::{Bounds, BoundsKind, Gate, PermuteScratch, Target, World};

/// The passes of one tick, in order.
pub const PASSES: [&str; 10] = [
    "reorder",
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
    Reorder = 0,
    BuildIndex = 1,
    SenseNeighbours = 2,
    FindThreats = 3,
    Steer = 4,
    QueueBrake = 5,
    Integrate = 6,
    Collide = 7,
    Exits = 8,
    Spawns = 9,
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
        let (r, elapsed) = timed(f);
        self.add(pass, elapsed);
        r
    }

    fn add(&mut self, pass: Pass, elapsed: Duration) {
        self.total[pass as usize] += elapsed;
    }
}

fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
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

/// How long a helper worker inside [`Pipeline::enter`] keeps looking for work before it backs
/// off to 100 µs sleeps: far longer than any gap inside a tick, far shorter than a pause for
/// output between ticks.
pub const STAY_AWAKE: Duration = Duration::from_millis(1);

/// The default of [`Pipeline::set_reorder_every`]: rows in spatial order every 20 ticks.
pub const DEFAULT_REORDER_EVERY: u64 = 20;

/// Per-tick scratch and the worker threads.
pub struct Pipeline {
    /// Shared so that [`Pipeline::enter`] can hold the pool while it lends out the pipeline.
    pool: std::sync::Arc<rayon::ThreadPool>,
    threads: usize,
    /// [`Pipeline::enter`] keeps the other workers awake: 2 or more threads, and no more
    /// threads than cores (spinning helpers would take cores from the worker they wait for).
    keep_awake: bool,
    /// Rows are put in spatial (Morton) order every this many ticks; 0 never.
    reorder_every: u64,
    /// The tick of the last reorder.
    last_reorder: Option<u64>,
    scratch: Scratch,
    pub timers: PassTimers,
}

/// Everything the passes rebuild every tick. Never hashed, never saved.
struct Scratch {
    /// The reorder pass's (Morton code, id) keys, permutation and cycle marks.
    reorder_keys: Vec<(u64, u32)>,
    reorder_order: Vec<u32>,
    reorder_done: PermuteScratch,
    index: SpatialIndex,
    neighbours: Neighbours,
    /// The id of each row of `neighbours` and `blocked` (rows before exits).
    sensed_id: Vec<u32>,
    /// Candidate lists reused across ticks (see `Pipeline::set_sensing_skin`).
    sensing: SensingCache,
    obstacle_index: Option<ObstacleIndex>,
    threat: Vec<u32>,
    steering: Vec<Vec2>,
    /// `norm(velocity)` per row, for alignment (steer).
    heading: Vec<Vec2>,
    blocked: Vec<bool>,
    prev_position: Vec<Vec2>,
    keep: Vec<bool>,
    targets: Vec<ResolvedTarget>,
    /// Per group: does some `NearestOf` target name it?
    targeted: Vec<bool>,
    events: TickEvents,
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
            pool: std::sync::Arc::new(pool),
            threads,
            keep_awake: threads > 1 && threads <= std::thread::available_parallelism().map_or(1, |n| n.get()),
            reorder_every: DEFAULT_REORDER_EVERY,
            last_reorder: None,
            scratch: Scratch {
                reorder_keys: Vec::new(),
                reorder_order: Vec::new(),
                reorder_done: PermuteScratch::default(),
                index: SpatialIndex::new(index),
                neighbours: Neighbours::default(),
                sensed_id: Vec::new(),
                sensing: SensingCache::default(),
                obstacle_index: None,
                threat: Vec::new(),
                steering: Vec::new(),
                heading: Vec::new(),
                blocked: Vec::new(),
                prev_position: Vec::new(),
                keep: Vec::new(),
                targets: Vec::new(),
                targeted: Vec::new(),
                events: TickEvents::default(),
            },
            timers: PassTimers::default(),
        })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// At the first tick and then at most every `ticks` ticks (0: never; default
    /// [`DEFAULT_REORDER_EVERY`]), the `reorder` pass puts the world's rows in spatial (Morton)
    /// order, so agents near each other are near each other in memory, and large crowds run
    /// faster. New rows void reused sensing candidates (see [`Pipeline::set_sensing_skin`]), so
    /// once `ticks` have passed the reorder waits for a tick that senses anyway; with no skin
    /// that is every tick, so rows are reordered exactly every `ticks` ticks.
    /// Results do not change at all, bit for bit: every tie is broken by id, and hashes,
    /// digests, snapshots, checkpoints and outputs read rows in id order. The rows of a
    /// reordered world are no longer in id order: use `Agents::row_of`/`id_order` or
    /// `World::id_ordered`.
    pub fn set_reorder_every(&mut self, ticks: u64) {
        self.reorder_every = ticks;
    }

    /// Sensing finds each agent's *candidates* within its sensing radius plus `skin` (a
    /// distance), and on later ticks derives the neighbour lists from those candidates alone,
    /// skipping the index build and its queries, for as long as no agent has moved more than
    /// 0.45 × `skin` from where it was when they were found (and no row was added, removed or
    /// reordered). Two agents then have moved at most 0.9 × `skin` towards each other, so
    /// every agent within a sensing radius is among the candidates, and the lists are the same,
    /// bit for bit, as sensing afresh every tick. A larger skin means fewer sensing ticks but
    /// more candidates to test on every tick. 0 senses afresh every tick.
    pub fn set_sensing_skin(&mut self, skin: f32) {
        let skin = if skin.is_finite() { skin.max(0.0) } else { 0.0 };
        let c = &mut self.scratch.sensing;
        if skin != c.skin {
            c.skin = skin;
            c.valid = false;
        }
    }

    /// The candidate-reuse margin in use (see [`Pipeline::set_sensing_skin`]).
    pub fn sensing_skin(&self) -> f32 {
        self.scratch.sensing.skin
    }

    /// Ticks whose neighbour lists came from reused candidates, and ticks that sensed with the
    /// index, since this pipeline was made.
    pub fn sensing_counts(&self) -> (u64, u64) {
        (self.scratch.sensing.reused, self.scratch.sensing.sensed)
    }

    pub fn index_kind(&self) -> IndexKind {
        self.scratch.index.kind()
    }

    /// What the last tick did.
    pub fn events(&self) -> &TickEvents {
        &self.scratch.events
    }

    /// The neighbour lists of the last tick (row order of that tick, before exits).
    pub fn neighbours(&self) -> &Neighbours {
        &self.scratch.neighbours
    }

    /// The agent id of each row of [`Pipeline::neighbours`] and [`Pipeline::blocked`], to read
    /// them in id order (the rows may be in spatial order, and exits have removed some since).
    pub fn sensed_ids(&self) -> &[u32] {
        &self.scratch.sensed_id
    }

    /// The obstacle index, once a tick has run on a world with obstacles.
    pub fn obstacle_index(&self) -> Option<&ObstacleIndex> {
        self.scratch.obstacle_index.as_ref()
    }

    /// Which agents had a blocker in the last tick's `queue_brake` (row order before exits).
    pub fn blocked(&self) -> &[bool] {
        &self.scratch.blocked
    }

    /// Runs `f` on this pipeline's worker threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Whether [`Pipeline::enter`] keeps the other workers awake (by default: with 2 or more
    /// threads and no more threads than cores). A caller running several pipelines at once
    /// on the same cores turns it off, so that waiting helpers do not take cores from the
    /// workers with work to do. Results are the same either way.
    pub fn set_keep_awake(&mut self, on: bool) {
        self.keep_awake = on && self.threads > 1;
    }

    /// Runs `f` with this pipeline on one of its own worker threads, where every `step` and
    /// `install` inside runs at once instead of handing its work to the pool and waiting for
    /// it: a loop of ticks inside one `enter` skips a hand-over and a wake-up per tick.
    ///
    /// With 2 or more threads (and no more threads than cores), the other workers also stay
    /// awake for the whole of `f`, stealing its pieces as they appear, instead of going back
    /// to sleep whenever a pass ends and being woken for the next: left to itself, a rayon
    /// worker sleeps after some 30 µs without work, and a 10k-agent tick has a dozen such
    /// gaps (a pass's tail, the checks between passes). A worker idle for longer than
    /// [`STAY_AWAKE`] (file output between ticks, say) backs off to short sleeps. Results
    /// are the same bits either way: which thread runs which piece never changes a result.
    /// Measurements: docs/benchmarks.md.
    pub fn enter<R: Send>(&mut self, f: impl FnOnce(&mut Pipeline) -> R + Send) -> R {
        use std::sync::atomic::{AtomicBool, Ordering};
        let pool = std::sync::Arc::clone(&self.pool);
        if pool.current_thread_index().is_some() {
            return f(self); // already on one of its workers: nothing to hand over
        }
        if !self.keep_awake {
            return pool.install(|| f(self));
        }
        /// Marks `f` finished however it ends, a panic included, so the helpers stop.
        struct Finished<'a>(&'a AtomicBool);
        impl Drop for Finished<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let job = std::sync::Mutex::new(Some((f, self)));
        let out = std::sync::Mutex::new(None);
        let finished = AtomicBool::new(false);
        pool.broadcast(|ctx| {
            if ctx.index() == 0 {
                let _finished = Finished(&finished);
                let (f, me) = job.lock().expect("not poisoned").take().expect("worker 0 takes it once");
                *out.lock().expect("not poisoned") = Some(f(me));
                return;
            }
            let mut idle_since: Option<Instant> = None;
            while !finished.load(Ordering::Acquire) {
                if rayon::yield_now() == Some(rayon::Yield::Executed) {
                    idle_since = None;
                } else if idle_since.get_or_insert_with(Instant::now).elapsed() < STAY_AWAKE {
                    std::thread::yield_now();
                } else {
                    std::thread::sleep(Duration::from_micros(100));
                }
            }
        });
        out.into_inner().expect("not poisoned").expect("worker 0 ran f")
    }

    /// Advances `world` by one tick: the passes in order, each timed.
    pub fn step(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let Pipeline { pool, scratch: s, timers: t, reorder_every, last_reorder, .. } = self;
        pool.install(|| {
            s.begin(world)?;
            // Whether sensing is due, or the last candidates still hold (timed as build_index).
            t.time(Pass::BuildIndex, || s.sensing.due = s.sensing.is_due(world));
            // Rows in spatial order, at least `reorder_every` ticks (20 by default) apart, on a
            // tick that senses anyway: new rows void reused candidates.
            let waited = last_reorder.is_none_or(|at| world.tick >= at + *reorder_every || world.tick < at);
            if *reorder_every > 0 && waited && s.sensing.due {
                t.time(Pass::Reorder, || s.reorder(world));
                *last_reorder = Some(world.tick);
            }
            // Side by side, as they read disjoint state (so their times overlap): pack positions
            // and rebuild the k-d trees or grid (the obstacle index once per run); find each
            // avoiding agent's most threatening obstacle, then the headings steer reads.
            let (build, threats, headings) = s.build_index_and_find_threats(world);
            t.add(Pass::BuildIndex, build);
            t.add(Pass::FindThreats, threats);
            t.add(Pass::Steer, headings);
            // Each agent's neighbours within its sensing radius, nearest first, ties by id.
            t.time(Pass::SenseNeighbours, || s.sense_neighbours(world));
            // Weighted behaviour forces, from old positions and velocities.
            t.time(Pass::Steer, || s.steer(world))?;
            // Braking behind a blocker; reads the summed steering.
            t.time(Pass::QueueBrake, || s.queue_brake(world))?;
            // Euler step in seconds.
            t.time(Pass::Integrate, || s.integrate(world))?;
            // Solid obstacles: nobody ends a tick inside one; gate crossings counted.
            t.time(Pass::Collide, || s.collide(world));
            // Agents inside an exit leave; survivors keep their order.
            t.time(Pass::Exits, || s.exits(world));
            // New agents from spawn sources, with the next ids.
            t.time(Pass::Spawns, || s.spawns(world));
            t.ticks += 1;
            world.tick += 1;
            Ok(())
        })
    }

    /// Runs one pass alone on the current scratch (for per-pass benchmarks). The passes before
    /// it must have run this tick (a full `step` leaves valid scratch for every pass); the
    /// tick counter does not advance.
    pub fn run_pass(&mut self, world: &mut World, pass: Pass) -> Result<(), NonFinite> {
        let Pipeline { pool, scratch: s, .. } = self;
        pool.install(|| match pass {
            Pass::Reorder => {
                s.reorder(world);
                Ok(())
            }
            Pass::BuildIndex => {
                s.build_index(world);
                Ok(())
            }
            Pass::SenseNeighbours => {
                s.sensing.due = s.sensing.is_due(world);
                s.sense_neighbours(world);
                Ok(())
            }
            Pass::FindThreats => {
                s.find_threats(world);
                Ok(())
            }
            Pass::Steer => s.headings_and_steer(world),
            Pass::QueueBrake => s.queue_brake(world),
            Pass::Integrate => s.integrate(world),
            Pass::Collide => {
                s.collide(world);
                Ok(())
            }
            Pass::Exits => {
                s.exits(world);
                Ok(())
            }
            Pass::Spawns => {
                s.spawns(world);
                Ok(())
            }
        })
    }
}

impl Scratch {
    /// Sorts rows by the Morton code of their cell on a 65,536² lattice over the bounds (or,
    /// on an open world, the agents' extent), ties by id.
    fn reorder(&mut self, world: &mut World) {
        let a = &world.agents;
        let (lo, hi) = match world.bounds.kind {
            BoundsKind::Wrap => (world.bounds.min, world.bounds.max),
            BoundsKind::Open => a
                .position
                .iter()
                .fold((Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)), |(lo, hi), &p| {
                    (lo.min(p), hi.max(p))
                }),
        };
        let scale = Vec2::splat(65_535.0) / (hi - lo).max(Vec2::splat(1e-6));
        let keys = &mut self.reorder_keys;
        a.position
            .par_iter()
            .zip(a.id.par_iter())
            .enumerate()
            .map(|(row, (&p, &id))| {
                let c = ((p - lo) * scale).clamp(Vec2::ZERO, Vec2::splat(65_535.0));
                let code = morton(c.x as u32, c.y as u32);
                ((code << 32) | id as u64, row as u32)
            })
            .collect_into_vec(keys);
        keys.par_sort_unstable();
        self.reorder_order.clear();
        self.reorder_order.extend(keys.iter().map(|k| k.1));
        world.agents.permute_rows_with(&self.reorder_order, &mut self.reorder_done);
    }

    fn begin(&mut self, world: &World) -> Result<(), NonFinite> {
        check_finite(world.tick, Pass::BuildIndex, "position", &world.agents.id, &world.agents.position)?;
        let e = &mut self.events;
        e.exited = 0;
        e.spawned = 0;
        e.queue_length = 0;
        e.gate_crossings.clear();
        e.gate_crossings.resize(world.gates.len(), 0);
        Ok(())
    }

    fn build_index(&mut self, world: &World) {
        self.refresh_obstacle_index(world);
        build_agent_index(&mut self.index, &mut self.targeted, world, true);
    }

    /// `build_index` and `find_threats` at once, on both sides of a `rayon::join`, and the
    /// headings `steer` reads after the threats, with the wall time of each. None reads what
    /// another writes.
    fn build_index_and_find_threats(&mut self, world: &World) -> (Duration, Duration, Duration) {
        let ((), obstacles) = timed(|| self.refresh_obstacle_index(world));
        let Scratch { index, targeted, obstacle_index, threat, heading, sensing, .. } = self;
        let all = sensing.due || sensing.skin <= 0.0;
        let (((), build), (((), threats), ((), headings))) = rayon::join(
            || timed(|| build_agent_index(index, targeted, world, all)),
            || {
                (
                    timed(|| find_threats(obstacle_index.as_ref(), threat, world)),
                    timed(|| headings(&world.agents.velocity, heading)),
                )
            },
        );
        (obstacles + build, threats, headings)
    }

    /// The obstacle index, rebuilt only when the obstacles or bounds changed (once per run).
    fn refresh_obstacle_index(&mut self, world: &World) {
        if world.obstacles.is_empty() {
            self.obstacle_index = None;
        } else if !self.obstacle_index.as_ref().is_some_and(|o| o.fits(&world.obstacles, &world.bounds)) {
            self.obstacle_index = Some(ObstacleIndex::build(&world.obstacles, &world.bounds));
        }
    }

    fn sense_neighbours(&mut self, world: &World) {
        let a = &world.agents;
        self.sensed_id.clear();
        self.sensed_id.extend_from_slice(&a.id);
        let c = &mut self.sensing;
        // A sensing tick with a skin finds the candidates and takes this tick's lists from them.
        let sensing_with_skin = c.due && c.skin > 0.0;
        if sensing_with_skin {
            index::sense_candidates(
                &self.index,
                &world.bounds,
                &world.groups,
                &a.position,
                &a.id,
                &a.group,
                c.skin,
                &mut c.candidates,
                &mut self.neighbours,
            );
            c.remember(world);
        }
        if c.due || c.skin <= 0.0 {
            c.sensed += 1;
        } else {
            c.reused += 1;
        }
        if sensing_with_skin {
            return; // its lists are written
        }
        if c.valid && c.skin > 0.0 {
            index::neighbours_from_candidates(
                &world.bounds,
                &world.groups,
                &a.position,
                &a.id,
                &a.group,
                &c.candidates,
                c.skin,
                &mut self.neighbours,
            );
        } else {
            index::sense_neighbours(
                &self.index,
                &world.bounds,
                &world.groups,
                &a.position,
                &a.id,
                &a.group,
                &mut self.neighbours,
            );
        }
    }

    fn find_threats(&mut self, world: &World) {
        find_threats(self.obstacle_index.as_ref(), &mut self.threat, world);
    }

    /// `steer` alone (for per-pass benchmarks) with its headings.
    fn headings_and_steer(&mut self, world: &mut World) -> Result<(), NonFinite> {
        headings(&world.agents.velocity, &mut self.heading);
        self.steer(world)
    }

    fn steer(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let a = &mut world.agents;
        let ids = &a.id;
        behaviours::resolve_targets(
            &world.targets,
            world.tick as f64 * world.dt as f64,
            |id| {
                ids.binary_search(&id)
                    .ok()
                    .filter(|&r| ids[r] == id)
                    .or_else(|| ids.iter().position(|&x| x == id))
            },
            &mut self.targets,
        );
        self.steering.resize(a.len(), Vec2::ZERO);
        let inputs = SteerInputs {
            tick: world.tick,
            dt: world.dt,
            bounds: &world.bounds,
            groups: &world.groups,
            target_defs: &world.targets,
            targets: &self.targets,
            paths: &world.paths,
            obstacles: &world.obstacles,
            obstacle_index: self.obstacle_index.as_ref(),
            threat: &self.threat,
            id: &a.id,
            group: &a.group,
            position: &a.position,
            velocity: &a.velocity,
            heading: &self.heading,
            max_speed: &a.max_speed,
            neighbours: &self.neighbours,
            index: &self.index,
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
        behaviours::steer(&inputs, state, &mut self.steering);
        check_finite(world.tick, Pass::Steer, "steering", &a.id, &self.steering)
    }

    fn queue_brake(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let a = &mut world.agents;
        self.blocked.clear();
        self.blocked.resize(a.len(), false);
        if world.groups.iter().any(|g| g.queue().is_some()) {
            behaviours::queue_brake(
                &world.bounds,
                &world.groups,
                &a.group,
                &a.id,
                &a.position,
                &self.neighbours,
                &mut self.steering,
                &mut a.velocity,
                &mut self.blocked,
            );
            let count = |b: &[bool]| b.iter().filter(|b| **b).count();
            // An integer sum: the same whatever the split.
            self.events.queue_length = if self.blocked.len() >= PARALLEL_SCAN {
                self.blocked.par_chunks(SCAN_CHUNK).map(count).sum()
            } else {
                count(&self.blocked)
            } as u32;
        }
        check_finite(world.tick, Pass::QueueBrake, "steering", &a.id, &self.steering)
    }

    fn integrate(&mut self, world: &mut World) -> Result<(), NonFinite> {
        let a = &mut world.agents;
        if !world.gates.is_empty() {
            self.prev_position.clear();
            self.prev_position.extend_from_slice(&a.position);
        }
        integrate(
            world.dt,
            &world.bounds,
            &self.steering,
            &a.max_speed,
            &a.max_force,
            &a.mass,
            &mut a.position,
            &mut a.velocity,
        );
        check_finite(world.tick, Pass::Integrate, "velocity", &a.id, &a.velocity)?;
        check_finite(world.tick, Pass::Integrate, "position", &a.id, &a.position)
    }

    fn collide(&mut self, world: &mut World) {
        if let (true, Some(oi)) = (world.solid_obstacles, self.obstacle_index.as_ref()) {
            let a = &mut world.agents;
            obstacles::collide(
                oi,
                &world.obstacles,
                &world.bounds,
                &a.radius,
                &mut a.position,
                &mut a.velocity,
            );
        }
        for (g, gate) in world.gates.iter().enumerate() {
            self.events.gate_crossings[g] =
                count_crossings(&world.bounds, gate, &self.prev_position, &world.agents.position);
        }
    }

    fn exits(&mut self, world: &mut World) {
        if world.exits.is_empty() {
            return;
        }
        let a = &world.agents;
        self.keep.clear();
        self.keep.resize(a.len(), true);
        self.keep.par_iter_mut().enumerate().with_min_len(1024).for_each(|(i, k)| {
            *k = !world.exits.iter().any(|e| {
                (e.groups.is_empty() || e.groups.contains(&a.group[i])) && e.region.contains(a.position[i])
            });
        });
        let gone = self.keep.iter().filter(|k| !**k).count();
        if gone > 0 {
            world.agents.retain_rows(&self.keep);
            world.exited += gone as u64;
            self.events.exited = gone as u32;
        }
    }

    fn spawns(&mut self, world: &mut World) {
        let end_of_tick = (world.tick + 1) as f64 * world.dt as f64;
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
                self.events.spawned += due - first;
                world.sources[s].spawned = due;
            }
        }
    }
}

/// Candidate lists within each sensing radius plus a skin, and the state they were found in
/// (see [`Pipeline::set_sensing_skin`]).
#[derive(Default)]
struct SensingCache {
    /// Extra reach of the candidates; 0 senses afresh every tick.
    skin: f32,
    candidates: CandidateLists,
    /// `candidates` are complete for the state below.
    valid: bool,
    /// Decided before `build_index`: this tick senses afresh.
    due: bool,
    /// Ticks whose lists came from reused candidates, and ticks that sensed.
    reused: u64,
    sensed: u64,
    /// Rows, groups, sensing parameters and bounds the candidates were found for, and
    /// where each agent was.
    id: Vec<u32>,
    group: Vec<u16>,
    params: Vec<(f32, u32)>,
    bounds: Option<Bounds>,
    position: Vec<Vec2>,
}

/// An agent may move this fraction of the skin before sensing is due again: two agents then
/// close in by at most 0.9 × skin, and the rest covers rounding.
const SKIN_MOVE: f32 = 0.45;

impl SensingCache {
    /// Sensing is due unless the candidates were found for these very rows, groups, sensing
    /// parameters and bounds, and no agent has moved more than `SKIN_MOVE × skin` since.
    fn is_due(&self, world: &World) -> bool {
        if self.skin <= 0.0 || !self.valid {
            return true;
        }
        let a = &world.agents;
        let params = world.groups.iter().map(|g| (g.sensing_radius, g.max_neighbours));
        if self.bounds != Some(world.bounds)
            || self.id != a.id
            || self.group != a.group
            || !self.params.iter().copied().eq(params)
        {
            return true;
        }
        let limit = SKIN_MOVE * self.skin;
        let limit_sq = limit * limit;
        let bounds = &world.bounds;
        let moved = |now: &[Vec2], then: &[Vec2]| {
            now.iter()
                .zip(then)
                .fold(false, |acc, (p, q)| acc | (bounds.offset(*q, *p).length_squared() > limit_sq))
        };
        if a.len() >= PARALLEL_SCAN {
            a.position
                .par_chunks(SCAN_CHUNK)
                .zip(self.position.par_chunks(SCAN_CHUNK))
                .any(|(p, q)| moved(p, q))
        } else {
            moved(&a.position, &self.position)
        }
    }

    /// Records the state complete candidates were just found in. Candidates are not kept
    /// when rounding could exceed the margin the skin leaves (coordinates far larger than the
    /// skin), nor when a radius with its skin reaches across half a wrapped world.
    fn remember(&mut self, world: &World) {
        let a = &world.agents;
        let b = &world.bounds;
        let extent = match b.kind {
            BoundsKind::Wrap => b.min.abs().max(b.max.abs()).max_element(),
            BoundsKind::Open => a.position.iter().fold(0.0f32, |m, p| m.max(p.abs().max_element())),
        };
        let r_max = world.groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max);
        let precise = (1.0 - 2.0 * SKIN_MOVE) * self.skin > 1e-5 * (1.0 + extent + r_max + self.skin);
        let min_side = b.size().min_element();
        let repeats = b.kind == BoundsKind::Wrap && 2.0 * ((r_max + self.skin) * 1.001 + 1e-3) >= min_side;
        self.valid = precise && !repeats;
        self.id.clear();
        self.id.extend_from_slice(&a.id);
        self.group.clear();
        self.group.extend_from_slice(&a.group);
        self.params.clear();
        self.params.extend(world.groups.iter().map(|g| (g.sensing_radius, g.max_neighbours)));
        self.bounds = Some(world.bounds);
        self.position.clear();
        self.position.extend_from_slice(&a.position);
    }
}

/// Packs positions and rebuilds the agents' k-d trees or grid; with `all` false, only the
/// nearest-of-group sets (the neighbour lists come from reused candidates this tick).
fn build_agent_index(index: &mut SpatialIndex, targeted: &mut Vec<bool>, world: &World, all: bool) {
    targeted.clear();
    targeted.resize(world.groups.len(), false);
    for t in &world.targets {
        if let Target::NearestOf(g) = t {
            targeted[*g as usize] = true;
        }
    }
    let a = &world.agents;
    let cell = world.groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max);
    if all {
        index.build_with_cell(&world.bounds, &a.position, &a.id, &a.group, targeted, cell.max(1e-3));
    } else {
        index.build_groups_only(&world.bounds, &a.position, &a.group, targeted);
    }
}

/// `norm(velocity)` of every agent, which alignment reads once per neighbour.
/// Serial: it runs beside the index build, which keeps the other worker busy, and costs about
/// 2 ns per agent.
fn headings(velocity: &[Vec2], heading: &mut Vec<Vec2>) {
    heading.clear();
    heading.extend(velocity.iter().map(|&v| norm(v)));
}

/// Each avoiding agent's most threatening obstacle (`NO_THREAT` without obstacles).
fn find_threats(obstacle_index: Option<&ObstacleIndex>, threat: &mut Vec<u32>, world: &World) {
    threat.clear();
    threat.resize(world.agents.len(), NO_THREAT);
    if let Some(oi) = obstacle_index {
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
}

/// Interleaves the low 16 bits of `x` and `y` (a Z-order curve index).
fn morton(x: u32, y: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = (v & 0xffff) as u64;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    }
    spread(x) | (spread(y) << 1)
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
    d1 != 0.0
        && ((d1 > 0.0) != (d2 > 0.0) || d2 == 0.0)
        && ((d3 > 0.0) != (d4 > 0.0) || d3 == 0.0 || d4 == 0.0)
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
    crate::for_each_position_velocity(position, velocity, |i, p, v| {
        let accel = trunc(steering[i], max_force[i]) / mass[i];
        *v = trunc(*v + accel * dt, max_speed[i]);
        *p = bounds.wrap(*p + *v * dt);
    });
}

/// Square roots in each row's dependent chain in [`ideal_pass`].
const IDEAL_CHAIN: usize = 20;

/// A pass with nothing in the way of threads: one row's pure arithmetic (a dependent chain of
/// square roots) per element, split across the current pool as the engine's per-agent passes
/// are. It reads one value and writes one per row, and touches nothing else, so it waits on
/// no memory and on no other thread: its speed-up from 1 to 2 threads is the most any pass of the engine
/// could get on the machine at that moment. `throng bench` measures it beside the ticks
/// (`ideal_pass_ms`), so a reader can tell the engine's scaling from the machine's.
pub fn ideal_pass(input: &[f32], out: &mut [f32]) {
    out.par_iter_mut().zip(input).with_min_len(128).with_max_len(crate::PIECE_ROWS).for_each(|(o, &x)| {
        let mut x = x;
        for _ in 0..IDEAL_CHAIN {
            x = (x * 1.0001 + 0.5).sqrt();
        }
        *o = x;
    });
}

/// Rows from which `check_finite` scans in parallel.
const PARALLEL_SCAN: usize = 1 << 16;

/// Rows per task of a parallel scan. rayon's per-item `position_first` costs tens of
/// nanoseconds per item (an atomic check each), so scans go by chunks of plain loops.
const SCAN_CHUNK: usize = 4_096;

/// The agent with the lowest id whose value is not finite, as an error.
fn check_finite(
    tick: u64,
    pass: Pass,
    field: &'static str,
    ids: &[u32],
    values: &[Vec2],
) -> Result<(), NonFinite> {
    // A scan is a few microseconds per 10,000 values: below `PARALLEL_SCAN` rows, waking the
    // pool costs more than it saves, and this runs four times per tick.
    // A branch-free fold, so the common all-finite case vectorises.
    let any_bad = |c: &[Vec2]| c.iter().fold(false, |acc, v| acc | !v.is_finite());
    let bad = if values.len() >= PARALLEL_SCAN {
        values.par_chunks(SCAN_CHUNK).any(any_bad)
    } else {
        any_bad(values)
    };
    // Rows may be in spatial order: report the lowest id, whatever the order.
    let lowest = bad
        .then(|| {
            values
                .iter()
                .zip(ids)
                .enumerate()
                .filter(|(_, (v, _))| !v.is_finite())
                .min_by_key(|(_, (_, id))| **id)
        })
        .flatten();
    match lowest.map(|(row, _)| row) {
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
