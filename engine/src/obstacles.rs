//! Static obstacles: geometry, their own spatial index (built once per run), the `find_threats`
//! pass (most threatening obstacle, per the spec) and the `collide` pass (solid obstacles).
//!
//! On a wrapped world every test runs in the obstacle's local frame: the agent's point is
//! taken as the minimum image nearest the obstacle's centre.

use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rayon::prelude::*;

use crate::index::for_each_image;
use crate::math::{Vec2, norm};
use crate::world::{Bounds, Group, Obstacle};

/// "No obstacle" in the threat column.
pub const NO_THREAT: u32 = u32::MAX;

impl Obstacle {
    /// Centre and radius of a circle holding the obstacle.
    pub fn bounding_circle(&self) -> (Vec2, f32) {
        match *self {
            Obstacle::Circle { centre, radius } => (centre, radius),
            Obstacle::Rect { min, max } => (0.5 * (min + max), 0.5 * (max - min).length()),
        }
    }

    /// Signed distance from `q` to the obstacle's boundary: negative inside.
    pub fn signed_distance(&self, q: Vec2) -> f32 {
        match *self {
            Obstacle::Circle { centre, radius } => (q - centre).length() - radius,
            Obstacle::Rect { min, max } => {
                let nearest = q.clamp(min, max);
                if nearest != q {
                    (q - nearest).length()
                } else {
                    -(q.x - min.x).min(max.x - q.x).min(q.y - min.y).min(max.y - q.y)
                }
            }
        }
    }

    /// Is `q` inside the obstacle inflated by `r`?
    pub fn inflated_contains(&self, q: Vec2, r: f32) -> bool {
        self.signed_distance(q) <= r
    }

    /// The spec's `centre(o)` for avoidance: a circle's centre; for a rectangle the point of it
    /// nearest to `ahead` (the nearest boundary point when `ahead` is inside), so long walls
    /// push sideways rather than away from their middle.
    pub fn avoid_centre(&self, ahead: Vec2) -> Vec2 {
        match *self {
            Obstacle::Circle { centre, .. } => centre,
            Obstacle::Rect { min, max } => {
                let q = ahead.clamp(min, max);
                if q != ahead { q } else { nearest_face(min, max, ahead).0 }
            }
        }
    }

    /// If a body of radius `r` at `p` overlaps the obstacle: the nearest position where it just
    /// touches it, and the outward normal there.
    pub fn push_out(&self, p: Vec2, r: f32) -> Option<(Vec2, Vec2)> {
        match *self {
            Obstacle::Circle { centre, radius } => {
                let d = p - centre;
                let reach = radius + r;
                if d.length_squared() >= reach * reach {
                    return None;
                }
                // A body exactly on the centre leaves along +x: any fixed choice is deterministic.
                let n = if d == Vec2::ZERO { Vec2::X } else { norm(d) };
                Some((centre + n * reach, n))
            }
            Obstacle::Rect { min, max } => {
                let q = p.clamp(min, max);
                if q != p {
                    let d = p - q;
                    if d.length_squared() >= r * r {
                        return None;
                    }
                    let n = norm(d);
                    Some((q + n * r, n))
                } else {
                    let (face, n) = nearest_face(min, max, p);
                    Some((face + n * r, n))
                }
            }
        }
    }
}

/// The point on the boundary of the box nearest to `p` (inside it) and the outward normal
/// there; ties go left, right, bottom, top.
fn nearest_face(min: Vec2, max: Vec2, p: Vec2) -> (Vec2, Vec2) {
    let faces = [
        (p.x - min.x, Vec2::new(min.x, p.y), Vec2::NEG_X),
        (max.x - p.x, Vec2::new(max.x, p.y), Vec2::X),
        (p.y - min.y, Vec2::new(p.x, min.y), Vec2::NEG_Y),
        (max.y - p.y, Vec2::new(p.x, max.y), Vec2::Y),
    ];
    let mut best = faces[0];
    for f in &faces[1..] {
        if f.0 < best.0 {
            best = *f;
        }
    }
    (best.1, best.2)
}

