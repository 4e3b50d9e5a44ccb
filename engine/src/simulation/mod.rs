//! `Simulation`: the one front door for a program that runs throng. It owns the state
//! ([`World`]), the scratch ([`Pipeline`]) and, when asked for, the crowd metrics
//! ([`MetricsCollector`]) and the scenario's expectations ([`Watcher`]), and wires them the one
//! way every caller in the repository needs: scenario → world at tick 0 (or a checkpoint) →
//! pipeline with the run's settings → ticks.

mod actions;
mod host;

pub use host::{Advance, ControlError};

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::expect::{Outcome, WatchStateError, Watcher};
use crate::index::IndexKind;
use crate::math::Vec2;
use crate::metrics::{MetricsCollector, MetricsStateError, Summary, TickMetrics};
use crate::pipeline::Passes;
use crate::pipeline::{DEFAULT_REORDER_EVERY, NonFinite, Pass, Pipeline, PipelineError};
use crate::scenario::Scenario;
use crate::state::checkpoint::{self, Checkpoint, CheckpointError};
use crate::state::files::write_atomically;
use crate::state::hash::{StateHash, state_hash};
use crate::world::World;

/// How [`Simulation::run_until`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd<B> {
    /// The world completed the ticks asked for.
    Done,
    /// A `stop` event ended the run (`World::stopped`): no further tick runs.
    StoppedByEvent,
    /// The per-tick hook broke the loop, with this.
    Broken(B),
}

/// How a run is made. None of these changes a result, bit for bit: they choose speed and
/// what is observed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Worker threads (at least 1; default: every core this process may use).
    pub threads: usize,
    /// The neighbour-search backend (default: the scenario's `index`).
    pub index: Option<IndexKind>,
    /// Rows in spatial order every this many ticks; 0 never (default
    /// [`DEFAULT_REORDER_EVERY`], see [`Pipeline::set_reorder_every`]).
    pub reorder_every: u64,
    /// Reach of reused sensing candidates in world units; 0 senses afresh every tick
    /// (default: the scenario's `sensing_skin`, see [`Pipeline::set_sensing_skin`]).
    pub sensing_skin: Option<f32>,
    /// Observe the crowd metrics after every tick (default: on).
    pub metrics: bool,
    /// Keep the other workers awake while ticks run inside [`Simulation::enter`] (default: on;
    /// turn it off when several simulations share the cores, see [`Pipeline::set_keep_awake`]).
    pub keep_awake: bool,
}

impl RunSettings {
    /// Settings for a simulation inside another program (a game, a notebook): `threads`
    /// workers that sleep between ticks instead of spinning, and no crowd metrics (turn them
    /// on for expectations or per-tick metrics). The default settings take every core and
    /// keep them busy, which suits a command-line run, not a host with work of its own.
    pub fn embedded(threads: usize) -> RunSettings {
        RunSettings { threads, keep_awake: false, metrics: false, ..RunSettings::default() }
    }
}

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            index: None,
            reorder_every: DEFAULT_REORDER_EVERY,
            sensing_skin: None,
            metrics: true,
            keep_awake: true,
        }
    }
}

/// Why a simulation could not be made or resumed.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// The worker threads could not be started.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// The checkpoint could not be read, or belongs to another scenario or overrides.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint's metrics state does not fit its world.
    #[error("{path}: the checkpoint's metrics state does not fit its world")]
    MetricsState {
        /// The checkpoint file.
        path: String,
        /// What does not fit.
        source: MetricsStateError,
    },
    /// A spawn could not place its agents at the distances it keeps. (Not a `source`: the
    /// message already holds it, and a source would print it twice in an error chain.)
    #[error("{origin}: {error}")]
    Spawn {
        /// The scenario's file.
        origin: String,
        /// Which group, and why.
        error: crate::scenario::SpawnError,
    },
    /// The checkpoint's expectations' state does not fit the scenario or its world.
    #[error("{path}: the checkpoint's expectations' state does not fit: {source}")]
    WatchState {
        /// The checkpoint file.
        path: String,
        /// What does not fit.
        source: WatchStateError,
    },
}

