//! Events are part of the state: the doors scene (the north door and the retargeting fire
//! after tick 157, when the queue passes 60; the east door after tick 200) gives the same hashes at 1–8 threads and with
//! every index, and a run resumed from a checkpoint just before, at or just after an event
//! continues bit for bit.

use throng_engine::state::checkpoint;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::common::{load, root};

const TICKS: u64 = 230;

fn doors() -> Scenario {
    load(&root().join("scenarios/doors.toml"))
}

fn settings(threads: usize, index: IndexKind) -> RunSettings {
    RunSettings { threads, index: Some(index), ..RunSettings::default() }
}

/// The state hash after every tick, and the events' records at the end.
fn run(scenario: &Scenario, threads: usize, index: IndexKind) -> (Vec<String>, Vec<(u32, Option<u64>)>) {
    let mut sim = Simulation::new(scenario, settings(threads, index)).expect("simulation");
    let mut hashes = Vec::new();
    for _ in 0..TICKS {
        sim.step().expect("steps");
        hashes.push(sim.hash().to_hex());
    }
    let fired = sim.world().events.iter().map(|e| (e.fired, e.first_tick)).collect();
    (hashes, fired)
}

#[test]
fn events_fire_the_same_at_any_thread_count_and_index() {
    let scenario = doors();
    let (reference, fired) = run(&scenario, 1, IndexKind::Kd);
    // The north door and the retargeting once at tick 157, the east door once at 200.
    assert_eq!(fired, [(1, Some(200)), (1, Some(157)), (1, Some(157)), (0, None)]);
    for threads in [2, 3, 4, 8] {
        assert_eq!(run(&scenario, threads, IndexKind::Kd).0, reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(run(&scenario, 2, index).0, reference, "{index:?}");
    }
}

#[test]
fn a_run_resumed_around_an_event_continues_bit_for_bit() {
    let scenario = doors();
    let (reference, _) = run(&scenario, 2, IndexKind::Kd);
    let path = std::path::Path::new("in-memory.ckpt");
    for at in [156, 157, 158, 199, 200, 201] {
        let mut sim = Simulation::new(&scenario, settings(2, IndexKind::Kd)).expect("simulation");
        sim.run(at).expect("runs");
        let saved = checkpoint::decode(&sim.checkpoint(), "in-memory.ckpt").expect("decodes");
        let mut resumed =
            Simulation::resume_from(&scenario, saved, path, settings(3, IndexKind::Grid)).expect("resumes");
        for tick in at..TICKS {
            resumed.step().expect("steps");
            assert_eq!(
                resumed.hash().to_hex(),
                reference[tick as usize],
                "resumed at {at}, tick {}",
                tick + 1
            );
        }
    }
}
