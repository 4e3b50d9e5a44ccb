//! Seek, flee and arrive: steering towards or away from a point.

use super::Behaviour;
use super::params::{Default, Invalid, Kind, KindSpec, ParamSpec, length, target};
use crate::math::{Vector, norm};
use crate::world::Target;

/// seek: `desired = norm(t - p) · max_speed; force = desired - v`.
#[inline]
pub fn seek<V: Vector>(to_target: V, v: V, max_speed: f32) -> V {
    norm(to_target) * max_speed - v
}

/// flee: `desired = norm(p - t) · max_speed; force = desired - v`.
#[inline]
pub fn flee<V: Vector>(to_target: V, v: V, max_speed: f32) -> V {
    norm(-to_target) * max_speed - v
}

/// arrive: `desired = norm(t - p) · max_speed · min(1, d / slowing_radius); force = desired - v`.
#[inline]
pub fn arrive<V: Vector>(to_target: V, v: V, max_speed: f32, slowing_radius: f32) -> V {
    let d = to_target.length();
    norm(to_target) * (max_speed * (d / slowing_radius).min(1.0)) - v
}

/// `seek`: to the target at full speed.
pub const SEEK: KindSpec = KindSpec {
    name: "seek",
    force: "`norm(t − p) · max_speed − v`",
    weighted: true,
    params: &[target("where to go"), ROUTE],
    build: |a, ctx| {
        let t = a.target("target");
        match a.choice("route") {
            "field" => routed(ctx.targets, t).map(|_| Behaviour::SeekField { target: t }),
            _ => Ok(Behaviour::Seek { target: t }),
        }
    },
};

/// `route`: the straight line, or the target's distance field around the walls.
pub(super) const ROUTE: ParamSpec = ParamSpec {
    key: "route",
    kind: Kind::Choice(&["straight", "field"], "straight"),
    unit: "",
    meaning: "`straight`: in a straight line; `field`: down the distance field of the target (a `point` target, or a `journey` target's stages) or node, around walls",
};

/// A routed behaviour needs a fixed point target, or the stages of a journey (a field is built
/// once per place).
fn routed(targets: &[Target], t: u16) -> Result<(), Invalid> {
    match targets[t as usize] {
        Target::Point(_) | Target::Journey => Ok(()),
        _ => Err(Invalid {
            key: "route",
            message:
                "route = \"field\" needs a target of kind \"point\" or \"journey\" (a distance field is built for a place)"
                    .into(),
        }),
    }
}

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
        ROUTE,
    ],
    build: |a, ctx| {
        let (target, slowing_radius) = (a.target("target"), a.number("slowing_radius"));
        match a.choice("route") {
            "field" => routed(ctx.targets, target).map(|_| Behaviour::ArriveField { target, slowing_radius }),
            _ => Ok(Behaviour::Arrive { target, slowing_radius }),
        }
    },
};
