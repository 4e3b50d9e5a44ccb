//! The `integrate` pass: the Euler step. Reads: steering, max speeds, max forces, masses,
//! bounds, dt. Writes: row `i` of positions, velocities and last headings. Parallel: per agent.

use rayon::prelude::*;

use crate::math::{Vector, norm, trunc};
use crate::world::{Agents, Bounds};

/// An agent counts as moving, and its `last_heading` follows its velocity, while its speed is
/// above this share of its `max_speed`.
pub const MOVING_SHARE: f32 = 0.1;

/// Whether `integrate` keeps the agents' `last_heading` column up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastHeading {
    /// Some group follows a leader with `behind_when_stopped = "last_heading"`: the column
    /// follows each moving agent's velocity.
    Track,
    /// Nobody reads the column: it is left as it is (saving a square root per agent).
    Leave,
}

/// The `integrate` pass, exactly as the spec gives it:
/// `steering = trunc(steering, max_force); accel = steering / m;
///  v = trunc(v + accel · dt, max_speed); p = p + v · dt` (then wrapped on a toroidal world);
/// with [`LastHeading::Track`], `last_heading = norm(v)` while `|v| > MOVING_SHARE ·
/// max_speed`. Reads the agents' max speeds, max forces and masses; writes their positions,
/// velocities and last headings.
pub fn integrate<V: Vector>(
    dt: f32,
    bounds: &Bounds<V>,
    steering: &[V],
    agents: &mut Agents<V>,
    last_heading: LastHeading,
) {
    let Agents { max_speed, max_force, mass, position, velocity, last_heading: heading, .. } = agents;
    let (max_speed, max_force, mass) = (&max_speed[..], &max_force[..], &mass[..]);
    if last_heading == LastHeading::Leave {
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
        .zip(heading.par_iter_mut())
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
