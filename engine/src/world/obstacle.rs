//! `Obstacle`: static circles, axis-aligned rectangles, polygons and walls (polylines with a
//! thickness), and their geometry (bounds, signed distance, the avoidance centre, push-out).
//!
//! On a wrapped world every test runs in the obstacle's local frame: the agent's point is
//! taken as the minimum image nearest the obstacle's centre.

use serde::{Deserialize, Serialize};

use super::outline::{contains, nearest_on_chain, right_normal};
use crate::math::{Vec2, norm};

/// A static obstacle. Rectangles are axis-aligned; a doorway is two rectangles with a gap.
/// New variants go last (checkpoints and golden snapshots store variants by index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Obstacle {
    /// A disc.
    Circle {
        /// The disc's centre (world units).
        centre: Vec2,
        /// The disc's radius (world units, > 0 and ≤ 1e7 in a scenario).
        radius: f32,
    },
    /// An axis-aligned rectangle.
    Rect {
        /// Lower-left corner (world units).
        min: Vec2,
        /// Upper-right corner (world units; `max > min` on both axes in a scenario).
        max: Vec2,
    },
    /// A simple polygon (convex or not), vertices counter-clockwise (a scenario's clockwise
    /// list is reversed), at least 3, no zero-length edge, no two edges meeting but at
    /// neighbours' shared vertices.
    Polygon {
        /// The vertices (world units).
        vertices: Vec<Vec2>,
    },
    /// A wall: every point within `thickness / 2` of the open polyline through `points` (at
    /// least 2, no zero-length segment). A wall of thickness 0 still stops bodies, which have
    /// a radius.
    Wall {
        /// The polyline (world units).
        points: Vec<Vec2>,
        /// Its thickness (world units, ≥ 0).
        thickness: f32,
    },
}

impl Obstacle {
    /// The obstacle with every coordinate and length multiplied by `s` (a scaled scenario's).
    pub fn scaled(&self, s: f32) -> Obstacle {
        match *self {
            Obstacle::Circle { centre, radius } => {
                Obstacle::Circle { centre: centre * s, radius: radius * s }
            }
            Obstacle::Rect { min, max } => Obstacle::Rect { min: min * s, max: max * s },
            Obstacle::Polygon { ref vertices } => {
                Obstacle::Polygon { vertices: vertices.iter().map(|v| *v * s).collect() }
            }
            Obstacle::Wall { ref points, thickness } => {
                Obstacle::Wall { points: points.iter().map(|v| *v * s).collect(), thickness: thickness * s }
            }
        }
    }

    /// Centre and radius of a circle holding the obstacle.
    #[inline]
    pub fn bounding_circle(&self) -> (Vec2, f32) {
        match *self {
            Obstacle::Circle { centre, radius } => (centre, radius),
            Obstacle::Rect { min, max } => (0.5 * (min + max), 0.5 * (max - min).length()),
            Obstacle::Polygon { .. } | Obstacle::Wall { .. } => self.chain_circle(),
        }
    }

    /// The smallest axis-aligned box holding the obstacle: (min, max).
    pub fn bounding_box(&self) -> (Vec2, Vec2) {
        match *self {
            Obstacle::Circle { centre, radius } => {
                let r = Vec2::splat(radius.abs());
                (centre - r, centre + r)
            }
            Obstacle::Rect { min, max } => (min.min(max), min.max(max)),
            Obstacle::Polygon { ref vertices } => extent(vertices, 0.0),
            Obstacle::Wall { ref points, thickness } => extent(points, 0.5 * thickness),
        }
    }

