//! Where `throng render` takes its frames from: a scenario run here, in the plane or in space
//! (through [`Stepper`], so the drawing code is the same for both), or a trace in memory.

use crate::dimension::CliDimension;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use throng_engine::Simulation;
use throng_engine::pipeline::NonFinite;

use super::frame::Frame;
use crate::ticks::{Ended, run_ticks};

/// A simulation seen through what render needs of it, whatever its dimensions.
pub trait Stepper {
    /// The state now, as a frame.
    fn frame(&self) -> Frame;
    fn tick(&self) -> u64;
    /// Ticks until tick `until` or a `stop` event (the commands' run loop, `run_ticks`),
    /// calling `each` after every tick.
    fn run_ticks(
        &mut self,
        until: u64,
        progress: &ProgressBar,
        each: &mut (dyn FnMut(&dyn Stepper) -> Result<()> + Send),
    ) -> Result<Result<Ended, NonFinite>>;
    /// How many times each scenario event has fired, with its name.
    fn fired(&self) -> Vec<(u32, String)>;
}

impl<V: CliDimension> Stepper for Simulation<V> {
    fn frame(&self) -> Frame {
        Frame::of(self.world())
    }
    fn tick(&self) -> u64 {
        Simulation::tick(self)
    }
    fn run_ticks(
        &mut self,
        until: u64,
        progress: &ProgressBar,
        each: &mut (dyn FnMut(&dyn Stepper) -> Result<()> + Send),
    ) -> Result<Result<Ended, NonFinite>> {
        run_ticks(self, until, progress, None, |sim| each(sim))
    }
    fn fired(&self) -> Vec<(u32, String)> {
        self.world().events.iter().map(|e| (e.fired, e.name.clone())).collect()
    }
}

/// Frames from a scenario run, or from a trace in memory.
pub enum Source {
    /// `fired`: each event's firings, (tick it applied at, name), as the run goes.
    Run {
        sim: Box<dyn Stepper>,
        ticks: u64,
        origin: String,
        fired: Vec<(u64, String)>,
    },
    Trace(Vec<Frame>),
}

impl Source {
    /// The last tick there is to draw.
    pub fn last_tick(&self) -> u64 {
        match self {
            Source::Run { ticks, .. } => *ticks,
            Source::Trace(frames) => frames.last().map_or(0, |f| f.tick),
        }
    }

    /// Calls `visit` with every frame up to `until` whose tick `wanted` accepts, in tick
    /// order, and whether it is the run's last (a run an event stopped ends at its last
    /// tick, wanted or not). Returns the time spent running the scenario.
    pub fn walk(
        &mut self,
        until: u64,
        wanted: impl Fn(u64) -> bool + Sync,
        mut visit: impl FnMut(Frame, bool) -> Result<()> + Send,
        quiet: bool,
    ) -> Result<Duration> {
        let mut run_time = Duration::ZERO;
        match self {
            Source::Run { sim, origin, fired, .. } => {
                let progress = crate::args::progress_bar(until, quiet);
                if wanted(0) {
                    visit(sim.frame(), false)?;
                }
                let mut counts: Vec<u32> = sim.fired().into_iter().map(|(n, _)| n).collect();
                // The events that fired before tick `t` ran, for the player's timeline.
                let mut record_fired = |sim: &dyn Stepper, t: u64| {
                    for ((n, name), count) in sim.fired().into_iter().zip(counts.iter_mut()) {
                        if n > *count {
                            fired.push((t, name));
                            *count = n;
                        }
                    }
                };
                let (start, mut visiting) = (Instant::now(), Duration::ZERO);
                let ended = sim
                    .run_ticks(until, &progress, &mut |sim| {
                        record_fired(sim, sim.tick() - 1);
                        if wanted(sim.tick()) {
                            let start = Instant::now();
                            visit(sim.frame(), false)?;
                            visiting += start.elapsed();
                        }
                        Ok(())
                    })?
                    .with_context(|| format!("{origin} stopped"))?;
                run_time += start.elapsed().saturating_sub(visiting);
                if ended == Ended::StoppedByEvent {
                    // Stopped by an event: its last tick is the run's last frame.
                    record_fired(sim.as_ref(), sim.tick());
                    visit(sim.frame(), true)?;
                }
                progress.finish_and_clear();
            }
            Source::Trace(frames) => {
                for f in std::mem::take(frames) {
                    if f.tick > until {
                        break;
                    }
                    if wanted(f.tick) {
                        visit(f, false)?;
                    }
                }
            }
        }
        Ok(run_time)
    }
}
