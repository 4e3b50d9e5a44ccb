//! `PassTimers`: wall time spent in each pass, summed over ticks.

use std::time::{Duration, Instant};

use super::Pass;

/// Wall time spent in each pass, summed over ticks.
#[derive(Clone, Debug)]
pub struct PassTimers {
    /// Per pass, indexed by `Pass as usize`.
    total: Vec<Duration>,
    /// Ticks timed.
    pub ticks: u64,
}

impl Default for PassTimers {
    fn default() -> Self {
        PassTimers { total: vec![Duration::ZERO; Pass::ALL.len()], ticks: 0 }
    }
}

impl PassTimers {
    /// Milliseconds per tick for each pass, in run order.
    pub fn ms_per_tick(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        let ticks = self.ticks.max(1) as f64;
        Pass::ALL.iter().map(move |&p| (p.name(), self.total[p as usize].as_secs_f64() * 1e3 / ticks))
    }

    /// The time summed for `pass`.
    pub fn total(&self, pass: Pass) -> Duration {
        self.total[pass as usize]
    }

    pub(super) fn time<R>(&mut self, pass: Pass, f: impl FnOnce() -> R) -> R {
        let (r, elapsed) = timed(f);
        self.add(pass, elapsed);
        r
    }

    pub(super) fn add(&mut self, pass: Pass, elapsed: Duration) {
        self.total[pass as usize] += elapsed;
    }
}

/// Runs `f` and returns its result with its wall time.
pub(super) fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}
