//! The same flock in the plane and in space, side by side in one run: a tick at 10k, 100k
//! and 1M boids with the same number of neighbours (10 within the sensing radius), so the ratio
//! is what the third coordinate costs. `THRONG_BENCH_AGENTS=10000,100000` picks the counts
//! (default all three); `THRONG_BENCH_THREADS` the threads; `THRONG_BENCH_DIMENSIONS=2` or `3`
//! one side alone; `THRONG_BENCH_INDEX=grid` (or `brute`) another index than the k-d tree.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::{bench_threads, flock_world};
use throng_engine::math::{Vec2, Vec3};
use throng_engine::{IndexKind, Pipeline};

fn counts() -> Vec<u64> {
    std::env::var("THRONG_BENCH_AGENTS")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000])
}

/// One dimension's tick at `agents` boids.
fn bench_flock<V: throng_engine::pipeline::Passes>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    agents: u64,
    threads: usize,
) {
    let index =
        std::env::var("THRONG_BENCH_INDEX").ok().and_then(|s| IndexKind::parse(&s)).unwrap_or(IndexKind::Kd);
    let mut pipeline: Pipeline<V> = Pipeline::new(threads, index).expect("thread pool");
    let mut world = flock_world(agents, &mut pipeline);
    pipeline.timers = Default::default();
    c.throughput(Throughput::Elements(agents));
    // The world keeps running between iterations: every sample is a real next tick.
    c.bench_function(format!("{name}/{agents}/{index}/{threads}t"), |b| {
        b.iter(|| pipeline.step(std::hint::black_box(&mut world)).expect("finite state"))
    });
    // What the ratio compares at: the neighbours each boid had in the last tick measured.
    let counts = &pipeline.neighbours().count;
    let mean = counts.iter().map(|&n| n as f64).sum::<f64>() / counts.len().max(1) as f64;
    println!("{name}/{agents}: {mean:.2} neighbours per boid after {} ticks", world.tick);
    // Where the time went, per pass (ms per tick over every tick the bench ran).
    let passes: Vec<String> = pipeline
        .timers
        .ms_per_tick()
        .filter(|&(_, ms)| ms >= 0.01)
        .map(|(pass, ms)| format!("{pass} {ms:.2}"))
        .collect();
    println!("{name}/{agents} ms per tick by pass: {}", passes.join(", "));
}

fn space(c: &mut Criterion) {
    let threads = bench_threads();
    let mut group = c.benchmark_group("flock");
    group.sample_size(10);
    // `THRONG_BENCH_DIMENSIONS=3` (or 2) runs one side alone, e.g. to read its peak memory.
    let only = std::env::var("THRONG_BENCH_DIMENSIONS").ok();
    for agents in counts() {
        if only.as_deref() != Some("3") {
            bench_flock::<Vec2>(&mut group, "plane", agents, threads);
        }
        if only.as_deref() != Some("2") {
            bench_flock::<Vec3>(&mut group, "space", agents, threads);
        }
    }
    group.finish();
}

criterion_group!(benches, space);
criterion_main!(benches);
