//! Determinism: the same scenario gives the same per-tick state hashes at any thread count,
//! with either index backend, in separate processes, and with the rows in spatial order at any
//! reorder interval (with the same trace and metrics bytes). The committed golden records are
//! checked in `tests/golden_runs/`.

use std::path::Path;

use throng_engine::{IndexKind, Pipeline, state_hash};

use crate::common::{
    REORDER_INTERVALS, hashes, load, root, run_reordered, scratch_dir, shipped_scenarios, throng,
    with_scenario,
};

const THREADS: [usize; 5] = [1, 2, 3, 4, 8];
const TICKS: u64 = 20;
/// Brute force is O(N²): above this many agents it runs fewer ticks (the oracle tests in
/// `tests/oracle/neighbours.rs` cover its lists exhaustively; here it only has to agree hash
/// for hash).
const BRUTE_FULL_AGENTS: u64 = 5_000;
const BRUTE_SHORT_TICKS: u64 = 3;

#[test]
fn every_shipped_scenario_is_thread_count_and_index_independent() {
    let scenarios = shipped_scenarios();
    assert!(scenarios.len() >= 4, "expected the shipped scenarios, found {scenarios:?}");
    for path in scenarios {
        with_scenario!(&path, |scenario| {
            let reference = hashes(&scenario, TICKS, 1, IndexKind::Kd);
            // The hashes must actually move, or this test could not fail.
            assert_ne!(reference[0], reference[TICKS as usize], "{}: state never changed", scenario.name);
            for index in [IndexKind::Kd, IndexKind::Grid, IndexKind::Auto, IndexKind::Brute] {
                let ticks = if index == IndexKind::Brute && scenario.agent_count() > BRUTE_FULL_AGENTS {
                    BRUTE_SHORT_TICKS
                } else {
                    TICKS
                };
                for threads in THREADS {
                    let got = hashes(&scenario, ticks, threads, index);
                    if let Some(t) = (0..got.len()).find(|&t| got[t] != reference[t]) {
                        panic!("{}: {threads} threads, {index} index diverges at tick {t}", scenario.name);
                    }
                }
            }
        })
    }
}

