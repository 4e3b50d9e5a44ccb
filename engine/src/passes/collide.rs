//! The `collide` pass: solid obstacles push out every body that ends a tick inside one.
//! Reads: radii, obstacles and their index, bounds. Writes: row `i` of positions and
//! velocities (the inward part of the velocity is removed). Parallel: per agent.

use crate::index::ObstacleIndex;
use crate::math::{Vec2, Vec3};
use crate::world::{Bounds, Obstacle, Solid};

/// The `collide` pass (solid obstacles): a body overlapping an obstacle is moved to where it
/// just touches it and loses the inward part of its velocity; up to four rounds resolve
/// corners where two obstacles meet. Reads radii and the obstacles; writes row `i` of
/// position and velocity.
pub fn collide(
    index: &ObstacleIndex,
    obstacles: &[Obstacle],
    bounds: &Bounds,
    radius: &[f32],
    position: &mut [Vec2],
    velocity: &mut [Vec2],
) {
    crate::par::for_each_position_velocity(position, velocity, |i, p, v| {
        let r = radius[i];
        for _ in 0..4 {
            // The deepest overlap first, ties by obstacle index.
            let mut deepest: Option<(f32, u32)> = None;
            index.candidates(*p, r, |o| {
                let ob = &obstacles[o as usize];
                let depth = r - ob.signed_distance(index.local(ob, *p));
                if depth > 0.0 && deepest.is_none_or(|(d, k)| depth > d || (depth == d && o < k)) {
                    deepest = Some((depth, o));
                }
            });
            let Some((_, o)) = deepest else { break };
            let ob = &obstacles[o as usize];
            let lp = index.local(ob, *p);
            let Some((out, n)) = ob.push_out(lp, r) else { break };
            *p = bounds.wrap(*p + (out - lp));
            let inward = v.dot(n);
            if inward < 0.0 {
                *v -= n * inward;
            }
        }
    });
}

/// [`collide`] in space: a body overlapping a solid is moved to where it just touches it and
/// loses the inward part of its velocity, deepest overlap first (ties by solid index), up to
/// four rounds. Every solid is tested (see `most_threatening_solid`).
pub fn collide_solids(
    solids: &[Solid],
    bounds: &Bounds<Vec3>,
    radius: &[f32],
    position: &mut [Vec3],
    velocity: &mut [Vec3],
) {
    crate::par::for_each_position_velocity(position, velocity, |i, p, v| {
        let r = radius[i];
        for _ in 0..4 {
            let mut deepest: Option<(f32, usize)> = None;
            for (o, solid) in solids.iter().enumerate() {
                let depth = r - solid.signed_distance(solid.local(bounds, *p));
                if depth > 0.0 && deepest.is_none_or(|(d, _)| depth > d) {
                    deepest = Some((depth, o));
                }
            }
            let Some((_, o)) = deepest else { break };
            let solid = &solids[o];
            let lp = solid.local(bounds, *p);
            let Some((out, n)) = solid.push_out(lp, r) else { break };
            *p = bounds.wrap(*p + (out - lp));
            let inward = v.dot(n);
            if inward < 0.0 {
                *v -= n * inward;
            }
        }
    });
}
