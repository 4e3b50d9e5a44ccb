//! The `gates` pass: crossings of each gate line this tick, either way (doorway throughput).
//! Reads: positions before `integrate` and after `collide`, the gates, bounds. Writes: one
//! count per gate. Parallel: an integer count per gate across the pool.

use rayon::prelude::*;

use crate::math::Vec2;
use crate::world::{Bounds, Gate};

/// Counts, for every gate in order, the agents whose move from `before` to `after` (same rows)
/// crossed it.
pub fn gates(bounds: &Bounds, gates: &[Gate], before: &[Vec2], after: &[Vec2], crossings: &mut [u32]) {
    for (count, gate) in crossings.iter_mut().zip(gates) {
        *count = if gate.open { count_crossings(bounds, gate, before, after) } else { 0 };
    }
}

/// Crossings of `gate` by agents moving from `before` to `after` (same rows), either way.
fn count_crossings(bounds: &Bounds, gate: &Gate, before: &[Vec2], after: &[Vec2]) -> u32 {
    before
        .par_iter()
        .zip(after)
        .with_min_len(1024)
        .filter(|&(&a, &b)| {
            // The move as a short segment, even across a wrapped seam.
            let b = a + bounds.offset(a, b);
            segments_cross(a, b, gate.from, gate.to)
        })
        .count() as u32
}

/// Do segments `ab` and `cd` cross? Touching at an end point of `ab` counts once: the start is
/// excluded, so an agent standing on a gate is not counted every tick.
pub fn segments_cross(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let cross = |o: Vec2, p: Vec2, q: Vec2| (p - o).perp_dot(q - o);
    let d1 = cross(c, d, a);
    let d2 = cross(c, d, b);
    let d3 = cross(a, b, c);
    let d4 = cross(a, b, d);
    d1 != 0.0
        && ((d1 > 0.0) != (d2 > 0.0) || d2 == 0.0)
        && ((d3 > 0.0) != (d4 > 0.0) || d3 == 0.0 || d4 == 0.0)
}
