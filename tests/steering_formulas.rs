//! Formula tests for path following, leader following, the random walk, queue braking, the
//! obstacle geometry and avoidance, regions and spawn sources, against values computed by hand
//! from `shared/spec/behaviours.md`. The arithmetic is in the comments; no expected value is
//! produced by the code under test.

use std::f32::consts::FRAC_PI_4;

use throng_engine::behaviours::{avoid_force, most_threatening};
use throng_engine::behaviours::{follow_leader, path_advance, queue_brake_force, random_walk_step};
use throng_engine::index::Neighbours;
use throng_engine::index::ObstacleIndex;
use throng_engine::math::{Vec2, angle_of};
use throng_engine::passes::queue_brake;
use throng_engine::rng::{Purpose, agent_rng};
use throng_engine::world::{Bounds, BoundsKind, Group, Obstacle, PathMode, Region, Source};
use throng_engine::{IndexKind, Pipeline, Scenario};

use crate::common::{assert_close, v};

#[track_caller]
fn assert_close_f(actual: f32, expected: f32) {
    let tol = 1e-5 * expected.abs().max(1.0);
    assert!((actual - expected).abs() <= tol, "expected {expected}, got {actual}");
}

// ---------------------------------------------------------------------------------------------
// Path following: the cursor

#[test]
fn path_advance_waits_until_the_node_is_reached() {
    // Distance 2.5 > radius 2: nothing changes, whatever the mode or direction.
    for mode in [PathMode::Once, PathMode::Loop, PathMode::Patrol] {
        assert_eq!(path_advance(2.5, 2.0, 1, 1, 4, mode), (1, 1), "{mode:?}");
        assert_eq!(path_advance(2.5, 2.0, 2, -1, 4, mode), (2, -1), "{mode:?}");
        assert_eq!(path_advance(2.5, 2.0, 3, 1, 4, mode), (3, 1), "{mode:?}");
    }
    // Exactly on the radius counts as reached (`|nodes[current] - p| <= radius`): 1 -> 2.
    assert_eq!(path_advance(2.0, 2.0, 1, 1, 4, PathMode::Loop), (2, 1));
}

#[test]
fn path_advance_once_stops_at_the_last_node() {
    // 4 nodes (0..=3): reaching 0, 1, 2 moves on by one.
    assert_eq!(path_advance(0.5, 2.0, 0, 1, 4, PathMode::Once), (1, 1));
    assert_eq!(path_advance(0.5, 2.0, 2, 1, 4, PathMode::Once), (3, 1));
    // Reaching the last node keeps it (the agent arrives there).
    assert_eq!(path_advance(0.0, 2.0, 3, 1, 4, PathMode::Once), (3, 1));
}

#[test]
fn path_advance_loop_wraps_to_the_first_node() {
    assert_eq!(path_advance(1.0, 2.0, 1, 1, 4, PathMode::Loop), (2, 1));
    // 3 + 1 = 4 is past the end: wrap to node 0, direction unchanged.
    assert_eq!(path_advance(1.0, 2.0, 3, 1, 4, PathMode::Loop), (0, 1));
    // Two nodes: 1 -> 0 -> 1.
    assert_eq!(path_advance(0.0, 1.0, 1, 1, 2, PathMode::Loop), (0, 1));
    assert_eq!(path_advance(0.0, 1.0, 0, 1, 2, PathMode::Loop), (1, 1));
}

#[test]
fn path_advance_patrol_reverses_at_both_ends() {
    // 5 nodes (0..=4), going forward: 2 -> 3.
    assert_eq!(path_advance(1.0, 2.0, 2, 1, 5, PathMode::Patrol), (3, 1));
    // At the far end: 4 + 1 = 5 is out, so dir = -1 and current = 4 - 1 = 3.
    assert_eq!(path_advance(1.0, 2.0, 4, 1, 5, PathMode::Patrol), (3, -1));
    // Coming back: 3 -> 2 with dir -1.
    assert_eq!(path_advance(1.0, 2.0, 3, -1, 5, PathMode::Patrol), (2, -1));
    // At the near end: 0 - 1 = -1 is out, so dir = +1 and current = 0 + 1 = 1.
    assert_eq!(path_advance(1.0, 2.0, 0, -1, 5, PathMode::Patrol), (1, 1));
    // Two nodes bounce between them: 1 (dir +1) -> 0 (dir -1) -> 1 (dir +1).
    assert_eq!(path_advance(0.0, 1.0, 1, 1, 2, PathMode::Patrol), (0, -1));
    assert_eq!(path_advance(0.0, 1.0, 0, -1, 2, PathMode::Patrol), (1, 1));
}

// ---------------------------------------------------------------------------------------------
// Leader following

#[test]
fn follow_leader_out_of_sight_arrives_behind_plus_separation() {
    // Leader at p + (10, 0) moving (2, 0); behind_dist 3: tv = (1, 0) * 3 = (3, 0),
    // ahead = leader + tv = p + (13, 0), behind = leader - tv = p + (7, 0).
    // arrive(behind): d = 7 >= slowing 5, so desired = (1, 0) * 4 = (4, 0); v = (1, 0): (3, 0).
    // Sight 2.5: |ahead - p| = 13 and |leader - p| = 10 are both outside: no evade.
    // Separation (0.5, -0.25) is added as given: (3.5, -0.25).
    let f = follow_leader(v(10.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), 4.0, 3.0, 5.0, 2.5, v(0.5, -0.25));
    assert_close(f, v(3.5, -0.25));
    // Without separation: the arrive term alone.
    let f = follow_leader(v(10.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), 4.0, 3.0, 5.0, 2.5, Vec2::ZERO);
    assert_close(f, v(3.0, 0.0));
}