/// A scenario being run: the world, the pipeline that steps it, and the metrics observed; in
/// the plane (`V = Vec2`, the default) or in space (`Simulation<Vec3>`, from a
/// `Scenario<Vec3>`).
///
/// ```
/// use throng_engine::{RunSettings, Scenario, Simulation};
///
/// let scenario = Scenario::load("../scenarios/flock.toml".as_ref())?;
/// let mut sim = Simulation::new(&scenario, RunSettings { threads: 2, ..RunSettings::default() })?;
/// sim.run(50)?;
/// assert_eq!(sim.tick(), 50);
/// println!("{} agents, state hash {}", sim.world().agents.len(), sim.hash());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Simulation<V: Passes = Vec2> {
    world: World<V>,
    pipeline: Pipeline<V>,
    metrics: Option<MetricsCollector<V>>,
    /// The scenario's expectations, watched when it has any and metrics are on.
    watcher: Option<Watcher<V>>,
    /// Whether this simulation resumed from a checkpoint without the expectations' state (they
    /// then judge the resumed ticks only).
    watch_restarted: bool,
    /// Whether this simulation resumed from a checkpoint that carried no metrics state (its
    /// metrics then cover the resumed ticks only).
    metrics_restarted: bool,
    /// What checkpoints are tied to: the scenario file's BLAKE3 and its canonical overrides.
    content_hash: [u8; 32],
    overrides: Vec<String>,
    /// What the run was asked to do, stored in its checkpoints ([`Simulation::set_plan`]).
    plan: String,
    /// Wall time inside `Pipeline::step`, and inside the metrics, since this simulation was made.
    step_time: Duration,
    metrics_time: Duration,
    /// Host time not yet run as ticks ([`Simulation::advance`]), in seconds; not state.
    pending_s: f64,
    /// Rows by id and an index by place, for the host's queries between ticks.
    lookups: host::Lookups<V>,
}

impl<V: Passes> Simulation<V> {
    /// The scenario's world at tick 0, ready to step.
    pub fn new(scenario: &Scenario<V>, settings: RunSettings) -> Result<Simulation<V>, SimulationError> {
        let world = scenario
            .try_build_world()
            .map_err(|error| SimulationError::Spawn { origin: scenario.origin.clone(), error })?;
        Simulation::with_world(scenario, world, None, settings)
    }

    /// Continues the run a checkpoint holds. The checkpoint must have been written for this
    /// very scenario file and overrides ([`Scenario::overrides`]), by this engine; its metrics
    /// state, when it has one, carries the metrics on as if the run had never stopped.
    pub fn resume(
        scenario: &Scenario<V>,
        checkpoint_path: &Path,
        settings: RunSettings,
    ) -> Result<Simulation<V>, SimulationError> {
        let checkpoint = checkpoint::load(checkpoint_path)?;
        Simulation::resume_from(scenario, checkpoint, checkpoint_path, settings)
    }

    /// [`Simulation::resume`] from a checkpoint already read from `checkpoint_path` (for a
    /// program that reads the header first, e.g. for its plan). The checkpoint's plan becomes
    /// this simulation's.
    pub fn resume_from(
        scenario: &Scenario<V>,
        checkpoint: Checkpoint<V>,
        checkpoint_path: &Path,
        settings: RunSettings,
    ) -> Result<Simulation<V>, SimulationError> {
        let Checkpoint { header, world, metrics, watch } = checkpoint;
        let path = checkpoint_path.display().to_string();
        checkpoint::check_run(&header, &path, &scenario.origin, &scenario.content_hash, &scenario.overrides)?;
        let saved = match (settings.metrics, metrics) {
            (true, Some(state)) => Some(
                MetricsCollector::resume(scenario.metrics, &world, state)
                    .map_err(|source| SimulationError::MetricsState { path: path.clone(), source })?,
            ),
            _ => None,
        };
        let restarted = settings.metrics && saved.is_none();
        let watched = match (settings.metrics && saved.is_some(), watch) {
            (true, Some(state)) if !scenario.expectations.is_empty() => Some(
                Watcher::resume(scenario.expectations.clone(), state, &world)
                    .map_err(|source| SimulationError::WatchState { path: path.clone(), source })?,
            ),
            _ => None,
        };
        let mut sim = Simulation::with_world(scenario, world, saved, settings)?;
        sim.watch_restarted = sim.watcher.is_some() && watched.is_none();
        if watched.is_some() {
            sim.watcher = watched;
        }
        sim.metrics_restarted = restarted;
        sim.plan = header.plan;
        Ok(sim)
    }

