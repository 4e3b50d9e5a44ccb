//! The `reorder` pass: rows in spatial (Morton) order, so agents near each other are near each
//! other in memory. Reads: positions, ids, bounds. Writes: every agent column, permuted (ties
//! by id). Parallel: keys computed and sorted across the pool, columns moved side by side.
//! Results never depend on row order.

use rayon::prelude::*;

use crate::math::Vec2;
use crate::world::{Agents, Bounds, BoundsKind, PermuteScratch};

/// The pass's reused buffers: (Morton code, id) keys, the permutation and its cycle marks.
#[derive(Default)]
pub struct ReorderScratch {
    keys: Vec<(u64, u32)>,
    order: Vec<u32>,
    done: PermuteScratch,
}

/// Sorts rows by the Morton code of their cell on a 65,536² lattice over the bounds (or, on an
/// open world, the agents' extent), ties by id.
pub fn reorder(bounds: &Bounds, agents: &mut Agents, scratch: &mut ReorderScratch) {
    let (lo, hi) = match bounds.kind {
        BoundsKind::Wrap => (bounds.min, bounds.max),
        BoundsKind::Open => agents
            .position
            .iter()
            .fold((Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            }),
    };
    let scale = Vec2::splat(65_535.0) / (hi - lo).max(Vec2::splat(1e-6));
    let keys = &mut scratch.keys;
    agents
        .position
        .par_iter()
        .zip(agents.id.par_iter())
        .enumerate()
        .map(|(row, (&p, &id))| {
            let c = ((p - lo) * scale).clamp(Vec2::ZERO, Vec2::splat(65_535.0));
            let code = morton(c.x as u32, c.y as u32);
            ((code << 32) | id as u64, row as u32)
        })
        .collect_into_vec(keys);
    keys.par_sort_unstable();
    scratch.order.clear();
    scratch.order.extend(keys.iter().map(|k| k.1));
    agents.permute_rows_with(&scratch.order, &mut scratch.done);
}

/// Interleaves the low 16 bits of `x` and `y` (a Z-order curve index).
fn morton(x: u32, y: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = (v & 0xffff) as u64;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    }
    spread(x) | (spread(y) << 1)
}
