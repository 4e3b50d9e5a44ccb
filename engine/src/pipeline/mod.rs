//! `Pipeline`: the per-tick scratch (index, neighbour lists, steering, timers, thread pool) and
//! the step itself. Nothing here is state: a pipeline can be rebuilt at any time and the run
//! continues bit for bit.
//!
//! `step` is the script of a tick; [`Pass`] is the list of passes in run order; `scratch`
//! hands each pass (in `crate::passes`) its columns; `threads` holds the pool and the
//! keep-awake loop; `finite` the non-finite checks; `timers` the per-pass wall times.

mod dimension;
mod events;
mod finite;
mod pass;
mod plane;
mod scratch;
mod space;
mod threads;
mod timers;

pub use dimension::Passes;
pub use events::TickEvents;
pub use finite::NonFinite;
pub use pass::Pass;
pub use threads::{STAY_AWAKE, enter_pool};
pub use timers::PassTimers;

use crate::index::{IndexKind, Neighbours, ObstacleIndex};
use crate::math::Vec2;
use crate::world::World;
use scratch::Scratch;

/// Why a pipeline could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The operating system refused the worker threads.
    #[error("cannot start a pool of {threads} worker threads: {source}")]
    ThreadPool {
        /// The thread count asked for.
        threads: usize,
        /// rayon's error.
        source: rayon::ThreadPoolBuildError,
    },
    /// A pool needs at least one thread.
    #[error("threads must be at least 1")]
    ZeroThreads,
    /// More threads than this machine runs well ([`max_threads`]): thousands of threads on a
    /// few cores take minutes per tick, and hundreds of thousands hang the pool's start.
    #[error(
        "{threads} threads is more than this machine runs well (at most {max}: 16 per core, and never fewer than 64); results do not depend on the thread count, so use fewer"
    )]
    TooManyThreads {
        /// The thread count asked for.
        threads: usize,
        /// The most this machine takes ([`max_threads`]).
        max: usize,
    },
}

/// The most worker threads a pipeline takes on this machine: 16 per core, at least 64.
/// Results do not depend on the thread count; the cap only keeps a mistyped count (5,000, or
/// 100,000) from crawling or hanging.
pub fn max_threads() -> usize {
    (16 * std::thread::available_parallelism().map_or(1, |n| n.get())).max(64)
}

/// The default of [`Pipeline::set_reorder_every`]: rows in spatial order every 20 ticks.
pub const DEFAULT_REORDER_EVERY: u64 = 20;

/// Per-tick scratch and the worker threads, for worlds in the plane (`V = Vec2`) or in space
/// (`Vec3`).
pub struct Pipeline<V: Passes = Vec2> {
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
    scratch: Scratch<V>,
    /// Wall time per pass since the pipeline was made (or the timers were reset).
    pub timers: PassTimers,
}

