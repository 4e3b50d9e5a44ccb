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

/// A `direction` target is a heading: seekers on a wrapped world walk along it at full speed
/// for ever, across the seam, and `arrive` never slows for it.
#[test]
fn a_direction_target_is_a_heading_that_is_never_reached() {
    use throng_engine::{RunSettings, Scenario, Simulation};
    let text = r#"version = 1
name = "heading"
seed = 1
dt = 0.1
ticks = 1

[bounds]
kind = "wrap"
min = [0, 0]
max = [10, 4]

[targets.ahead]
kind = "direction"
direction = [3, 4]

[[groups]]
name = "seekers"
spawn = { kind = "points", points = [[1, 1]] }
max_speed = 1.5
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = "ahead"

[[groups]]
name = "arrivers"
spawn = { kind = "points", points = [[5, 1]] }
max_speed = 1.5
max_force = 100.0

[[groups.behaviours]]
kind = "arrive"
target = "ahead"
slowing_radius = 50.0
"#;
    let s = Scenario::parse(text, "heading.toml").expect("valid");
    let mut sim = Simulation::new(&s, RunSettings::default()).expect("simulation");
    for _ in 0..200 {
        sim.step().expect("a step");
    }
    // The heading (3, 4) / 5 at 1.5: velocity (0.9, 1.2), for both (arrive does not slow).
    let a = &sim.world().agents;
    for r in 0..a.len() {
        assert_close(a.velocity[r], v(0.9, 1.2));
    }
    // Both moved alike (about 30 units, across both seams), so they are still 4 apart on x.
    let row = |id: u32| (0..a.len()).find(|&r| a.id[r] == id).expect("alive");
    let gap = sim.world().bounds.offset(a.position[row(0)], a.position[row(1)]);
    assert_close(gap, v(4.0, 0.0));
}
