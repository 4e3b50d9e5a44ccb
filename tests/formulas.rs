//! Formula tests: every behaviour of `engine/src/behaviours.rs` and the integration step against
//! values computed by hand from `shared/spec/behaviours.md`. The arithmetic is in the comments;
//! no expected value is produced by the code under test.

use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};

use throng_engine::behaviours::{EvadePrediction, SeparationVariant};
use throng_engine::behaviours::{
    alignment, arrive, cohesion, evade, flee, flock_target, moving_point, pursuit, seek, separation, wander,
    wander_jitter,
};
use throng_engine::math::Vec2;
use throng_engine::passes::integrate;
use throng_engine::world::{Bounds, BoundsKind, World};
use throng_engine::{IndexKind, Pipeline, Scenario};

use crate::common::{assert_close, v};

// ---------------------------------------------------------------------------------------------
// Seek, flee, arrive

#[test]
fn seek_steers_from_velocity_to_full_speed_towards_target() {
    // p = (0,0), v = (1,0), t = (3,4), max_speed 10: norm(t - p) = (0.6, 0.8),
    // desired = (6, 8), force = desired - v = (5, 8).
    assert_close(seek(v(3.0, 4.0), v(1.0, 0.0), 10.0), v(5.0, 8.0));
    // p = (2,2), t = (2,-3): t - p = (0,-5), norm = (0,-1), max_speed 2: desired = (0,-2);
    // v = (-1, 1): force = (1, -3).
    assert_close(seek(v(0.0, -5.0), v(-1.0, 1.0), 2.0), v(1.0, -3.0));
}

#[test]
fn seek_on_the_target_only_cancels_velocity() {
    // t = p: norm(0) = 0 (never NaN), desired = 0, force = -v = (-2, 1).
    assert_eq!(seek(Vec2::ZERO, v(2.0, -1.0), 5.0), v(-2.0, 1.0));
}

#[test]
fn flee_steers_away_from_target() {
    // p = (0,0), v = (1,0), t = (3,4), max_speed 10: norm(p - t) = (-0.6, -0.8),
    // desired = (-6, -8), force = (-7, -8).
    assert_close(flee(v(3.0, 4.0), v(1.0, 0.0), 10.0), v(-7.0, -8.0));
    // On the target: norm(0) = 0, force = -v.
    assert_eq!(flee(Vec2::ZERO, v(0.5, 0.25), 3.0), v(-0.5, -0.25));
}

#[test]
fn arrive_outside_slowing_radius_is_seek() {
    // t - p = (6, 8), d = 10, slowing_radius 5: min(1, 10/5) = 1.
    // desired = (0.6, 0.8) * 2 = (1.2, 1.6); v = (0, 1): force = (1.2, 0.6).
    assert_close(arrive(v(6.0, 8.0), v(0.0, 1.0), 2.0, 5.0), v(1.2, 0.6));
}

#[test]
fn arrive_inside_slowing_radius_scales_desired_speed() {
    // t - p = (3, 4), d = 5, slowing_radius 20: factor 5/20 = 0.25.
    // desired = (0.6, 0.8) * 8 * 0.25 = (1.2, 1.6); v = (1, 1): force = (0.2, 0.6).
    assert_close(arrive(v(3.0, 4.0), v(1.0, 1.0), 8.0, 20.0), v(0.2, 0.6));
    // Exactly on the slowing circle: d = 5 = slowing_radius, factor 1: desired = (0.6, 0.8) * 8.
    assert_close(arrive(v(3.0, 4.0), Vec2::ZERO, 8.0, 5.0), v(4.8, 6.4));
}

#[test]
fn arrive_on_the_target_brakes_to_rest() {
    // d = 0: desired = 0 (norm(0) = 0, factor 0), force = -v.
    assert_eq!(arrive(Vec2::ZERO, v(0.5, -2.0), 4.0, 3.0), v(-0.5, 2.0));
}

// ---------------------------------------------------------------------------------------------
// Wander

