//! Wander: the jittered circle offset and the seek towards its point ahead.

use std::f32::consts::SQRT_2;

use throng_engine::behaviours::{REFERENCE_STEP_S, jitter_scale, wander, wander_jitter};
use throng_engine::math::Vec2;

use crate::common::{assert_close, v};

#[test]
fn wander_jitter_moves_then_projects_onto_circle() {
    // c = (3, 0), jitter step (ux, uy) * jitter * √(dt · 0.1) = (0, 1) * 8 * √(2.5 · 0.1)
    // = (0, 1) * 8 * 0.5 = (0, 4): c = (3, 4), |c| = 5, norm = (0.6, 0.8), radius 10: c = (6, 8).
    assert_close(wander_jitter(v(3.0, 0.0), v(0.0, 1.0), 8.0, 2.5, 10.0), v(6.0, 8.0));
    // c = (1, 0), step (-1, 0.5) * 2 * √(10 · 0.1) = (-2, 1): c = (-1, 1),
    // norm = (-0.7071068, 0.7071068), radius 2: c = (-1.4142136, 1.4142136).
    assert_close(wander_jitter(v(1.0, 0.0), v(-1.0, 0.5), 2.0, 10.0, 2.0), v(-SQRT_2, SQRT_2));
    // jitter 0 only re-projects: c = (0, -0.5), radius 3: c = (0, -3).
    assert_close(wander_jitter(v(0.0, -0.5), v(0.9, -0.9), 0.0, 1.0, 3.0), v(0.0, -3.0));
}

#[test]
fn wander_jitter_cancelling_the_offset_gives_zero_not_nan() {
    // c = (1, 0), step (-0.5, 0) * 2 * √(10 · 0.1) = (-1, 0): c = (0, 0), norm(0) = 0, so c = 0.
    assert_eq!(wander_jitter(v(1.0, 0.0), v(-0.5, 0.0), 2.0, 10.0, 5.0), Vec2::ZERO);
}

/// The jitter is a random walk: its step scales with √dt, so the spread it builds per second
/// (steps per second × step²) is the same at every step, and at the reference step 0.1 s the
/// step is the sources' `jitter · dt`.
#[test]
fn the_jitter_step_scales_with_the_square_root_of_the_step() {
    assert_close(v(jitter_scale(REFERENCE_STEP_S), 0.0), v(REFERENCE_STEP_S, 0.0));
    assert_close(v(jitter_scale(0.025), jitter_scale(0.4)), v(0.05, 0.2));
    for dt in [0.2f32, 0.1, 0.05, 0.025] {
        let spread_per_s = jitter_scale(dt).powi(2) / dt;
        assert!((spread_per_s - 0.1).abs() < 1e-6, "dt {dt}: {spread_per_s}");
    }
}

#[test]
fn wander_seeks_the_point_on_the_circle_ahead() {
    // v = (2, 0), c = (0, 3), D = 4: w - p = norm(v) * 4 + c = (4, 3), |.| = 5,
    // desired = (0.8, 0.6) * 5 = (4, 3), force = (4, 3) - (2, 0) = (2, 3).
    assert_close(wander(v(2.0, 0.0), v(0.0, 3.0), 4.0, 5.0), v(2.0, 3.0));
    // Standing still: norm(v) = 0, so w - p = c = (3, 4): desired = (0.6, 0.8) * 10 = (6, 8).
    assert_close(wander(Vec2::ZERO, v(3.0, 4.0), 7.0, 10.0), v(6.0, 8.0));
}
