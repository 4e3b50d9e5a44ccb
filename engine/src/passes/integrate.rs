//! The `integrate` pass: the Euler step. Reads: steering, max speeds, max forces, masses,
//! bounds, dt. Writes: row `i` of positions, velocities and last headings. Parallel: per agent.

use rayon::prelude::*;

use crate::math::{Vector, norm, trunc};
use crate::world::Bounds;

/// An agent counts as moving, and its `last_heading` follows its velocity, while its speed is
/// above this share of its `max_speed`.
pub const MOVING_SHARE: f32 = 0.1;

/// The `integrate` pass, exactly as the spec gives it:
/// `steering = trunc(steering, max_force); accel = steering / m;
///  v = trunc(v + accel · dt, max_speed); p = p + v · dt` (then wrapped on a toroidal world);
/// with `track_heading` (some group follows a leader with `behind_when_stopped =
/// "last_heading"`), `last_heading = norm(v)` while `|v| > MOVING_SHARE · max_speed`;
/// without, the column is left as it is (saving a square root per agent).
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn integrate<V: Vector>(
    dt: f32,
    bounds: &Bounds<V>,
    steering: &[V],
    max_speed: &[f32],
    max_force: &[f32],
    mass: &[f32],
    position: &mut [V],
    velocity: &mut [V],
    last_heading: &mut [V],
    track_heading: bool,
) {
    if !track_heading {
        crate::par::for_each_position_velocity(position, velocity, |i, p, v| {
            let accel = trunc(steering[i], max_force[i]) / mass[i];
            *v = trunc(*v + accel * dt, max_speed[i]);
            *p = bounds.wrap(*p + *v * dt);
        });
        return;
    }
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