#[test]
fn wander_jitter_moves_then_projects_onto_circle() {
    // c = (3, 0), jitter step (ux, uy) * jitter * dt = (0, 1) * 8 * 0.5 = (0, 4): c = (3, 4),
    // |c| = 5, norm = (0.6, 0.8), radius 10: c = (6, 8).
    assert_close(wander_jitter(v(3.0, 0.0), 0.0, 1.0, 8.0, 0.5, 10.0), v(6.0, 8.0));
    // c = (1, 0), step (-1, 0.5) * 2 * 1 = (-2, 1): c = (-1, 1), norm = (-0.7071068, 0.7071068),
    // radius 2: c = (-1.4142136, 1.4142136).
    assert_close(wander_jitter(v(1.0, 0.0), -1.0, 0.5, 2.0, 1.0, 2.0), v(-SQRT_2, SQRT_2));
    // jitter 0 only re-projects: c = (0, -0.5), radius 3: c = (0, -3).
    assert_close(wander_jitter(v(0.0, -0.5), 0.9, -0.9, 0.0, 1.0, 3.0), v(0.0, -3.0));
}

#[test]
fn wander_jitter_cancelling_the_offset_gives_zero_not_nan() {
    // c = (1, 0), step (-0.5, 0) * 2 * 1 = (-1, 0): c = (0, 0), norm(0) = 0, so c = 0.
    assert_eq!(wander_jitter(v(1.0, 0.0), -0.5, 0.0, 2.0, 1.0, 5.0), Vec2::ZERO);
}

#[test]
fn wander_seeks_the_point_on_the_circle_ahead() {
    // v = (2, 0), c = (0, 3), D = 4: w - p = norm(v) * 4 + c = (4, 3), |.| = 5,
    // desired = (0.8, 0.6) * 5 = (4, 3), force = (4, 3) - (2, 0) = (2, 3).
    assert_close(wander(v(2.0, 0.0), v(0.0, 3.0), 4.0, 5.0), v(2.0, 3.0));
    // Standing still: norm(v) = 0, so w - p = c = (3, 4): desired = (0.6, 0.8) * 10 = (6, 8).
    assert_close(wander(Vec2::ZERO, v(3.0, 4.0), 7.0, 10.0), v(6.0, 8.0));
}

// ---------------------------------------------------------------------------------------------
// Pursuit and evade

#[test]
fn pursuit_dynamic_look_ahead_is_distance_over_max_speed() {
    // q.p - p = (8, 0), q.v = (0, 3), max_speed 4: T = 8 / 4 = 2 s, future = (8, 0) + (0, 6)
    // = (8, 6), |.| = 10, desired = (0.8, 0.6) * 4 = (3.2, 2.4), v = (1, 0): force = (2.2, 2.4).
    assert_close(pursuit(v(8.0, 0.0), v(0.0, 3.0), v(1.0, 0.0), 4.0, None), v(2.2, 2.4));
    // A still quarry is plain seek: q.p - p = (0, -2), max_speed 3, v = (1, 0):
    // desired = (0, -3), force = (-1, -3).
    assert_close(pursuit(v(0.0, -2.0), Vec2::ZERO, v(1.0, 0.0), 3.0, None), v(-1.0, -3.0));
}

#[test]
fn pursuit_fixed_look_ahead_overrides_the_dynamic_one() {
    // q.p - p = (3, 0), q.v = (0, 8), T fixed 0.5 s: future = (3, 4), desired = (0.6, 0.8) * 10
    // = (6, 8), v = 0: force = (6, 8).
    assert_close(pursuit(v(3.0, 0.0), v(0.0, 8.0), Vec2::ZERO, 10.0, Some(0.5)), v(6.0, 8.0));
    // The dynamic T would be 3 / 10 = 0.3 s: future (3, 2.4), |.| = 3.841875,
    // desired = (0.7808688, 0.6246950) * 10.
    assert_close(pursuit(v(3.0, 0.0), v(0.0, 8.0), Vec2::ZERO, 10.0, None), v(7.808688, 6.24695));
    // A zero look-ahead aims at the quarry itself: future = (3, 0), desired = (10, 0).
    assert_close(pursuit(v(3.0, 0.0), v(0.0, 8.0), Vec2::ZERO, 10.0, Some(0.0)), v(10.0, 0.0));
}

#[test]
fn pursuit_of_a_far_fast_quarry_keeps_its_direction() {
    // Regression: |future|² overflows f32 here, and `norm` used to return zero for it, so the
    // pursuer stood still (force = -v = 0) instead of chasing.
    // q.p - p = (3e6, 0), q.v = (0, 1e7), max_speed 1e-6: T = 3e6 / 1e-6 = 3e12 s,
    // future = (3e6, 3e19); norm(future) = (1e-13, 1) to f32 precision, desired = (1e-19, 1e-6).
    let force = pursuit(v(3e6, 0.0), v(0.0, 1e7), Vec2::ZERO, 1e-6, None);
    assert!((force.y - 1e-6).abs() <= 1e-12 && force.x.abs() <= 1e-18, "force {force}");
}

