//! Seek, flee and arrive: steering towards or away from a point.

use crate::math::{Vec2, norm};

/// seek: `desired = norm(t - p) · max_speed; force = desired - v`.
#[inline]
pub fn seek(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(to_target) * max_speed - v
}

/// flee: `desired = norm(p - t) · max_speed; force = desired - v`.
#[inline]
pub fn flee(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(-to_target) * max_speed - v
}

/// arrive: `desired = norm(t - p) · max_speed · min(1, d / slowing_radius); force = desired - v`.
#[inline]
pub fn arrive(to_target: Vec2, v: Vec2, max_speed: f32, slowing_radius: f32) -> Vec2 {
    let d = to_target.length();
    norm(to_target) * (max_speed * (d / slowing_radius).min(1.0)) - v
}
