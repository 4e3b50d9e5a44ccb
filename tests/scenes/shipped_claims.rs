//! What the README says of the shipped scenes that no other test covers: the seekers, arrivers
//! and fleers of seek_arrive, the zombie horde closing on its survivor through the wood, the
//! evacuation (every door used, latecomers spawned, everyone out), and the leader scene's
//! monsters retargeting every 4 s. Each bound sits beside the value measured.

use throng_engine::behaviours::moving_point;
use throng_engine::math::Vec2;
use throng_engine::metrics::MetricsCollector;
use throng_engine::world::Target;
use throng_engine::{IndexKind, Pipeline, World};

use super::{shipped, step};

/// Mean of `f` over the agents of group `name`.
fn group_mean(world: &World, name: &str, f: impl Fn(usize) -> f32) -> f32 {
    let g = world.groups.iter().position(|g| g.name == name).expect("the group") as u16;
    let rows: Vec<usize> = (0..world.agents.len()).filter(|&i| world.agents.group[i] == g).collect();
    rows.iter().map(|&i| f(i)).sum::<f32>() / rows.len() as f32
}

/// The cosine between agent `i`'s velocity and its direction to `to` (0 at rest).
fn heading_to(w: &World, i: usize, to: Vec2) -> f32 {
    let (v, d) = (w.agents.velocity[i], to - w.agents.position[i]);
    if v.length_squared() == 0.0 || d.length_squared() == 0.0 {
        0.0
    } else {
        v.normalize().dot(d.normalize())
    }
}

/// The position of target `name` of kind "moving" at `world`'s time.
fn moving_target(world: &World, names: &[String], name: &str) -> Vec2 {
    let t = names.iter().position(|n| n == name).expect("the target");
    let Target::Moving { waypoints, speed } = &world.targets[t] else {
        panic!("{name} is not a moving target")
    };
    moving_point(waypoints, *speed, world.tick as f64 * world.dt as f64).0
}

/// Measured over the 40 s of seek_arrive: the seekers' mean distance to the moving point
/// goes from 26.0 to 19.1 units (a crowd of 300 kept apart by separation trails it) and they
/// head for it (mean cosine between velocity and direction 0.90); the arrivers gather
/// 5.2 units from home on average, at a mean speed of 0.47 (their max is 6); the fleers' mean
/// distance from the centre grows from 3.3 to 120.2 units.
#[test]
fn seek_arrive_seekers_follow_arrivers_stop_fleers_scatter() {
    let scenario = shipped("seek_arrive");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    let names = &scenario.target_names;
    let home = Vec2::new(30.0, 30.0);
    let seek_gap = |w: &World| {
        let m = moving_target(w, names, "mouse");
        group_mean(w, "seekers", |i| (w.agents.position[i] - m).length())
    };
    let flee_out = |w: &World| group_mean(w, "fleers", |i| w.agents.position[i].length());
    let (seek0, flee0) = (seek_gap(&world), flee_out(&world));
    for _ in 0..scenario.ticks {
        pipeline.step(&mut world).expect("finite");
    }
    let (seek1, flee1) = (seek_gap(&world), flee_out(&world));
    let mouse = moving_target(&world, names, "mouse");
    let seek_heading = group_mean(&world, "seekers", |i| heading_to(&world, i, mouse));
    let arrive_gap = group_mean(&world, "arrivers", |i| (world.agents.position[i] - home).length());
    let arrive_speed = group_mean(&world, "arrivers", |i| world.agents.velocity[i].length());
    eprintln!(
        "seek_arrive: seekers {seek0:.1} -> {seek1:.1} from the point, heading cosine {seek_heading:.2}; arrivers {arrive_gap:.1} from home at speed {arrive_speed:.2}; fleers {flee0:.1} -> {flee1:.1} from the centre"
    );
    assert!(
        seek1 < seek0 && seek_heading > 0.7,
        "the seekers do not follow: {seek0:.1} -> {seek1:.1}, cosine {seek_heading:.2}"
    );
    assert!(
        arrive_gap < 8.0 && arrive_speed < 0.6,
        "the arrivers did not stop at home: {arrive_gap:.1}, {arrive_speed:.2}"
    );
    assert!(flee1 > flee0 + 80.0, "the fleers did not scatter: {flee0:.1} -> {flee1:.1}");
}