#[test]
fn evade_default_prediction_uses_target_speed() {
    // q.p - p = (8, 0), q.v = (0, -6), |q.v| = 6, max_speed 2: T = 8 / (2 + 6) = 1 s,
    // future = (8, -6), flee: norm(-(8, -6)) = (-0.8, 0.6), desired = (-1.6, 1.2),
    // v = (0, 1): force = (-1.6, 0.2).
    let f = evade(v(8.0, 0.0), v(0.0, -6.0), v(0.0, 1.0), 2.0, None, EvadePrediction::TargetSpeed);
    assert_close(f, v(-1.6, 0.2));
    // q.p - p = (12, 0), q.v = (0, -3), max_speed 4: T = 12 / 7 = 1.7142857 s,
    // future = (12, -5.1428571), |.| = 13.0556110, desired = (-0.9191450, 0.3939193) * 4.
    let f = evade(v(12.0, 0.0), v(0.0, -3.0), Vec2::ZERO, 4.0, None, EvadePrediction::TargetSpeed);
    assert_close(f, v(-3.6765801, 1.5756772));
}

#[test]
fn evade_own_speed_prediction_uses_only_max_speed() {
    // q.p - p = (12, 0), q.v = (0, -3), max_speed 4: T = 12 / 4 = 3 s, future = (12, -9),
    // |.| = 15, flee direction (-0.8, 0.6), desired = (-3.2, 2.4), v = 0.
    let f = evade(v(12.0, 0.0), v(0.0, -3.0), Vec2::ZERO, 4.0, None, EvadePrediction::OwnSpeed);
    assert_close(f, v(-3.2, 2.4));
    // q.p - p = (8, 0), q.v = (0, -6), max_speed 2: T = 4 s, future = (8, -24),
    // |.| = 25.2982213, desired = (-0.3162278, 0.9486833) * 2, v = (0, 1):
    // force = (-0.6324555, 0.8973666).
    let f = evade(v(8.0, 0.0), v(0.0, -6.0), v(0.0, 1.0), 2.0, None, EvadePrediction::OwnSpeed);
    assert_close(f, v(-0.6324555, 0.8973666));
}

#[test]
fn evade_fixed_look_ahead_ignores_the_prediction() {
    // q.p - p = (8, 0), q.v = (0, 6), T fixed 1 s: future = (8, 6), flee direction (-0.8, -0.6),
    // max_speed 2: desired = (-1.6, -1.2), v = (0, 1): force = (-1.6, -2.2), for either prediction.
    for prediction in [EvadePrediction::TargetSpeed, EvadePrediction::OwnSpeed] {
        let f = evade(v(8.0, 0.0), v(0.0, 6.0), v(0.0, 1.0), 2.0, Some(1.0), prediction);
        assert_close(f, v(-1.6, -2.2));
    }
}

// ---------------------------------------------------------------------------------------------
// Separation, alignment, cohesion, flock target

#[test]
fn separation_mean_points_away_from_mean_offset() {
    // Offsets n.p - p: (1, 2), (3, 0), (-1, 2); s = (3, 4) / 3 = (1, 1.3333333);
    // norm(-s) = (-0.6, -0.8); max_separation 5: force = (-3, -4).
    let offsets = [v(1.0, 2.0), v(3.0, 0.0), v(-1.0, 2.0)];
    assert_close(separation(offsets.into_iter(), 5.0, SeparationVariant::Mean), v(-3.0, -4.0));
    // One neighbour far away pushes exactly as hard as one close by (the mean variant):
    // offset (0, 100): norm(-s) = (0, -1), max_separation 2: force = (0, -2).
    assert_close(separation([v(0.0, 100.0)].into_iter(), 2.0, SeparationVariant::Mean), v(0.0, -2.0));
}

#[test]
fn separation_without_neighbours_is_zero() {
    for variant in [SeparationVariant::Mean, SeparationVariant::InverseDistance] {
        assert_eq!(separation(std::iter::empty(), 3.0, variant), Vec2::ZERO);
    }
}

