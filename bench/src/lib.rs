//! Shared setup for throng's criterion benchmarks: worlds are built here, never inside a
//! timed routine.

use std::path::{Path, PathBuf};

use throng_engine::{IndexKind, Pipeline, Scenario, World};

/// A file under the repository's `scenarios/`.
pub fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios").join(name)
}

/// The scenario's world after `warmup` ticks, and the pipeline that ran them.
pub fn warmed(name: &str, threads: usize, index: IndexKind, warmup: u64) -> (World, Pipeline) {
    let scenario = Scenario::load(&scenario_path(name)).unwrap_or_else(|e| panic!("{e}"));
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(threads, index).expect("thread pool");
    for _ in 0..warmup {
        pipeline.step(&mut world).expect("finite state");
    }
    (world, pipeline)
}
