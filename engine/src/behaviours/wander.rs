//! Wander: a jittered point on a circle ahead of the agent.

use super::Behaviour;
use super::params::{Default, Kind, KindSpec, MAX_LENGTH, ParamSpec, Range, length, length0};
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

/// `wander`: seek a point on a circle ahead, jittered every tick.
pub const WANDER: KindSpec = KindSpec {
    name: "wander",
    force: "seek of `norm(v) · D + c`; each tick `c = norm(c + (ux, uy) · jitter · dt) · R`, `ux`, `uy` uniform in [−1, 1)",
    weighted: true,
    params: &[
        length("radius", Default::Value(1.0), "radius `R` of the wander circle"),
        length0("distance", Default::Value(2.0), "distance `D` of the circle ahead of the agent"),
        ParamSpec {
            key: "jitter",
            kind: Kind::Number(Range::NonNegative(MAX_LENGTH), Default::Value(1.0)),
            unit: "units/s",
            meaning: "how fast the point on the circle moves",
        },
    ],
    build: |a, _| {
        Ok(Behaviour::Wander {
            radius: a.number("radius"),
            distance: a.number("distance"),
            jitter: a.number("jitter"),
        })
    },
};
