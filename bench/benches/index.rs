//! Neighbour search alone (build + sense) on the same warmed positions: kiddo k-d tree vs
//! uniform grid vs brute force, plus the bare kiddo floor that `throng bench` reports.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_bench::{bench_threads, crowd};
use throng_engine::index::{self, IndexKind, Neighbours, SpatialIndex};

fn search(c: &mut Criterion) {
    let threads = bench_threads();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
    let mut group = c.benchmark_group("index");
    group.sample_size(10);
    for agents in [10_000u64, 100_000] {
        let sim = crowd(agents, threads, IndexKind::Kd);
        let world = sim.world();
        let a = &world.agents;
        let targeted = vec![false; world.groups.len()];
        let cell = world.groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max);
        group.throughput(Throughput::Elements(a.len() as u64));
        for kind in [IndexKind::Kd, IndexKind::Grid, IndexKind::Brute] {
            if kind == IndexKind::Brute && agents > 10_000 {
                continue; // O(N²): 10^10 pair tests per tick at 100k
            }
            let mut idx = SpatialIndex::new(kind);
            let mut out = Neighbours::default();
            group.bench_function(format!("{kind}/{agents}/{threads}t"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        idx.build_with_cell(&world.bounds, &a.position, &a.id, &a.group, &targeted, cell);
                        let input = index::SenseInput::of(&world.bounds, &world.groups, a);
                        index::sense_neighbours(&idx, &input, index::FirstReach::default(), &mut out);
                    })
                })
            });
        }
        let radius: Vec<f32> = a.group.iter().map(|&g| world.groups[g as usize].sensing_radius).collect();
        let mut points = Vec::new();
        group.bench_function(format!("kd_floor/{agents}/{threads}t"), |b| {
            b.iter(|| pool.install(|| throng_engine::probes::kd_floor(&mut points, &a.position, &radius)))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
