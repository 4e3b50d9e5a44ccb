//! Queue: the brake applied behind a blocker (the pass is `passes::queue_brake`).

use crate::math::Vec2;

/// The queue's brake: `-steering · brake_factor - v + separation`.
#[inline]
pub fn queue_brake_force(steering: Vec2, v: Vec2, brake_factor: f32, separation: Vec2) -> Vec2 {
    -steering * brake_factor - v + separation
}
