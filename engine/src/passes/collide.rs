//! The `collide` pass: solid obstacles push out every body that ends a tick inside one, and
//! the tick's wall measures are taken on the way: how deep the deepest body reached into an
//! obstacle before the push-out (`wall_depth`), and how many bodies' steps went through one
//! (`wall_crossings`: the centre's path from where the tick found it to where it moved entered
//! an obstacle; a body fast enough to get past a thin wall's middle within one tick is pushed
//! out on the far side and ends looking unharmed, which only the step shows).
//! Reads: radii, positions before `integrate`, obstacles and their index, bounds. Writes: row
//! `i` of positions and velocities (the inward part of the velocity is removed). Parallel: per
//! agent; the measures are integer reductions (a maximum of the depths' bits, which order as
//! the depths do, and a count).

use crate::index::ObstacleIndex;
use crate::math::{Vec2, Vec3, Vector};
use crate::world::{Bounds, Obstacle, Solid};

/// What `collide` saw this tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WallMeasures {
    /// The deepest reach of a body into an obstacle before the push-out (units; 0 when none).
    pub depth: f32,
    /// Bodies whose centre's step entered an obstacle (one that it did not start in).
    pub crossings: u32,
}

/// The `collide` pass (solid obstacles): a body overlapping an obstacle is moved to where it
/// just touches it and loses the inward part of its velocity; up to four rounds resolve
/// corners where two obstacles meet. Reads radii, `before` (each row's position when the tick
/// began; without it no crossings are counted) and the obstacles; writes row `i` of position
/// and velocity. The first round's one query of the index serves both the push-out and the
/// step's crossing.
pub fn collide(
    index: &ObstacleIndex,
    obstacles: &[Obstacle],
    bounds: &Bounds,
    radius: &[f32],
    before: Option<&[Vec2]>,
    position: &mut [Vec2],
    velocity: &mut [Vec2],
) -> WallMeasures {
    let (depth, crossings) = crate::par::reduce_position_velocity(position, velocity, |i, p, v| {
        let r = radius[i];
        let mut first = 0.0f32;
        let mut crossed = false;
        for round in 0..4 {
            // The deepest overlap first, ties by obstacle index.
            let mut deepest: Option<(f32, u32)> = None;
            // Obstacle `o`'s distance from the body's centre, its overlap kept if the deepest.
            let mut consider = |o: u32| {
                let ob = &obstacles[o as usize];
                let distance = ob.signed_distance(index.local(o, *p));
                let depth = r - distance;
                if depth > 0.0 && deepest.is_none_or(|(d, k)| depth > d || (depth == d && o < k)) {
                    deepest = Some((depth, o));
                }
                distance
            };
            match before.filter(|_| round == 0) {
                // The step and the body at its end, in one query. A step that enters an
                // obstacle ends no farther from it than the step's length (from where it
                // entered): a step no longer than `r` is held by the body's own query, and
                // only an obstacle that near the end is traced; a longer one asks for
                // everything within half the step plus `r` of its middle.
                Some(before) => {
                    let a = before[i];
                    let step = bounds.offset(a, *p);
                    let length_squared = step.length_squared();
                    let (centre, reach) = if length_squared <= r * r {
                        (*p, r)
                    } else {
                        let length = length_squared.sqrt();
                        (a + step * 0.5, 0.5 * length + r)
                    };
                    index.candidates(centre, reach, |o| {
                        let distance = consider(o) - SURFACE;
                        // Within the step's length of the end (squared, without a root).
                        if !crossed && (distance <= 0.0 || distance * distance <= length_squared) {
                            let ob = &obstacles[o as usize];
                            crossed = enters(|q| ob.signed_distance(q), index.local(o, a), step);
                        }
                    });
                }
                None => index.candidates(*p, r, |o| {
                    consider(o);
                }),
            }
            let Some((depth, o)) = deepest else { break };
            if round == 0 {
                first = depth;
            }
            let ob = &obstacles[o as usize];
            let lp = index.local(o, *p);
            let Some((out, n)) = ob.push_out(lp, r) else { break };
            *p = bounds.wrap(*p + (out - lp));
            let inward = v.dot(n);
            if inward < 0.0 {
                *v -= n * inward;
            }
        }
        (first.to_bits(), crossed as u32)
    });
    WallMeasures { depth: f32::from_bits(depth), crossings }
}

