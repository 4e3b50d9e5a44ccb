//! Shared setup for throng's criterion benchmarks: worlds are built and warmed here, never
//! inside a timed routine.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use throng_engine::{IndexKind, Pipeline, Scenario, World};

/// A file under the repository's `scenarios/`.
pub fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios").join(name)
}

pub fn load(name: &str) -> Scenario {
    Scenario::load(&scenario_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenario` scaled to `agents` at its density, after `warmup` ticks, with the pipeline that
/// ran them (so every pass's scratch is valid).
pub fn warmed_scaled(
    scenario: &Scenario,
    agents: u64,
    threads: usize,
    index: IndexKind,
    warmup: u64,
) -> (World, Pipeline) {
    let scaled = scenario.scaled(agents).unwrap_or_else(|e| panic!("{e}"));
    let mut world = scaled.build_world();
    let mut pipeline = Pipeline::new(threads, index).expect("thread pool");
    pipeline.set_sensing_skin(scaled.sensing_skin);
    for _ in 0..warmup {
        pipeline.step(&mut world).expect("finite state");
    }
    (world, pipeline)
}

/// The standard crowd (`scenarios/bench/crowd.toml`) at `agents`, warmed for 10 ticks.
pub fn crowd(agents: u64, threads: usize, index: IndexKind) -> (World, Pipeline) {
    warmed_scaled(&load("bench/crowd.toml"), agents, threads, index, 10)
}

/// Worker threads for benches: `THRONG_BENCH_THREADS`, else every core.
pub fn bench_threads() -> usize {
    std::env::var("THRONG_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Times `iters` calls of `f` back to back inside [`Pipeline::enter`], as `throng run` and
/// `throng bench` run their ticks: on a worker of the pipeline's pool, with the other workers
/// awake. One untimed call first wakes them. Timed from outside the pool instead, a short pass
/// would also pay a hand-over to the pool and a wake-up of its workers every time (some tens
/// of microseconds on the project's 2-core machine, as much as `integrate` itself at 10k).
pub fn time_inside(
    pipeline: &mut Pipeline,
    world: &mut World,
    iters: u64,
    mut f: impl FnMut(&mut Pipeline, &mut World) + Send,
) -> Duration {
    pipeline.enter(|pipeline| {
        f(pipeline, world);
        let start = Instant::now();
        for _ in 0..iters {
            f(pipeline, world);
        }
        start.elapsed()
    })
}