/// The obstacles' spatial index: a k-d tree over the bounding-circle centres of ordinary
/// obstacles, and a short list of large ones (walls, much bigger than the typical obstacle)
/// tested every time, so one long wall does not inflate every query. Built once per run.
pub struct ObstacleIndex {
    bounds: Bounds,
    count: usize,
    tree: Option<ImmutableKdTree<f32, 2>>,
    /// Obstacle index of each tree item.
    small: Vec<u32>,
    /// Largest bounding radius in the tree.
    small_max_r: f32,
    large: Vec<u32>,
}

impl ObstacleIndex {
    pub fn build(obstacles: &[Obstacle], bounds: &Bounds) -> ObstacleIndex {
        let mut radii: Vec<f32> = obstacles.iter().map(|o| o.bounding_circle().1).collect();
        radii.sort_by(f32::total_cmp);
        let threshold = radii.get(radii.len() / 2).map_or(0.0, |m| 4.0 * m);
        let (mut small, mut large) = (Vec::new(), Vec::new());
        for (i, o) in obstacles.iter().enumerate() {
            if o.bounding_circle().1 <= threshold { small.push(i as u32) } else { large.push(i as u32) }
        }
        let points: Vec<[f32; 2]> = small
            .iter()
            .map(|&i| {
                let c = obstacles[i as usize].bounding_circle().0;
                [c.x, c.y]
            })
            .collect();
        let small_max_r =
            small.iter().map(|&i| obstacles[i as usize].bounding_circle().1).fold(0.0, f32::max);
        let tree = (!points.is_empty())
            .then(|| ImmutableKdTree::new_from_slice(&points).expect("k-d tree over finite points"));
        ObstacleIndex { bounds: *bounds, count: obstacles.len(), tree, small, small_max_r, large }
    }

    /// Was this index built for these obstacles and bounds? (Obstacles are static in a run.)
    pub fn fits(&self, obstacles: &[Obstacle], bounds: &Bounds) -> bool {
        self.count == obstacles.len() && self.bounds == *bounds
    }

    /// Calls `visit(o)` for every obstacle whose bounding circle may come within `r` of `p`.
    pub fn candidates(&self, p: Vec2, r: f32, mut visit: impl FnMut(u32)) {
        self.large.iter().for_each(|&o| visit(o));
        if let Some(tree) = &self.tree {
            let reach = r + self.small_max_r;
            let reach = reach + reach * 1e-4 + 1e-4;
            for_each_image(&self.bounds, p, reach, |q| {
                tree.query(&[q.x, q.y])
                    .within::<SquaredEuclidean<f32>>(reach * reach)
                    .unsorted()
                    .visit(|hit| visit(self.small[hit.item as usize]));
            });
        }
    }

    /// `p` as seen from obstacle `o`: its minimum image nearest the obstacle's centre.
    #[inline]
    pub fn local(&self, o: &Obstacle, p: Vec2) -> Vec2 {
        let c = o.bounding_circle().0;
        c + self.bounds.offset(c, p)
    }
}

