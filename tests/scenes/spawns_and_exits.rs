//! Spawns and exits: agents added by a source and removed by an exit add up, ids are never
//! reused, and the run is the same at any thread count and reordering.

use std::collections::HashSet;

use throng_engine::{IndexKind, Pipeline};

use super::parse;
use crate::common::{hashes, hashes_reordered};

/// 600 walkers and a source adding up to 600 more (25/s from 2 s to 26 s), all seeking an exit
/// that removes them.
const FLOW: &str = r#"version = 1
name = "flow"
seed = 9
dt = 0.1
ticks = 400
[bounds]
min = [0, 0]
max = [60, 40]
[targets.out]
kind = "point"
position = [55, 20]
[[exits]]
name = "out"
kind = "circle"
centre = [55, 20]
radius = 3
[[sources]]
name = "tap"
group = "walkers"
kind = "rect"
min = [2, 5]
max = [8, 35]
rate = 25
start_s = 2
end_s = 26
max_agents = 600
[[groups]]
name = "walkers"
count = 600
spawn = { kind = "rect", min = [2, 2], max = [40, 38] }
max_speed = { min = 1.5, max = 3.0 }
max_force = 3.0
radius = 0.4
initial_speed = 1.0
max_neighbours = 8
[[groups.behaviours]]
kind = "seek"
target = "out"
[[groups.behaviours]]
kind = "separation"
weight = 1.5
radius = 1.2
max_separation = 2.0
[[groups.behaviours]]
kind = "wander"
weight = 0.3
radius = 1.0
distance = 2.0
jitter = 2.0
"#;

#[test]
fn spawned_and_exited_agents_add_up_and_ids_are_never_reused() {
    let scenario = parse(FLOW, "flow");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    // Without spatial reordering rows stay in id order: exits keep the survivors' order and
    // spawns append the next ids (checked below). Reordered runs give the same hashes (next test).
    pipeline.set_reorder_every(0);
    let initial = world.agents.len() as u64;
    let mut seen: HashSet<u32> = world.agents.id.iter().copied().collect();
    let mut gone: HashSet<u32> = HashSet::new();
    let mut max_id = *world.agents.id.iter().max().unwrap();
    let (mut spawned, mut exited) = (0u64, 0u64);
    let (mut first_exit, mut last_spawn) = (None, 0);
    for _ in 0..400 {
        let before: HashSet<u32> = world.agents.id.iter().copied().collect();
        pipeline.step(&mut world).unwrap();
        let events = pipeline.events();
        spawned += events.spawned as u64;
        exited += events.exited as u64;
        let a = &world.agents;
        assert_eq!(a.len() as u64, initial + spawned - exited, "tick {}", world.tick);
        assert_eq!(world.exited, exited, "tick {}", world.tick);
        assert!(a.id.windows(2).all(|w| w[0] < w[1]), "ids out of order at tick {}", world.tick);
        let now: HashSet<u32> = a.id.iter().copied().collect();
        let mut new: Vec<u32> = now.difference(&before).copied().collect();
        new.sort_unstable();
        assert_eq!(new.len() as u32, events.spawned, "tick {}", world.tick);
        for id in &new {
            assert!(!seen.contains(id), "id {id} reused at tick {}", world.tick);
            assert!(*id > max_id, "new id {id} is not above every earlier id ({max_id})");
            max_id = *id;
        }
        // Spawned ids are consecutive: the next ids in order.
        assert!(new.windows(2).all(|w| w[1] == w[0] + 1), "{new:?}");
        gone.extend(before.difference(&now));
        assert_eq!(gone.len() as u64, exited, "tick {}", world.tick);
        assert!(now.is_disjoint(&gone), "an exited agent came back at tick {}", world.tick);
        seen.extend(new);
        if events.spawned > 0 {
            last_spawn = world.tick;
        }
        if events.exited > 0 && first_exit.is_none() {
            first_exit = Some(world.tick);
        }
    }
    eprintln!(
        "flow: spawned {spawned}, exited {exited}, active {} at the end; first exit at {first_exit:?}, last spawn at {last_spawn}",
        world.agents.len()
    );
    // Both kinds of change overlap in time, and the source gave everything it had.
    assert_eq!(spawned, 600);
    let first_exit = first_exit.expect("nobody left");
    assert!(first_exit < last_spawn, "exits ({first_exit}) start only after the last spawn ({last_spawn})");
    assert!(exited > 600, "{exited} exited");
    assert_eq!(seen.len() as u64, initial + spawned);
}

#[test]
fn spawns_and_exits_are_identical_at_any_thread_count_and_reordering() {
    let scenario = parse(FLOW, "flow");
    let reference = hashes(&scenario, 400, 1, IndexKind::Kd);
    for threads in [2, 3, 4, 8] {
        let other = hashes(&scenario, 400, threads, IndexKind::Kd);
        if let Some(tick) = (0..reference.len()).find(|&t| reference[t] != other[t]) {
            panic!("{threads} threads differ from 1 thread at tick {tick}");
        }
    }
    for every in [1, 7, 20] {
        let other = hashes_reordered(&scenario, 400, 2, IndexKind::Kd, every);
        if let Some(tick) = (0..reference.len()).find(|&t| reference[t] != other[t]) {
            panic!("reordering every {every} ticks differs at tick {tick}");
        }
    }
}

