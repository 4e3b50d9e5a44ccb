//! Wander: a jittered point on a circle ahead of the agent.

use super::seek;
use crate::math::{Vec2, norm};

/// The wander circle's jitter step: `c = norm(c + (ux, uy) · jitter · dt) · R`, with `ux`, `uy`
/// uniform in [-1, 1).
#[inline]
pub fn wander_jitter(c: Vec2, ux: f32, uy: f32, jitter: f32, dt: f32, radius: f32) -> Vec2 {
    norm(c + Vec2::new(ux, uy) * (jitter * dt)) * radius
}

/// wander: `w = p + norm(v) · D + c; force = norm(w - p) · max_speed - v`.
#[inline]
pub fn wander(v: Vec2, c: Vec2, distance: f32, max_speed: f32) -> Vec2 {
    seek(norm(v) * distance + c, v, max_speed)
}
