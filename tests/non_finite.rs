//! Non-finite state is caught and reported with tick, pass and agent, on both sides of the
//! size at which the finite checks scan in parallel, with rows in spatial order.

use glam::Vec2;
use throng_engine::{IndexKind, Pipeline};

use crate::common::{load, root};

/// Warms a scaled standard crowd (rows reordered every tick, so row ≠ id), poisons the
/// positions of three agents, and returns the error of the next tick.
fn poisoned_tick(agents: u64, threads: usize) -> (throng_engine::NonFinite, u64) {
    let scenario = load(&root().join("scenarios/bench/crowd.toml")).scaled(agents).expect("scaled crowd");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(threads, IndexKind::Kd).expect("thread pool");
    pipeline.set_reorder_every(1);
    for _ in 0..2 {
        pipeline.step(&mut world).expect("finite warm-up");
    }
    assert!(!world.agents.is_id_ordered(), "rows should be in spatial order");
    let n = world.agents.len() as u32;
    // The lowest poisoned id sits in a later row than a higher one.
    for (id, value) in
        [(n - 5, Vec2::new(f32::NAN, 0.0)), (n / 3, Vec2::new(0.0, f32::INFINITY)), (n / 2, Vec2::NAN)]
    {
        let row = world.agents.id.iter().position(|&x| x == id).expect("row of id");
        world.agents.position[row] = value;
    }
    let tick = world.tick;
    (pipeline.step(&mut world).expect_err("poisoned positions must be reported"), tick)
}

fn assert_reported(agents: u64, threads: usize) {
    let (err, tick) = poisoned_tick(agents, threads);
    assert_eq!(err.tick, tick);
    // Positions are checked before the index is built from them.
    assert_eq!(err.pass, "build_index");
    assert_eq!(err.field, "position");
    assert_eq!(err.agent, agents as u32 / 3, "{err}");
    let text = err.to_string();
    assert!(text.contains(&format!("tick {tick}")) && text.contains("`build_index`"), "{text}");
}

#[test]
fn non_finite_position_is_reported_with_tick_pass_and_lowest_agent() {
    assert_reported(2_000, 2);
}

#[test]
fn non_finite_position_is_reported_by_the_parallel_scan() {
    // Above the 65,536 rows from which the checks scan in parallel.
    assert_reported(70_000, 2);
}
