//! Velocity models are as deterministic as steering: the bottleneck scene under each model
//! (ORCA, CFSM, social force; the room's walls and the crowd at the bottleneck, where every
//! model's half-planes, repulsions and fallbacks are busy) gives the same hash after every
//! tick at 1, 2, 3, 4 and 8 threads and with every index, and resumes from a checkpoint bit
//! for bit; and the ORCA blocks (polygon obstacles, not solid) the same.

use throng_engine::state::checkpoint;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::common::root;

/// The bottleneck scene with its model replaced by `model`, or another shipped model scene.
fn scene(name: &str, model: Option<&str>) -> Scenario {
    let text =
        std::fs::read_to_string(root().join(format!("scenarios/models/{name}.toml"))).expect("the scene");
    let text = match model {
        Some(m) => text.replace("model = \"cfsm\"", &format!("model = \"{m}\"")),
        None => text,
    };
    Scenario::parse(&text, &format!("{name}.toml")).expect("valid")
}

/// The state hash after each of `ticks` ticks.
fn hashes(s: &Scenario, ticks: u64, threads: usize, index: IndexKind) -> Vec<String> {
    let settings = RunSettings { threads, index: Some(index), ..RunSettings::default() };
    let mut sim = Simulation::new(s, settings).expect("simulation");
    (0..ticks)
        .map(|_| {
            sim.step().expect("steps");
            sim.hash().to_hex()
        })
        .collect()
}

fn same_everywhere_and_resumed(s: &Scenario, ticks: u64, resume_at: u64) {
    let reference = hashes(s, ticks, 1, IndexKind::Kd);
    for threads in [2, 3, 4, 8] {
        assert_eq!(hashes(s, ticks, threads, IndexKind::Kd), reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(hashes(s, ticks, 2, index), reference, "{index:?}");
    }
    let settings = |threads, index| RunSettings { threads, index: Some(index), ..RunSettings::default() };
    let mut sim = Simulation::new(s, settings(2, IndexKind::Kd)).expect("simulation");
    sim.run(resume_at).expect("runs");
    let saved = checkpoint::decode(&sim.checkpoint(), "in-memory.ckpt").expect("decodes");
    let path = std::path::Path::new("in-memory.ckpt");
    let mut resumed = Simulation::resume_from(s, saved, path, settings(3, IndexKind::Grid)).expect("resumes");
    for tick in resume_at..ticks {
        resumed.step().expect("steps");
        assert_eq!(
            resumed.hash().to_hex(),
            reference[tick as usize],
            "resumed at {resume_at}, tick {}",
            tick + 1
        );
    }
}

#[test]
fn every_model_is_the_same_at_any_thread_count_and_index_and_resumes_bit_for_bit() {
    // 600 ticks (12 s): the crowd has reached the bottleneck and presses into it.
    for model in ["orca", "cfsm", "social_force"] {
        same_everywhere_and_resumed(&scene("bottleneck", Some(model)), 600, 450);
    }
}

#[test]
fn orca_among_polygon_blocks_is_the_same_everywhere_and_resumes_bit_for_bit() {
    same_everywhere_and_resumed(&scene("orca_blocks", None), 300, 200);
}