/// Per-tick hashes from the binary's `--json --hash-every 1` output.
fn binary_hashes(scenario: &str, threads: &str) -> Vec<(u64, String)> {
    let out =
        throng(&["run", scenario, "--ticks", "15", "--threads", threads, "--hash-every", "1", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    serde_json::from_value(v["hashes"].clone()).expect("hashes as [[tick, hex], ...]")
}

#[test]
fn separate_processes_agree() {
    for path in shipped_scenarios() {
        let rel = path.strip_prefix(root()).expect("under the root").to_str().expect("utf-8 path").to_owned();
        let a = binary_hashes(&rel, "1");
        let b = binary_hashes(&rel, "2");
        assert_eq!(a.len(), 16, "{rel}: ticks 0..=15");
        assert_eq!(a, b, "{rel}: two processes disagree");
        // The library and the binary agree too.
        let lib = with_scenario!(&path, |scenario| { hashes(&scenario, 15, 2, IndexKind::Kd) });
        let bin: Vec<String> = a.into_iter().map(|(_, h)| h).collect();
        assert_eq!(bin, lib, "{rel}: binary and library disagree");
    }
}

/// Ticks of the reordering tests: the default interval (20) reorders at ticks 0, 20 and 40.
const REORDER_TICKS: u64 = 41;

/// Spatial reordering of the rows is a speed lever only: per-tick hashes are the same at every
/// reorder interval for every shipped scenario, with either index and any thread count, and
/// the rows really do leave id order (where there are three agents or more to order).
#[test]
fn spatial_reordering_changes_no_hash() {
    for path in shipped_scenarios() {
        with_scenario!(&path, |scenario| {
            let reference = hashes(&scenario, REORDER_TICKS, 2, IndexKind::Kd);
            let settings = REORDER_INTERVALS.iter().zip([
                (IndexKind::Kd, 1),
                (IndexKind::Kd, 3),
                (IndexKind::Grid, 2),
                (IndexKind::Kd, 8),
            ]);
            for (&every, (index, threads)) in settings {
                let (got, reordered) = run_reordered(&scenario, REORDER_TICKS, threads, index, every);
                if let Some(t) = (0..got.len()).find(|&t| got[t] != reference[t]) {
                    panic!(
                        "{}: reordering every {every} ticks ({index}, {threads} threads) diverges at tick {t}",
                        scenario.name
                    );
                }
                // One agent (RiMEA 1, Jülich 1) is always in id order, and the two of Jülich 4 and 5
                // (a walker behind a standing person) already lie in spatial order; every other
                // scene leaves it.
                if scenario.agent_count() >= 3 {
                    assert_eq!(reordered, every > 0, "{}: reordering every {every} ticks", scenario.name);
                }
            }
        })
    }
}

/// `throng run`'s outputs with `--reorder-every K`: the JSON report (the `hashes` are there
/// with `--hash-every 1`), the trace CSV and the metrics CSV.
fn run_outputs(
    dir: &Path,
    scenario: &str,
    ticks: u64,
    trace_every: u64,
    every: u64,
) -> (serde_json::Value, Vec<u8>, Vec<u8>) {
    let stem = Path::new(scenario).file_stem().expect("a file name").to_string_lossy().into_owned();
    let trace = dir.join(format!("{stem}-{every}.csv"));
    let metrics = dir.join(format!("{stem}-{every}.metrics.csv"));
    let (ticks, trace_every, every) = (ticks.to_string(), trace_every.to_string(), every.to_string());
    let args = [
        "run",
        scenario,
        "--ticks",
        &ticks,
        "--threads",
        "2",
        "--json",
        "--hash-every",
        "1",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-every",
        &trace_every,
        "--metrics",
        metrics.to_str().unwrap(),
        "--reorder-every",
        &every,
    ];
    let out = throng(&args);
    assert!(out.status.success(), "{scenario}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let outputs = (v, std::fs::read(&trace).unwrap(), std::fs::read(&metrics).unwrap());
    let _ = (std::fs::remove_file(&trace), std::fs::remove_file(&metrics));
    outputs
}

/// Compares the outputs of `throng run` at every reorder interval with those of a run that
/// never reorders, byte for byte; returns the reference's JSON report.
fn assert_same_outputs(dir: &Path, scenario: &str, ticks: u64, trace_every: u64) -> serde_json::Value {
    let (a, trace_a, metrics_a) = run_outputs(dir, scenario, ticks, trace_every, 0);
    assert_eq!(a["hashes"].as_array().map(Vec::len), Some(ticks as usize + 1), "{scenario}: {a}");
    for every in &REORDER_INTERVALS[1..] {
        let (b, trace_b, metrics_b) = run_outputs(dir, scenario, ticks, trace_every, *every);
        for key in ["hashes", "hash", "metrics", "agents"] {
            assert_eq!(a[key], b[key], "{scenario}: `{key}` differs when reordering every {every} ticks");
        }
        assert!(trace_a == trace_b, "{scenario}: trace CSVs differ when reordering every {every} ticks");
        assert!(
            metrics_a == metrics_b,
            "{scenario}: metrics CSVs differ when reordering every {every} ticks"
        );
    }
    a
}

/// With reordering, the binary's outputs stay in id order: for every shipped scenario, the same
/// per-tick hashes, metrics summary, trace bytes and metrics bytes at every reorder interval.
#[test]
fn reordered_runs_write_the_same_outputs() {
    let dir = scratch_dir("reordered_outputs");
    for path in shipped_scenarios() {
        let rel = path.strip_prefix(root()).expect("under the root").to_str().expect("utf-8 path").to_owned();
        assert_same_outputs(&dir, &rel, REORDER_TICKS, 3);
    }
}

/// The same through exits: agents leave the doorway while the rows are in spatial order.
#[test]
fn reordered_runs_write_the_same_outputs_while_agents_exit() {
    let dir = scratch_dir("reordered_outputs_exits");
    let a = assert_same_outputs(&dir, "scenarios/doorway.toml", 400, 50);
    assert!(a["metrics"]["agents_exited"].as_u64().unwrap() > 0, "the run must remove agents");
}

/// Ticks looped inside `Pipeline::enter` (as `throng run`, `batch` and `bench` loop them, with
/// the other workers kept awake between passes) give the same per-tick hashes as ticks stepped
/// one by one; and a panic inside `enter` comes back out of it, rather than leaving the
/// workers that were kept awake waiting for it forever.
#[test]
fn ticks_inside_enter_match_ticks_stepped_one_by_one() {
    const ENTER_TICKS: u64 = 12;
    let scenario = load(&root().join("scenarios/bench/crowd.toml"));
    let reference = hashes(&scenario, ENTER_TICKS, 1, IndexKind::Kd);
    assert_ne!(reference[0], reference[ENTER_TICKS as usize], "the state moves");
    for threads in [1, 2, 3] {
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(threads, IndexKind::Kd).expect("thread pool");
        pipeline.set_sensing_skin(scenario.sensing_skin);
        let got = pipeline.enter(|pipeline| {
            let mut out = vec![state_hash(&world).to_hex()];
            for _ in 0..ENTER_TICKS {
                pipeline.step(&mut world).expect("finite state");
                out.push(state_hash(&world).to_hex());
            }
            out
        });
        assert_eq!(got, reference, "{threads} threads inside enter");
    }
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("thread pool");
    // Entered again from inside, it simply runs the closure there.
    assert_eq!(pipeline.enter(|p| p.enter(|_| 7)), 7);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pipeline.enter(|_| panic!("a panic inside enter"));
    }));
    assert!(caught.is_err(), "the panic comes back out");
    // And the pipeline still runs ticks afterwards.
    let mut world = scenario.build_world();
    pipeline.step(&mut world).expect("finite state");
    assert_eq!(state_hash(&world).to_hex(), reference[1]);
}