#[test]
fn follow_leader_evades_when_the_ahead_point_is_in_sight() {
    // Follower ahead of the leader: leader at p + (-6, 0) moving (1, 0), behind_dist 5:
    // tv = (5, 0), ahead - p = (-1, 0) (|.| = 1), leader - p = (-6, 0) (|.| = 6),
    // behind - p = (-11, 0).
    // arrive: d = 11 >= 5: desired = (-1, 0) * 4 = (-4, 0); v = (0, 1): (-4, -1).
    // evade(leader): d = 6, |q.v| = 1, T = 6 / (4 + 1) = 1.2 s, future - p = (-6, 0) + (1.2, 0)
    // = (-4.8, 0); flee: norm((4.8, 0)) * 4 - v = (4, 0) - (0, 1) = (4, -1).
    // Sight 2: only the ahead point is within (1 <= 2; 6 > 2): force = (-4, -1) + (4, -1) = (0, -2).
    let f = follow_leader(v(-6.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), 4.0, 5.0, 5.0, 2.0, Vec2::ZERO);
    assert_close(f, v(0.0, -2.0));
    // Sight exactly 1 = |ahead - p|: still in sight (<=), same force.
    let f = follow_leader(v(-6.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), 4.0, 5.0, 5.0, 1.0, Vec2::ZERO);
    assert_close(f, v(0.0, -2.0));
    // Sight 0.5: neither point is within, so only the arrive term: (-4, -1).
    let f = follow_leader(v(-6.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), 4.0, 5.0, 5.0, 0.5, Vec2::ZERO);
    assert_close(f, v(-4.0, -1.0));
}

#[test]
fn follow_leader_evades_when_the_leader_itself_is_in_sight() {
    // Leader at p + (1, 0) moving (0, 2), behind_dist 3: tv = (0, 3), ahead - p = (1, 3)
    // (|.| = sqrt(10) = 3.1622777 > sight 2), leader - p = (1, 0) (|.| = 1 <= 2): evade.
    // arrive(behind): behind - p = (1, -3), d = sqrt(10) < slowing 5:
    // desired = (1, -3)/sqrt(10) * 4 * sqrt(10)/5 = (1, -3) * 0.8 = (0.8, -2.4); v = 0.
    // evade: d = 1, |q.v| = 2, T = 1 / (4 + 2) = 1/6, future - p = (1, 0) + (0, 2)/6 = (1, 1/3);
    // flee: norm(-(1, 1/3)) = -(3, 1)/sqrt(10) = (-0.9486833, -0.3162278), * 4
    // = (-3.7947332, -1.2649111).
    // Sum: (0.8 - 3.7947332, -2.4 - 1.2649111) = (-2.9947332, -3.6649111).
    let f = follow_leader(v(1.0, 0.0), v(0.0, 2.0), Vec2::ZERO, 4.0, 3.0, 5.0, 2.0, Vec2::ZERO);
    assert_close(f, v(-2.994733, -3.664911));
    // Sight 0.9: the leader (1) and the ahead point (3.16) are both outside: arrive only.
    let f = follow_leader(v(1.0, 0.0), v(0.0, 2.0), Vec2::ZERO, 4.0, 3.0, 5.0, 0.9, Vec2::ZERO);
    assert_close(f, v(0.8, -2.4));
}

// ---------------------------------------------------------------------------------------------
// Random walk

// The cosines and sines used below: cos 15° = 0.9659258, sin 15° = 0.2588190,
// cos 22.5° = 0.9238795, sin 22.5° = 0.3826834.

#[test]
fn random_walk_turns_within_the_narrowing_cone() {
    // t - p = (20, 0), d = 20, aggro 30: step = clamp(20 * 0.5, 1, 10) = 10 <= d.
    // half_fov = lerp(0, π/2, 20/30) * 0.5 = π/6; u = 0.5: angle = π/12 = 15°.
    // Left (+): rotate((10, 0), 15°) = (9.659258, 2.588190); right (-): (9.659258, -2.588190).
    let (step, last) = random_walk_step(v(20.0, 0.0), 30.0, 1.0, 10.0, 0.5, true);
    assert!(!last);
    assert_close(step, v(9.659258, 2.58819));
    let (step, last) = random_walk_step(v(20.0, 0.0), 30.0, 1.0, 10.0, 0.5, false);
    assert!(!last);
    assert_close(step, v(9.659258, -2.58819));
    // d = 15: step = 7.5, half_fov = lerp(0, π/2, 0.5) * 0.5 = π/8 = 22.5°; u = 1 (the cone's
    // edge), right: rotate((7.5, 0), -22.5°) = (7.5 * 0.9238795, -7.5 * 0.3826834)
    // = (6.929096, -2.870126).
    let (step, _) = random_walk_step(v(15.0, 0.0), 30.0, 1.0, 10.0, 1.0, false);
    assert_close(step, v(6.929096, -2.870126));
}

#[test]
fn random_walk_cone_is_widest_at_and_beyond_the_aggro_radius() {
    // d >= aggro (30): clamp(d, 0, 30) / 30 = 1, half_fov = π/2 * 0.5 = π/4 whatever d is;
    // step = clamp(d/2, 1, 10) = 10 for d = 30, 40, 60. u = 0.5, left: angle = π/8 = 22.5°.
    // t - p = (0, d): rotate((0, 10), 22.5°) = (-10 sin 22.5°, 10 cos 22.5°) = (-3.826834, 9.238795).
    for d in [30.0, 40.0, 60.0] {
        let (step, last) = random_walk_step(v(0.0, d), 30.0, 1.0, 10.0, 0.5, true);
        assert!(!last, "d = {d}");
        assert_close(step, v(-3.826834, 9.238795));
    }
    // The edge of the widest cone is 45° off the direct line: u = 1, left, t - p = (40, 0):
    // rotate((10, 0), 45°) has angle π/4.
    let (step, _) = random_walk_step(v(40.0, 0.0), 30.0, 1.0, 10.0, 1.0, true);
    assert_close_f(angle_of(step), FRAC_PI_4);
    assert_close_f(step.length(), 10.0);
}

