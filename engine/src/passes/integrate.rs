//! The `integrate` pass: the Euler step. Reads: steering, max speeds, max forces, masses,
//! bounds, dt. Writes: row `i` of positions and velocities. Parallel: per agent.

use crate::math::{Vec2, trunc};
use crate::world::Bounds;

/// The `integrate` pass, exactly as the spec gives it:
/// `steering = trunc(steering, max_force); accel = steering / m;
///  v = trunc(v + accel · dt, max_speed); p = p + v · dt` (then wrapped on a toroidal world).
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn integrate(
    dt: f32,
    bounds: &Bounds,
    steering: &[Vec2],
    max_speed: &[f32],
    max_force: &[f32],
    mass: &[f32],
    position: &mut [Vec2],
    velocity: &mut [Vec2],
) {
    crate::par::for_each_position_velocity(position, velocity, |i, p, v| {
        let accel = trunc(steering[i], max_force[i]) / mass[i];
        *v = trunc(*v + accel * dt, max_speed[i]);
        *p = bounds.wrap(*p + *v * dt);
    });
}
