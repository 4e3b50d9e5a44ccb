//! Random walk: waypoints in a cone towards the target that narrows as the agent closes in.

use crate::math::{PI, Vec2, lerp, norm, rotate};

/// Random walk: the next waypoint, as an offset from the agent, and whether it is the target
/// itself (the last, straight leg). `u` in [0, 1) and `left` are the agent's own draws.
/// `step = clamp(d/2, min_step, max_step)`; past the target, go straight; otherwise turn
/// `U(0, half_fov)` to a random side, `half_fov = lerp(0, π/2, min(d, aggro)/aggro) / 2`.
pub fn random_walk_step(
    to_target: Vec2,
    aggro_radius: f32,
    min_step: f32,
    max_step: f32,
    u: f32,
    left: bool,
) -> (Vec2, bool) {
    let d = to_target.length();
    let step = (d * 0.5).clamp(min_step, max_step);
    if step > d {
        return (to_target, true);
    }
    let half_fov = lerp(0.0, PI / 2.0, d.clamp(0.0, aggro_radius) / aggro_radius) * 0.5;
    let angle = u * half_fov * if left { 1.0 } else { -1.0 };
    (rotate(norm(to_target) * step, angle), false)
}

/// Random-walk states (`Agents::walk_state`).
pub const WALK_NONE: u8 = 0;
pub const WALK_WAYPOINT: u8 = 1;
pub const WALK_FINAL: u8 = 2;