#[test]
fn random_walk_u_zero_is_the_direct_line() {
    // t - p = (6, 8), d = 10: step = 5, half_fov = π/12 but angle = 0 * half_fov = 0 on either
    // side: the waypoint is norm(t - p) * 5 = (3, 4).
    for left in [true, false] {
        let (step, last) = random_walk_step(v(6.0, 8.0), 30.0, 1.0, 10.0, 0.0, left);
        assert!(!last);
        assert_close(step, v(3.0, 4.0));
    }
    // Far away the step is capped at max_step: t - p = (100, 0): clamp(50, 1, 10) = 10.
    let (step, last) = random_walk_step(v(100.0, 0.0), 30.0, 1.0, 10.0, 0.0, true);
    assert!(!last);
    assert_close(step, v(10.0, 0.0));
}

#[test]
fn random_walk_step_is_at_least_min_step() {
    // t - p = (0, 1.5): d * 0.5 = 0.75 is raised to min_step 1; 1 <= 1.5, so still a waypoint.
    // u = 0: (0, 1).
    let (step, last) = random_walk_step(v(0.0, 1.5), 30.0, 1.0, 10.0, 0.0, true);
    assert!(!last);
    assert_close(step, v(0.0, 1.0));
    // u = 0.5, left: half_fov = π/2 * (1.5/30) * 0.5 = π/80, angle = π/160 = 0.019634954;
    // rotate((0, 1), θ) = (-sin θ, cos θ) = (-0.019633692, 0.99980724).
    let (step, _) = random_walk_step(v(0.0, 1.5), 30.0, 1.0, 10.0, 0.5, true);
    assert_close(step, v(-0.019633692, 0.99980724));
}

#[test]
fn random_walk_goes_straight_once_the_step_overshoots() {
    // t - p = (0.3, 0.4), d = 0.5: step = clamp(0.25, 1, 10) = 1 > 0.5: the waypoint is the
    // target itself, and this is the last leg, whatever u and the side are.
    for (u, left) in [(0.0, true), (0.9, false), (0.5, true)] {
        assert_eq!(random_walk_step(v(0.3, 0.4), 30.0, 1.0, 10.0, u, left), (v(0.3, 0.4), true));
    }
    // min_step 2, d = 1.9: step = max(0.95, 2) = 2 > 1.9: straight.
    assert_eq!(random_walk_step(v(1.9, 0.0), 30.0, 2.0, 10.0, 0.7, true), (v(1.9, 0.0), true));
    // The boundary: d = 1 = step is not "step > d", so it is still a waypoint (u = 0: on the
    // target, but not the final leg).
    let (step, last) = random_walk_step(v(0.6, 0.8), 30.0, 1.0, 10.0, 0.0, true);
    assert!(!last);
    assert_close(step, v(0.6, 0.8));
}

// ---------------------------------------------------------------------------------------------
// Queue braking

#[test]
fn queue_brake_force_cancels_steering_and_velocity() {
    // -steering * 0.8 - v + separation = -(2, -1) * 0.8 - (1, 0.5) + (0.3, 0)
    // = (-1.6, 0.8) - (1, 0.5) + (0.3, 0) = (-2.3, 0.3).
    assert_close(queue_brake_force(v(2.0, -1.0), v(1.0, 0.5), 0.8, v(0.3, 0.0)), v(-2.3, 0.3));
    // brake_factor 0: only -v + separation = (-1, -0.5) + (0, 2) = (-1, 1.5).
    assert_close(queue_brake_force(v(2.0, -1.0), v(1.0, 0.5), 0.0, v(0.0, 2.0)), v(-1.0, 1.5));
}

/// Groups from a tiny scenario: group 0 queues with the given parameters (brake 0.8, hard
/// stop 0.3), group 1 does not queue.
fn queue_groups(
    queue_ahead: f32,
    queue_radius: f32,
    separation_radius: f32,
    max_separation: f32,
) -> Vec<Group> {
    let text = format!(
        r#"version = 1
name = "q"
seed = 1
dt = 0.1
ticks = 1
[bounds]
min = [-10, -10]
max = [10, 10]
[[groups]]
name = "queuers"
count = 1
spawn = {{ kind = "points", points = [[0, 0]] }}
max_speed = 2.0
max_force = 3.0
sensing_radius = 3.0
[[groups.behaviours]]
kind = "queue"
queue_ahead = {queue_ahead}
queue_radius = {queue_radius}
brake_factor = 0.8
hard_stop_factor = 0.3
separation_radius = {separation_radius}
max_separation = {max_separation}
[[groups]]
name = "others"
count = 1
spawn = {{ kind = "points", points = [[1, 1]] }}
max_speed = 2.0
max_force = 3.0
"#
    );
    Scenario::parse(&text, "q").unwrap_or_else(|e| panic!("{e}")).build_world().groups
}

/// Neighbour lists by hand: every other agent, sorted by (distance², id). All agents here are
/// within each other's sensing radius.
fn all_neighbours(position: &[Vec2], id: &[u32]) -> Neighbours {
    let n = position.len();
    let stride = n.saturating_sub(1).max(1);
    let mut nb = Neighbours {
        stride,
        count: vec![0; n],
        rows: vec![0; n * stride],
        dist_sq: vec![0.0; n * stride],
        offset: vec![Vec2::ZERO; n * stride],
    };
    for i in 0..n {
        let mut others: Vec<(f32, u32, u32)> = (0..n)
            .filter(|&j| j != i)
            .map(|j| ((position[j] - position[i]).length_squared(), id[j], j as u32))
            .collect();
        others.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        nb.count[i] = others.len() as u32;
        for (k, (d, _, row)) in others.into_iter().enumerate() {
            nb.rows[i * stride + k] = row;
            nb.dist_sq[i * stride + k] = d;
            nb.offset[i * stride + k] = position[row as usize] - position[i];
        }
    }
    nb
}