#[test]
fn separation_mean_with_coincident_neighbours_is_finite() {
    // All offsets zero: s = 0, norm(0) = 0, force = 0.
    let f = separation([Vec2::ZERO; 5].into_iter(), 4.0, SeparationVariant::Mean);
    assert_eq!(f, Vec2::ZERO);
    // Coincident and one real neighbour at (0, -2): s = (0, -2) / 3, norm(-s) = (0, 1), * 4.
    let f = separation([Vec2::ZERO, Vec2::ZERO, v(0.0, -2.0)].into_iter(), 4.0, SeparationVariant::Mean);
    assert_close(f, v(0.0, 4.0));
}

#[test]
fn separation_inverse_distance_weighs_near_neighbours_more() {
    // Offsets (2, 0) and (0, -4): norm(p - n.p) / |p - n.p| = (-1, 0) / 2 + (0, 1) / 4
    // = (-0.5, 0.25); |.| = 0.559 < max_separation 10, so no truncation.
    let offsets = [v(2.0, 0.0), v(0.0, -4.0)];
    let f = separation(offsets.into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-0.5, 0.25));
    // Offset (0.1, 0): (-1, 0) / 0.1 = (-10, 0), truncated to max_separation 3: (-3, 0).
    let f = separation([v(0.1, 0.0)].into_iter(), 3.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-3.0, 0.0));
}

