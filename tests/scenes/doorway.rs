//! The doorway: a crowd queues at the door and everyone leaves through it.

use throng_engine::metrics::MetricsCollector;
use throng_engine::{IndexKind, Pipeline};

use super::{shipped, step};

/// Measured: the last of the 150 agents leaves at tick 1175.
const DOORWAY_ALL_GONE_BY: u64 = 1300;
/// Measured: at most 29 overlapping pairs at any tick.
const DOORWAY_MAX_OVERLAPS: u64 = 45;
/// Measured: up to 122 agents braking at once.
const DOORWAY_MIN_QUEUE: u32 = 60;

#[test]
fn doorway_crowd_queues_and_everyone_leaves_through_the_door() {
    let scenario = shipped("doorway");
    let agents = scenario.agent_count();
    assert_eq!(agents, 150);
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let mut metrics = MetricsCollector::new(scenario.metrics, &world);
    let mut max_overlaps = 0;
    while !world.agents.is_empty() && world.tick < DOORWAY_ALL_GONE_BY {
        let m = step(&mut world, &mut pipeline, &mut metrics);
        assert_eq!(m.obstacle_penetrations, 0, "an agent inside a wall at tick {}", m.tick);
        assert!(
            m.overlap_pairs <= DOORWAY_MAX_OVERLAPS,
            "{} overlapping pairs at tick {}",
            m.overlap_pairs,
            m.tick
        );
        max_overlaps = max_overlaps.max(m.overlap_pairs);
    }
    let summary = metrics.summary(&world);
    eprintln!(
        "doorway: all gone at tick {}, max overlaps {max_overlaps}, queue max {}, door crossings {}",
        world.tick, summary.queue_length_max, summary.gates[0].crossings
    );
    assert!(world.agents.is_empty(), "{} agents still inside at tick {}", world.agents.len(), world.tick);
    assert_eq!(world.exited, agents);
    assert!(
        summary.queue_length_max > DOORWAY_MIN_QUEUE,
        "no real queue formed: at most {} agents braking",
        summary.queue_length_max
    );
    assert_eq!(summary.gates[0].name, "door");
    assert!(summary.gates[0].crossings >= agents, "{} door crossings", summary.gates[0].crossings);
}
