//! Where `throng render` takes its frames from: a scenario run here, in the plane or in space
//! (through [`Stepper`], so the drawing code is the same for both), or a trace in memory.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use throng_engine::Simulation;
use throng_engine::index::Point;
use throng_engine::pipeline::NonFinite;

use super::frame::Frame;

/// A simulation seen through what render needs of it, whatever its dimensions.
pub trait Stepper {
    /// The state now, as a frame.
    fn frame(&self) -> Frame;
    fn tick(&self) -> u64;
    fn step(&mut self) -> Result<(), NonFinite>;
    fn stopped(&self) -> bool;
    /// How many times each scenario event has fired, with its name.
    fn fired(&self) -> Vec<(u32, String)>;
}

impl<V: Point> Stepper for Simulation<V> {
    fn frame(&self) -> Frame {
        Frame::of(self.world())
    }
    fn tick(&self) -> u64 {
        Simulation::tick(self)
    }
    fn step(&mut self) -> Result<(), NonFinite> {
        Simulation::step(self)
    }
    fn stopped(&self) -> bool {
        Simulation::stopped(self)
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
        wanted: impl Fn(u64) -> bool,
        mut visit: impl FnMut(Frame, bool) -> Result<()>,
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
                while sim.tick() < until {
                    let start = Instant::now();
                    let before = sim.tick();
                    sim.step().with_context(|| format!("{origin} stopped"))?;
                    run_time += start.elapsed();
                    progress.inc(1);
                    // The events that fired before this tick ran, for the player's timeline.
                    for ((n, name), count) in sim.fired().into_iter().zip(counts.iter_mut()) {
                        if n > *count {
                            fired.push((before, name));
                            *count = n;
                        }
                    }
                    if sim.stopped() {
                        // Stopped by an event: its last tick is the run's last frame.
                        visit(sim.frame(), true)?;
                        break;
                    }
                    if wanted(sim.tick()) {
                        visit(sim.frame(), false)?;
                    }
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