impl<V: Passes> Pipeline<V> {
    /// A pipeline running its passes on `threads` workers (1 runs the very same code).
    pub fn new(threads: usize, index: IndexKind) -> Result<Pipeline<V>, PipelineError> {
        if threads == 0 {
            return Err(PipelineError::ZeroThreads);
        }
        if threads > max_threads() {
            return Err(PipelineError::TooManyThreads { threads, max: max_threads() });
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
            scratch: Scratch::new(index),
            timers: PassTimers::default(),
        })
    }

    /// The worker-thread count.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// At the first tick and then at most every `ticks` ticks (0: never; default
    /// [`DEFAULT_REORDER_EVERY`]), the `reorder` pass puts the world's rows in spatial (Morton)
    /// order, so agents near each other are near each other in memory, and large crowds run
    /// faster. A new row order voids reused sensing candidates (see [`Pipeline::set_sensing_skin`]), so
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
    /// skipping the index build and its queries, for as long as at most a few agents have moved
    /// more than 0.45 × `skin` from where they were when they were found (and the rows were not
    /// reordered; rows removed since keep the others' candidates, and added ones are sensed as
    /// movers, `index/row_changes.rs`). Two of the others then have moved at most 0.9 × `skin`
    /// towards each other, so every agent within a sensing radius is among the candidates; the
    /// few *movers* are looked up afresh in the index the candidates came from, with the agents
    /// near where they are now (`index::mover_pairs`). The lists are the same, bit for bit, as
    /// sensing afresh every tick. A larger skin means fewer sensing ticks but more candidates
    /// to test on every tick. 0 senses afresh every tick.
    pub fn set_sensing_skin(&mut self, skin: f32) {
        self.scratch.sensing.set_skin(skin);
    }

    /// [`Pipeline::set_sensing_skin`] with a skin picked for the scenario rather than by its
    /// author (`index::auto_skin`): the pipeline drops it (senses afresh every tick from then
    /// on) on the first sensing tick whose candidates outnumber the neighbours kept by more
    /// than 2.5 to 1, where lists are capped far below what lies within reach, as on ORCA's
    /// scenes, and each reusing tick would rank many candidates to keep few. The same lists
    /// either way.
    pub fn set_auto_sensing_skin(&mut self, skin: f32) {
        self.scratch.sensing.set_auto_skin(skin);
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

    /// The neighbour-search backend asked for ([`IndexKind::Auto`] stays `Auto`).
    pub fn index_kind(&self) -> IndexKind {
        self.scratch.index.kind()
    }

    /// The backend the last tick that sensed afresh built: the one asked for, or for
    /// [`IndexKind::Auto`] the grid or the k-d tree it chose.
    pub fn built_index_kind(&self) -> IndexKind {
        self.scratch.index.built_kind()
    }

    /// What the last tick did.
    pub fn events(&self) -> &TickEvents {
        &self.scratch.events
    }

    /// The neighbour lists of the last tick (row order of that tick, before exits).
    pub fn neighbours(&self) -> &Neighbours<V> {
        &self.scratch.neighbours
    }

    /// The agent id of each row of [`Pipeline::neighbours`] and [`Pipeline::blocked`], to read
    /// them in id order (the rows may be in spatial order, and exits have removed some since).
    pub fn sensed_ids(&self) -> &[u32] {
        &self.scratch.sensed_id
    }

    /// The obstacle index, once a tick has run on a world with obstacles.
    pub fn obstacle_index(&self) -> Option<&ObstacleIndex> {
        V::obstacle_index(&self.scratch.own)
    }

    /// Which agents had a blocker in the last tick's `queue_brake` (row order before exits).
    pub fn blocked(&self) -> &[bool] {
        &self.scratch.blocked
    }

    /// Advances `world` by one tick: the passes in order, each timed.
    pub fn step(&mut self, world: &mut World<V>) -> Result<(), NonFinite> {
        let Pipeline { pool, scratch: s, timers: t, reorder_every, last_reorder, .. } = self;
        pool.install(|| {
            // The scenario's events due now, on the state the last tick left; a `stop` ends the
            // run here, before the tick.
            s.start();
            t.time(Pass::Events, || s.run(Pass::Events, world))?;
            if world.stopped {
                return Ok(());
            }
            // Positions finite; the tick's events at zero.
            s.begin(world)?;
            // Whether sensing is due, or the last candidates still hold.
            t.time(Pass::SensingDue, || s.run(Pass::SensingDue, world))?;
            // Rows in spatial order, at least `reorder_every` ticks (20 by default) apart, on a
            // tick that senses anyway: new rows void reused candidates.
            let waited = last_reorder.is_none_or(|at| world.tick >= at + *reorder_every || world.tick < at);
            if *reorder_every > 0 && waited && s.sensing.due {
                t.time(Pass::Reorder, || s.run(Pass::Reorder, world))?;
                *last_reorder = Some(world.tick);
            }
            // Side by side, as they read disjoint state (so their times overlap): pack positions
            // and rebuild the k-d trees or grid (the obstacle index once per run); find each
            // avoiding agent's most threatening obstacle, then the headings steer reads.
            let (build, threats, headings) = s.build_index_and_find_threats(world);
            t.add(Pass::BuildIndex, build);
            t.add(Pass::FindThreats, threats);
            t.add(Pass::Headings, headings);
            // Each agent's neighbours within its sensing radius, nearest first, ties by id.
            t.time(Pass::SenseNeighbours, || s.run(Pass::SenseNeighbours, world))?;
            // Weighted behaviour forces, from old positions and velocities.
            t.time(Pass::Steer, || s.run(Pass::Steer, world))?;
            // Braking behind a blocker; reads the summed steering.
            t.time(Pass::QueueBrake, || s.run(Pass::QueueBrake, world))?;
            // Party members add the group force.
            t.time(Pass::Parties, || s.run(Pass::Parties, world))?;
            // Velocity models choose their agents' velocities, from the steering sum.
            t.time(Pass::Models, || s.run(Pass::Models, world))?;
            // Euler step in seconds.
            t.time(Pass::Integrate, || s.run(Pass::Integrate, world))?;
            // Solid obstacles: nobody ends a tick inside one.
            t.time(Pass::Collide, || s.run(Pass::Collide, world))?;
            // Gate lines crossed this tick.
            t.time(Pass::Gates, || s.run(Pass::Gates, world))?;
            // Agents inside an exit leave; survivors keep their order.
            t.time(Pass::Journeys, || s.run(Pass::Journeys, world))?;
            t.time(Pass::Exits, || s.run(Pass::Exits, world))?;
            // New agents from spawn sources, with the next ids.
            t.time(Pass::Spawns, || s.run(Pass::Spawns, world))?;
            // Waiting areas take in the agents that arrived.
            t.time(Pass::Wait, || s.run(Pass::Wait, world))?;
            // What the next tick's events may read of this one.
            world.queue_length = s.events.queue_length;
            V::end_tick(world, &s.events);
            t.ticks += 1;
            world.tick += 1;
            Ok(())
        })
    }

    /// Runs one pass alone on the current scratch (for per-pass benchmarks). The passes before
    /// it must have run this tick (a full `step` leaves valid scratch for every pass); the
    /// tick counter does not advance.
    pub fn run_pass(&mut self, world: &mut World<V>, pass: Pass) -> Result<(), NonFinite> {
        let Pipeline { pool, scratch: s, .. } = self;
        pool.install(|| {
            s.alone();
            match pass {
                Pass::SenseNeighbours => s.run(Pass::SensingDue, world)?,
                Pass::Steer => s.run(Pass::Headings, world)?,
                _ => {}
            }
            s.alone();
            s.run(pass, world)
        })
    }
}
