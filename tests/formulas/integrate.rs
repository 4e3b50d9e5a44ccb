//! The integration step: steering truncated to `max_force`, divided by mass, velocity truncated
//! to `max_speed`, positions wrapped on toroidal bounds.

use throng_engine::math::Vec2;
use throng_engine::passes::{LastHeading, integrate};
use throng_engine::world::{Agents, Bounds, BoundsKind};

use crate::common::{assert_close, v};

fn open() -> Bounds {
    Bounds { kind: BoundsKind::Open, min: v(0.0, 0.0), max: v(10.0, 10.0) }
}

/// Agents with these columns (the ones `integrate` reads and writes; the rest empty).
fn agents(
    position: &[Vec2],
    velocity: &[Vec2],
    max_speed: &[f32],
    max_force: &[f32],
    mass: &[f32],
) -> Agents {
    Agents {
        position: position.to_vec(),
        velocity: velocity.to_vec(),
        max_speed: max_speed.to_vec(),
        max_force: max_force.to_vec(),
        mass: mass.to_vec(),
        last_heading: vec![Vec2::ZERO; position.len()],
        ..Agents::default()
    }
}

fn wrapped() -> Bounds {
    Bounds { kind: BoundsKind::Wrap, min: v(0.0, 0.0), max: v(10.0, 10.0) }
}

#[test]
fn integrate_truncates_steering_then_divides_by_mass() {
    // Agent 0: steering (3, 4) truncated to max_force 2.5: (1.5, 2); mass 0.5: accel (3, 4);
    // dt 0.5: v = (0.5, 0) + (1.5, 2) = (2, 2), |v| = 2.83 <= 10; p = (1, 1) + (1, 1) = (2, 2).
    // Agent 1: steering (0, -1) within max_force 5, mass 2: accel (0, -0.5); v = (1, 0) + (0, -0.25)
    // = (1, -0.25); p = (5, 5) + (0.5, -0.125) = (5.5, 4.875).
    let mut a = agents(
        &[v(1.0, 1.0), v(5.0, 5.0)],
        &[v(0.5, 0.0), v(1.0, 0.0)],
        &[10.0, 10.0],
        &[2.5, 5.0],
        &[0.5, 2.0],
    );
    integrate(0.5, &open(), &[v(3.0, 4.0), v(0.0, -1.0)], &mut a, LastHeading::Leave);
    let (p, vel) = (&a.position, &a.velocity);
    assert_close(vel[0], v(2.0, 2.0));
    assert_close(p[0], v(2.0, 2.0));
    assert_close(vel[1], v(1.0, -0.25));
    assert_close(p[1], v(5.5, 4.875));
}

#[test]
fn integrate_truncates_velocity_to_max_speed() {
    // steering (6, 8), max_force 100, mass 1, dt 1: v = (6, 8), |v| = 10 > max_speed 5:
    // v = (3, 4); p = (2, 2) + (3, 4) = (5, 6).
    let mut a = agents(&[v(2.0, 2.0)], &[Vec2::ZERO], &[5.0], &[100.0], &[1.0]);
    integrate(1.0, &open(), &[v(6.0, 8.0)], &mut a, LastHeading::Leave);
    let (p, vel) = (&a.position, &a.velocity);
    assert_close(vel[0], v(3.0, 4.0));
    assert_close(p[0], v(5.0, 6.0));
}

#[test]
fn integrate_wraps_on_toroidal_bounds_only() {
    // No steering, v = (2, -1), dt 0.5: p = (9.5, 0.2) + (1, -0.5) = (10.5, -0.3);
    // wrapped into [0, 10): (0.5, 9.7); open bounds leave it at (10.5, -0.3).
    let mut a = agents(&[v(9.5, 0.2)], &[v(2.0, -1.0)], &[5.0], &[1.0], &[1.0]);
    integrate(0.5, &wrapped(), &[Vec2::ZERO], &mut a, LastHeading::Leave);
    let (p, vel) = (&a.position, &a.velocity);
    assert_close(vel[0], v(2.0, -1.0));
    assert_close(p[0], v(0.5, 9.7));

    let mut a = agents(&[v(9.5, 0.2)], &[v(2.0, -1.0)], &[5.0], &[1.0], &[1.0]);
    integrate(0.5, &open(), &[Vec2::ZERO], &mut a, LastHeading::Leave);
    assert_close(a.position[0], v(10.5, -0.3));
}

/// `last_heading` follows the velocity while the agent moves faster than 10 % of its max
/// speed, and keeps the last direction once it has stopped; only when asked to track it.
#[test]
fn the_last_heading_is_kept_when_the_agent_stops() {
    // Agent 0: v = (3, 4) stays (no steering): heading (0.6, 0.8). Agent 1: v = (0.3, 0), max
    // speed 5: 0.3 < 0.5, stopped, its heading (0, 1) is kept. Agent 2: v = (0.6, 0) > 0.5:
    // heading (1, 0).
    let velocity = [v(3.0, 4.0), v(0.3, 0.0), v(0.6, 0.0)];
    let mut a = agents(&[Vec2::ZERO; 3], &velocity, &[5.0; 3], &[1.0; 3], &[1.0; 3]);
    a.last_heading = vec![Vec2::ZERO, v(0.0, 1.0), v(0.0, 1.0)];
    let zero = [Vec2::ZERO; 3];
    integrate(0.1, &open(), &zero, &mut a, LastHeading::Track);
    let heading = &a.last_heading;
    assert_close(heading[0], v(0.6, 0.8));
    assert_eq!(heading[1], v(0.0, 1.0));
    assert_close(heading[2], v(1.0, 0.0));
    // Without tracking (no group needs it) the column is left alone.
    a.last_heading = vec![v(0.0, 1.0); 3];
    integrate(0.1, &open(), &zero, &mut a, LastHeading::Leave);
    assert_eq!(a.last_heading, vec![v(0.0, 1.0); 3]);
}