/// Runs the queue_brake pass on hand-built rows; returns (steering, velocity, blocked).
fn run_queue_brake(
    groups: &[Group],
    group: &[u16],
    position: &[Vec2],
    steering: &[Vec2],
    velocity: &[Vec2],
) -> (Vec<Vec2>, Vec<Vec2>, Vec<bool>) {
    let bounds = Bounds { kind: BoundsKind::Open, min: v(-100.0, -100.0), max: v(100.0, 100.0) };
    let id: Vec<u32> = (0..position.len() as u32).collect();
    let nb = all_neighbours(position, &id);
    let (mut s, mut vel, mut blocked) = (steering.to_vec(), velocity.to_vec(), vec![false; position.len()]);
    queue_brake(&bounds, groups, group, &id, position, &nb, &mut s, &mut vel, &mut blocked);
    (s, vel, blocked)
}

#[test]
fn queue_rear_agent_brakes_behind_a_blocker() {
    // queue_ahead 1, queue_radius 0.5, separation_radius 0.5, max_separation 1.
    // Rear (id 0) at (0, 0), v = (1, 0), steering (2, 0.5); blocker (id 1) at (1.2, 0.3), v = 0.
    // Rear: ahead = (0, 0) + (1, 0) * 1 = (1, 0); |ahead - b|² = 0.2² + 0.3² = 0.13 <= 0.25:
    // blocked. Separation: |p - b|² = 1.44 + 0.09 = 1.53 > 0.25, so no neighbour: 0.
    // brake = -(2, 0.5) * 0.8 - (1, 0) + 0 = (-2.6, -0.4); steering = (2, 0.5) + brake = (-0.6, 0.1).
    // |p - b|² = 1.53 > 0.25: no hard stop, v stays (1, 0).
    // Blocker: v = 0, so ahead = its own position; the rear agent is 1.237 away > 0.5: free.
    let groups = queue_groups(1.0, 0.5, 0.5, 1.0);
    let (s, vel, blocked) = run_queue_brake(
        &groups,
        &[0, 0],
        &[v(0.0, 0.0), v(1.2, 0.3)],
        &[v(2.0, 0.5), Vec2::ZERO],
        &[v(1.0, 0.0), Vec2::ZERO],
    );
    assert_eq!(blocked, [true, false]);
    assert_close(s[0], v(-0.6, 0.1));
    assert_eq!(vel[0], v(1.0, 0.0));
    assert_eq!((s[1], vel[1]), (Vec2::ZERO, Vec2::ZERO));
}

#[test]
fn queue_hard_stop_and_separation_when_the_blocker_is_close() {
    // queue_ahead 0.5, queue_radius 0.5, separation_radius 1, max_separation 2.
    // Rear (id 0) at (0, 0), v = (0, 2), steering (0.5, 1); blocker (id 1) at (0.25, 0.375),
    // v = (0, 2).
    // Rear: ahead = (0, 0.5); |ahead - b|² = 0.0625 + 0.015625 = 0.078125 <= 0.25: blocked.
    // Separation over neighbours within 1 (|p - b|² = 0.203125): s = (0.25, 0.375) = (2, 3)/8,
    // norm(-s) * 2 = -(2, 3)/sqrt(13) * 2 = (-1.1094004, -1.6641006).
    // brake = -(0.5, 1) * 0.8 - (0, 2) + sep = (-0.4 - 1.1094004, -0.8 - 2 - 1.6641006)
    // = (-1.5094004, -4.4641006); steering = (0.5, 1) + brake = (-1.0094004, -3.4641006).
    // |p - b|² = 0.203125 <= 0.25: hard stop, v = (0, 2) * 0.3 = (0, 0.6) (the brake used the
    // velocity before the stop).
    // Blocker: ahead = (0.25, 0.875); the rear agent is |(0.25, 0.875)|² = 0.828 > 0.25 away: free.
    let groups = queue_groups(0.5, 0.5, 1.0, 2.0);
    let (s, vel, blocked) = run_queue_brake(
        &groups,
        &[0, 0],
        &[v(0.0, 0.0), v(0.25, 0.375)],
        &[v(0.5, 1.0), v(0.0, 1.0)],
        &[v(0.0, 2.0), v(0.0, 2.0)],
    );
    assert_eq!(blocked, [true, false]);
    assert_close(s[0], v(-1.0094004, -3.4641006));
    assert_close(vel[0], v(0.0, 0.6));
    assert_eq!((s[1], vel[1]), (v(0.0, 1.0), v(0.0, 2.0)));
}

#[test]
fn queue_blocker_ties_go_to_the_lower_id() {
    // queue_ahead 1, queue_radius 1, separation_radius 0.25 (no neighbour that close).
    // The queuer (id 0) at (0, 0), v = (1, 0), steering 0: ahead = (1, 0). Two non-queueing
    // agents at (0.5, 0) and (1.5, 0) are both 0.5 from ahead (0.25 <= 1): a tie, won by the
    // lower id. brake = -0 - (1, 0) = (-1, 0) either way; the hard stop depends on the winner:
    // (0.5, 0) is within queue_radius of the queuer (0.25 <= 1), (1.5, 0) is not (2.25 > 1).
    let groups = queue_groups(1.0, 1.0, 0.25, 1.0);
    let steering = [Vec2::ZERO; 3];
    let velocity = [v(1.0, 0.0), Vec2::ZERO, Vec2::ZERO];
    // Id 1 is the far one: no hard stop.
    let (s, vel, blocked) =
        run_queue_brake(&groups, &[0, 1, 1], &[v(0.0, 0.0), v(1.5, 0.0), v(0.5, 0.0)], &steering, &velocity);
    assert_eq!(blocked, [true, false, false]);
    assert_close(s[0], v(-1.0, 0.0));
    assert_eq!(vel[0], v(1.0, 0.0));
    // Id 1 is the near one: hard stop, v = (1, 0) * 0.3.
    let (s, vel, _) =
        run_queue_brake(&groups, &[0, 1, 1], &[v(0.0, 0.0), v(0.5, 0.0), v(1.5, 0.0)], &steering, &velocity);
    assert_close(s[0], v(-1.0, 0.0));
    assert_close(vel[0], v(0.3, 0.0));
}