/// The spec's look-ahead points: `ahead = p + norm(v)·see_ahead·dyn`, `ahead2` halfway, with
/// `dyn = |v| / max_speed` so slow agents look less far.
#[inline]
pub fn look_ahead(p: Vec2, v: Vec2, max_speed: f32, see_ahead: f32) -> (Vec2, Vec2) {
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
        let lp = index.local(o, p);
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

/// avoid_obstacles: `force = norm(ahead - centre(o)) · max_avoid_force`, zero with no threat.
pub fn avoid_force(
    index: &ObstacleIndex,
    o: &Obstacle,
    p: Vec2,
    v: Vec2,
    max_speed: f32,
    see_ahead: f32,
    max_avoid_force: f32,
) -> Vec2 {
    let lp = index.local(o, p);
    let (ahead, _) = look_ahead(lp, v, max_speed, see_ahead);
    avoid_direction(o, ahead) * max_avoid_force
}

/// The unit direction of the avoidance force: `norm(ahead − centre(o))`, except when `ahead`
/// is inside a rectangle. There the spec's `centre(o)` (the nearest boundary point) would make
/// `ahead − centre(o)` point *into* the wall, so the force takes the outward normal of that
/// nearest face instead: still sideways for a long wall, as the resolution intends, and out
/// of the obstacle, as the circle formula is.
pub fn avoid_direction(o: &Obstacle, ahead: Vec2) -> Vec2 {
    match *o {
        Obstacle::Rect { min, max } if ahead.clamp(min, max) == ahead => nearest_face(min, max, ahead).1,
        _ => norm(ahead - o.avoid_centre(ahead)),
    }
}

/// The `find_threats` pass. Reads positions, velocities, max speeds, radii, groups and the
/// obstacles; writes `threat[i]` (an obstacle index or [`NO_THREAT`]) for agent `i` only.
#[allow(clippy::too_many_arguments)] // a pass lists every column it reads
pub fn find_threats(
    index: &ObstacleIndex,
    obstacles: &[Obstacle],
    groups: &[Group],
    group: &[u16],
    position: &[Vec2],
    velocity: &[Vec2],
    max_speed: &[f32],
    radius: &[f32],
    threat: &mut [u32],
) {
    threat.par_iter_mut().enumerate().with_min_len(128).for_each(|(i, out)| {
        *out = groups[group[i] as usize]
            .see_ahead()
            .and_then(|see| {
                most_threatening(index, obstacles, position[i], velocity[i], max_speed[i], radius[i], see)
            })
            .unwrap_or(NO_THREAT);
    });
}

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
    position.par_iter_mut().zip(velocity.par_iter_mut()).enumerate().with_min_len(256).for_each(
        |(i, (p, v))| {
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
        },
    );
}

/// How far a body of radius `r` at `p` reaches into the nearest obstacle (0 when clear).
pub fn penetration(index: &ObstacleIndex, obstacles: &[Obstacle], p: Vec2, r: f32) -> f32 {
    let mut depth = 0.0f32;
    index.candidates(p, r, |o| {
        let ob = &obstacles[o as usize];
        depth = depth.max(r - ob.signed_distance(index.local(ob, p)));
    });
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_avoid_centre_is_the_nearest_point() {
        let wall = Obstacle::Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(100.0, 1.0) };
        // Ahead of the wall's far end: pushed straight up, not away from the wall's middle.
        assert_eq!(wall.avoid_centre(Vec2::new(90.0, 3.0)), Vec2::new(90.0, 1.0));
        // Inside: the nearest boundary point.
        assert_eq!(wall.avoid_centre(Vec2::new(50.0, 0.75)), Vec2::new(50.0, 1.0));
    }

    #[test]
    fn push_out_touches_the_surface() {
        let c = Obstacle::Circle { centre: Vec2::ZERO, radius: 2.0 };
        let (p, n) = c.push_out(Vec2::new(1.0, 0.0), 0.5).unwrap();
        assert_eq!((p, n), (Vec2::new(2.5, 0.0), Vec2::X));
        assert!(c.push_out(Vec2::new(3.0, 0.0), 0.5).is_none());
        let r = Obstacle::Rect { min: Vec2::ZERO, max: Vec2::new(4.0, 4.0) };
        assert_eq!(r.push_out(Vec2::new(3.5, 2.0), 0.5).unwrap(), (Vec2::new(4.5, 2.0), Vec2::X));
        assert_eq!(r.push_out(Vec2::new(4.2, 2.0), 0.5).unwrap().0, Vec2::new(4.5, 2.0));
    }
}
