//! Determinism: the same scenario gives the same per-tick state hashes at any thread count,
//! with either index backend, in separate processes, and matches the committed golden hashes.

use std::collections::BTreeMap;

use throng_engine::IndexKind;

use crate::common::{hashes, load, root, shipped_scenarios, throng};

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
        for index in [IndexKind::Kd, IndexKind::Brute] {
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

/// Ticks run for the golden hashes: long enough for every behaviour to matter.
const GOLDEN_TICKS: u64 = 100;
const GOLDEN_FILE: &str = "tests/golden/final_hashes.txt";

/// Committed final hashes. After a deliberate change to the simulation, re-mint with
/// `THRONG_REMINT=1 cargo test --test suite golden` and commit the file with the change.
#[test]
fn golden_final_hashes() {
    let mut got = BTreeMap::new();
    for path in shipped_scenarios() {
        let scenario = load(&path);
        let h = hashes(&scenario, GOLDEN_TICKS, 2, IndexKind::Kd);
        got.insert(
            path.file_name().unwrap().to_string_lossy().into_owned(),
            h[GOLDEN_TICKS as usize].clone(),
        );
    }
    let file = root().join(GOLDEN_FILE);
    if std::env::var_os("THRONG_REMINT").is_some() {
        let mut text = format!(
            "# Final state hash after {GOLDEN_TICKS} ticks of each shipped scenario.\n\
             # Re-mint: THRONG_REMINT=1 cargo test --test suite golden\n"
        );
        for (name, h) in &got {
            text.push_str(&format!("{name} {h}\n"));
        }
        std::fs::write(&file, text).expect("write golden file");
        return;
    }
    let text = std::fs::read_to_string(&file)
        .expect("golden file (re-mint: THRONG_REMINT=1 cargo test --test suite golden)");
    let want: BTreeMap<String, String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (n, h) = l.split_once(' ').expect("name hash");
            (n.to_owned(), h.trim().to_owned())
        })
        .collect();
    assert_eq!(got, want, "golden hashes differ; if the change is deliberate, re-mint (see {GOLDEN_FILE})");
}