#[test]
fn separation_inverse_distance_with_coincident_neighbours_is_finite() {
    // Coincident neighbours give no direction and are skipped: only (1, 0) counts, (-1, 0) / 1.
    let offsets = [Vec2::ZERO, Vec2::ZERO, v(1.0, 0.0)];
    let f = separation(offsets.into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-1.0, 0.0));
    // Only coincident neighbours: zero, not NaN or infinity.
    let f = separation([Vec2::ZERO; 40].into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_eq!(f, Vec2::ZERO);
    // Nearly coincident (1e-20 apart): still finite and no longer than max_separation.
    let f = separation([v(1e-20, 0.0), v(0.0, -1e-30)].into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert!(f.is_finite() && f.length() <= 10.0 * (1.0 + 1e-6), "{f}");
}

#[test]
fn alignment_steers_towards_mean_heading() {
    // Neighbour velocities (2, 0), (0, 3): norms (1, 0), (0, 1), h = (0.5, 0.5);
    // v = (0, -5), norm(v) = (0, -1): force = (0.5, 1.5).
    let f = alignment([v(2.0, 0.0), v(0.0, 3.0)].into_iter(), v(0.0, -5.0));
    assert_close(f, v(0.5, 1.5));
    // A still neighbour counts but adds no heading: (0, 0), (4, 0): h = (1, 0) / 2 = (0.5, 0);
    // v = 0: force = (0.5, 0).
    let f = alignment([Vec2::ZERO, v(4.0, 0.0)].into_iter(), Vec2::ZERO);
    assert_close(f, v(0.5, 0.0));
    assert_eq!(alignment(std::iter::empty(), v(1.0, 1.0)), Vec2::ZERO);
}

#[test]
fn cohesion_seeks_the_neighbours_centre() {
    // Offsets (2, 2), (4, 6): c - p = (3, 4), desired = (0.6, 0.8) * 5 = (3, 4),
    // v = (1, 1): force = (2, 3).
    let f = cohesion([v(2.0, 2.0), v(4.0, 6.0)].into_iter(), v(1.0, 1.0), 5.0);
    assert_close(f, v(2.0, 3.0));
    // Neighbours all on the agent: c - p = 0, desired = 0, force = -v.
    assert_eq!(cohesion([Vec2::ZERO; 3].into_iter(), v(1.0, -2.0), 5.0), v(-1.0, 2.0));
    assert_eq!(cohesion(std::iter::empty(), v(1.0, 1.0), 5.0), Vec2::ZERO);
}

#[test]
fn flock_target_is_heading_difference_times_speed() {
    // t - p = (0, 5), v = (3, 0): (norm(t - p) - norm(v)) * 2 = ((0, 1) - (1, 0)) * 2 = (-2, 2).
    assert_close(flock_target(v(0.0, 5.0), v(3.0, 0.0), 2.0), v(-2.0, 2.0));
    // t - p = (-3, -4), v = 0: ((-0.6, -0.8) - 0) * 1.5 = (-0.9, -1.2).
    assert_close(flock_target(v(-3.0, -4.0), Vec2::ZERO, 1.5), v(-0.9, -1.2));
    assert_eq!(flock_target(Vec2::ZERO, Vec2::ZERO, 3.0), Vec2::ZERO);
}

#[test]
fn moving_point_walks_its_loop_at_constant_speed() {
    // Loop (0,0) -> (3,0) -> (3,4) -> back to (0,0): legs 3, 4, 5, lap 12; speed 2.
    let tri = [v(0.0, 0.0), v(3.0, 0.0), v(3.0, 4.0)];
    // t = 1: s = 2, on leg 1: (2, 0), velocity (1, 0) * 2.
    let (p, vel) = moving_point(&tri, 2.0, 1.0);
    assert_close(p, v(2.0, 0.0));
    assert_close(vel, v(2.0, 0.0));
    // t = 2: s = 4, 1 into leg 2: (3, 1), velocity (0, 2).
    let (p, vel) = moving_point(&tri, 2.0, 2.0);
    assert_close(p, v(3.0, 1.0));
    assert_close(vel, v(0.0, 2.0));
    // t = 4.5: s = 9, 2 into leg 3 (length 5, fraction 0.4): (3, 4) + 0.4 * (-3, -4) = (1.8, 2.4),
    // velocity (-0.6, -0.8) * 2 = (-1.2, -1.6).
    let (p, vel) = moving_point(&tri, 2.0, 4.5);
    assert_close(p, v(1.8, 2.4));
    assert_close(vel, v(-1.2, -1.6));
    // t = 7: s = 14 = one lap + 2: back at (2, 0).
    assert_close(moving_point(&tri, 2.0, 7.0).0, v(2.0, 0.0));
    // A single waypoint never moves.
    assert_eq!(moving_point(&[v(5.0, -1.0)], 2.0, 3.0), (v(5.0, -1.0), Vec2::ZERO));
}

// ---------------------------------------------------------------------------------------------
// Integration

fn open() -> Bounds {
    Bounds { kind: BoundsKind::Open, min: v(0.0, 0.0), max: v(10.0, 10.0) }
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
    let mut p = vec![v(1.0, 1.0), v(5.0, 5.0)];
    let mut vel = vec![v(0.5, 0.0), v(1.0, 0.0)];
    integrate(
        0.5,
        &open(),
        &[v(3.0, 4.0), v(0.0, -1.0)],
        &[10.0, 10.0],
        &[2.5, 5.0],
        &[0.5, 2.0],
        &mut p,
        &mut vel,
    );
    assert_close(vel[0], v(2.0, 2.0));
    assert_close(p[0], v(2.0, 2.0));
    assert_close(vel[1], v(1.0, -0.25));
    assert_close(p[1], v(5.5, 4.875));
}

#[test]
fn integrate_truncates_velocity_to_max_speed() {
    // steering (6, 8), max_force 100, mass 1, dt 1: v = (6, 8), |v| = 10 > max_speed 5:
    // v = (3, 4); p = (2, 2) + (3, 4) = (5, 6).
    let mut p = vec![v(2.0, 2.0)];
    let mut vel = vec![Vec2::ZERO];
    integrate(1.0, &open(), &[v(6.0, 8.0)], &[5.0], &[100.0], &[1.0], &mut p, &mut vel);
    assert_close(vel[0], v(3.0, 4.0));
    assert_close(p[0], v(5.0, 6.0));
}

#[test]
fn integrate_wraps_on_toroidal_bounds_only() {
    // No steering, v = (2, -1), dt 0.5: p = (9.5, 0.2) + (1, -0.5) = (10.5, -0.3);
    // wrapped into [0, 10): (0.5, 9.7); open bounds leave it at (10.5, -0.3).
    let mut p = vec![v(9.5, 0.2)];
    let mut vel = vec![v(2.0, -1.0)];
    integrate(0.5, &wrapped(), &[Vec2::ZERO], &[5.0], &[1.0], &[1.0], &mut p, &mut vel);
    assert_close(vel[0], v(2.0, -1.0));
    assert_close(p[0], v(0.5, 9.7));

    let mut p = vec![v(9.5, 0.2)];
    let mut vel = vec![v(2.0, -1.0)];
    integrate(0.5, &open(), &[Vec2::ZERO], &[5.0], &[1.0], &[1.0], &mut p, &mut vel);
    assert_close(p[0], v(10.5, -0.3));
}

// ---------------------------------------------------------------------------------------------
// End to end: scenario text -> world -> pipeline steps

/// One agent at (0, 0), at rest, in an open world, with the given group keys and behaviours.
fn one_agent(dt: f32, group_keys: &str, behaviours: &str) -> World {
    let text = format!(
        r#"
version = 1
name = "one-agent"
seed = 1
dt = {dt:?}
ticks = 10

[bounds]
min = [-10, -10]
max = [10, 10]

[[groups]]
name = "solo"
spawn = {{ kind = "points", points = [[0, 0]] }}
{group_keys}

{behaviours}
"#
    );
    let scenario = Scenario::parse(&text, "one-agent.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let world = scenario.build_world();
    assert_eq!(world.agents.position, [Vec2::ZERO]);
    assert_eq!(world.agents.velocity, [Vec2::ZERO]);
    world
}

fn pipeline() -> Pipeline {
    Pipeline::new(1, IndexKind::Kd).expect("pipeline")
}

#[test]
fn end_to_end_seek_fixed_point() {
    let mut world = one_agent(
        0.5,
        "max_speed = 2.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"seek\"\ntarget = [3, 4]",
    );
    let mut pipeline = pipeline();
    // Tick 1: t - p = (3, 4), desired = (0.6, 0.8) * 2 = (1.2, 1.6), force = (1.2, 1.6),
    // mass 1, dt 0.5: v = (0.6, 0.8), p = (0.3, 0.4).
    // Tick 2: t - p = (2.7, 3.6), same direction, force = (1.2, 1.6) - (0.6, 0.8) = (0.6, 0.8),
    // v = (0.9, 1.2), p = (0.3, 0.4) + (0.45, 0.6) = (0.75, 1.0).
    // Tick 3: force = (0.3, 0.4), v = (1.05, 1.4), p = (0.75, 1.0) + (0.525, 0.7) = (1.275, 1.7).
    let expected = [(v(0.6, 0.8), v(0.3, 0.4)), (v(0.9, 1.2), v(0.75, 1.0)), (v(1.05, 1.4), v(1.275, 1.7))];
    for (tick, (vel, pos)) in expected.into_iter().enumerate() {
        pipeline.step(&mut world).expect("finite");
        assert_eq!(world.tick, tick as u64 + 1);
        assert_close(world.agents.velocity[0], vel);
        assert_close(world.agents.position[0], pos);
    }
}

#[test]
fn end_to_end_seek_limited_by_max_force_and_mass() {
    let mut world = one_agent(
        1.0,
        "max_speed = 10.0\nmax_force = 1.0\nmass = 4.0",
        "[[groups.behaviours]]\nkind = \"seek\"\ntarget = [-6, 8]",
    );
    let mut pipeline = pipeline();
    // Tick 1: desired = (-0.6, 0.8) * 10 = (-6, 8), force = (-6, 8), |.| = 10, truncated to
    // max_force 1: (-0.6, 0.8); mass 4: accel (-0.15, 0.2); dt 1: v = (-0.15, 0.2) = p.
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(-0.15, 0.2));
    assert_close(world.agents.position[0], v(-0.15, 0.2));
}

#[test]
fn end_to_end_weighted_sum_of_two_behaviours() {
    let mut world = one_agent(
        0.1,
        "max_speed = 1.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"seek\"\nweight = 3.0\ntarget = [0, 10]\n\n\
         [[groups.behaviours]]\nkind = \"flee\"\nweight = 2.0\ntarget = [10, 0]",
    );
    // seek (0, 10): desired (0, 1); flee (10, 0): desired (-1, 0); v = 0.
    // steering = 3 * (0, 1) + 2 * (-1, 0) = (-2, 3); dt 0.1: v = (-0.2, 0.3) (|v| = 0.36 <= 1),
    // p = (-0.02, 0.03).
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(-0.2, 0.3));
    assert_close(world.agents.position[0], v(-0.02, 0.03));
}

