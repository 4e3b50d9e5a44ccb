//! `run_ticks`: the commands' run loop. Every command that steps a simulation (run, batch,
//! test, bench, render, plot) goes through it: `Simulation::run_until` on the pipeline's
//! workers, a progress bar counted per tick, SIGINT and SIGTERM looked for between ticks, and
//! the command's own work after each tick (trace and metrics rows, checkpoints, frames).

use crate::dimension::CliDimension;
use std::ops::ControlFlow;

use anyhow::Result;
use indicatif::ProgressBar;
use throng_engine::pipeline::NonFinite;
use throng_engine::{RunEnd, Simulation};

use crate::interrupt::{Interrupts, Stop};

/// How a command's run of ticks ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The ticks asked for ran.
    Done,
    /// A `stop` event ended the run.
    StoppedByEvent,
    /// A signal stopped it between ticks; the state is whole at the tick it reached.
    Interrupted(Stop),
}

/// Ticks `sim` until it has completed `last_tick` ticks, a `stop` event ends it, or a signal
/// caught by `interrupts` arrives, calling `each` after every tick and counting it on
/// `progress`. The outer error is `each`'s (an output that cannot be written); the inner one a
/// tick that left non-finite state.
pub fn run_ticks<V: CliDimension>(
    sim: &mut Simulation<V>,
    last_tick: u64,
    progress: &ProgressBar,
    interrupts: Option<&Interrupts>,
    mut each: impl FnMut(&mut Simulation<V>) -> Result<()> + Send,
) -> Result<Result<Ended, NonFinite>> {
    let end = sim.run_until(last_tick, |sim| {
        if let Err(e) = each(sim) {
            return ControlFlow::Break(Err(e));
        }
        progress.inc(1);
        match interrupts.and_then(Interrupts::caught) {
            Some(signal) => ControlFlow::Break(Ok(signal)),
            None => ControlFlow::Continue(()),
        }
    });
    Ok(match end {
        Ok(RunEnd::Done) => Ok(Ended::Done),
        Ok(RunEnd::StoppedByEvent) => Ok(Ended::StoppedByEvent),
        Ok(RunEnd::Broken(Ok(signal))) => Ok(Ended::Interrupted(signal)),
        Ok(RunEnd::Broken(Err(e))) => return Err(e),
        Err(e) => Err(e),
    })
}
