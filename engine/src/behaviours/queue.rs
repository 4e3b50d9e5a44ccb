//! Queue: the brake applied behind a blocker (the pass is `passes::queue_brake`).

use super::Behaviour;
use super::params::{Default, Kind, KindSpec, ParamSpec, Range, force, length, length0};
use crate::math::Vec2;

/// The queue's brake: `-steering · brake_factor - v + separation`.
#[inline]
pub fn queue_brake_force(steering: Vec2, v: Vec2, brake_factor: f32, separation: Vec2) -> Vec2 {
    -steering * brake_factor - v + separation
}

/// `queue`: brake behind a blocker, after the weighted sum.
pub const QUEUE: KindSpec = KindSpec {
    name: "queue",
    force: "behind a blocker, `−steering · brake_factor − v + separation`, added after the weighted sum",
    weighted: false,
    params: &[
        length0("queue_ahead", Default::Value(2.0), "how far ahead to look for a blocker"),
        length(
            "queue_radius",
            Default::Value(1.0),
            "blocker radius around `ahead`; hard stop within it of the agent",
        ),
        ParamSpec {
            key: "brake_factor",
            kind: Kind::Number(Range::NonNegative(10.0), Default::Value(0.8)),
            unit: "",
            meaning: "share of the steering the brake cancels",
        },
        ParamSpec {
            key: "hard_stop_factor",
            kind: Kind::Number(Range::NonNegative(1.0), Default::Value(0.3)),
            unit: "",
            meaning: "`v *= hard_stop_factor` when the blocker is within `queue_radius`",
        },
        length("separation_radius", Default::SameAs("queue_radius"), "separation inside the brake"),
        force("max_separation", 1.0, "separation magnitude inside the brake"),
    ],
    build: |a, _| {
        Ok(Behaviour::Queue {
            queue_ahead: a.number("queue_ahead"),
            queue_radius: a.number("queue_radius"),
            brake_factor: a.number("brake_factor"),
            hard_stop_factor: a.number("hard_stop_factor"),
            separation_radius: a.number("separation_radius"),
            max_separation: a.number("max_separation"),
        })
    },
};
