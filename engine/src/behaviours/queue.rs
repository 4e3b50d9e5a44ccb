//! Queue: the brake applied behind a blocker (the pass is `passes::queue_brake`).

use super::params::{Default, Kind, KindSpec, ParamSpec, Range, force, length, length0};
use super::{Behaviour, REFERENCE_STEP_S};
use crate::math::Vector;

/// The queue's brake: `-steering · brake_factor - v + separation`.
#[inline]
pub fn queue_brake_force<V: Vector>(steering: V, v: V, brake_factor: f32, separation: V) -> V {
    -steering * brake_factor - v + separation
}

/// The direction a queueing agent looks for a blocker in: `v + steering · τ`, the velocity one
/// source frame ([`REFERENCE_STEP_S`]) of its summed steering gives. The sources look along
/// the velocity alone; but solid walls take the inward part of the velocity away every tick,
/// so an agent pressed against a wall beside a door keeps only a small velocity along the wall,
/// whose direction depends on the step, and the doorway's last agent left at 119.1 / 126.4 /
/// 130.4 s at dt 0.1 / 0.05 / 0.025. With the steering's frame added it leaves at 124.2 /
/// 122.1 / 121.9 s (docs/behaviours.md, "Time step"); in free flow the steering is small and
/// the direction is the velocity's, as in the sources.
#[inline]
pub fn look_along<V: Vector>(v: V, steering: V) -> V {
    v + steering * REFERENCE_STEP_S
}

/// The share of its speed an agent keeps over one tick of `dt` when it hard-stops:
/// `hard_stop_factor` per [`REFERENCE_STEP_S`], so `hard_stop_factor^(dt / τ)` per tick. The
/// sources scale the velocity once per frame; applied once per tick, the stop would grow
/// stronger as the step shrinks (the doorway emptied at 112.8 / 119.1 / 126.4 s at dt 0.2 /
/// 0.1 / 0.05).
#[inline]
pub fn hard_stop_per_tick(hard_stop_factor: f32, dt: f32) -> f32 {
    let ticks_per_reference = dt / REFERENCE_STEP_S;
    if ticks_per_reference == 1.0 {
        hard_stop_factor
    } else {
        crate::math::powf(hard_stop_factor, ticks_per_reference)
    }
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
            meaning: "share of speed kept per 0.1 s when the blocker is within `queue_radius` (`v *= hard_stop_factor^(dt / 0.1 s)` each tick)",
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
