//! Queue braking: the brake force, the blocker search, the hard stop, and one pipeline step of
//! two agents in a line.

use throng_engine::behaviours::{hard_stop_per_tick, look_along, queue_brake_force};
use throng_engine::index::Neighbours;
use throng_engine::math::Vec2;
use throng_engine::passes::{StepContext, queue_brake};
use throng_engine::world::{Agents, Bounds, BoundsKind, Group};
use throng_engine::{IndexKind, Pipeline, Scenario};

use crate::common::{assert_close, v};

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
    let open = Bounds { kind: BoundsKind::Open, min: v(-100.0, -100.0), max: v(100.0, 100.0) };
    neighbours_in(&open, position, id)
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
    let (mut s, mut blocked) = (steering.to_vec(), vec![false; position.len()]);
    let mut agents = Agents::default();
    (agents.group, agents.id, agents.position, agents.velocity) =
        (group.to_vec(), id, position.to_vec(), velocity.to_vec());
    let ctx = StepContext { tick: 0, dt: 0.1, bounds: &bounds, groups };
    queue_brake(&ctx, &mut agents, &nb, &mut s, &mut blocked);
    (s, agents.velocity, blocked)
}

#[test]
fn queue_rear_agent_brakes_behind_a_blocker() {
    // queue_ahead 1, queue_radius 0.5, separation_radius 0.5, max_separation 1.
    // Rear (id 0) at (0, 0), v = (1, 0), steering (2, 0.5); blocker (id 1) at (1.2, 0.3), v = 0.
    // Rear: it looks along v + steering * 0.1 s = (1.2, 0.05), so ahead = (0.99913, 0.04163);
    // |ahead - b|² = 0.20087² + 0.25837² = 0.107 <= 0.25: blocked. Separation: |p - b|² = 1.44 + 0.09 = 1.53 > 0.25, so no neighbour: 0.
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
    // Rear: it looks along v + steering * 0.1 s = (0.05, 2.1), so ahead = (0.0119, 0.49986);
    // |ahead - b|² = 0.2381² + 0.12486² = 0.0723 <= 0.25: blocked.
    // Separation over neighbours within 1 (|p - b|² = 0.203125): s = (0.25, 0.375) = (2, 3)/8,
    // norm(-s) * 2 = -(2, 3)/sqrt(13) * 2 = (-1.1094004, -1.6641006).
    // brake = -(0.5, 1) * 0.8 - (0, 2) + sep = (-0.4 - 1.1094004, -0.8 - 2 - 1.6641006)
    // = (-1.5094004, -4.4641006); steering = (0.5, 1) + brake = (-1.0094004, -3.4641006).
    // |p - b|² = 0.203125 <= 0.25: hard stop, v = (0, 2) * 0.3 = (0, 0.6) (the brake used the
    // velocity before the stop).
    // Blocker: it looks along (0, 2) + (0, 1) * 0.1 = (0, 2.1), ahead = (0.25, 0.875); the rear agent is |(0.25, 0.875)|² = 0.828 > 0.25 away: free.
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
fn a_queuer_pressed_against_a_wall_looks_where_its_steering_pushes_it() {
    // A wall takes the inward part of the velocity away every tick: the agent at (0, 0) is left
    // with v = (0, -0.05), a slide away from the door, while its steering (2, 0.5) pushes it
    // toward the door. It looks along v + steering * 0.1 s = (0, -0.05) + (0.2, 0.05) = (0.2, 0),
    // so ahead = (1, 0) (queue_ahead 1), and the agent at (1.2, 0.3) is 0.13 <= 0.25 from it:
    // blocked. Along v alone it would look at (0, -1), 2.93 from that agent, and not brake.
    // brake = -(2, 0.5) * 0.8 - (0, -0.05) + 0 (no one within 0.5) = (-1.6, -0.35); steering =
    // (2, 0.5) + brake = (0.4, 0.15).
    assert_close(look_along(v(0.0, -0.05), v(2.0, 0.5)), v(0.2, 0.0));
    let groups = queue_groups(1.0, 0.5, 0.5, 1.0);
    let (s, vel, blocked) = run_queue_brake(
        &groups,
        &[0, 1],
        &[v(0.0, 0.0), v(1.2, 0.3)],
        &[v(2.0, 0.5), Vec2::ZERO],
        &[v(0.0, -0.05), Vec2::ZERO],
    );
    assert_eq!(blocked, [true, false]);
    assert_close(s[0], v(0.4, 0.15));
    assert_eq!(vel[0], v(0.0, -0.05));
}

/// The hard stop keeps `hard_stop_factor` of the speed per 0.1 s, whatever the step: 0.3 per
/// tick at dt 0.1, √0.3 per tick at dt 0.05, 0.3² at dt 0.2; two ticks of 0.05 keep what one
/// of 0.1 does.
#[test]
fn the_hard_stop_is_a_rate_per_second() {
    assert_eq!(hard_stop_per_tick(0.3, 0.1), 0.3);
    assert_close(v(hard_stop_per_tick(0.3, 0.05), hard_stop_per_tick(0.3, 0.2)), v(0.5477226, 0.09));
    assert_close(
        v(hard_stop_per_tick(0.3, 0.05).powi(2), hard_stop_per_tick(0.3, 0.025).powi(4)),
        v(0.3, 0.3),
    );
    assert_eq!((hard_stop_per_tick(0.0, 0.05), hard_stop_per_tick(1.0, 0.05)), (0.0, 1.0));
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

/// Every agent's neighbours by the world's own offset, sorted by (distance², id), uncapped.
fn neighbours_in(bounds: &Bounds, position: &[Vec2], id: &[u32]) -> Neighbours {
    let n = position.len();
    let lists: Vec<Vec<(u32, f32, Vec2)>> = (0..n)
        .map(|i| {
            let mut others: Vec<(f32, u32, u32, Vec2)> = (0..n)
                .filter(|&j| j != i)
                .map(|j| {
                    let o = bounds.offset(position[i], position[j]);
                    (o.length_squared(), id[j], j as u32, o)
                })
                .collect();
            others.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            others.into_iter().map(|(d, _, row, o)| (row, d, o)).collect()
        })
        .collect();
    Neighbours::from_lists(&lists)
}

#[test]
fn the_blocker_is_the_nearest_agent_to_ahead_by_the_worlds_offset_on_any_world() {
    // The pass first tests each neighbour by the list's offset and only then exactly; this
    // checks its blockers against the definition, every agent tested by
    // `offset(ahead, q)`: random crowds on tori from narrower than the filter allows (2.5, 6
    // wide) to 5,000 wide (coarse coordinates), and on an open world far from the origin.
    let groups = queue_groups(1.0, 0.5, 0.5, 1.0);
    let (qa, qr) = (1.0f32, 0.5f32);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let worlds = [
        (BoundsKind::Wrap, v(0.0, 0.0), v(2.5, 2.5)),
        (BoundsKind::Wrap, v(-3.0, -3.0), v(3.0, 3.0)),
        (BoundsKind::Wrap, v(0.0, 0.0), v(12.0, 9.0)),
        (BoundsKind::Wrap, v(4990.0, 4990.0), v(5000.0, 5000.0)),
        (BoundsKind::Open, v(-20000.0, 7000.0), v(-19990.0, 7010.0)),
    ];
    let mut blocked_seen = 0;
    for (kind, min, max) in worlds {
        let bounds = Bounds { kind, min, max };
        for _ in 0..20 {
            let n = 40;
            let position: Vec<Vec2> =
                (0..n).map(|_| min + (max - min) * v(next(), next())).map(|p| bounds.wrap(p)).collect();
            let velocity: Vec<Vec2> = (0..n).map(|_| v(next() * 2.0 - 1.0, next() * 2.0 - 1.0)).collect();
            let steering: Vec<Vec2> = (0..n).map(|_| v(next() * 4.0 - 2.0, next() * 4.0 - 2.0)).collect();
            let id: Vec<u32> = (0..n as u32).collect();
            let group = vec![0u16; n];
            let nb = neighbours_in(&bounds, &position, &id);
            let (mut s, mut blocked) = (steering.clone(), vec![false; n]);
            let mut agents = Agents::default();
            (agents.group, agents.id, agents.position, agents.velocity) =
                (group, id.clone(), position.clone(), velocity.clone());
            let ctx = StepContext { tick: 0, dt: 0.1, bounds: &bounds, groups: &groups };
            queue_brake(&ctx, &mut agents, &nb, &mut s, &mut blocked);
            for i in 0..n {
                let ahead =
                    position[i] + throng_engine::math::norm(look_along(velocity[i], steering[i])) * qa;
                let reach = (qa + qr) * 1.001 + 1e-6;
                let expected = (0..n)
                    .filter(|&j| {
                        j != i && bounds.offset(position[i], position[j]).length_squared() <= reach * reach
                    })
                    .map(|j| (bounds.offset(ahead, position[j]).length_squared(), id[j], j))
                    .filter(|&(d, _, _)| d <= qr * qr)
                    .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                assert_eq!(blocked[i], expected.is_some(), "{kind:?} {min}..{max}: agent {i}");
                blocked_seen += usize::from(blocked[i]);
                // The hard stop tells which agent blocked: it applies when the blocker is within
                // `queue_radius` of the queuer itself.
                let stops = expected.is_some_and(|(_, _, b)| {
                    bounds.offset(position[i], position[b]).length_squared() <= qr * qr
                });
                let v_after = if stops { velocity[i] * hard_stop_per_tick(0.3, 0.1) } else { velocity[i] };
                assert_eq!(agents.velocity[i], v_after, "{kind:?} {min}..{max}: agent {i}'s hard stop");
            }
        }
    }
    assert!(blocked_seen > 200, "only {blocked_seen} blocked agents: the crowds test too little");
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