/// [`collide`] in space: a body overlapping a solid is moved to where it just touches it and
/// loses the inward part of its velocity, deepest overlap first (ties by solid index), up to
/// four rounds. Every solid is tested (see `most_threatening_solid`). Measures the depth and
/// the crossings as [`collide`] does.
pub fn collide_solids(
    solids: &[Solid],
    bounds: &Bounds<Vec3>,
    radius: &[f32],
    before: Option<&[Vec3]>,
    position: &mut [Vec3],
    velocity: &mut [Vec3],
) -> WallMeasures {
    let (depth, crossings) = crate::par::reduce_position_velocity(position, velocity, |i, p, v| {
        let r = radius[i];
        let mut first = 0.0f32;
        let crossed = before.is_some_and(|before| {
            let a = before[i];
            let step = bounds.offset(a, *p);
            solids.iter().any(|s| enters(|q| s.signed_distance(q), s.local(bounds, a), step))
        });
        for round in 0..4 {
            let mut deepest: Option<(f32, usize)> = None;
            for (o, solid) in solids.iter().enumerate() {
                let depth = r - solid.signed_distance(solid.local(bounds, *p));
                if depth > 0.0 && deepest.is_none_or(|(d, _)| depth > d) {
                    deepest = Some((depth, o));
                }
            }
            let Some((depth, o)) = deepest else { break };
            if round == 0 {
                first = depth;
            }
            let solid = &solids[o];
            let lp = solid.local(bounds, *p);
            let Some((out, n)) = solid.push_out(lp, r) else { break };
            *p = bounds.wrap(*p + (out - lp));
            let inward = v.dot(n);
            if inward < 0.0 {
                *v -= n * inward;
            }
        }
        (first.to_bits(), crossed as u32)
    });
    WallMeasures { depth: f32::from_bits(depth), crossings }
}

/// How close to an obstacle's surface a centre's path may come before it counts as entering
/// (units): sphere tracing reaches a surface only in the limit, and rounding may leave it a
/// hair outside.
const SURFACE: f32 = 1e-4;

