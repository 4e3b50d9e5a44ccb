//! Obstacle avoidance: the look-ahead points, the most threatening obstacle and the avoidance force.

use super::Behaviour;
use super::params::{Default, KindSpec, force, length};
use crate::index::ObstacleIndex;
use crate::math::{Vec2, Vec3, Vector, norm};
use crate::world::nearest_face;
use crate::world::{Bounds, Obstacle, Solid};

/// "No obstacle" in the threat column.
pub const NO_THREAT: u32 = u32::MAX;

/// The spec's look-ahead points: `ahead = p + norm(v)·see_ahead·dyn`, `ahead2` halfway, with
/// `dyn = |v| / max_speed` so slow agents look less far.
#[inline]
pub fn look_ahead<V: Vector>(p: V, v: V, max_speed: f32, see_ahead: f32) -> (V, V) {
    let dynamic = (v.length() / max_speed).min(1.0);
    let h = norm(v) * (see_ahead * dynamic);
    (p + h, p + h * 0.5)
}

/// The most threatening obstacle for one agent: among obstacles (inflated by the agent's
/// radius) containing `ahead`, `ahead2` or `p`, the one whose `centre(o)` is nearest to `p`,
/// ties by obstacle index.
pub fn most_threatening(
    index: &ObstacleIndex,
    obstacles: &[Obstacle],
    p: Vec2,
    v: Vec2,
    max_speed: f32,
    radius: f32,
    see_ahead: f32,
) -> Option<u32> {
    let (ahead, ahead2) = look_ahead(p, v, max_speed, see_ahead);
    let mid = 0.5 * (p + ahead);
    let reach = 0.5 * (ahead - p).length() + radius;
    let mut best: Option<(f32, u32)> = None;
    index.candidates(mid, reach, |i| {
        let o = &obstacles[i as usize];
        let lp = index.local(i, p);
        let shift = lp - p;
        let (la, la2) = (ahead + shift, ahead2 + shift);
        if o.inflated_contains(la, radius)
            || o.inflated_contains(la2, radius)
            || o.inflated_contains(lp, radius)
        {
            let d = (lp - o.avoid_centre(la)).length();
            if best.is_none_or(|(bd, bi)| d < bd || (d == bd && i < bi)) {
                best = Some((d, i));
            }
        }
    });
    best.map(|(_, i)| i)
}

/// avoid_obstacles: `force = norm(ahead - centre(o)) · max_avoid_force`, zero with no threat;
/// `local` is the agent's position as seen from the obstacle (`ObstacleIndex::local`).
pub fn avoid_force(
    o: &Obstacle,
    local: Vec2,
    v: Vec2,
    max_speed: f32,
    see_ahead: f32,
    max_avoid_force: f32,
) -> Vec2 {
    let (ahead, _) = look_ahead(local, v, max_speed, see_ahead);
    avoid_direction(o, ahead) * max_avoid_force
}

/// The unit direction of the avoidance force: `norm(ahead − centre(o))`, except when `ahead`
/// is inside a rectangle, a polygon or a wall. There the spec's `centre(o)` (the nearest boundary point) would make
/// `ahead − centre(o)` point *into* the wall, so the force takes the outward normal of that
/// nearest face instead: still sideways for a long wall, as the resolution intends, and out
/// of the obstacle, as the circle formula is.
pub fn avoid_direction(o: &Obstacle, ahead: Vec2) -> Vec2 {
    match *o {
        Obstacle::Rect { min, max } if ahead.clamp(min, max) == ahead => nearest_face(min, max, ahead).1,
        Obstacle::Polygon { .. } | Obstacle::Wall { .. } if o.signed_distance(ahead) <= 0.0 => {
            o.boundary(ahead).1
        }
        _ => norm(ahead - o.avoid_centre(ahead)),
    }
}

/// [`most_threatening`] among space's solids: every solid whose bounding ball can reach the
/// look-ahead segment is tested (no index: a scene in space holds tens of solids, and each
/// agent tests them all, `O(agents × solids)`).
pub fn most_threatening_solid(
    solids: &[Solid],
    bounds: &Bounds<Vec3>,
    p: Vec3,
    v: Vec3,
    max_speed: f32,
    radius: f32,
    see_ahead: f32,
) -> Option<u32> {
    let (ahead, ahead2) = look_ahead(p, v, max_speed, see_ahead);
    let mid = 0.5 * (p + ahead);
    let reach = 0.5 * (ahead - p).length() + radius;
    let mut best: Option<(f32, u32)> = None;
    for (i, o) in solids.iter().enumerate() {
        let (centre, extent) = o.bounding_ball();
        if bounds.offset(centre, mid).length() > reach + extent {
            continue;
        }
        let lp = o.local(bounds, p);
        let shift = lp - p;
        let (la, la2) = (ahead + shift, ahead2 + shift);
        if o.inflated_contains(la, radius)
            || o.inflated_contains(la2, radius)
            || o.inflated_contains(lp, radius)
        {
            let d = (lp - o.avoid_centre(la)).length();
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, i as u32));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// [`avoid_force`] against a solid of space: `norm(ahead − centre(o)) · max_avoid_force`
/// (the nearest face's outward normal when `ahead` is inside a box).
pub fn avoid_solid_force(
    o: &Solid,
    bounds: &Bounds<Vec3>,
    p: Vec3,
    v: Vec3,
    max_speed: f32,
    see_ahead: f32,
    max_avoid_force: f32,
) -> Vec3 {
    let (ahead, _) = look_ahead(o.local(bounds, p), v, max_speed, see_ahead);
    o.avoid_direction(ahead) * max_avoid_force
}

/// `avoid_obstacles`: steer away from the most threatening obstacle.
pub const AVOID_OBSTACLES: KindSpec = KindSpec {
    name: "avoid_obstacles",
    force: "`norm(ahead − centre(o)) · max_avoid_force` for the most threatening obstacle `o`",
    weighted: true,
    params: &[
        length(
            "see_ahead",
            Default::Value(5.0),
            "look-ahead at full speed (scaled by `\\|v\\| / max_speed`)",
        ),
        force("max_avoid_force", 1.0, "magnitude of the avoidance force"),
    ],
    build: |a, _| {
        Ok(Behaviour::AvoidObstacles {
            see_ahead: a.number("see_ahead"),
            max_avoid_force: a.number("max_avoid_force"),
        })
    },
};
