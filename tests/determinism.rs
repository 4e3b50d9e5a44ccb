//! Determinism: the same scenario gives the same per-tick state hashes at any thread count,
//! with either index backend, in separate processes. The committed golden records are checked
//! in `golden_files.rs`.

use throng_engine::IndexKind;

use crate::common::{hashes, hashes_reordered, load, root, scratch_dir, shipped_scenarios, throng};

const THREADS: [usize; 5] = [1, 2, 3, 4, 8];
const TICKS: u64 = 20;
/// Brute force is O(N²): above this many agents it runs fewer ticks (the oracle tests in
/// `oracle.rs` cover its lists exhaustively; here it only has to agree hash for hash).
const BRUTE_FULL_AGENTS: u64 = 5_000;
const BRUTE_SHORT_TICKS: u64 = 3;

#[test]
fn every_shipped_scenario_is_thread_count_and_index_independent() {
    let scenarios = shipped_scenarios();
    assert!(scenarios.len() >= 4, "expected the shipped scenarios, found {scenarios:?}");
    for path in scenarios {
        let scenario = load(&path);
        let reference = hashes(&scenario, TICKS, 1, IndexKind::Kd);
        // The hashes must actually move, or this test could not fail.
        assert_ne!(reference[0], reference[TICKS as usize], "{}: state never changed", scenario.name);
        for index in [IndexKind::Kd, IndexKind::Grid, IndexKind::Brute] {
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
        let lib = hashes(&load(&path), 15, 2, IndexKind::Kd);
        let bin: Vec<String> = a.into_iter().map(|(_, h)| h).collect();
        assert_eq!(bin, lib, "{rel}: binary and library disagree");
    }
}

/// Spatial reordering of the rows is a speed lever only: per-tick hashes are unchanged for
/// every shipped scenario, with either index and any thread count.
#[test]
fn spatial_reordering_changes_no_hash() {
    for path in shipped_scenarios() {
        let scenario = load(&path);
        let reference = hashes(&scenario, TICKS, 2, IndexKind::Kd);
        for (every, index, threads) in [(1, IndexKind::Kd, 1), (5, IndexKind::Grid, 2), (3, IndexKind::Kd, 8)]
        {
            let got = hashes_reordered(&scenario, TICKS, threads, index, every);
            if let Some(t) = (0..got.len()).find(|&t| got[t] != reference[t]) {
                panic!(
                    "{}: reordering every {every} ticks ({index}, {threads} threads) diverges at tick {t}",
                    scenario.name
                );
            }
        }
    }
}

/// With reordering, the binary's outputs stay in id order: the same trace bytes, the same
/// metrics summary and hash as without it (agents leave through the exit meanwhile).
#[test]
fn reordered_runs_write_the_same_outputs() {
    let dir = scratch_dir("reordered_outputs");
    let run = |name: &str, extra: &[&str]| {
        let trace = dir.join(format!("{name}.csv"));
        let metrics = dir.join(format!("{name}.metrics.csv"));
        let mut args = vec![
            "run",
            "scenarios/doorway.toml",
            "--ticks",
            "400",
            "--json",
            "--trace",
            trace.to_str().unwrap(),
            "--trace-every",
            "50",
            "--metrics",
            metrics.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = throng(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        (v, std::fs::read(&trace).unwrap(), std::fs::read(&metrics).unwrap())
    };
    let (a, trace_a, metrics_a) = run("plain", &[]);
    let (b, trace_b, metrics_b) = run("reordered", &["--reorder-every", "3"]);
    assert_eq!(a["hash"], b["hash"]);
    assert_eq!(a["metrics"], b["metrics"]);
    assert!(a["metrics"]["agents_exited"].as_u64().unwrap() > 0, "the run must remove agents");
    assert!(trace_a == trace_b, "trace CSVs differ");
    assert!(metrics_a == metrics_b, "metrics CSVs differ");
}