#[test]
fn end_to_end_weighted_sum_runs_in_declared_order() {
    // Float addition is not associative, so the order of the sum is observable:
    // seek (1, 0) weight 1e6, max_speed 100: (1e8, 0); flee (1, 0) weight 1e6: (-1e8, 0);
    // seek (1, 0) weight 0.25: (25, 0). In declared order, (1e8 - 1e8) + 25 = 25 exactly.
    // Any other order rounds 25 against 1e8 (f32 spacing 8 there) and gives 24.
    // dt 0.1, mass 1, max_force 1e9: v = (2.5, 0), p = (0.25, 0); with 24 it would be (2.4, 0).
    let mut world = one_agent(
        0.1,
        "max_speed = 100.0\nmax_force = 1e9",
        "[[groups.behaviours]]\nkind = \"seek\"\nweight = 1e6\ntarget = [1, 0]\n\n\
         [[groups.behaviours]]\nkind = \"flee\"\nweight = 1e6\ntarget = [1, 0]\n\n\
         [[groups.behaviours]]\nkind = \"seek\"\nweight = 0.25\ntarget = [1, 0]",
    );
    pipeline().step(&mut world).expect("finite");
    assert_eq!(world.agents.velocity[0], v(2.5, 0.0));
    assert_close(world.agents.position[0], v(0.25, 0.0));
}

