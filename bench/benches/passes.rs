//! Each pass alone on a warmed standard crowd at 10k and 100k agents.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::{bench_threads, crowd};
use throng_engine::IndexKind;
use throng_engine::pipeline::Pass;

fn passes(c: &mut Criterion) {
    let threads = bench_threads();
    let mut group = c.benchmark_group("pass");
    group.sample_size(20);
    for agents in [10_000u64, 100_000] {
        let (mut world, mut pipeline) = crowd(agents, threads, IndexKind::Kd);
        group.throughput(Throughput::Elements(world.agents.len() as u64));
        for pass in [
            Pass::BuildIndex,
            Pass::SenseNeighbours,
            Pass::FindThreats,
            Pass::Steer,
            Pass::QueueBrake,
            Pass::Integrate,
            Pass::Collide,
        ] {
            group.bench_function(format!("{}/{agents}/{threads}t", pass.name()), |b| {
                b.iter(|| pipeline.run_pass(std::hint::black_box(&mut world), pass).expect("finite state"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, passes);
criterion_main!(benches);
