//! The random walk towards a target: steps within a cone that narrows near the target.

use std::f32::consts::FRAC_PI_4;

use throng_engine::behaviours::random_walk_step;
use throng_engine::math::angle_of;

use super::assert_close_f;
use crate::common::{assert_close, v};

/// The `spin` that turns left (counter-clockwise) in the plane, and the one that turns right.
const LEFT: f32 = 0.25;
const RIGHT: f32 = 0.75;

// The cosines and sines used below: cos 15° = 0.9659258, sin 15° = 0.2588190,
// cos 22.5° = 0.9238795, sin 22.5° = 0.3826834.

#[test]
fn random_walk_turns_within_the_narrowing_cone() {
    // t - p = (20, 0), d = 20, aggro 30: step = clamp(20 * 0.5, 1, 10) = 10 <= d.
    // half_fov = lerp(0, π/2, 20/30) * 0.5 = π/6; u = 0.5: angle = π/12 = 15°.
    // Left (+): rotate((10, 0), 15°) = (9.659258, 2.588190); right (-): (9.659258, -2.588190).
    let (step, last) = random_walk_step(v(20.0, 0.0), 30.0, 1.0, 10.0, 0.5, LEFT);
    assert!(!last);
    assert_close(step, v(9.659258, 2.58819));
    let (step, last) = random_walk_step(v(20.0, 0.0), 30.0, 1.0, 10.0, 0.5, RIGHT);
    assert!(!last);
    assert_close(step, v(9.659258, -2.58819));
    // d = 15: step = 7.5, half_fov = lerp(0, π/2, 0.5) * 0.5 = π/8 = 22.5°; u = 1 (the cone's
    // edge), right: rotate((7.5, 0), -22.5°) = (7.5 * 0.9238795, -7.5 * 0.3826834)
    // = (6.929096, -2.870126).
    let (step, _) = random_walk_step(v(15.0, 0.0), 30.0, 1.0, 10.0, 1.0, RIGHT);
    assert_close(step, v(6.929096, -2.870126));
}

#[test]
fn random_walk_cone_is_widest_at_and_beyond_the_aggro_radius() {
    // d >= aggro (30): clamp(d, 0, 30) / 30 = 1, half_fov = π/2 * 0.5 = π/4 whatever d is;
    // step = clamp(d/2, 1, 10) = 10 for d = 30, 40, 60. u = 0.5, left: angle = π/8 = 22.5°.
    // t - p = (0, d): rotate((0, 10), 22.5°) = (-10 sin 22.5°, 10 cos 22.5°) = (-3.826834, 9.238795).
    for d in [30.0, 40.0, 60.0] {
        let (step, last) = random_walk_step(v(0.0, d), 30.0, 1.0, 10.0, 0.5, LEFT);
        assert!(!last, "d = {d}");
        assert_close(step, v(-3.826834, 9.238795));
    }
    // The edge of the widest cone is 45° off the direct line: u = 1, left, t - p = (40, 0):
    // rotate((10, 0), 45°) has angle π/4.
    let (step, _) = random_walk_step(v(40.0, 0.0), 30.0, 1.0, 10.0, 1.0, LEFT);
    assert_close_f(angle_of(step), FRAC_PI_4);
    assert_close_f(step.length(), 10.0);
}

#[test]
fn random_walk_u_zero_is_the_direct_line() {
    // t - p = (6, 8), d = 10: step = 5, half_fov = π/12 but angle = 0 * half_fov = 0 on either
    // side: the waypoint is norm(t - p) * 5 = (3, 4).
    for side in [LEFT, RIGHT] {
        let (step, last) = random_walk_step(v(6.0, 8.0), 30.0, 1.0, 10.0, 0.0, side);
        assert!(!last);
        assert_close(step, v(3.0, 4.0));
    }
    // Far away the step is capped at max_step: t - p = (100, 0): clamp(50, 1, 10) = 10.
    let (step, last) = random_walk_step(v(100.0, 0.0), 30.0, 1.0, 10.0, 0.0, LEFT);
    assert!(!last);
    assert_close(step, v(10.0, 0.0));
}

#[test]
fn random_walk_step_is_at_least_min_step() {
    // t - p = (0, 1.5): d * 0.5 = 0.75 is raised to min_step 1; 1 <= 1.5, so still a waypoint.
    // u = 0: (0, 1).
    let (step, last) = random_walk_step(v(0.0, 1.5), 30.0, 1.0, 10.0, 0.0, LEFT);
    assert!(!last);
    assert_close(step, v(0.0, 1.0));
    // u = 0.5, left: half_fov = π/2 * (1.5/30) * 0.5 = π/80, angle = π/160 = 0.019634954;
    // rotate((0, 1), θ) = (-sin θ, cos θ) = (-0.019633692, 0.99980724).
    let (step, _) = random_walk_step(v(0.0, 1.5), 30.0, 1.0, 10.0, 0.5, LEFT);
    assert_close(step, v(-0.019633692, 0.99980724));
}

#[test]
fn random_walk_goes_straight_once_the_step_overshoots() {
    // t - p = (0.3, 0.4), d = 0.5: step = clamp(0.25, 1, 10) = 1 > 0.5: the waypoint is the
    // target itself, and this is the last leg, whatever u and the side are.
    for (u, side) in [(0.0, LEFT), (0.9, RIGHT), (0.5, LEFT)] {
        assert_eq!(random_walk_step(v(0.3, 0.4), 30.0, 1.0, 10.0, u, side), (v(0.3, 0.4), true));
    }
    // min_step 2, d = 1.9: step = max(0.95, 2) = 2 > 1.9: straight.
    assert_eq!(random_walk_step(v(1.9, 0.0), 30.0, 2.0, 10.0, 0.7, LEFT), (v(1.9, 0.0), true));
    // The boundary: d = 1 = step is not "step > d", so it is still a waypoint (u = 0: on the
    // target, but not the final leg).
    let (step, last) = random_walk_step(v(0.6, 0.8), 30.0, 1.0, 10.0, 0.0, LEFT);
    assert!(!last);
    assert_close(step, v(0.6, 0.8));
}
