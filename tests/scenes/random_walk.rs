//! The random walk: every waypoint stays in the narrowing cone, and every walker arrives.

use throng_engine::behaviours::{WALK_FINAL, WALK_NONE};
use throng_engine::math::{PI, Vec2, angle_of, lerp};
use throng_engine::{IndexKind, Pipeline};

use super::shipped;

#[test]
fn random_walk_waypoints_stay_in_the_narrowing_cone() {
    // random_walk.toml: every agent walks to (0, 0) with aggro 30, steps in [1, 10], reach 0.5.
    const AGGRO: f32 = 30.0;
    let scenario = shipped("random_walk");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let target = Vec2::ZERO;
    let n = world.agents.len();
    assert_eq!(n, 41);
    let mut finished = vec![false; n];
    let (mut choices, mut widest, mut left, mut right) = (0, 0.0f32, 0, 0);
    for _ in 0..600 {
        // The choice happens at the start of the tick, from the position before integration.
        // Rows in id order on both sides (the pipeline may reorder them during the tick).
        let w = world.id_ordered();
        let before: Vec<(Vec2, Vec2, u8)> =
            (0..n).map(|i| (w.agents.position[i], w.agents.waypoint[i], w.agents.walk_state[i])).collect();
        pipeline.step(&mut world).unwrap();
        assert_eq!(world.agents.len(), n);
        let w = world.id_ordered();
        for (i, &(p, old_wp, old_state)) in before.iter().enumerate() {
            let (wp, state) = (w.agents.waypoint[i], w.agents.walk_state[i]);
            assert_ne!(state, WALK_NONE, "agent {i} has no waypoint after tick {}", world.tick);
            if finished[i] {
                // The last leg is straight to the target: nothing is chosen any more.
                assert_eq!((wp, state), (old_wp, WALK_FINAL), "agent {i} left its final leg");
                continue;
            }
            if (wp, state) == (old_wp, old_state) {
                continue;
            }
            choices += 1;
            let to_target = target - p;
            let d = to_target.length();
            if state == WALK_FINAL {
                // step = clamp(d/2, 1, 10) > d only when d < 1: the waypoint is the target.
                assert!(d < 1.0 + 1e-4, "agent {i} went straight from {d} away");
                assert!((wp - target).length() < 1e-4, "final waypoint {wp} is not the target");
                finished[i] = true;
                continue;
            }
            let step = wp - p;
            let expected_step = (d * 0.5).clamp(1.0, 10.0);
            assert!((step.length() - expected_step).abs() < 1e-3, "agent {i}: step {step} at d = {d}");
            let half_fov = lerp(0.0, PI / 2.0, d.clamp(0.0, AGGRO) / AGGRO) * 0.5;
            let mut angle = angle_of(step) - angle_of(to_target);
            if angle > PI {
                angle -= 2.0 * PI;
            } else if angle < -PI {
                angle += 2.0 * PI;
            }
            assert!(
                angle.abs() <= half_fov + 1e-4,
                "agent {i} at d = {d}: waypoint {angle} rad off the direct line, cone ±{half_fov}"
            );
            widest = widest.max(angle.abs() / half_fov);
            if angle > 0.0 {
                left += 1;
            } else {
                right += 1;
            }
        }
    }
    let farthest = world.agents.position.iter().map(|p| (*p - target).length()).fold(0.0, f32::max);
    eprintln!(
        "random walk: {choices} choices, widest {widest} of the half cone, {left} left / {right} right, farthest at the end {farthest}"
    );
    // Measured: 351 choices, the widest at 0.996 of the half cone, every agent on its final leg
    // by tick 304 and within 1e-6 of the target at tick 600.
    assert!(finished.iter().all(|&f| f), "not every walker reached its final leg");
    assert!(farthest < 0.05, "a walker is still {farthest} from the target");
    assert!(choices > 200, "{choices} choices");
    assert!(widest > 0.9, "the cone was never used to its edge ({widest})");
    assert!(left > choices / 4 && right > choices / 4, "{left} left, {right} right");
}
