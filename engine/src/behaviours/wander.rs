//! Wander: a jittered point on a circle ahead of the agent.

use super::params::{Default, Kind, KindSpec, MAX_LENGTH, ParamSpec, Range, length, length0};
use super::seek;
use super::{Behaviour, REFERENCE_STEP_S};
use crate::math::{Vector, norm};

/// The wander circle's jitter step: `c = norm(c + u · jitter · √(dt · τ)) · R`, with `u`'s
/// components uniform in [-1, 1) (two in the plane; three in space, where the circle is a
/// sphere, as the Unity source's `Vector3` jitter) and τ = [`REFERENCE_STEP_S`]. The point does a random walk,
/// whose spread grows with time, not with ticks: so its step scales with √dt. At dt = τ it is
/// the sources' `jitter · dt`.
#[inline]
pub fn wander_jitter<V: Vector>(c: V, u: V, jitter: f32, dt: f32, radius: f32) -> V {
    norm(c + u * (jitter * jitter_scale(dt))) * radius
}

/// `√(dt · τ)`: the length a random walk of unit speed at the reference step τ covers in one
/// step of `dt` with the same spread per second.
#[inline]
pub fn jitter_scale(dt: f32) -> f32 {
    (dt * REFERENCE_STEP_S).sqrt()
}

/// wander: `w = p + norm(v) · D + c; force = norm(w - p) · max_speed - v`.
#[inline]
pub fn wander<V: Vector>(v: V, c: V, distance: f32, max_speed: f32) -> V {
    seek(norm(v) * distance + c, v, max_speed)
}

/// `wander`: seek a point on a circle ahead, jittered every tick.
pub const WANDER: KindSpec = KindSpec {
    name: "wander",
    force: "seek of `norm(v) · D + c`; each tick `c = norm(c + (ux, uy) · jitter · √(dt · 0.1 s)) · R`, `ux`, `uy` uniform in [−1, 1)",
    weighted: true,
    params: &[
        length("radius", Default::Value(1.0), "radius `R` of the wander circle"),
        length0("distance", Default::Value(2.0), "distance `D` of the circle ahead of the agent"),
        ParamSpec {
            key: "jitter",
            kind: Kind::Number(Range::NonNegative(MAX_LENGTH), Default::Value(1.0)),
            unit: "units/s",
            meaning: "how fast the point on the circle moves at a 0.1 s step (a random walk: its step scales with √dt)",
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
