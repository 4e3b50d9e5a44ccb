//! Expectations are judged the same whatever the thread count and index, and a run resumed
//! from a checkpoint (just before, at, or just after a verdict's deciding tick) is judged as
//! the uninterrupted run. The doorway's expectations decide at tick 100 (the queue reaches 20
//! agents) and tick 1,242 (the room is empty); the resumed runs read the deciding ticks off the
//! straight run, so they stay around the verdicts when the scene changes.

use throng_engine::expect::{Outcome, Status};
use throng_engine::state::checkpoint;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::common::{load, root};

fn doorway() -> Scenario {
    load(&root().join("scenarios/doorway.toml"))
}

fn settings(threads: usize, index: IndexKind) -> RunSettings {
    RunSettings { threads, index: Some(index), ..RunSettings::default() }
}

fn straight(scenario: &Scenario, threads: usize, index: IndexKind) -> Vec<Outcome> {
    let mut sim = Simulation::new(scenario, settings(threads, index)).expect("simulation");
    sim.run(scenario.ticks).expect("runs");
    sim.outcomes().expect("the doorway has expectations")
}

#[test]
fn verdicts_do_not_depend_on_threads_or_index() {
    let scenario = doorway();
    let reference = straight(&scenario, 1, IndexKind::Kd);
    assert!(reference.iter().all(|o| o.status == Status::Pass), "{reference:#?}");
    let first = reference.iter().find(|o| o.name.contains("empties")).expect("the emptying check");
    assert_eq!(first.time_s, Some(1242.0 * scenario.dt as f64));
    for threads in [2, 3, 4, 8] {
        assert_eq!(straight(&scenario, threads, IndexKind::Kd), reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(straight(&scenario, 2, index), reference, "{index:?}");
    }
}

#[test]
fn resumed_runs_are_judged_as_the_straight_run() {
    let scenario = doorway();
    let reference = straight(&scenario, 2, IndexKind::Kd);
    let path = std::path::Path::new("in-memory.ckpt");
    let deciding: Vec<u64> =
        reference.iter().filter_map(|o| o.time_s).map(|t| (t / scenario.dt as f64).round() as u64).collect();
    assert!(deciding.len() >= 2, "the doorway's verdicts fall at ticks: {reference:#?}");
    // A verdict judged at the end has nothing after it to resume into.
    for at in deciding.iter().flat_map(|&d| [d - 1, d, d + 1]).filter(|&at| at < scenario.ticks) {
        let mut sim = Simulation::new(&scenario, settings(2, IndexKind::Kd)).expect("simulation");
        sim.run(at).expect("runs");
        let saved = checkpoint::decode(&sim.checkpoint(), "in-memory.ckpt").expect("decodes");
        assert!(saved.watch.is_some(), "the checkpoint holds what the expectations saw");
        let mut resumed =
            Simulation::resume_from(&scenario, saved, path, settings(3, IndexKind::Grid)).expect("resumes");
        assert!(!resumed.expectations_restarted());
        resumed.run(scenario.ticks - at).expect("runs");
        assert_eq!(resumed.outcomes().expect("outcomes"), reference, "resumed at tick {at}");
    }
}
