//! Velocity models are as deterministic as steering: the bottleneck scene under each model
//! (ORCA, CFSM, social force; the room's walls and the crowd at the bottleneck, where every
//! model's half-planes, repulsions and fallbacks are busy) gives the same hash after every
//! tick at 1, 2, 3, 4 and 8 threads and with every index, and resumes from a checkpoint bit
//! for bit; and the ORCA blocks (polygon obstacles, not solid) the same.

use throng_engine::{IndexKind, Scenario};

use super::events::{resumed_bit_for_bit, run};
use crate::common::models_scene as scene;

fn same_everywhere_and_resumed(s: &Scenario, ticks: u64, resume_at: u64) {
    let reference = run(s, ticks, 1, IndexKind::Kd).0;
    for threads in [2, 3, 4, 8] {
        assert_eq!(run(s, ticks, threads, IndexKind::Kd).0, reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(run(s, ticks, 2, index).0, reference, "{index:?}");
    }
    resumed_bit_for_bit(s, ticks, &[resume_at]);
}

#[test]
fn every_model_is_the_same_at_any_thread_count_and_index_and_resumes_bit_for_bit() {
    // 600 ticks (12 s): the crowd has reached the bottleneck and presses into it.
    for model in ["\"orca\"", "\"cfsm\"", "\"social_force\""] {
        same_everywhere_and_resumed(&scene("bottleneck", Some(model)), 600, 450);
    }
}

#[test]
fn orca_among_polygon_blocks_is_the_same_everywhere_and_resumes_bit_for_bit() {
    same_everywhere_and_resumed(&scene("orca_blocks", None), 300, 200);
}
