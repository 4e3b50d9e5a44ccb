//! The `integrate` pass: the Euler step. Reads: steering, max speeds, max forces, masses,
//! bounds, dt. Writes: row `i` of positions, velocities and last headings. Parallel: per agent.

use rayon::prelude::*;

use crate::math::{Vec2, norm, trunc};
use crate::world::Bounds;

/// An agent counts as moving, and its `last_heading` follows its velocity, while its speed is
/// above this share of its `max_speed`.
pub const MOVING_SHARE: f32 = 0.1;

/// The `integrate` pass, exactly as the spec gives it:
/// `steering = trunc(steering, max_force); accel = steering / m;
///  v = trunc(v + accel · dt, max_speed); p = p + v · dt` (then wrapped on a toroidal world);
/// `last_heading = norm(v)` while `|v| > MOVING_SHARE · max_speed`.
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
    last_heading: &mut [Vec2],
) {
    position
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .zip(last_heading.par_iter_mut())
        .enumerate()
        .with_min_len(256)
        .with_max_len(4 * crate::par::PIECE_ROWS)
        .for_each(|(i, ((p, v), heading))| {
            let accel = trunc(steering[i], max_force[i]) / mass[i];
            *v = trunc(*v + accel * dt, max_speed[i]);
            *p = bounds.wrap(*p + *v * dt);
            let moving = max_speed[i] * MOVING_SHARE;
            if v.length_squared() > moving * moving {
                *heading = norm(*v);
            }
        });
}
