//! The whole tick of the standard crowd at 1k, 10k and 100k agents, per agent
//! (`Throughput::Elements`), with the k-d tree and the grid.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::{bench_threads, crowd, time_inside};
use throng_engine::IndexKind;

fn tick(c: &mut Criterion) {
    let threads = bench_threads();
    let mut group = c.benchmark_group("tick");
    group.sample_size(20);
    for agents in [1_000u64, 10_000, 100_000] {
        for index in [IndexKind::Kd, IndexKind::Grid] {
            let mut sim = crowd(agents, threads, index);
            group.throughput(Throughput::Elements(sim.world().agents.len() as u64));
            // The world keeps running between iterations: every sample is a real next tick.
            // Ticks are timed on a worker of the pipeline's pool (`Simulation::enter`), as
            // `throng run` and `throng bench` run them.
            group.bench_function(format!("crowd/{agents}/{index}/{threads}t"), |b| {
                b.iter_custom(|iters| {
                    time_inside(&mut sim, iters, |s| std::hint::black_box(s.step()).expect("finite state"))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, tick);
criterion_main!(benches);
