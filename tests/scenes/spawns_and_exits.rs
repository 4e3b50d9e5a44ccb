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
