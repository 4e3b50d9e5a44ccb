//! `Solid`: the obstacles of a world in space, balls and axis-aligned boxes, and their
//! geometry (signed distance, the avoidance centre and direction, push-out), as
//! [`Obstacle`](super::Obstacle) has it for the plane's circles and rectangles.
//!
//! On a wrapped world every test runs in the solid's local frame: the agent's point is taken
//! as the minimum image nearest the solid's centre ([`Solid::local`]).

use serde::{Deserialize, Serialize};

use super::Bounds;
use crate::math::{Vec3, norm};

/// A static obstacle of a world in space. New variants go last (checkpoints and golden
/// snapshots store variants by index).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Solid {
    /// A ball (a scenario's `circle` or `sphere` obstacle in space).
    Ball {
        /// The centre (world units).
        centre: Vec3,
        /// The radius (world units, > 0).
        radius: f32,
    },
    /// An axis-aligned box (a scenario's `rect` or `box` obstacle in space).
    Cuboid {
        /// The lowest corner (world units).
        min: Vec3,
        /// The highest corner (`max > min` on every axis).
        max: Vec3,
    },
}

impl Solid {
    /// The solid with every coordinate and length multiplied by `s` (a scaled scenario's).
    pub fn scaled(&self, s: f32) -> Solid {
        match *self {
            Solid::Ball { centre, radius } => Solid::Ball { centre: centre * s, radius: radius * s },
            Solid::Cuboid { min, max } => Solid::Cuboid { min: min * s, max: max * s },
        }
    }

    /// Centre and radius of a ball holding the solid.
    pub fn bounding_ball(&self) -> (Vec3, f32) {
        match *self {
            Solid::Ball { centre, radius } => (centre, radius),
            Solid::Cuboid { min, max } => (0.5 * (min + max), 0.5 * (max - min).length()),
        }
    }

    /// The image of `p` nearest the solid's centre (itself on an open world).
    #[inline]
    pub fn local(&self, bounds: &Bounds<Vec3>, p: Vec3) -> Vec3 {
        let c = self.bounding_ball().0;
        c + bounds.offset(c, p)
    }

    /// Distance from `q` to the surface: negative inside (minus the distance to the nearest
    /// face for a box).
    #[inline]
    pub fn signed_distance(&self, q: Vec3) -> f32 {
        match *self {
            Solid::Ball { centre, radius } => (q - centre).length() - radius,
            Solid::Cuboid { min, max } => {
                let nearest = q.clamp(min, max);
                if nearest != q { (q - nearest).length() } else { -nearest_face(min, max, q).2 }
            }
        }
    }

    /// Whether `q` lies within `r` of the solid (the solid inflated by a body's radius).
    #[inline]
    pub fn inflated_contains(&self, q: Vec3, r: f32) -> bool {
        self.signed_distance(q) <= r
    }

    /// The spec's `centre(o)` for avoidance: a ball's centre; for a box the point of it nearest
    /// to `ahead` (the nearest face's point when `ahead` is inside), so a long slab pushes
    /// sideways rather than away from its middle.
    #[inline]
    pub fn avoid_centre(&self, ahead: Vec3) -> Vec3 {
        match *self {
            Solid::Ball { centre, .. } => centre,
            Solid::Cuboid { min, max } => {
                let q = ahead.clamp(min, max);
                if q != ahead { q } else { nearest_face(min, max, ahead).0 }
            }
        }
    }

    /// The unit direction of the avoidance force: `norm(ahead − centre(o))`, except inside a
    /// box, where that would point into it: there, the outward normal of the nearest face.
    pub fn avoid_direction(&self, ahead: Vec3) -> Vec3 {
        match *self {
            Solid::Cuboid { min, max } if ahead.clamp(min, max) == ahead => nearest_face(min, max, ahead).1,
            _ => norm(ahead - self.avoid_centre(ahead)),
        }
    }

    /// Where a body of radius `r` at `p` overlapping the solid goes to just touch it, and the
    /// outward normal there; `None` when it does not overlap.
    pub fn push_out(&self, p: Vec3, r: f32) -> Option<(Vec3, Vec3)> {
        match *self {
            Solid::Ball { centre, radius } => {
                let d = p - centre;
                let reach = radius + r;
                if d.length_squared() >= reach * reach {
                    return None;
                }
                // A body exactly on the centre leaves upwards: any fixed choice is deterministic.
                let n = if d == Vec3::ZERO { Vec3::Z } else { norm(d) };
                Some((centre + n * reach, n))
            }
            Solid::Cuboid { min, max } => {
                let q = p.clamp(min, max);
                if q != p {
                    let d = p - q;
                    if d.length_squared() >= r * r {
                        return None;
                    }
                    let n = norm(d);
                    Some((q + n * r, n))
                } else {
                    let (face, n, _) = nearest_face(min, max, p);
                    Some((face + n * r, n))
                }
            }
        }
    }
}

/// For `p` inside the box `[min, max]`: the point of the nearest face straight out from `p`,
/// that face's outward normal, and the distance to it (ties go to the first face in the
/// order −x, +x, −y, +y, −z, +z).
fn nearest_face(min: Vec3, max: Vec3, p: Vec3) -> (Vec3, Vec3, f32) {
    let faces = [
        (p.x - min.x, Vec3::new(min.x, p.y, p.z), Vec3::NEG_X),
        (max.x - p.x, Vec3::new(max.x, p.y, p.z), Vec3::X),
        (p.y - min.y, Vec3::new(p.x, min.y, p.z), Vec3::NEG_Y),
        (max.y - p.y, Vec3::new(p.x, max.y, p.z), Vec3::Y),
        (p.z - min.z, Vec3::new(p.x, p.y, min.z), Vec3::NEG_Z),
        (max.z - p.z, Vec3::new(p.x, p.y, max.z), Vec3::Z),
    ];
    let mut best = faces[0];
    for f in &faces[1..] {
        if f.0 < best.0 {
            best = *f;
        }
    }
    (best.1, best.2, best.0)
}