#[test]
fn end_to_end_wander_without_jitter() {
    // R = 2, D = 3, jitter 0, so no random draw matters. c0 = (2 * 0.707, 2 * 0.707).
    // Tick 1: c = norm(c0) * 2 = (1.4142136, 1.4142136); v = 0, so w - p = c:
    // desired = (0.7071068, 0.7071068) * 1 = force; dt 1: v = p = (0.7071068, 0.7071068).
    // Tick 2: c unchanged; w - p = norm(v) * 3 + c points the same way, desired = v, force = 0:
    // v unchanged, p = (1.4142136, 1.4142136).
    let mut world = one_agent(
        1.0,
        "max_speed = 1.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"wander\"\nradius = 2.0\ndistance = 3.0\njitter = 0.0",
    );
    assert_close(world.agents.wander[0], v(1.414, 1.414));
    let mut pipeline = pipeline();
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.wander[0], v(SQRT_2, SQRT_2));
    assert_close(world.agents.velocity[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    assert_close(world.agents.position[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    assert_close(world.agents.position[0], v(SQRT_2, SQRT_2));
}

#[test]
fn end_to_end_seek_across_a_wrapped_seam() {
    // World [0, 10) wrapped; agent at (9, 5) seeks (1, 5): the minimum image of t - p is (2, 0),
    // not (-8, 0). desired = (1, 0) * 4 = (4, 0); dt 0.5: v = (2, 0), p = (10, 5) -> (0, 5).
    let text = r#"
version = 1
name = "seam"
seed = 3
dt = 0.5
ticks = 1

[bounds]
kind = "wrap"
min = [0, 0]
max = [10, 10]

[[groups]]
name = "solo"
spawn = { kind = "points", points = [[9, 5]] }
max_speed = 4.0
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = [1, 5]
"#;
    let mut world = Scenario::parse(text, "seam.toml").unwrap_or_else(|e| panic!("{e}")).build_world();
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(2.0, 0.0));
    assert_close(world.agents.position[0], v(0.0, 5.0));
}

#[test]
fn end_to_end_pursuit_of_an_agent() {
    // Agent 0 (group "hunter", at (0, 0), at rest) pursues agent 1 (group "prey", at (8, 0),
    // initial velocity ignored: it has no behaviours and initial_speed 0, so it stays put).
    // Tick 1: T = 8 / 4 = 2, q.v = 0, future = (8, 0): desired (4, 0), dt 0.25: v = (1, 0),
    // p = (0.25, 0).
    let text = r#"
version = 1
name = "chase"
seed = 5
dt = 0.25
ticks = 1

[bounds]
min = [-20, -20]
max = [20, 20]

[targets.prey]
kind = "agent"
agent = 1

[[groups]]
name = "hunter"
spawn = { kind = "points", points = [[0, 0]] }
max_speed = 4.0
max_force = 100.0

[[groups.behaviours]]
kind = "pursuit"
target = "prey"

[[groups]]
name = "prey"
spawn = { kind = "points", points = [[8, 0]] }
max_speed = 1.0
max_force = 1.0
"#;
    let mut world = Scenario::parse(text, "chase.toml").unwrap_or_else(|e| panic!("{e}")).build_world();
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(1.0, 0.0));
    assert_close(world.agents.position[0], v(0.25, 0.0));
    assert_eq!(world.agents.position[1], v(8.0, 0.0));
}
