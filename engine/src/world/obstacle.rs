//! `Obstacle`: static circles and axis-aligned rectangles, and their geometry (bounds, signed
//! distance, the avoidance centre, push-out).
//!
//! On a wrapped world every test runs in the obstacle's local frame: the agent's point is
//! taken as the minimum image nearest the obstacle's centre.

use serde::{Deserialize, Serialize};

use crate::math::{Vec2, norm};

/// A static obstacle. Rectangles are axis-aligned; a doorway is two rectangles with a gap.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
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
}

impl Obstacle {
    /// Centre and radius of a circle holding the obstacle.
    pub fn bounding_circle(&self) -> (Vec2, f32) {
        match *self {
            Obstacle::Circle { centre, radius } => (centre, radius),
            Obstacle::Rect { min, max } => (0.5 * (min + max), 0.5 * (max - min).length()),
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
