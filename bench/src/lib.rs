//! Shared setup for throng's criterion benchmarks: worlds are built and warmed here, never
//! inside a timed routine.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

/// A file under the repository's `scenarios/`.
pub fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios").join(name)
}

pub fn load(name: &str) -> Scenario {
    Scenario::load(&scenario_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenario` scaled to `agents` at its density, after `warmup` ticks, without metrics (so every
/// pass's scratch is valid, and a tick is the passes alone).
pub fn warmed_scaled(
    scenario: &Scenario,
    agents: u64,
    threads: usize,
    index: IndexKind,
    warmup: u64,
) -> Simulation {
    let scaled = scenario.scaled(agents).unwrap_or_else(|e| panic!("{e}"));
    let settings = RunSettings { threads, index: Some(index), metrics: false, ..RunSettings::default() };
    let mut sim = Simulation::new(&scaled, settings).expect("thread pool");
    sim.run(warmup).expect("finite state");
    sim
}

/// The standard crowd (`scenarios/bench/crowd.toml`) at `agents`, warmed for 10 ticks.
pub fn crowd(agents: u64, threads: usize, index: IndexKind) -> Simulation {
    warmed_scaled(&load("bench/crowd.toml"), agents, threads, index, 10)
}

/// Worker threads for benches: `THRONG_BENCH_THREADS`, else every core.
pub fn bench_threads() -> usize {
    std::env::var("THRONG_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Times `iters` calls of `f` back to back inside [`Simulation::enter`], as `throng run` and
/// `throng bench` run their ticks: on a worker of the pipeline's pool, with the other workers
/// awake. One untimed call first wakes them. Timed from outside the pool instead, a short pass
/// would also pay a hand-over to the pool and a wake-up of its workers every time (some tens
/// of microseconds on the project's 2-core machine, as much as `integrate` itself at 10k).
pub fn time_inside(sim: &mut Simulation, iters: u64, mut f: impl FnMut(&mut Simulation) + Send) -> Duration {
    sim.enter(|sim| {
        f(sim);
        let start = Instant::now();
        for _ in 0..iters {
            f(sim);
        }
        start.elapsed()
    })
}
