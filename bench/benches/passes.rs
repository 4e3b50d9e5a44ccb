//! Each pass alone on a warmed standard crowd at 10k and 100k agents. Sensing is measured both
//! ways: afresh with the index (`sense_neighbours`, as on a sensing tick; the scenario's
//! candidate reuse is switched off for these), from reused candidates
//! (`sense_from_candidates`, as on the ticks between), and collecting candidates
//! (`sense_candidates`, as on a sensing tick with the scenario's skin). Passes are timed
//! inside `Simulation::enter`, as ticks run (see `time_inside`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::{bench_threads, crowd, time_inside};
use throng_engine::IndexKind;
use throng_engine::pipeline::Pass;

fn passes(c: &mut Criterion) {
    let threads = bench_threads();
    let mut group = c.benchmark_group("pass");
    group.sample_size(20);
    for agents in [10_000u64, 100_000] {
        let mut sim = crowd(agents, threads, IndexKind::Kd);
        group.throughput(Throughput::Elements(sim.world().agents.len() as u64));
        // Lists from the candidates found on the last sensing tick (positions do not move
        // between iterations, so the candidates stay valid): step until a pass reuses them.
        for _ in 0..8 {
            sim.step().expect("finite state");
            let (reused, _) = sim.pipeline().sensing_counts();
            sim.run_pass(Pass::SenseNeighbours).expect("finite state");
            if sim.pipeline().sensing_counts().0 > reused {
                break;
            }
        }
        group.bench_function(format!("sense_from_candidates/{agents}/{threads}t"), |b| {
            b.iter_custom(|iters| {
                time_inside(&mut sim, iters, |s| {
                    std::hint::black_box(s.run_pass(Pass::SenseNeighbours)).expect("finite")
                })
            })
        });
        // A sensing tick that collects candidates (setting the skin afresh, two stores, voids
        // the last ones): its lists come from the candidates as they are found.
        let skin = sim.pipeline().sensing_skin();
        group.bench_function(format!("sense_candidates/{agents}/{threads}t"), |b| {
            b.iter_custom(|iters| {
                time_inside(&mut sim, iters, |s| {
                    s.pipeline_mut().set_sensing_skin(0.0);
                    s.pipeline_mut().set_sensing_skin(skin);
                    std::hint::black_box(s.run_pass(Pass::SenseNeighbours)).expect("finite")
                })
            })
        });
        sim.pipeline_mut().set_sensing_skin(0.0);
        sim.step().expect("finite state");
        for pass in [
            Pass::BuildIndex,
            Pass::SenseNeighbours,
            Pass::FindThreats,
            Pass::Steer,
            Pass::QueueBrake,
            Pass::Integrate,
            Pass::Collide,
            Pass::Gates,
        ] {
            group.bench_function(format!("{}/{agents}/{threads}t", pass.name()), |b| {
                b.iter_custom(|iters| {
                    time_inside(&mut sim, iters, |s| {
                        std::hint::black_box(s.run_pass(pass)).expect("finite state")
                    })
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, passes);
criterion_main!(benches);