#[test]
fn queue_two_agents_in_a_line_through_one_pipeline_step() {
    // Two queueing seekers on the x axis, target (20, 0), max_speed 2, max_force 3, mass 1,
    // dt 0.1, queue_ahead 1, queue_radius 0.5 (separation_radius defaults to 0.5).
    // Rear at (0, 0) and front at (1.25, 0), both moving (1, 0).
    // Rear: seek = (1, 0) * 2 - (1, 0) = (1, 0); ahead = (1, 0), |ahead - front| = 0.25 <= 0.5:
    // blocked; no neighbour within 0.5 (front is 1.25 away): separation 0;
    // brake = -(1, 0) * 0.8 - (1, 0) = (-1.8, 0); steering = (-0.8, 0); 1.25 > 0.5: no hard stop.
    // Integrate: v = (1, 0) + (-0.8, 0) * 0.1 = (0.92, 0); p = (0.092, 0).
    // Front: seek = (1, 0); ahead = (2.25, 0), nobody there: v = (1.1, 0), p = (1.36, 0).
    let text = r#"version = 1
name = "line"
seed = 1
dt = 0.1
ticks = 1
[bounds]
min = [-10, -10]
max = [30, 10]
[targets.goal]
kind = "point"
position = [20, 0]
[[groups]]
name = "line"
count = 2
spawn = { kind = "points", points = [[0, 0], [1.25, 0]] }
max_speed = 2.0
max_force = 3.0
[[groups.behaviours]]
kind = "seek"
target = "goal"
[[groups.behaviours]]
kind = "queue"
queue_ahead = 1.0
queue_radius = 0.5
"#;
    let scenario = Scenario::parse(text, "line").unwrap_or_else(|e| panic!("{e}"));
    let mut world = scenario.build_world();
    world.agents.velocity = vec![v(1.0, 0.0), v(1.0, 0.0)];
    let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
    pipeline.step(&mut world).unwrap();
    assert_eq!(pipeline.blocked(), [true, false]);
    assert_eq!(pipeline.events().queue_length, 1);
    assert_close(world.agents.velocity[0], v(0.92, 0.0));
    assert_close(world.agents.position[0], v(0.092, 0.0));
    assert_close(world.agents.velocity[1], v(1.1, 0.0));
    assert_close(world.agents.position[1], v(1.36, 0.0));
}

// ---------------------------------------------------------------------------------------------
// Obstacle geometry

#[test]
fn signed_distance_is_negative_inside() {
    let c = Obstacle::Circle { centre: v(0.0, 0.0), radius: 2.0 };
    // |(3, 4)| - 2 = 3; |(1, 0)| - 2 = -1; on the circle: 0.
    assert_close_f(c.signed_distance(v(3.0, 4.0)), 3.0);
    assert_close_f(c.signed_distance(v(1.0, 0.0)), -1.0);
    assert_close_f(c.signed_distance(v(0.0, 2.0)), 0.0);
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    // Outside the corner (4, 2): |(7, 6) - (4, 2)| = |(3, 4)| = 5. Beside a face: 3 and 0.5.
    assert_close_f(r.signed_distance(v(7.0, 6.0)), 5.0);
    assert_close_f(r.signed_distance(v(-3.0, 1.0)), 3.0);
    assert_close_f(r.signed_distance(v(2.0, -0.5)), 0.5);
    // Inside: minus the distance to the nearest face. (2, 1): faces 2, 2, 1, 1 -> -1.
    // (1, 0.5): faces 1, 3, 0.5, 1.5 -> -0.5.
    assert_close_f(r.signed_distance(v(2.0, 1.0)), -1.0);
    assert_close_f(r.signed_distance(v(1.0, 0.5)), -0.5);
}

#[test]
fn avoid_centre_of_circle_and_rect() {
    // A circle's centre(o) is its centre, wherever ahead is.
    let c = Obstacle::Circle { centre: v(3.0, -1.0), radius: 2.0 };
    assert_eq!(c.avoid_centre(v(10.0, 10.0)), v(3.0, -1.0));
    assert_eq!(c.avoid_centre(v(3.5, -1.0)), v(3.0, -1.0));
    // A rectangle's is the nearest point to ahead: (0, 0)-(10, 2).
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(10.0, 2.0) };
    assert_eq!(r.avoid_centre(v(12.0, 5.0)), v(10.0, 2.0)); // beyond the corner
    assert_eq!(r.avoid_centre(v(5.0, -3.0)), v(5.0, 0.0)); // below the bottom face
    assert_eq!(r.avoid_centre(v(-1.0, 1.0)), v(0.0, 1.0)); // left of the left face
    // Inside: the nearest boundary point. (3, 0.5): faces left 3, right 7, bottom 0.5,
    // top 1.5 -> (3, 0). (9.5, 1): 9.5, 0.5, 1, 1 -> right face (10, 1).
    assert_eq!(r.avoid_centre(v(3.0, 0.5)), v(3.0, 0.0));
    assert_eq!(r.avoid_centre(v(9.5, 1.0)), v(10.0, 1.0));
    // (5, 1): 5, 5, 1, 1 -> bottom and top tie; bottom comes first: (5, 0).
    assert_eq!(r.avoid_centre(v(5.0, 1.0)), v(5.0, 0.0));
}