/// `Simulation::run_until`, the loop every command runs its ticks through, gives the hashes of
/// ticks stepped one by one, calls its hook after every tick that ran, hands back what the hook
/// breaks with at the tick it broke, and ends at a `stop` event without running a tick more.
#[test]
fn the_run_loop_steps_hooks_breaks_and_stops_as_ticks_stepped_one_by_one() {
    use std::ops::ControlFlow;
    use throng_engine::{RunEnd, RunSettings, Simulation};

    let scenario = load(&root().join("scenarios/bench/crowd.toml"));
    let reference = hashes(&scenario, 8, 1, IndexKind::Kd);
    let settings = RunSettings { threads: 2, index: Some(IndexKind::Kd), ..RunSettings::default() };
    let mut sim = Simulation::new(&scenario, settings.clone()).expect("a simulation");
    let mut seen = vec![sim.hash().to_hex()];
    let end = sim
        .run_until(8, |sim| {
            seen.push(sim.hash().to_hex());
            ControlFlow::<()>::Continue(())
        })
        .expect("finite state");
    assert_eq!(end, RunEnd::Done);
    assert_eq!(seen, reference, "one hook call per tick, with the tick's state");
    // Broken at tick 3: the hook's value comes back, and the run stands at tick 3.
    let mut sim = Simulation::new(&scenario, settings.clone()).expect("a simulation");
    let end =
        sim.run_until(8, |sim| {
            if sim.tick() == 3 { ControlFlow::Break("three") } else { ControlFlow::Continue(()) }
        })
        .expect("finite state");
    assert_eq!((end, sim.tick()), (RunEnd::Broken("three"), 3));
    assert_eq!(sim.hash().to_hex(), reference[3]);
    // Already there: no tick runs.
    assert_eq!(sim.run_until(3, |_| ControlFlow::<()>::Break(())).expect("finite"), RunEnd::Done);
    assert_eq!(sim.tick(), 3);
    // A `stop` event ends the run where it fires, and nothing runs after it.
    let stopping = load(&root().join("scenarios/verification/rimea_15_short.toml"));
    let mut sim = Simulation::new(&stopping, settings).expect("a simulation");
    let mut calls = 0u64;
    let end = sim
        .run_until(u64::MAX, |_| {
            calls += 1;
            ControlFlow::<()>::Continue(())
        })
        .expect("finite state");
    assert_eq!(end, RunEnd::StoppedByEvent);
    assert!(sim.stopped() && calls == sim.tick() && calls < stopping.ticks, "stopped at tick {calls}");
    let at = sim.tick();
    assert_eq!(
        sim.run_until(u64::MAX, |_| ControlFlow::<()>::Break(())).expect("finite"),
        RunEnd::StoppedByEvent
    );
    assert_eq!(sim.tick(), at);
}
