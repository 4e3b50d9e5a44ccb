//! Seek, flee and arrive.

use throng_engine::behaviours::{arrive, flee, seek};
use throng_engine::math::Vec2;

use crate::common::{assert_close, v};

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
