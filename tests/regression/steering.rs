//! Steering formulas that once gave a wrong force.

use throng_engine::behaviours::pursuit;
use throng_engine::math::Vec2;

use crate::common::v;

#[test]
fn pursuit_keeps_its_direction_when_the_squared_offset_overflows() {
    // Regression: |future|² overflows f32 here, and `norm` used to return zero for it, so the
    // pursuer stood still (force = -v = 0) instead of chasing.
    // q.p - p = (3e6, 0), q.v = (0, 1e7), max_speed 1e-6: T = 3e6 / 1e-6 = 3e12 s,
    // future = (3e6, 3e19); norm(future) = (1e-13, 1) to f32 precision, desired = (1e-19, 1e-6).
    let force = pursuit(v(3e6, 0.0), v(0.0, 1e7), Vec2::ZERO, 1e-6, None);
    assert!((force.y - 1e-6).abs() <= 1e-12 && force.x.abs() <= 1e-18, "force {force}");
}