    /// A simulation of `world` (a scenario's, at any tick), with `metrics` carried on when
    /// given, else fresh metrics from this tick when the settings ask for them.
    pub fn with_world(
        scenario: &Scenario<V>,
        world: World<V>,
        metrics: Option<MetricsCollector<V>>,
        settings: RunSettings,
    ) -> Result<Simulation<V>, SimulationError> {
        let mut pipeline = Pipeline::new(settings.threads, settings.index.unwrap_or(scenario.index))?;
        pipeline.set_reorder_every(settings.reorder_every);
        match settings.sensing_skin {
            Some(skin) => pipeline.set_sensing_skin(skin),
            None if scenario.sensing_skin_auto => pipeline.set_auto_sensing_skin(scenario.sensing_skin),
            None => pipeline.set_sensing_skin(scenario.sensing_skin),
        }
        if !settings.keep_awake {
            pipeline.set_keep_awake(false); // on by default where it helps (see `Pipeline::new`)
        }
        let mut metrics = match (settings.metrics, metrics) {
            (false, _) => None,
            (true, Some(m)) => Some(m),
            (true, None) => Some(MetricsCollector::new(scenario.metrics, &world)),
        };
        // Expectations read the metrics; they start with the state as it is (tick 0 of a new
        // run). A resumed run replaces this watcher with the checkpoint's.
        let watcher = match metrics.as_mut() {
            Some(m) if !scenario.expectations.is_empty() => {
                let mut w = Watcher::new(scenario.expectations.clone());
                let first = pipeline.install(|| m.initial(&world));
                w.observe(&world, &first, m.gate_totals());
                Some(w)
            }
            _ => None,
        };
        Ok(Simulation {
            world,
            pipeline,
            metrics,
            watcher,
            watch_restarted: false,
            metrics_restarted: false,
            content_hash: scenario.content_hash,
            overrides: scenario.overrides.clone(),
            plan: String::new(),
            step_time: Duration::ZERO,
            metrics_time: Duration::ZERO,
            pending_s: 0.0,
            lookups: host::Lookups::default(),
        })
    }

    /// Advances one tick of the scenario's `dt`, then observes the metrics (when on). The time
    /// step never changes during a run: the models and every schedule count in ticks. A host
    /// with a clock of its own steps through [`Simulation::advance`].
    pub fn step(&mut self) -> Result<(), NonFinite> {
        let start = Instant::now();
        let before = self.world.tick;
        self.lookups.forget();
        self.pipeline.step(&mut self.world)?;
        self.step_time += start.elapsed();
        // A `stop` event ended the run before the tick: nothing ran, nothing to observe.
        if self.world.tick == before {
            return Ok(());
        }
        let Simulation { world, pipeline, metrics, watcher, .. } = self;
        if let Some(m) = metrics.as_mut() {
            let start = Instant::now();
            // On the pipeline's workers, as the passes (at once inside `enter`).
            pipeline.install(|| {
                m.observe(world, pipeline.events(), pipeline.obstacle_index());
            });
            if let Some(w) = watcher.as_mut() {
                w.observe(world, m.last(), m.gate_totals());
            }
            self.metrics_time += start.elapsed();
        }
        Ok(())
    }

    /// Runs one pass alone on the last tick's scratch, for per-pass benchmarks (see
    /// [`Pipeline::run_pass`]); the tick does not advance and no metrics are observed.
    pub fn run_pass(&mut self, pass: Pass) -> Result<(), NonFinite> {
        self.lookups.forget();
        self.pipeline.run_pass(&mut self.world, pass)
    }

    /// Advances `ticks` ticks (fewer if a `stop` event ends the run), all on the pipeline's own
    /// workers (see [`Simulation::enter`]).
    pub fn run(&mut self, ticks: u64) -> Result<(), NonFinite> {
        let last = self.tick().saturating_add(ticks);
        self.run_until(last, |_| ControlFlow::<()>::Continue(())).map(|_| ())
    }

    /// The run loop every command uses: ticks until the world has completed `last_tick` ticks,
    /// a `stop` event ends the run, or `after_tick` breaks, all on the pipeline's own workers
    /// (see [`Simulation::enter`]). `after_tick` runs after every tick that ran (the place to
    /// write a trace or metrics row, save a checkpoint, count a progress bar or look for an
    /// interrupt); what it breaks with comes back in [`RunEnd::Broken`]. A run already at
    /// `last_tick`, or already stopped, runs no tick.
    pub fn run_until<B: Send>(
        &mut self,
        last_tick: u64,
        mut after_tick: impl FnMut(&mut Simulation<V>) -> ControlFlow<B> + Send,
    ) -> Result<RunEnd<B>, NonFinite> {
        self.enter(|sim| {
            while sim.tick() < last_tick {
                if sim.stopped() {
                    return Ok(RunEnd::StoppedByEvent);
                }
                sim.step()?;
                // A `stop` event ended the run before this tick: nothing ran.
                if sim.stopped() {
                    return Ok(RunEnd::StoppedByEvent);
                }
                if let ControlFlow::Break(b) = after_tick(sim) {
                    return Ok(RunEnd::Broken(b));
                }
            }
            Ok(if sim.stopped() { RunEnd::StoppedByEvent } else { RunEnd::Done })
        })
    }

