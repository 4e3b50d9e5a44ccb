//! Leader following: soldiers stay behind their leader and keep up with it, and a follower in
//! the leader's sight gets out of its way.

use throng_engine::math::{Vec2, norm};
use throng_engine::{IndexKind, Pipeline, Scenario, World};

use super::{parse, shipped};

/// Measured: the followers' mean position along the leader's heading stays between -7.23 and
/// -3.58 units from 30 s to 90 s (it is highest while the leader turns a corner of its square):
/// behind it, and not left behind.
const LEADER_MEAN_BEHIND: f32 = -2.0;
/// The other side of that band: soldiers that stopped following would drift far below it.
const LEADER_MEAN_KEPT_UP: f32 = -9.0;
/// Measured: the furthest soldier is at most 10.8 from the leader from 30 s to 90 s.
const LEADER_FURTHEST: f32 = 12.0;
/// Measured: no soldier is ever ahead of the leader from 30 s to 90 s.
const LEADER_MAX_AHEAD: usize = 3;

#[test]
fn soldiers_stay_behind_the_leader() {
    let scenario = shipped("leader");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let soldiers = world.groups.iter().position(|g| g.name == "soldiers").unwrap() as u16;
    let leader = world.row_of(0).unwrap();
    assert_eq!(world.groups[world.agents.group[leader] as usize].name, "leader");
    let (mut lo, mut hi, mut most_ahead) = (f32::MAX, f32::MIN, 0usize);
    for _ in 0..900 {
        pipeline.step(&mut world).unwrap();
        if world.tick < 300 {
            continue; // 30 s to settle
        }
        // Rows may be in spatial order: find the leader (id 0) again.
        let leader = world.row_of(0).unwrap();
        let a = &world.agents;
        let heading = norm(a.velocity[leader]);
        let along: Vec<f32> = (0..a.len())
            .filter(|&i| a.group[i] == soldiers)
            .map(|i| (a.position[i] - a.position[leader]).dot(heading))
            .collect();
        let mean = along.iter().sum::<f32>() / along.len() as f32;
        assert!(mean < LEADER_MEAN_BEHIND, "followers' mean {mean} along the heading at tick {}", world.tick);
        assert!(mean > LEADER_MEAN_KEPT_UP, "followers' mean {mean}: left behind at tick {}", world.tick);
        let furthest = (0..a.len())
            .filter(|&i| a.group[i] == soldiers)
            .map(|i| (a.position[i] - a.position[leader]).length())
            .fold(0.0f32, f32::max);
        assert!(furthest <= LEADER_FURTHEST, "a soldier {furthest} from the leader at tick {}", world.tick);
        (lo, hi) = (lo.min(mean), hi.max(mean));
        let ahead = along.iter().filter(|&&x| x > 0.0).count();
        assert!(ahead <= LEADER_MAX_AHEAD, "{ahead} soldiers ahead of the leader at tick {}", world.tick);
        most_ahead = most_ahead.max(ahead);
    }
    eprintln!("leader: mean along heading in [{lo}, {hi}], at most {most_ahead} soldiers ahead");
}

/// A leader moving along +x at 2 units/s and one follower placed just ahead of it, in its sight
/// (0.5 from the ahead point), with `sight_radius` as given.
fn sight_scene(sight_radius: f32) -> (Scenario, World) {
    let text = format!(
        r#"version = 1
name = "sight"
seed = 1
dt = 0.1
ticks = 300
[bounds]
min = [-50, -50]
max = [500, 50]
[targets.far]
kind = "point"
position = [1000, 0]
[targets.chief]
kind = "agent"
agent = 0
[[groups]]
name = "leader"
count = 1
spawn = {{ kind = "points", points = [[0, 0]] }}
max_speed = 2.0
max_force = 2.0
radius = 0.5
[[groups.behaviours]]
kind = "seek"
target = "far"
[[groups]]
name = "follower"
count = 1
spawn = {{ kind = "points", points = [[3, 0.5]] }}
max_speed = 3.0
max_force = 3.0
radius = 0.5
[[groups.behaviours]]
kind = "follow_leader"
leader = "chief"
behind_dist = 3.0
slowing_radius = 5.0
sight_radius = {sight_radius}
separation_radius = 1.5
max_separation = 2.0
"#
    );
    let scenario = parse(&text, "sight");
    let mut world = scenario.build_world();
    world.agents.velocity = vec![Vec2::new(2.0, 0.0), Vec2::new(2.0, 0.0)];
    (scenario, world)
}

/// Runs the sight scene for 30 s: (tick the follower first leaves the sight zone, whether it
/// came back, its closest approach to the leader).
fn run_sight_scene(sight_radius: f32) -> (Option<u64>, bool, f32) {
    const SIGHT: f32 = 2.5;
    const BEHIND: f32 = 3.0;
    let (_, mut world) = sight_scene(sight_radius);
    let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
    let (mut left, mut came_back, mut closest) = (None, false, f32::MAX);
    for _ in 0..300 {
        pipeline.step(&mut world).unwrap();
        let (leader, follower) = (world.agents.position[0], world.agents.position[1]);
        let ahead = leader + norm(world.agents.velocity[0]) * BEHIND;
        let in_sight = (follower - ahead).length() <= SIGHT || (follower - leader).length() <= SIGHT;
        match (in_sight, left) {
            (false, None) => left = Some(world.tick),
            (true, Some(_)) => came_back = true,
            _ => {}
        }
        closest = closest.min((follower - leader).length());
    }
    (left, came_back, closest)
}