    /// Signed distance from `q` to the obstacle's boundary: negative inside.
    #[inline]
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
            Obstacle::Polygon { .. } | Obstacle::Wall { .. } => self.chain_distance(q),
        }
    }

    /// [`Obstacle::signed_distance`] of a polygon or a wall, out of line so that the circles'
    /// and rectangles' stays small enough to inline in the threat and collision loops.
    #[inline(never)]
    fn chain_distance(&self, q: Vec2) -> f32 {
        match *self {
            Obstacle::Polygon { ref vertices } => {
                let d = (q - nearest_on_chain(vertices, true, q).0).length();
                if contains(vertices, q) { -d } else { d }
            }
            Obstacle::Wall { ref points, thickness } => {
                (q - nearest_on_chain(points, false, q).0).length() - 0.5 * thickness
            }
            _ => self.signed_distance(q),
        }
    }

    /// Is `q` inside the obstacle inflated by `r`?
    #[inline]
    pub fn inflated_contains(&self, q: Vec2, r: f32) -> bool {
        self.signed_distance(q) <= r
    }

    /// The spec's `centre(o)` for avoidance: a circle's centre; for a rectangle the point of it
    /// nearest to `ahead` (the nearest boundary point when `ahead` is inside), so long walls
    /// push sideways rather than away from their middle.
    #[inline]
    pub fn avoid_centre(&self, ahead: Vec2) -> Vec2 {
        match *self {
            Obstacle::Circle { centre, .. } => centre,
            Obstacle::Rect { min, max } => {
                let q = ahead.clamp(min, max);
                if q != ahead { q } else { nearest_face(min, max, ahead).0 }
            }
            _ => self.boundary(ahead).0,
        }
    }

    /// For a polygon or a wall: the point of its surface nearest to `q` and the outward normal
    /// there (for a point on the surface, the normal of its edge: ties go to the lower edge).
    /// For a circle or rectangle: their nearest surface point and normal as `push_out` uses.
    pub fn boundary(&self, q: Vec2) -> (Vec2, Vec2) {
        match *self {
            Obstacle::Circle { centre, radius } => {
                let n = if q == centre { Vec2::X } else { norm(q - centre) };
                (centre + n * radius, n)
            }
            Obstacle::Rect { min, max } => {
                let c = q.clamp(min, max);
                if c != q { (c, norm(q - c)) } else { nearest_face(min, max, q) }
            }
            Obstacle::Polygon { ref vertices } => {
                let (c, k) = nearest_on_chain(vertices, true, q);
                let edge = right_normal(vertices[k], vertices[(k + 1) % vertices.len()]);
                let n = if c == q {
                    edge
                } else if contains(vertices, q) {
                    norm(c - q)
                } else {
                    norm(q - c)
                };
                (c, n)
            }
            Obstacle::Wall { ref points, thickness } => {
                let (c, k) = nearest_on_chain(points, false, q);
                // On the centre line: the left side of its segment.
                let n = if c == q { -right_normal(points[k], points[k + 1]) } else { norm(q - c) };
                (c + n * (0.5 * thickness), n)
            }
        }
    }

    /// If a body of radius `r` at `p` overlaps the obstacle: the nearest position where it just
    /// touches it, and the outward normal there.
    #[inline]
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
            Obstacle::Polygon { .. } | Obstacle::Wall { .. } => self.chain_push_out(p, r),
        }
    }

    /// [`Obstacle::bounding_circle`] of a polygon or a wall (out of line, as `chain_distance`).
    #[inline(never)]
    fn chain_circle(&self) -> (Vec2, f32) {
        let (min, max) = self.bounding_box();
        (0.5 * (min + max), 0.5 * (max - min).length())
    }

    /// [`Obstacle::push_out`] of a polygon or a wall (out of line, as `chain_distance`).
    #[inline(never)]
    fn chain_push_out(&self, p: Vec2, r: f32) -> Option<(Vec2, Vec2)> {
        if self.signed_distance(p) >= r {
            return None;
        }
        let (surface, n) = self.boundary(p);
        Some((surface + n * r, n))
    }
}

/// The box of `points` grown by `pad`.
fn extent(points: &[Vec2], pad: f32) -> (Vec2, Vec2) {
    let lo = points.iter().fold(Vec2::splat(f32::INFINITY), |a, p| a.min(*p));
    let hi = points.iter().fold(Vec2::splat(f32::NEG_INFINITY), |a, p| a.max(*p));
    (lo - Vec2::splat(pad), hi + Vec2::splat(pad))
}

/// The point on the boundary of the box nearest to `p` (inside it) and the outward normal
/// there; ties go left, right, bottom, top.
pub(crate) fn nearest_face(min: Vec2, max: Vec2, p: Vec2) -> (Vec2, Vec2) {
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
    fn polygons_and_walls_measure_push_and_avoid() {
        // An L: the square [0, 4]² without [2, 4]², listed clockwise (normalised by the loader,
        // but the geometry does not depend on the order except for edge normals).
        let l = Obstacle::Polygon {
            vertices: vec![
                Vec2::new(0.0, 0.0),
                Vec2::new(4.0, 0.0),
                Vec2::new(4.0, 2.0),
                Vec2::new(2.0, 2.0),
                Vec2::new(2.0, 4.0),
                Vec2::new(0.0, 4.0),
            ],
        };
        assert_eq!(l.signed_distance(Vec2::new(1.0, 1.0)), -1.0);
        assert_eq!(l.signed_distance(Vec2::new(3.0, 3.0)), 1.0, "the notch is outside");
        assert_eq!(l.bounding_box(), (Vec2::ZERO, Vec2::splat(4.0)));
        // Just inside the top of the foot: out through it.
        let (p, n) = l.push_out(Vec2::new(3.0, 1.9), 0.5).expect("overlaps");
        assert!((p - Vec2::new(3.0, 2.5)).length() < 1e-6 && n == Vec2::Y, "{p} {n}");
        assert!(l.push_out(Vec2::new(3.0, 2.6), 0.5).is_none());
        // In the notch, nearer the upright (x = 2) than the foot (y = 2).
        assert_eq!(l.avoid_centre(Vec2::new(3.0, 3.5)), Vec2::new(2.0, 3.5));
        // A wall 0.2 thick along y = 0 from x 0 to 10, then up to (10, 5).
        let w = Obstacle::Wall {
            points: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0)],
            thickness: 0.2,
        };
        assert!((w.signed_distance(Vec2::new(5.0, 1.0)) - 0.9).abs() < 1e-6);
        let (p, n) = w.push_out(Vec2::new(5.0, -0.3), 0.5).expect("overlaps");
        assert!((p - Vec2::new(5.0, -0.6)).length() < 1e-6 && n == Vec2::NEG_Y, "{p} {n}");
        assert_eq!(w.bounding_box(), (Vec2::splat(-0.1), Vec2::new(10.1, 5.1)));
        assert!((w.avoid_centre(Vec2::new(12.0, 3.0)) - Vec2::new(10.1, 3.0)).length() < 1e-6);
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