    /// Runs `f` on one of the pipeline's worker threads with the simulation lent to it, the
    /// other workers kept awake (see [`Pipeline::enter`]): a loop of [`Simulation::step`]
    /// inside pays no hand-over to the pool per tick. Output between ticks is fine inside.
    pub fn enter<R: Send>(&mut self, f: impl FnOnce(&mut Simulation<V>) -> R + Send) -> R {
        let pool = self.pipeline.pool();
        let keep_awake = self.pipeline.keeps_awake();
        crate::pipeline::enter_pool(&pool, keep_awake, || f(self))
    }

    /// The state.
    pub fn world(&self) -> &World<V> {
        &self.world
    }

    /// The agents' positions and velocities, in row order, to change between ticks (a host
    /// program placing or pushing its agents); the change is part of the run from then on.
    /// The rest of the state (the tick, ids, counters, the scene) changes only through ticks,
    /// events and checkpoints, so a caller cannot set it out of step.
    pub fn motion_mut(&mut self) -> (&mut [V], &mut [V]) {
        self.lookups.forget();
        let a = &mut self.world.agents;
        (&mut a.position, &mut a.velocity)
    }

    /// The scratch of the last tick: events, neighbour lists, timers.
    pub fn pipeline(&self) -> &Pipeline<V> {
        &self.pipeline
    }

    /// The scratch, to change settings between ticks (none changes a result).
    pub fn pipeline_mut(&mut self) -> &mut Pipeline<V> {
        &mut self.pipeline
    }

    /// The metrics observed so far, if they are on.
    pub fn metrics(&self) -> Option<&MetricsCollector<V>> {
        self.metrics.as_ref()
    }

    /// The metrics of the state as it starts, before any step (tick 0 of a metrics file; see
    /// `MetricsCollector::initial`), if metrics are on. Observes nothing.
    pub fn initial_metrics(&mut self) -> Option<TickMetrics> {
        let world = &self.world;
        let pipeline = &self.pipeline;
        self.metrics.as_mut().map(|m| pipeline.install(|| m.initial(world)))
    }

    /// The metrics summary of the run so far (maxima, totals, final values), if metrics are on.
    pub fn summary(&self) -> Option<Summary> {
        self.metrics.as_ref().map(|m| m.summary(&self.world))
    }

    /// Whether this run resumed from a checkpoint without the expectations' state, so they
    /// judge the resumed ticks only.
    pub fn expectations_restarted(&self) -> bool {
        self.watch_restarted
    }

    /// The verdicts of the scenario's expectations on the run so far (`None` when it has
    /// none, or metrics are off: expectations read them).
    pub fn outcomes(&self) -> Option<Vec<Outcome>> {
        let (w, m) = (self.watcher.as_ref()?, self.metrics.as_ref()?);
        Some(w.outcomes(&self.world, &m.summary(&self.world)))
    }

    /// Whether this run resumed from a checkpoint without a metrics state, so its metrics cover
    /// the resumed ticks only.
    pub fn metrics_restarted(&self) -> bool {
        self.metrics_restarted
    }

    /// Whether a `stop` event has ended the run (further steps do nothing).
    pub fn stopped(&self) -> bool {
        self.world.stopped
    }

    /// Ticks completed.
    pub fn tick(&self) -> u64 {
        self.world.tick
    }

    /// The state hash now.
    pub fn hash(&self) -> StateHash {
        state_hash(&self.world)
    }

    /// Wall time spent stepping (without the metrics) since this simulation was made.
    pub fn step_time(&self) -> Duration {
        self.step_time
    }

    /// Wall time spent observing metrics since this simulation was made.
    pub fn metrics_time(&self) -> Duration {
        self.metrics_time
    }

    /// The checkpoint of this tick, as bytes ([`checkpoint`] describes the format).
    pub fn checkpoint(&self) -> Vec<u8> {
        let metrics = self.metrics.as_ref().map(|m| m.state());
        let run = checkpoint::RunIdentity {
            scenario_hash: &self.content_hash,
            overrides: &self.overrides,
            plan: &self.plan,
        };
        let watch = self.watcher.as_ref().map(|w| w.state());
        checkpoint::encode_watched(&self.world, metrics, watch, &run)
    }

    /// Sets the plan stored in this simulation's checkpoints: what its run was asked to do, in
    /// the program's own words (`throng run` writes JSON). The engine checks nothing in it.
    pub fn set_plan(&mut self, plan: impl Into<String>) {
        self.plan = plan.into();
    }

    /// The plan stored in this simulation's checkpoints; empty when none.
    pub fn plan(&self) -> &str {
        &self.plan
    }

    /// Writes the checkpoint of this tick to `path`, atomically: an interrupted write leaves
    /// the old file (or none), never a truncated one.
    pub fn save_checkpoint(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.checkpoint())
    }
}