#[test]
fn push_out_of_a_circle() {
    let c = Obstacle::Circle { centre: v(0.0, 0.0), radius: 2.0 };
    // Body radius 0.5, reach 2.5. p = (0, 1): n = (0, 1), out = (0, 2.5).
    assert_eq!(c.push_out(v(0.0, 1.0), 0.5), Some((v(0.0, 2.5), v(0.0, 1.0))));
    // p = (1.2, 1.6), |p| = 2 < 2.5: n = (0.6, 0.8), out = (1.5, 2.0).
    let (out, n) = c.push_out(v(1.2, 1.6), 0.5).unwrap();
    assert_close(out, v(1.5, 2.0));
    assert_close(n, v(0.6, 0.8));
    // Exactly at the centre: the fixed direction +x, out = (2.5, 0).
    assert_eq!(c.push_out(v(0.0, 0.0), 0.5), Some((v(2.5, 0.0), v(1.0, 0.0))));
    // Just touching (|p| = 2.5) or clear: nothing to do.
    assert_eq!(c.push_out(v(0.0, 2.5), 0.5), None);
    assert_eq!(c.push_out(v(0.0, -3.0), 0.5), None);
}

#[test]
fn push_out_of_a_rect_from_outside_and_inside() {
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    // Outside, clear: (5, 1) is 1 from the right face, body 0.5.
    assert_eq!(r.push_out(v(5.0, 1.0), 0.5), None);
    // Outside, overlapping the right face: q = (4, 1), d = (0.25, 0): n = (1, 0), out = (4.5, 1).
    assert_eq!(r.push_out(v(4.25, 1.0), 0.5), Some((v(4.5, 1.0), v(1.0, 0.0))));
    // Outside, overlapping the corner (4, 2): d = (0.375, 0.5), |d| = 0.625 < 0.75:
    // n = (0.6, 0.8), out = (4, 2) + n * 0.75 = (4.45, 2.6).
    let (out, n) = r.push_out(v(4.375, 2.5), 0.75).unwrap();
    assert_close(out, v(4.45, 2.6));
    assert_close(n, v(0.6, 0.8));
    // Inside, nearest the bottom face: (1, 0.5): faces 1, 3, 0.5, 1.5: out = (1, 0) - (0, 0.5).
    assert_eq!(r.push_out(v(1.0, 0.5), 0.5), Some((v(1.0, -0.5), v(0.0, -1.0))));
    // Inside, nearest the right face: (3.5, 1): 3.5, 0.5, 1, 1: out = (4.5, 1).
    assert_eq!(r.push_out(v(3.5, 1.0), 0.5), Some((v(4.5, 1.0), v(1.0, 0.0))));
    // The exact centre (2, 1): faces 2, 2, 1, 1: bottom wins the tie with top: (2, -0.5).
    assert_eq!(r.push_out(v(2.0, 1.0), 0.5), Some((v(2.0, -0.5), v(0.0, -1.0))));
    // The exact centre of a square: all four tie, left comes first: (-0.5, 1).
    let sq = Obstacle::Rect { min: v(0.0, 0.0), max: v(2.0, 2.0) };
    assert_eq!(sq.push_out(v(1.0, 1.0), 0.5), Some((v(-0.5, 1.0), v(-1.0, 0.0))));
}

// ---------------------------------------------------------------------------------------------
// The most threatening obstacle and the avoidance force

fn index(obstacles: &[Obstacle]) -> ObstacleIndex {
    let bounds = Bounds { kind: BoundsKind::Open, min: v(-100.0, -100.0), max: v(100.0, 100.0) };
    ObstacleIndex::build(obstacles, &bounds)
}

/// The agent of the threat tests: p = (0, 0), radius 0.5, see_ahead 10, max_speed 2.
fn threat(obstacles: &[Obstacle], vel: Vec2) -> Option<u32> {
    most_threatening(&index(obstacles), obstacles, Vec2::ZERO, vel, 2.0, 0.5, 10.0)
}

// At full speed (v = (2, 0), dyn = 1): ahead = (10, 0), ahead2 = (5, 0).
/// Contains ahead only: |(10, 0) - (11, 0)| = 1 <= 1.2 + 0.5; ahead2 is 6 away, p 11.
const AHEAD: Obstacle = Obstacle::Circle { centre: Vec2::new(11.0, 0.0), radius: 1.2 };
/// Contains ahead2 only: |(5, 0) - (5, 3)| = 3 <= 2.6 + 0.5; ahead and p are sqrt(34) = 5.83 away.
const AHEAD2: Obstacle = Obstacle::Circle { centre: Vec2::new(5.0, 3.0), radius: 2.6 };
/// Contains p only: |p - (-1, 0)| = 1 <= 0.8 + 0.5; ahead2 is 6 away.
const AT_P: Obstacle = Obstacle::Circle { centre: Vec2::new(-1.0, 0.0), radius: 0.8 };
/// Near p but threatening nothing: p is 3 > 2.5 away, ahead2 sqrt(34), ahead sqrt(109).
const DECOY: Obstacle = Obstacle::Circle { centre: Vec2::new(0.0, 3.0), radius: 2.0 };

