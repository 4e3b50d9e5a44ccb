//! The `reorder` pass: rows in spatial (Morton) order, so agents near each other are near each
//! other in memory. Reads: positions, ids, bounds. Writes: every agent column, permuted (ties
//! by id). Parallel: keys computed and sorted across the pool, columns moved side by side.
//! Results never depend on row order.

use rayon::prelude::*;

use crate::math::{Vec2, Vector};
use crate::world::{Agents, Bounds, BoundsKind, PermuteScratch};

/// The pass's reused buffers: (Morton code, id) keys, the permutation and its cycle marks.
#[derive(Default)]
pub struct ReorderScratch<V = Vec2> {
    keys: Vec<(u64, u32)>,
    order: Vec<u32>,
    done: PermuteScratch<V>,
}

/// Sorts rows by the Morton code of their cell on a lattice over the bounds (or, on an open
/// world, the agents' extent), ties by id: 65,536² cells in the plane, 1,024³ in space (a
/// code of 32 or 30 bits, above the id in one 64-bit key).
pub fn reorder<V: Vector>(bounds: &Bounds<V>, agents: &mut Agents<V>, scratch: &mut ReorderScratch<V>) {
    let (lo, hi) = match bounds.kind {
        BoundsKind::Wrap => (bounds.min, bounds.max),
        BoundsKind::Open => agents
            .position
            .iter()
            .fold((V::splat(f32::INFINITY), V::splat(f32::NEG_INFINITY)), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            }),
    };
    let top = if V::DIMENSIONS == 2 { 65_535.0 } else { 1_023.0 };
    let scale = V::splat(top) / (hi - lo).max(V::splat(1e-6));
    let keys = &mut scratch.keys;
    agents
        .position
        .par_iter()
        .zip(agents.id.par_iter())
        .enumerate()
        .map(|(row, (&p, &id))| {
            let c = ((p - lo) * scale).max(V::ZERO).min(V::splat(top));
            let code = if V::DIMENSIONS == 2 {
                morton(c.axis(0) as u32, c.axis(1) as u32)
            } else {
                morton3(c.axis(0) as u32, c.axis(1) as u32, c.axis(2) as u32)
            };
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

/// Interleaves the low 10 bits of `x`, `y` and `z` (a Z-order curve index in space).
fn morton3(x: u32, y: u32, z: u32) -> u64 {
    fn spread(v: u32) -> u64 {
        let mut v = (v & 0x3ff) as u64;
        v = (v | (v << 16)) & 0x0300_00ff;
        v = (v | (v << 8)) & 0x0300_f00f;
        v = (v | (v << 4)) & 0x030c_30c3;
        (v | (v << 2)) & 0x0924_9249
    }
    spread(x) | (spread(y) << 1) | (spread(z) << 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_codes_interleave_the_axes() {
        // x = 0b11, y = 0b01: bits x0 y0 x1 y1 = 1 1 1 0 → 0b0111.
        assert_eq!(morton(0b11, 0b01), 0b0111);
        // x = 0b1, y = 0, z = 0b1 → bits x0 y0 z0 = 1 0 1; 1023 on every axis fills 30 bits.
        assert_eq!(morton3(1, 0, 1), 0b101);
        assert_eq!(morton3(0, 0b10, 0), 0b010_000);
        assert_eq!(morton3(1023, 1023, 1023), (1 << 30) - 1);
        assert_eq!(morton3(1023, 0, 0), 0x0924_9249);
    }
}
