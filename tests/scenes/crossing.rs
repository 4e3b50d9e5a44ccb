//! A perfectly mirror-symmetric crossing deadlocks (every force lies on the line the two files
//! walk along); the `tie_break` behaviour, a small seeded rotation of each agent's steering,
//! lets them pass, with the same result at any thread count.

use throng_engine::{IndexKind, Pipeline, Scenario, state_hash};

use super::parse;
use crate::common::root;

/// The crossing of tests/scenes/mirror_crossing.toml, with `tie_break` added to both groups
/// when `angle_deg` is given.
fn crossing(angle_deg: Option<f32>) -> Scenario {
    let mut text =
        std::fs::read_to_string(root().join("tests/scenes/mirror_crossing.toml")).expect("the scene");
    if let Some(a) = angle_deg {
        let tie =
            format!("max_separation = 2.0\n\n[[groups.behaviours]]\nkind = \"tie_break\"\nangle_deg = {a}\n");
        text = text.replace("max_separation = 2.0\n", &tie);
    }
    parse(&text, "mirror_crossing")
}

/// (tick everyone has left, or None after 60 s; the final state hash).
fn run(scenario: &Scenario, threads: usize) -> (Option<u64>, String) {
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(threads, IndexKind::Kd).expect("pool");
    while world.tick < 600 && !world.agents.is_empty() {
        pipeline.step(&mut world).expect("finite");
    }
    (world.agents.is_empty().then_some(world.tick), state_hash(&world).to_hex())
}

/// Measured: without a tie break nobody leaves in 60 s; with `angle_deg = 5` all 16 have left
/// by tick 355. Bounds: none leave without it; all leave within 45 s with it, and the same
/// state at 1 and 3 threads.
#[test]
fn a_symmetric_crossing_deadlocks_and_a_tie_break_clears_it() {
    let stuck = crossing(None);
    let mut world = stuck.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    for _ in 0..600 {
        pipeline.step(&mut world).expect("finite");
    }
    eprintln!("mirror crossing without a tie break: {} of 16 left in 60 s", world.exited);
    assert_eq!(world.exited, 0, "the symmetric crossing did not deadlock");

    let broken = crossing(Some(5.0));
    let (cleared, hash) = run(&broken, 1);
    eprintln!("with tie_break 5°: everyone out at tick {cleared:?}");
    let cleared = cleared.expect("the tie break did not clear the crossing in 60 s");
    assert!(cleared <= 450, "cleared only at tick {cleared}");
    assert_eq!(run(&broken, 3), (Some(cleared), hash), "the tie break depends on the thread count");
}
