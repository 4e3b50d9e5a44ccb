//! Events are part of the state. Each scene gives the same hashes at 1–8 threads and with
//! every index, and a run resumed from a checkpoint just before, at or just after an event
//! continues bit for bit: doors (the north door and a retarget after tick 157, when the queue
//! passes 60; the east door after 200), boarding (a burst after 200, releases from a waiting
//! area every 40 ticks from 300, a source closed after 450), alarm (a `set` event after 335)
//! and closing (a door closed after 300 diverts the crowd by its `on_closed` entry); and the
//! routed floor (a door opened after 100 rebuilds the exit's distance field).

use throng_engine::state::checkpoint;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::common::{load, root};

fn scene(name: &str) -> Scenario {
    load(&root().join(format!("scenarios/{name}.toml")))
}

fn settings(threads: usize, index: IndexKind) -> RunSettings {
    RunSettings { threads, index: Some(index), ..RunSettings::default() }
}

/// The state hash after each of `ticks` ticks, and the events' records at the end.
pub(super) fn run(
    scenario: &Scenario,
    ticks: u64,
    threads: usize,
    index: IndexKind,
) -> (Vec<String>, Vec<(u32, Option<u64>)>) {
    let mut sim = Simulation::new(scenario, settings(threads, index)).expect("simulation");
    let mut hashes = Vec::new();
    for _ in 0..ticks {
        sim.step().expect("steps");
        hashes.push(sim.hash().to_hex());
    }
    let fired = sim.world().events.iter().map(|e| (e.fired, e.first_tick)).collect();
    (hashes, fired)
}

fn same_everywhere(scenario: &Scenario, ticks: u64, fired: &[(u32, Option<u64>)]) {
    let (reference, got) = run(scenario, ticks, 1, IndexKind::Kd);
    assert_eq!(got, fired);
    for threads in [2, 3, 4, 8] {
        assert_eq!(run(scenario, ticks, threads, IndexKind::Kd).0, reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(run(scenario, ticks, 2, index).0, reference, "{index:?}");
    }
}

/// A run resumed from a checkpoint after each tick of `at` (on another thread count and index)
/// gives the uninterrupted run's hashes to tick `ticks`.
pub(super) fn resumed_bit_for_bit(scenario: &Scenario, ticks: u64, at: &[u64]) {
    let (reference, _) = run(scenario, ticks, 2, IndexKind::Kd);
    let path = std::path::Path::new("in-memory.ckpt");
    for &at in at {
        let mut sim = Simulation::new(scenario, settings(2, IndexKind::Kd)).expect("simulation");
        sim.run(at).expect("runs");
        let saved = checkpoint::decode(&sim.checkpoint(), "in-memory.ckpt").expect("decodes");
        let mut resumed =
            Simulation::resume_from(scenario, saved, path, settings(3, IndexKind::Grid)).expect("resumes");
        for tick in at..ticks {
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

#[test]
fn events_fire_the_same_at_any_thread_count_and_index() {
    // The north door and the retargeting once at tick 155, the east door once at 200.
    same_everywhere(&scene("doors"), 230, &[(1, Some(200)), (1, Some(155)), (1, Some(155)), (0, None)]);
}

#[test]
fn a_run_resumed_around_an_event_continues_bit_for_bit() {
    resumed_bit_for_bit(&scene("doors"), 230, &[156, 157, 158, 199, 200, 201]);
}

#[test]
fn waiting_areas_bursts_and_sources_are_the_same_everywhere_and_resume_bit_for_bit() {
    // The burst at 200; releases at 300, 340, ..., 460 (5 by tick 480); the source closes at 450.
    let boarding = scene("boarding");
    same_everywhere(&boarding, 480, &[(1, Some(200)), (5, Some(300)), (1, Some(450)), (0, None)]);
    resumed_bit_for_bit(&boarding, 480, &[199, 200, 201, 300, 301, 449, 450, 451]);
}

#[test]
fn a_set_event_redraws_and_reroutes_the_same_everywhere_and_resumes_bit_for_bit() {
    // The alarm (a new path and max_speed for the guards) when the intruder enters the yard.
    let alarm = scene("alarm");
    same_everywhere(&alarm, 360, &[(1, Some(335))]);
    resumed_bit_for_bit(&alarm, 360, &[334, 335, 336]);
}

#[test]
fn an_on_closed_diversion_is_the_same_everywhere_and_resumes_bit_for_bit() {
    // The east door closes after tick 300 and the crowd is diverted west.
    let closing = scene("closing");
    same_everywhere(&closing, 320, &[(1, Some(300)), (0, None)]);
    resumed_bit_for_bit(&closing, 320, &[299, 300, 301]);
}

#[test]
fn a_routed_floor_whose_door_opens_is_the_same_everywhere_and_resumes_bit_for_bit() {
    // The store door opens after tick 100 and the exit's distance field is rebuilt; a resumed
    // run rebuilds it from the checkpointed state alone.
    let floor = load(&root().join("scenarios/walls/floor.toml"));
    same_everywhere(&floor, 130, &[(1, Some(100)), (0, None)]);
    resumed_bit_for_bit(&floor, 130, &[99, 100, 101]);
}