#[test]
fn each_look_ahead_point_can_make_a_threat() {
    let full = v(2.0, 0.0);
    assert_eq!(threat(&[AHEAD], full), Some(0));
    assert_eq!(threat(&[AHEAD2], full), Some(0));
    assert_eq!(threat(&[AT_P], full), Some(0));
    assert_eq!(threat(&[DECOY], full), None);
    // A rectangle holding ahead: (9, -1)-(12, 1) contains (10, 0).
    assert_eq!(threat(&[Obstacle::Rect { min: v(9.0, -1.0), max: v(12.0, 1.0) }], full), Some(0));
    // The agent's radius inflates the obstacle: a circle at (11.8, 0) of radius 1.2 is 1.8 from
    // ahead: missed with body radius 0.5 (1.7), hit with 0.7 (1.9).
    let o = [Obstacle::Circle { centre: v(11.8, 0.0), radius: 1.2 }];
    assert_eq!(most_threatening(&index(&o), &o, Vec2::ZERO, full, 2.0, 0.5, 10.0), None);
    assert_eq!(most_threatening(&index(&o), &o, Vec2::ZERO, full, 2.0, 0.7, 10.0), Some(0));
}

#[test]
fn the_nearest_threat_wins() {
    let full = v(2.0, 0.0);
    // Distances from p to centre(o): AHEAD 11, AHEAD2 sqrt(34) = 5.83, AT_P 1, DECOY 3 (but it
    // does not threaten).
    assert_eq!(threat(&[AHEAD, AHEAD2, AT_P], full), Some(2));
    assert_eq!(threat(&[AT_P, AHEAD2, AHEAD], full), Some(0));
    assert_eq!(threat(&[AHEAD, AHEAD2], full), Some(1));
    assert_eq!(threat(&[DECOY, AHEAD, AHEAD2], full), Some(2));
    // A rectangle's distance is to its nearest point to ahead: (9, -1)-(12, 1) with ahead
    // (10, 0) inside: faces 1, 2, 1, 1 -> (9, 0), 9 from p; AHEAD2 at 5.83 is nearer.
    let wall = Obstacle::Rect { min: v(9.0, -1.0), max: v(12.0, 1.0) };
    assert_eq!(threat(&[wall, AHEAD2], full), Some(1));
    // ... and AHEAD's centre at 11 is farther than the wall's 9.
    assert_eq!(threat(&[AHEAD, wall], full), Some(1));
}

#[test]
fn threat_ties_go_to_the_lower_index() {
    // Two circles of radius 3 at (0, 3) and (0, -3): p is 3 <= 3.5 from both, both at distance 3.
    let up = Obstacle::Circle { centre: v(0.0, 3.0), radius: 3.0 };
    let down = Obstacle::Circle { centre: v(0.0, -3.0), radius: 3.0 };
    let full = v(2.0, 0.0);
    assert_eq!(threat(&[up, down], full), Some(0));
    assert_eq!(threat(&[down, up], full), Some(0));
    assert_eq!(threat(&[AHEAD, down, up], full), Some(1));
}

#[test]
fn slow_agents_look_less_far_ahead() {
    // A circle at (9.5, 0), radius 1 (1.5 inflated). At full speed ahead = (10, 0) is 0.5 away:
    // a threat. At v = (1, 0), dyn = 1/2: ahead = (5, 0) (4.5 away), ahead2 = (2.5, 0) (7 away),
    // p 9.5 away: none.
    let o = [Obstacle::Circle { centre: v(9.5, 0.0), radius: 1.0 }];
    assert_eq!(threat(&o, v(2.0, 0.0)), Some(0));
    assert_eq!(threat(&o, v(1.0, 0.0)), None);
    // Standing still: dyn = 0, ahead = ahead2 = p; only an obstacle at p threatens.
    assert_eq!(threat(&o, Vec2::ZERO), None);
    assert_eq!(threat(&[AHEAD, AHEAD2, AT_P], Vec2::ZERO), Some(2));
    // Nothing near: no threat at all.
    assert_eq!(threat(&[Obstacle::Circle { centre: v(50.0, 50.0), radius: 5.0 }], v(2.0, 0.0)), None);
}