/// The zombies (0.6 to 2.4 units/s) chase a survivor running its loop at 2.5 units/s, so the
/// horde strings out behind it. Measured over 90 s: they head for it (mean cosine between
/// velocity and direction 0.88), the fastest quarter ends 95.6 units from it on average and
/// the slowest quarter 118.7, and no zombie is ever inside a tree. Bounds: cosine above 0.7,
/// the fastest quarter at most 0.9 times as far as the slowest.
#[test]
fn the_zombie_horde_chases_the_survivor_through_the_wood() {
    let scenario = shipped("zombies");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    let mut metrics = MetricsCollector::new(scenario.metrics, &world);
    while world.tick < scenario.ticks {
        let m = step(&mut world, &mut pipeline, &mut metrics);
        assert_eq!(m.obstacle_penetrations, 0, "a zombie inside a tree at tick {}", m.tick);
    }
    let s = moving_target(&world, &scenario.target_names, "survivor");
    let heading = group_mean(&world, "zombies", |i| heading_to(&world, i, s));
    let a = &world.agents;
    let mut by_speed: Vec<(f32, f32)> =
        (0..a.len()).map(|i| (a.max_speed[i], (a.position[i] - s).length())).collect();
    by_speed.sort_by(|x, y| x.0.total_cmp(&y.0));
    let q = by_speed.len() / 4;
    let mean = |v: &[(f32, f32)]| v.iter().map(|x| x.1).sum::<f32>() / v.len() as f32;
    let (slow, fast) = (mean(&by_speed[..q]), mean(&by_speed[by_speed.len() - q..]));
    eprintln!(
        "zombies: heading cosine {heading:.2}; fastest quarter {fast:.1} from the survivor, slowest {slow:.1}"
    );
    assert!(heading > 0.7, "the horde does not head for the survivor: cosine {heading:.2}");
    assert!(fast < 0.9 * slow, "the faster zombies are not ahead: {fast:.1} against {slow:.1}");
}

/// The evacuation scaled to 2,000 agents (the shipped 20,000 at its density): every door is
/// used, the spawn source adds latecomers, and everyone leaves. Measured: door crossings
/// 620 / 500 / 502 / 500, 120 latecomers, the hall empty at tick 1,174. Bounds: at least 100
/// crossings per door, some latecomers, everyone out within 600 s.
#[test]
fn the_evacuation_uses_every_door_and_empties() {
    let scenario = shipped("evacuation").scaled(2000).expect("scaled");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    let mut metrics = MetricsCollector::new(scenario.metrics, &world);
    while world.tick < 6000 && (world.tick < 10 || !world.agents.is_empty()) {
        step(&mut world, &mut pipeline, &mut metrics);
    }
    let summary = metrics.summary(&world);
    let crossings: Vec<u64> = summary.gates.iter().map(|g| g.crossings).collect();
    eprintln!(
        "evacuation (2,000): door crossings {crossings:?}, {} spawned, {} exited, empty at tick {}",
        summary.agents_spawned, summary.agents_exited, world.tick
    );
    assert!(world.agents.is_empty(), "{} agents still inside after 600 s", world.agents.len());
    assert_eq!(crossings.len(), 4);
    assert!(crossings.iter().all(|&c| c >= 100), "a door was hardly used: {crossings:?}");
    assert!(summary.agents_spawned > 0, "no latecomers spawned");
    assert_eq!(summary.agents_exited, scenario.agent_count() + summary.agents_spawned);
}

/// The leader scene's monsters draw a new random goal every 4 s (40 ticks) and keep it in
/// between, each from its own generator.
#[test]
fn the_monsters_retarget_every_four_seconds() {
    let scenario = shipped("leader");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    let monsters = world.groups.iter().position(|g| g.name == "monsters").expect("monsters") as u16;
    let goals = |w: &World| -> Vec<(u32, Vec2)> {
        let a = &w.agents;
        let mut g: Vec<(u32, Vec2)> =
            (0..a.len()).filter(|&i| a.group[i] == monsters).map(|i| (a.id[i], a.goal[i])).collect();
        g.sort_by_key(|x| x.0);
        g
    };
    let mut last: Option<Vec<(u32, Vec2)>> = None;
    let mut changes = Vec::new();
    for _ in 0..200 {
        pipeline.step(&mut world).expect("finite");
        let now = goals(&world);
        if let Some(prev) = &last
            && prev != &now
        {
            // Every monster redraws at once.
            let moved = prev.iter().zip(&now).filter(|(a, b)| a.1 != b.1).count();
            assert_eq!(moved, now.len(), "only {moved} monsters redrew at tick {}", world.tick);
            changes.push(world.tick);
        }
        last = Some(now);
    }
    eprintln!("leader: the monsters' goals changed after ticks {changes:?}");
    assert_eq!(changes, [41, 81, 121, 161], "the goals are drawn at ticks 40, 80, ... (seen after they run)");
}
