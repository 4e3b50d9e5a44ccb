//! Path following: patrol, loop and once visit their nodes in order.

use throng_engine::math::Vec2;
use throng_engine::{IndexKind, Pipeline, Scenario, World};

use super::shipped;

/// `path_node` of every agent after each tick, with repeats collapsed (the initial 0 first); the
/// world at the end and the sequences with rows in id order.
fn node_sequences(scenario: &Scenario, ticks: u64) -> (World, Vec<Vec<u32>>) {
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
    let mut seqs: Vec<Vec<u32>> = world.agents.path_node.iter().map(|&n| vec![n]).collect();
    for _ in 0..ticks {
        pipeline.step(&mut world).unwrap();
        for (seq, &n) in seqs.iter_mut().zip(&world.id_ordered().agents.path_node) {
            if *seq.last().unwrap() != n {
                seq.push(n);
            }
        }
    }
    (world.id_ordered().into_owned(), seqs)
}

#[test]
fn patrol_loop_and_once_visit_nodes_in_order() {
    let scenario = shipped("patrol");
    // Measured: the guards go 0..=4..=0 and on to node 2 by tick 2000 (one back-and-forth takes
    // about 1,600 ticks); couriers lap the triangle about 4 times; the messenger's route ends
    // at (95, 20).
    let (world, seqs) = node_sequences(&scenario, 2000);
    let group = |name: &str| world.groups.iter().position(|g| g.name == name).unwrap() as u16;
    let groups = &world.agents.group;
    let rows = |g: u16| (0..groups.len()).filter(move |&i| groups[i] == g);
    // Patrol over 5 nodes: 0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, ...
    let patrol: Vec<u32> = (0..40).map(|k| [0, 1, 2, 3, 4, 3, 2, 1][k % 8]).collect();
    for i in rows(group("guards")) {
        let seq = &seqs[i];
        eprintln!("guard {i}: {seq:?}");
        assert!(seq.len() >= 10, "guard {i} did not finish a back-and-forth: {seq:?}");
        assert_eq!(seq[..], patrol[..seq.len()], "guard {i}");
    }
    // Loop over 3 nodes: 0, 1, 2, 0, 1, 2, ...
    for i in rows(group("couriers")) {
        let seq = &seqs[i];
        assert!(seq.len() >= 7, "courier {i} did not lap twice: {seq:?}");
        let expected: Vec<u32> = (0..seq.len() as u32).map(|k| k % 3).collect();
        assert_eq!(*seq, expected, "courier {i}");
    }
    // Once: 0, 1, 2, 3 and no further; at rest on the last node.
    let end = Vec2::new(95.0, 20.0);
    for i in rows(group("messenger")) {
        assert_eq!(seqs[i], [0, 1, 2, 3], "messenger {i}");
        let (p, v) = (world.agents.position[i], world.agents.velocity[i]);
        eprintln!("messenger at {p}, v {v}");
        assert!((p - end).length() < 0.1, "messenger at {p}, not at the end {end}");
        assert!(v.length() < 0.01, "messenger still moving at {v}");
    }
}