#[test]
fn avoid_force_points_from_centre_to_ahead() {
    // p = (0, 0), v = (2, 0), max_speed 2, see_ahead 10: ahead = (10, 0).
    // Circle centred (11, 1): ahead - centre = (-1, -1), norm * 3 = (-2.1213203, -2.1213203).
    let c = [Obstacle::Circle { centre: v(11.0, 1.0), radius: 2.0 }];
    let f = avoid_force(&index(&c), &c[0], Vec2::ZERO, v(2.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(-2.1213203, -2.1213203));
    // dyn shortens ahead too: v = (1, 0): ahead = (5, 0); circle at (6, -1): ahead - centre =
    // (-1, 1), norm * 3 = (-2.1213203, 2.1213203).
    let c = [Obstacle::Circle { centre: v(6.0, -1.0), radius: 2.0 }];
    let f = avoid_force(&index(&c), &c[0], Vec2::ZERO, v(1.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(-2.1213203, 2.1213203));
    // A long wall (9, 2)-(20, 5) above ahead (10, 0): centre(o) = (10, 2), ahead - centre =
    // (0, -2): the push is sideways, (0, -3), not away from the wall's middle (14.5, 3.5).
    let w = [Obstacle::Rect { min: v(9.0, 2.0), max: v(20.0, 5.0) }];
    let f = avoid_force(&index(&w), &w[0], Vec2::ZERO, v(2.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(0.0, -3.0));
    // max_avoid_force scales it: 0.5 -> (0, -0.5).
    let f = avoid_force(&index(&w), &w[0], Vec2::ZERO, v(2.0, 0.0), 2.0, 10.0, 0.5);
    assert_close(f, v(0.0, -0.5));
}

// ---------------------------------------------------------------------------------------------
// Regions and spawn sources

#[test]
fn region_contains_is_inclusive() {
    let r = Region::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    for p in [v(0.0, 0.0), v(4.0, 2.0), v(2.0, 1.0), v(4.0, 0.0)] {
        assert!(r.contains(p), "{p}");
    }
    for p in [v(4.001, 1.0), v(2.0, -0.001), v(-1.0, 1.0), v(2.0, 2.5)] {
        assert!(!r.contains(p), "{p}");
    }
    // Circle centre (1, 1), radius 2: (3, 1) is on it (4 <= 4); (2.5, 2.5) is 1.5² + 1.5² = 4.5 > 4.
    let c = Region::Circle { centre: v(1.0, 1.0), radius: 2.0 };
    for p in [v(3.0, 1.0), v(1.0, -1.0), v(1.0, 1.0), v(2.0, 2.0)] {
        assert!(c.contains(p), "{p}");
    }
    for p in [v(2.5, 2.5), v(3.0, 1.01), v(-1.1, 1.0)] {
        assert!(!c.contains(p), "{p}");
    }
}

#[test]
fn region_samples_fill_the_region_uniformly() {
    const N: usize = 20_000;
    let mut rng = agent_rng(5, 77, Purpose::Spawn);
    // Rect (10, -4)-(14, 4): every sample inside, the extremes within 1% of the edges, the mean
    // within 2% of the size from the centre (12, 0).
    let r = Region::Rect { min: v(10.0, -4.0), max: v(14.0, 4.0) };
    let samples: Vec<Vec2> = (0..N).map(|_| r.sample(&mut rng)).collect();
    assert!(samples.iter().all(|&p| r.contains(p)));
    let lo = samples.iter().fold(Vec2::splat(f32::MAX), |a, &p| a.min(p));
    let hi = samples.iter().fold(Vec2::splat(f32::MIN), |a, &p| a.max(p));
    assert!(lo.x < 10.04 && lo.y < -3.92 && hi.x > 13.96 && hi.y > 3.92, "{lo} {hi}");
    let mean = samples.iter().sum::<Vec2>() / N as f32;
    assert!((mean - v(12.0, 0.0)).abs().cmplt(v(0.08, 0.16)).all(), "mean {mean}");
    // Circle centre (-3, 2), radius 5: all inside; uniform over the area, so about a quarter
    // (r < R/2 has 1/4 of the area) fall in the inner half radius, and some reach the rim.
    let c = Region::Circle { centre: v(-3.0, 2.0), radius: 5.0 };
    let samples: Vec<Vec2> = (0..N).map(|_| c.sample(&mut rng)).collect();
    assert!(samples.iter().all(|&p| c.contains(p)));
    let inner = samples.iter().filter(|&&p| (p - v(-3.0, 2.0)).length() < 2.5).count() as f32 / N as f32;
    assert!((0.23..0.27).contains(&inner), "inner fraction {inner}");
    let rim = samples.iter().map(|&p| (p - v(-3.0, 2.0)).length()).fold(0.0, f32::max);
    assert!(rim > 4.95, "{rim}");
    // All four quadrants around the centre are used about equally (a quarter each, ±2%).
    for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        let q = samples.iter().filter(|&&p| (p.x + 3.0) * sx > 0.0 && (p.y - 2.0) * sy > 0.0).count() as f32
            / N as f32;
        assert!((0.23..0.27).contains(&q), "quadrant ({sx}, {sy}): {q}");
    }
}

/// A spawn source as the scenario loader builds it.
fn source(rate: f32, start_s: f32, end_s: f32, max_agents: u32) -> Source {
    let text = format!(
        r#"version = 1
name = "s"
seed = 1
dt = 0.1
ticks = 10
[bounds]
min = [0, 0]
max = [10, 10]
[[groups]]
name = "g"
count = 1
spawn = {{ kind = "points", points = [[1, 1]] }}
max_speed = 1.0
max_force = 1.0
[[sources]]
name = "s"
group = "g"
kind = "rect"
min = [0, 0]
max = [1, 1]
rate = {rate}
start_s = {start_s}
end_s = {end_s}
max_agents = {max_agents}
"#
    );
    Scenario::parse(&text, "s").unwrap_or_else(|e| panic!("{e}")).sources.remove(0)
}

#[test]
fn source_due_by_rate_start_end_and_max() {
    // rate 2/s from 1 s to 5 s: floor(2 * (min(t, 5) - 1)), never below 0.
    let s = source(2.0, 1.0, 5.0, 100);
    for (t, due) in
        [(0.0, 0), (0.5, 0), (1.0, 0), (1.5, 1), (2.25, 2), (3.0, 4), (5.0, 8), (6.0, 8), (100.0, 8)]
    {
        assert_eq!(s.due_by(t), due, "t = {t}");
    }
    // The same capped at 5 agents: 4 by 3 s, then 5.
    let s = source(2.0, 1.0, 5.0, 5);
    for (t, due) in [(3.0, 4), (3.5, 5), (5.0, 5), (100.0, 5)] {
        assert_eq!(s.due_by(t), due, "t = {t}");
    }
    // Rate 0 never spawns.
    assert_eq!(source(0.0, 0.0, 5.0, 10).due_by(4.0), 0);
    // Rate 12.5/s from 0: 1 by 0.1 s (1.25), 2 by 0.2 s (2.5), 12 by 1 s (12.5), 125 by 10 s.
    let s = source(12.5, 0.0, 100.0, 1000);
    for (t, due) in [(0.1, 1), (0.2, 2), (1.0, 12), (10.0, 125)] {
        assert_eq!(s.due_by(t), due, "t = {t}");
    }
}

#[test]
fn source_due_by_does_not_drift_over_many_ticks() {
    // 10 agents per second with dt = 0.1 (f32, slightly above 0.1): exactly k agents by the end
    // of tick k, evaluated the way the pipeline does, (k as f64) * (dt as f64).
    let s = source(10.0, 0.0, 1000.0, 100_000);
    let dt = 0.1f32;
    for k in 0..=5000u32 {
        assert_eq!(s.due_by(k as f64 * dt as f64), k, "tick {k}");
    }
}
