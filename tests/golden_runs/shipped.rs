//! Every shipped scenario reproduces its golden file in `tests/golden/`, at any thread count and
//! reorder interval.

use std::path::{Path, PathBuf};

use throng_engine::IndexKind;
use throng_engine::golden::{self, Golden, RecordOptions, VerifyOptions};
use throng_engine::pipeline::DEFAULT_REORDER_EVERY;

use crate::common::{REORDER_INTERVALS, root, shipped_scenarios, throng};
use crate::fixtures::{s, text};

/// Ticks recorded for each shipped scenario: a state hash and column digests at every tick.
const GOLDEN_TICKS: u64 = 40;

fn golden_path(scenario: &Path) -> PathBuf {
    let stem = scenario.file_stem().expect("a file name").to_string_lossy();
    root().join("tests").join("golden").join(format!("{stem}.golden.json"))
}

/// The settings the shipped golden files are minted with (also in docs/determinism.md).
fn shipped_options() -> RecordOptions {
    RecordOptions {
        ticks: Some(GOLDEN_TICKS),
        seed: None,
        every: 1,
        threads: 2,
        index: IndexKind::Kd,
        // Results, digests and snapshots do not depend on it (see below).
        reorder_every: DEFAULT_REORDER_EVERY,
        snapshot_every: 1,
        // Snapshots, earliest ticks first, within 96 KiB per file: the small scenes get the
        // state of every early tick (so verify names agent and values even after an engine
        // change); a world of thousands of agents does not fit and keeps digests only.
        snapshot_budget: 96 * 1024,
    }
}

#[test]
fn golden_files_of_shipped_scenarios_verify() {
    let remint = std::env::var_os("THRONG_REMINT").is_some();
    let scenarios = shipped_scenarios();
    for path in &scenarios {
        let gpath = golden_path(path);
        if remint {
            let g = golden::record(path, &gpath, &[], &shipped_options(), &mut |_| {})
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            std::fs::write(&gpath, g.to_json()).expect("write golden file");
            continue;
        }
        let g = Golden::load(&gpath).unwrap_or_else(|e| {
            panic!("{e}: every shipped scenario needs a golden file; mint it with THRONG_REMINT=1 cargo test --test suite golden")
        });
        assert_eq!(g.ticks, GOLDEN_TICKS, "{}", gpath.display());
        // With its digest, so a hand edit is told from a changed engine.
        assert_eq!(g.format_version, golden::FORMAT_VERSION, "{}: re-mint it", gpath.display());
        // Recorded on 2 threads; checked on 1 with the brute-force index for the small ones.
        let index = if g.agents <= 1000 { IndexKind::Brute } else { IndexKind::Kd };
        let v = golden::verify(
            &g,
            &gpath,
            None,
            VerifyOptions { threads: 1, index, reorder_every: DEFAULT_REORDER_EVERY },
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            v.ok() && v.notes.is_empty(),
            "{v:#?}\nIf the change to the simulation is deliberate, re-mint: THRONG_REMINT=1 cargo test --test suite golden"
        );
        let size = std::fs::metadata(&gpath).expect("golden file").len();
        assert!(size < 192 * 1024, "{}: {size} bytes; golden files stay small", gpath.display());
    }
    // No golden file outlives its scenario (other kinds of golden data may live here too).
    for entry in std::fs::read_dir(root().join("tests/golden")).expect("tests/golden") {
        let p = entry.expect("entry").path();
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".golden.json") else { continue };
        assert!(
            scenarios.iter().any(|s| s.file_stem().is_some_and(|f| f == stem)),
            "tests/golden/{name} has no scenario in scenarios/"
        );
    }
}

#[test]
fn golden_files_verify_with_the_binary_at_another_thread_count() {
    let files: Vec<String> = shipped_scenarios().iter().map(|p| s(&golden_path(p)).to_owned()).collect();
    let mut args = vec!["verify", "--threads", "3"];
    args.extend(files.iter().map(String::as_str));
    let out = throng(&args);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok   ")).count(), files.len(), "{stdout}");
}

/// The committed golden files were minted with the rows in id order throughout (before the
/// reordering default); they verify at every reorder interval (the default's in the two tests
/// above), so the state hashes, the column digests and the pass digests (neighbour lists,
/// queue flags) read the same bytes in any row order. And a golden file recorded at any
/// interval is the same file, snapshots included.
#[test]
fn golden_files_do_not_depend_on_reordering() {
    for path in shipped_scenarios() {
        let gpath = golden_path(&path);
        let g = Golden::load(&gpath).unwrap_or_else(|e| panic!("{e}"));
        for every in REORDER_INTERVALS.into_iter().filter(|&k| k != DEFAULT_REORDER_EVERY) {
            let opts = VerifyOptions { threads: 2, index: IndexKind::Kd, reorder_every: every };
            let v = golden::verify(&g, &gpath, None, opts, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
            assert!(v.ok() && v.notes.is_empty(), "reordering every {every} ticks:\n{v:#?}");
            assert_eq!(v.final_hash.as_ref(), Some(&g.final_hash));
        }
        // Every 7th tick's snapshot, within 8 MiB: even the largest scene (20,000 agents)
        // keeps tick 0 and a tick after the first reordering; the default interval reorders
        // again at tick 20.
        let opts = RecordOptions {
            ticks: Some(21),
            snapshot_every: 7,
            snapshot_budget: 8 << 20,
            ..shipped_options()
        };
        let record = |every: u64| {
            let opts = RecordOptions { reorder_every: every, ..opts.clone() };
            golden::record(&path, &gpath, &[], &opts, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
        };
        let plain = record(0);
        assert!(plain.snapshots.len() >= 2, "{}: snapshots to compare", path.display());
        let plain = plain.to_json();
        for every in &REORDER_INTERVALS[1..] {
            let other = record(*every).to_json();
            assert!(other == plain, "{}: recorded every {every} ticks, the file differs", path.display());
        }
    }
}
