//! Probes used only by benchmarks: the index floor (`kd_floor`) and the ideal pass
//! (`ideal_pass`), measured beside the ticks so a reader can tell the engine's cost from the
//! machine's.

use kiddo::SquaredEuclidean;
use rayon::prelude::*;

use crate::index::build_tree;
use crate::math::Vec2;

/// The index floor `throng bench` compares a tick against: packing `positions`, building a
/// kiddo tree over them exactly as `build_index` does, and one bare radius query per agent (radius `radius[i]`), counting
/// hits with no sorting and no behaviour work. Runs on the current rayon pool. Returns the hit
/// count, so the work cannot be optimised away.
pub fn kd_floor(points: &mut Vec<[f32; 2]>, positions: &[Vec2], radius: &[f32]) -> u64 {
    points.clear();
    points.extend(positions.iter().map(|p| [p.x, p.y]));
    if points.is_empty() {
        return 0;
    }
    let tree = build_tree::<2, { crate::index::PLANE_BUCKET }>(points);
    points
        .par_iter()
        .zip(radius)
        .with_min_len(64)
        .with_max_len(crate::par::PIECE_ROWS)
        .map(|(p, &r)| {
            let mut hits = 0u64;
            tree.query(p).within::<SquaredEuclidean<f32>>(r * r).unsorted().visit(|_| hits += 1);
            hits
        })
        .sum()
}

/// Square roots in each row's dependent chain in [`ideal_pass`].
const IDEAL_CHAIN: usize = 20;

/// A pass with nothing in the way of threads: one row's pure arithmetic (a dependent chain of
/// square roots) per element, split across the current pool as the engine's per-agent passes
/// are. It reads one value and writes one per row, and touches nothing else, so it waits on
/// no memory and on no other thread: its speed-up from 1 to 2 threads is the most any pass of the engine
/// could get on the machine at that moment. `throng bench` measures it beside the ticks
/// (`ideal_pass_ms`), so a reader can tell the engine's scaling from the machine's.
pub fn ideal_pass(input: &[f32], out: &mut [f32]) {
    out.par_iter_mut().zip(input).with_min_len(128).with_max_len(crate::par::PIECE_ROWS).for_each(
        |(o, &x)| {
            let mut x = x;
            for _ in 0..IDEAL_CHAIN {
                x = (x * 1.0001 + 0.5).sqrt();
            }
            *o = x;
        },
    );
}
