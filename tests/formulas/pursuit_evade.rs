//! Pursuit and evade: the look-ahead time, fixed or predicted, and the steering towards or away
//! from the quarry's future position.

use throng_engine::behaviours::{EvadePrediction, evade, pursuit};
use throng_engine::math::Vec2;

use crate::common::{assert_close, v};

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