/// Whether the segment from `a` along `step`, starting outside (the signed distance `sd` above
/// [`SURFACE`]), reaches a point where it is at most [`SURFACE`]. Sphere tracing: from each point the segment goes on by that point's
/// distance to the surface, which no part of the segment within it can cross; 64 moves at
/// most (a segment grazing a surface), then its end is checked.
fn enters<V: Vector>(sd: impl Fn(V) -> f32, a: V, step: V) -> bool {
    let length = step.length();
    let mut d = sd(a);
    if d <= SURFACE || length == 0.0 {
        return false;
    }
    let direction = step * (1.0 / length);
    let mut along = 0.0f32;
    for _ in 0..64 {
        if d <= SURFACE {
            return true;
        }
        along += d;
        if along >= length {
            return false;
        }
        d = sd(a + direction * along);
    }
    sd(a + step) <= SURFACE
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::BoundsKind;

    /// `collide`'s measures of bodies of radius 0.01 stepping from `a` to `b`.
    fn measures(obstacles: &[Obstacle], bounds: &Bounds, a: &[Vec2], b: &[Vec2]) -> WallMeasures {
        let index = ObstacleIndex::build(obstacles, bounds);
        let mut p = b.to_vec();
        let mut v = vec![Vec2::ZERO; b.len()];
        collide(&index, obstacles, bounds, &vec![0.01; b.len()], Some(a), &mut p, &mut v)
    }

    fn crossings(obstacles: &[Obstacle], bounds: &Bounds, a: &[Vec2], b: &[Vec2]) -> u32 {
        measures(obstacles, bounds, a, b).crossings
    }

    fn open() -> Bounds {
        Bounds { kind: BoundsKind::Open, min: Vec2::new(-10.0, -10.0), max: Vec2::new(10.0, 10.0) }
    }

    #[test]
    fn a_step_through_a_thin_wall_is_a_crossing_and_one_beside_it_is_not() {
        // A wall along x = 0 from y = -1 to 1, 0.1 thick.
        let wall =
            [Obstacle::Wall { points: vec![Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0)], thickness: 0.1 }];
        let bounds = open();
        let before = [Vec2::new(-0.3, 0.0), Vec2::new(-0.3, 1.5), Vec2::new(-0.3, 0.5), Vec2::new(-0.3, 0.0)];
        // Through the middle; past its end (y = 1.5, clear of the 0.05 cap); stopping short
        // of its face (x = -0.06); and ending inside it (x = 0.01, its centre line 0).
        let after = [Vec2::new(0.3, 0.0), Vec2::new(0.3, 1.5), Vec2::new(-0.06, 0.5), Vec2::new(0.01, 0.0)];
        let each: Vec<u32> =
            (0..4).map(|i| crossings(&wall, &bounds, &before[i..=i], &after[i..=i])).collect();
        assert_eq!(each, [1, 0, 0, 1]);
        let both = measures(&wall, &bounds, &before, &after);
        // The deepest reach: the body ending at x = 0.01, 0.04 inside the face at 0.05, plus
        // its radius 0.01.
        assert_eq!(both.crossings, 2);
        assert!((both.depth - 0.05).abs() < 1e-6, "{}", both.depth);
        // Out of the wall from inside it (a body spawned there, pushed out): not a crossing.
        assert_eq!(crossings(&wall, &bounds, &[Vec2::new(0.01, 0.0)], &[Vec2::new(0.3, 0.0)]), 0);
        // Without the steps' starts, nothing is counted.
        let index = ObstacleIndex::build(&wall, &bounds);
        let (mut p, mut v) = (after.to_vec(), vec![Vec2::ZERO; 4]);
        assert_eq!(collide(&index, &wall, &bounds, &[0.01; 4], None, &mut p, &mut v).crossings, 0);
    }

    #[test]
    fn a_step_grazing_a_corner_is_traced_to_its_end() {
        // A unit square; a step along y = 1.1 over its top edge, then one along y = 0.999.
        let square = [Obstacle::Rect { min: Vec2::ZERO, max: Vec2::ONE }];
        let bounds = open();
        let over = crossings(&square, &bounds, &[Vec2::new(-1.0, 1.1)], &[Vec2::new(2.0, 1.1)]);
        let through = crossings(&square, &bounds, &[Vec2::new(-1.0, 0.999)], &[Vec2::new(2.0, 0.999)]);
        assert_eq!((over, through), (0, 1));
    }

    #[test]
    fn a_wrapped_step_goes_the_short_way_across_the_seam() {
        // A wrapped world 0..10; a wall at x = 5. A step from 9.9 to 0.1 crosses the seam, not
        // the wall; one from 4.9 to 5.1 crosses the wall.
        let bounds = Bounds { kind: BoundsKind::Wrap, min: Vec2::ZERO, max: Vec2::splat(10.0) };
        let wall =
            [Obstacle::Wall { points: vec![Vec2::new(5.0, 0.0), Vec2::new(5.0, 10.0)], thickness: 0.1 }];
        let seam = crossings(&wall, &bounds, &[Vec2::new(9.9, 5.0)], &[Vec2::new(0.1, 5.0)]);
        let middle = crossings(&wall, &bounds, &[Vec2::new(4.9, 5.0)], &[Vec2::new(5.1, 5.0)]);
        assert_eq!((seam, middle), (0, 1));
    }

    #[test]
    fn a_step_through_a_solid_in_space_is_a_crossing() {
        let bounds = Bounds { kind: BoundsKind::Open, min: Vec3::splat(-10.0), max: Vec3::splat(10.0) };
        let ball = [Solid::Ball { centre: Vec3::ZERO, radius: 0.5 }];
        let run = |a: Vec3, b: Vec3| {
            let (mut p, mut v) = (vec![b], vec![Vec3::ZERO]);
            collide_solids(&ball, &bounds, &[0.01], Some(&[a]), &mut p, &mut v).crossings
        };
        let through = run(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
        let past = run(Vec3::new(-1.0, 0.6, 0.0), Vec3::new(1.0, 0.6, 0.0));
        assert_eq!((through, past), (1, 0));
    }
}