#[test]
fn follower_in_the_leaders_sight_gets_out_of_the_way() {
    // Measured: out of the sight zone after 24 ticks (2.4 s), never back, closest approach
    // 1.28 (the bodies' radii sum to 1.0), stepping 2.35 units aside on the way.
    let (left, came_back, closest) = run_sight_scene(2.5);
    eprintln!("sight: left at {left:?}, came back {came_back}, closest {closest}");
    let left = left.expect("the follower never left the leader's sight");
    assert!(left <= 40, "left the sight zone only at tick {left}");
    assert!(!came_back, "the follower walked back into the leader's sight");
    assert!(closest > 1.0, "the follower touched the leader: closest approach {closest}");
    // Control: without the evade term (sight radius 0) the same follower arrives behind the
    // leader straight through it. Measured: closest approach 0.44.
    let (_, _, closest) = run_sight_scene(0.0);
    eprintln!("sight (no evade): closest {closest}");
    assert!(closest < 1.0, "without evade the follower should run into the leader; closest {closest}");
}

/// A leader that walks east 30 units and stops there, with 12 followers behind it; with
/// `behind_when_stopped` as given. Returns (followers ahead of the stopped leader, along its
/// last heading; their mean distance from it) after 60 s.
fn stopping_leader(behind_when_stopped: &str) -> (usize, f32) {
    let points: Vec<String> =
        (0..12).map(|k| format!("[{}, {}]", -4 - (k / 4) * 2, (k % 4) as f32 * 1.5 - 2.25)).collect();
    let text = format!(
        r#"version = 1
name = "stop"
seed = 1
dt = 0.1
ticks = 600
[bounds]
min = [-50, -50]
max = [100, 50]
[targets.post]
kind = "point"
position = [30, 0]
[targets.chief]
kind = "agent"
agent = 0
[[groups]]
name = "leader"
count = 1
spawn = {{ kind = "points", points = [[0, 0]] }}
max_speed = 1.5
max_force = 3.0
radius = 0.5
[[groups.behaviours]]
kind = "arrive"
target = "post"
slowing_radius = 2.0
[[groups]]
name = "followers"
count = 12
spawn = {{ kind = "points", points = [{points}] }}
max_speed = 2.0
max_force = 3.0
radius = 0.4
[[groups.behaviours]]
kind = "follow_leader"
leader = "chief"
behind_dist = 3.0
slowing_radius = 3.0
sight_radius = 3.0
separation_radius = 1.2
max_separation = 2.0
behind_when_stopped = "{behind_when_stopped}"
"#,
        points = points.join(", ")
    );
    let scenario = parse(&text, "stop");
    let mut world = scenario.build_world();
    world.agents.velocity[0] = Vec2::new(1.5, 0.0);
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    for _ in 0..600 {
        pipeline.step(&mut world).expect("finite");
    }
    let a = &world.agents;
    let leader = world.row_of(0).expect("the leader");
    let (lp, heading) = (a.position[leader], Vec2::new(1.0, 0.0));
    let followers: Vec<usize> = (0..a.len()).filter(|&i| i != leader).collect();
    let ahead = followers.iter().filter(|&&i| (a.position[i] - lp).dot(heading) > 0.0).count();
    let mean = followers.iter().map(|&i| (a.position[i] - lp).length()).sum::<f32>() / followers.len() as f32;
    assert!(a.velocity[leader].length() < 0.05, "the leader has not stopped: {:?}", a.velocity[leader]);
    (ahead, mean)
}

/// When the leader stops, the sources' `norm(leader.v)` is the direction of a velocity of a few
/// millionths: here, after `arrive` has brought it to rest, (−1.4e-6, 0), rounding noise that
/// points back the way it came. So `behind` flips to the far side and the followers walk past
/// the leader: measured after 60 s, 10 of 12 end in front of it. `behind_when_stopped =
/// "last_heading"` keeps `behind` behind the way it last moved faster than 10 % of its max
/// speed: 0 of 12 in front. Bounds: at least 3 in front with the sources' formula, none with
/// the option.
#[test]
fn followers_of_a_stopped_leader_stay_behind_it_with_last_heading() {
    let (ahead_src, mean_src) = stopping_leader("leader");
    let (ahead_fix, mean_fix) = stopping_leader("last_heading");
    eprintln!(
        "stopped leader: sources' formula {ahead_src} of 12 ahead (mean distance {mean_src:.2}), last_heading {ahead_fix} of 12 ahead (mean {mean_fix:.2})"
    );
    assert!(ahead_src >= 3, "the sources' formula should let followers end in front: {ahead_src}");
    assert_eq!(ahead_fix, 0, "with last_heading, followers ended in front of the stopped leader");
}
