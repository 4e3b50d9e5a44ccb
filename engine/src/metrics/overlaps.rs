//! Bodies that overlap: the pairs closer than the sum of their radii (the `overlap_pairs`
//! metric) and the pairs touching past `PENETRATION_TOLERANCE` (SteerBench's collisions), both
//! found on a grid whose cells are as wide as the widest pair's reach.

use rayon::prelude::*;

use super::PENETRATION_TOLERANCE;
use crate::index::{Point, SpatialIndex};
use crate::world::World;

/// Pairs closer than the sum of their radii, each counted once (by the lower id). Builds
/// `index` for this tick (`touching` reuses it).
pub(super) fn count<V: Point>(index: &mut SpatialIndex<V>, world: &World<V>, targeted: &[bool]) -> u64 {
    let a = &world.agents;
    let max_r = a.radius.iter().copied().fold(0.0f32, f32::max);
    // A grid with cells as wide as the widest pair's reach: a query reads 3 × 3 (× 3) cells of a
    // fraction of an agent each, where a k-d query would scan whole 64-point leaves. The
    // count is exact with either index.
    index.build_with_cell(&world.bounds, &a.position, &a.id, &a.group, targeted, 2.0 * max_r);
    let index = &*index;
    (0..a.len())
        .into_par_iter()
        .with_min_len(256)
        .map(|i| {
            let mut count = 0u64;
            let p = a.position[i];
            index.candidates(p, a.radius[i] + max_r, |row| {
                let j = row as usize;
                if a.id[j] > a.id[i] {
                    let reach = a.radius[i] + a.radius[j];
                    if world.bounds.offset(p, a.position[j]).length_squared() < reach * reach {
                        count += 1;
                    }
                }
            });
            count
        })
        .sum()
}

/// The pairs of ids (lower first) whose bodies overlap by more than `PENETRATION_TOLERANCE`,
/// from the grid `count` built this tick; in row order, which `SteerBenchState::observe` sorts.
pub(super) fn touching<V: Point>(index: &SpatialIndex<V>, world: &World<V>) -> Vec<(u32, u32)> {
    let a = &world.agents;
    let max_r = a.radius.iter().copied().fold(0.0f32, f32::max);
    (0..a.len())
        .into_par_iter()
        .with_min_len(256)
        .flat_map_iter(|i| {
            let mut pairs = Vec::new();
            let p = a.position[i];
            index.candidates(p, a.radius[i] + max_r, |row| {
                let j = row as usize;
                if a.id[j] > a.id[i] {
                    // Touching: reaching more than the tolerance into each other, as
                    // SteerSuite counts a collision past its epsilon.
                    let reach = a.radius[i] + a.radius[j];
                    if reach - world.bounds.offset(p, a.position[j]).length() > PENETRATION_TOLERANCE {
                        pairs.push((a.id[i], a.id[j]));
                    }
                }
            });
            pairs
        })
        .collect()
}
