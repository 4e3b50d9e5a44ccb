//! Scripted targets: a moving point walking its loop of waypoints.

use throng_engine::behaviours::moving_point;
use throng_engine::math::Vec2;

use crate::common::{assert_close, v};

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
