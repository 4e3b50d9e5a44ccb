//! Whole-tick benchmarks of the shipped scenarios.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::warmed;
use throng_engine::IndexKind;

fn tick(c: &mut Criterion) {
    let mut group = c.benchmark_group("tick");
    for name in ["flock.toml", "wander.toml", "pursuit_evade.toml", "seek_arrive.toml"] {
        for threads in [1, 2] {
            let (world, mut pipeline) = warmed(name, threads, IndexKind::Kd, 20);
            group.throughput(Throughput::Elements(world.agents.len() as u64));
            // Each iteration steps a clone of the warmed world, so every sample measures the same tick.
            group.bench_function(format!("{name}/{threads}t"), |b| {
                b.iter_batched_ref(
                    || world.clone(),
                    |w| pipeline.step(std::hint::black_box(w)).expect("finite state"),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, tick);
criterion_main!(benches);
