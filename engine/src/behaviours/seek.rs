//! Seek, flee and arrive: steering towards or away from a point.

use super::Behaviour;
use super::params::{Default, KindSpec, length, target};
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

/// `seek`: to the target at full speed.
pub const SEEK: KindSpec = KindSpec {
    name: "seek",
    force: "`norm(t − p) · max_speed − v`",
    weighted: true,
    params: &[target("where to go")],
    build: |a, _| Ok(Behaviour::Seek { target: a.target("target") }),
};

/// `flee`: away from the target at full speed.
pub const FLEE: KindSpec = KindSpec {
    name: "flee",
    force: "`norm(p − t) · max_speed − v`",
    weighted: true,
    params: &[target("what to flee from")],
    build: |a, _| Ok(Behaviour::Flee { target: a.target("target") }),
};

/// `arrive`: seek, slowing down inside the slowing radius.
pub const ARRIVE: KindSpec = KindSpec {
    name: "arrive",
    force: "`norm(t − p) · max_speed · min(1, d / slowing_radius) − v`",
    weighted: true,
    params: &[
        target("where to stop"),
        length("slowing_radius", Default::Value(5.0), "distance at which the agent starts slowing"),
    ],
    build: |a, _| {
        Ok(Behaviour::Arrive { target: a.target("target"), slowing_radius: a.number("slowing_radius") })
    },
};