/// A source that keeps distances into a 3 × 3 room's west strip, 40 a second for 10 s, with
/// walkers of radius 0.25 that leave it at 1 m/s: the strip (1 × 3) holds about 12 at 0.5
/// apart, so the source waits for room and adds fewer than it owes. At 1 s an event adds 30
/// more into the same strip, keeping the same distances: most of them wait.
const PACKED: &str = r#"version = 1
name = "packed"
seed = 4
dt = 0.05
ticks = 200
obstacles = [
  { kind = "wall", points = [[0, 3], [0, 0], [3, 0], [3, 3]], thickness = 0.1 },
  { kind = "wall", points = [[0, 3], [3, 3]], thickness = 0.1 },
]
[bounds]
min = [-1, -1]
max = [4, 4]
[targets.east]
kind = "point"
position = [2.6, 1.5]
[[sources]]
name = "door"
group = "walkers"
kind = "rect"
min = [0.2, 0.2]
max = [1.2, 2.8]
rate = 40
end_s = 10
max_agents = 400
min_distance = 0.5
wall_distance = 0.3
[[groups]]
name = "walkers"
count = 0
spawn = { kind = "rect", min = [1, 1], max = [2, 2] }
max_speed = 1.0
max_force = 5.0
radius = 0.25
model = "cfsm"
[[groups.behaviours]]
kind = "arrive"
target = "east"
slowing_radius = 0.5
[[events]]
name = "burst"
at_s = 1
action = "spawn"
group = "walkers"
count = 30
region = { kind = "rect", min = [0.2, 0.2], max = [1.2, 2.8] }
min_distance = 0.5
wall_distance = 0.3
"#;

#[test]
fn a_source_that_keeps_distances_places_no_one_too_close_and_waits_when_full() {
    let scenario = parse(PACKED, "packed");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    pipeline.set_reorder_every(0);
    let (mut owed_short, mut total) = (0u32, 0u32);
    for _ in 0..200 {
        let (before, sourced) = (world.agents.len(), world.scene.sources[0].spawned);
        pipeline.step(&mut world).unwrap();
        let added = world.agents.len() - before;
        let from_source = (world.scene.sources[0].spawned - sourced) as usize;
        total += added as u32;
        // The newcomers (the last rows with reordering off) against everyone at the end of
        // the tick they appeared in: at least min_distance from every other centre, and at
        // least wall_distance from the walls (inside the room, 0.05 thick: 0.35 from x = 0).
        // The source's are placed at the end of the tick; the burst's, the rows before them,
        // at its start, and have since moved by up to max_speed · dt = 0.05 each.
        let p = &world.agents.position;
        for i in p.len() - added..p.len() {
            let slack = if i < p.len() - from_source { 0.05 } else { 0.0 };
            for j in 0..p.len() {
                if i != j {
                    let d = (p[i] - p[j]).length();
                    assert!(
                        d >= 0.5 - 2.0 * slack,
                        "tick {}: new agent {i} is {d} from agent {j}",
                        world.tick
                    );
                }
            }
            let (lo, hi) = (0.35 - slack - 1e-5, 2.65 + slack + 1e-5);
            assert!(p[i].x >= lo && p[i].y >= lo && p[i].y <= hi, "{}", p[i]);
        }
        let due = world.scene.sources[0].due_by(world.tick as f64 * 0.05, 0.05);
        owed_short = owed_short.max(due - world.scene.sources[0].spawned);
        let from_burst =
            if world.events[0].fired > 0 { 30 - world.events[0].waiting_to_spawn.len() as u32 } else { 0 };
        assert_eq!(world.scene.sources[0].spawned + from_burst, total);
    }
    // 400 owed over 10 s; the strip holds a dozen, and they leave it at 1 m/s into a room that
    // fills: far fewer come, and the source ran behind.
    eprintln!("packed: {total} spawned, at most {owed_short} behind");
    assert!((12..200).contains(&total), "{total} spawned");
    assert!(owed_short > 100, "the source was at most {owed_short} behind");
}

/// Checkpointed at tick 40, while the burst still owes most of its 30 and the source runs
/// behind, and resumed: the straight run's hashes to the end.
#[test]
fn spawns_that_wait_for_room_resume_bit_for_bit() {
    use throng_engine::state::checkpoint;
    let scenario = parse(PACKED, "packed");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let mut straight = Vec::new();
    let mut bytes = Vec::new();
    while world.tick < 200 {
        pipeline.step(&mut world).unwrap();
        straight.push(throng_engine::state_hash(&world).to_hex());
        if world.tick == 40 {
            assert!(!world.events[0].waiting_to_spawn.is_empty(), "the burst still owes agents");
            let id = checkpoint::RunIdentity { scenario_hash: &[0; 32], overrides: &[], plan: "" };
            bytes = checkpoint::encode(&world, None, &id);
        }
    }
    let mut resumed: throng_engine::World = checkpoint::decode(&bytes, "ckpt").expect("decodes").world;
    assert!(!resumed.events[0].waiting_to_spawn.is_empty(), "the checkpoint keeps what the burst owes");
    assert_eq!(resumed.scene.sources[0].spacing.min_distance, 0.5, "and the source's spacing");
    let mut pipeline = Pipeline::new(3, IndexKind::Grid).unwrap();
    let mut hashes = Vec::new();
    while resumed.tick < 200 {
        pipeline.step(&mut resumed).unwrap();
        hashes.push(throng_engine::state_hash(&resumed).to_hex());
    }
    assert_eq!(hashes, straight[40..], "resumed at tick 40");
}

#[test]
fn a_source_that_keeps_distances_is_the_same_at_any_thread_count_and_reordering() {
    let scenario = parse(PACKED, "packed");
    let reference = hashes(&scenario, 200, 1, IndexKind::Kd);
    for threads in [2, 3, 4, 8] {
        assert_eq!(hashes(&scenario, 200, threads, IndexKind::Kd), reference, "{threads} threads");
    }
    assert_eq!(hashes(&scenario, 200, 1, IndexKind::Brute), reference, "brute");
    assert_eq!(hashes_reordered(&scenario, 200, 2, IndexKind::Grid, 7), reference, "grid, reordered");
}
