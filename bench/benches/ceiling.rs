//! The machine's own ceiling for two threads: `ideal_pass`, rayon pieces of pure arithmetic
//! (a dependent chain of square roots per row, no memory traffic beyond one read and one
//! write), split as the engine splits its passes, at 1 and 2 threads. A pass of the engine cannot scale better
//! than this loop does on the same machine; the ratio of the two medians is the bound that
//! `throng bench`'s "2 threads vs 1" figure should be read against.

use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use throng_engine::probes::ideal_pass;

fn ceiling(c: &mut Criterion) {
    let mut group = c.benchmark_group("ceiling");
    for rows in [10_000usize, 100_000] {
        let input: Vec<f32> = (0..rows).map(|i| i as f32).collect();
        let mut out = vec![0.0f32; rows];
        group.throughput(Throughput::Elements(rows as u64));
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            // Timed on a worker of the pool, as `Pipeline::enter` runs ticks.
            group.bench_function(format!("alu/{rows}/{threads}t"), |b| {
                b.iter_custom(|iters| {
                    pool.install(|| {
                        let start = Instant::now();
                        for _ in 0..iters {
                            ideal_pass(std::hint::black_box(&input), &mut out);
                        }
                        start.elapsed()
                    })
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, ceiling);
criterion_main!(benches);
