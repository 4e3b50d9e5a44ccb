//! `throng record` and `throng verify` on a small scenario: verify passes on an untouched record
//! and catches every kind of change.

use std::path::{Path, PathBuf};

use throng_engine::golden::{self, Golden};

use crate::common::{REORDER_INTERVALS, scratch_dir, throng};
use crate::fixtures::{s, small, text, write};

/// Records `small` (30 agents, 12 ticks) into `dir/golden.json` with the given extra arguments.
fn record_small(dir: &Path, extra: &[&str]) -> (PathBuf, PathBuf) {
    let scenario = write(dir, "small.toml", small(3, 30));
    let g = dir.join("golden.json");
    let mut args = vec!["record", s(&scenario), "-o", s(&g), "--threads", "2", "--quiet"];
    args.extend_from_slice(extra);
    let out = throng(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    (scenario, g)
}

fn verify(g: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["verify", s(g)];
    args.extend_from_slice(extra);
    let out = throng(&args);
    assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
    (out.status.code(), text(&out.stdout) + &text(&out.stderr))
}

/// The value lines of a report: `expected` then `actual` (or `stored` then `run`), each with a
/// bit pattern.
#[track_caller]
fn assert_values(report: &str, labels: (&str, &str), want: (&str, &str)) {
    let line = |label: &str| {
        report
            .lines()
            .find(|l| l.trim_start().strip_prefix(label).is_some_and(|r| r.trim_start().starts_with(':')))
            .unwrap_or_else(|| panic!("no `{label}` line in:\n{report}"))
            .to_string()
    };
    let (e, a) = (line(labels.0), line(labels.1));
    assert!(e.contains(want.0), "expected `{}` in `{e}`:\n{report}", want.0);
    assert!(a.contains(want.1), "expected `{}` in `{a}`:\n{report}", want.1);
    assert!(e.contains("(f32 0x") && a.contains("(f32 0x"), "bit patterns:\n{report}");
}

#[test]
fn verify_passes_on_an_untouched_record_at_any_thread_count() {
    let dir = scratch_dir("golden_untouched");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    for threads in ["1", "2", "3"] {
        let (code, report) = verify(&g, &["--threads", threads]);
        assert_eq!(code, Some(0), "{report}");
        assert!(report.starts_with("ok   "), "{report}");
    }
    let (code, report) = verify(&g, &["--index", "brute"]);
    assert_eq!(code, Some(0), "{report}");
}

/// `record --agents N` stores the count as the override `agents = N`: `verify` re-runs the
/// scaled scenario, and the file's hashes are `throng run --agents N`'s.
#[test]
fn scaled_records_verify_and_match_scaled_runs() {
    let dir = scratch_dir("golden_scaled");
    let (scenario, g) = record_small(&dir, &["--ticks", "6", "--agents", "130", "--every", "2"]);
    let golden = Golden::load(&g).expect("golden file");
    assert_eq!(golden.overrides, vec![("agents".to_string(), "130".to_string())]);
    assert_eq!(golden.agents, 130);
    for threads in ["1", "3"] {
        let (code, report) = verify(&g, &["--threads", threads]);
        assert_eq!(code, Some(0), "{report}");
    }
    let run = throng(&["run", s(&scenario), "--agents", "130", "--ticks", "6", "--json"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(v["hash"], golden.final_hash.as_str());
    assert_eq!(v["agents"], 130);
    // The same golden file, recorded unscaled, has other hashes: the count is not ignored.
    let (_, plain) = record_small(&dir, &["--ticks", "6"]);
    assert_ne!(Golden::load(&plain).expect("golden file").final_hash, golden.final_hash);
    let out = throng(&["record", s(&scenario), "-o", s(&dir.join("zero.json")), "--agents", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--agents: `agents`: expected a whole number of agents"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("zero.json").exists());
}

/// Edits one value of a snapshot: `velocity.x` of the agent in row 5 at tick 3.
#[test]
fn verify_names_an_edited_snapshot_value() {
    let dir = scratch_dir("golden_edit_snapshot");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    let mut golden = Golden::load(&g).expect("golden file");
    let snap = golden.snapshots.iter_mut().find(|s| s.tick == 3).expect("a snapshot at tick 3");
    let mut world: throng_engine::World = snap.decode().expect("a world");
    let old = world.agents.velocity[5].x;
    let new = f32::from_bits(old.to_bits() ^ 1); // one bit of the mantissa
    world.agents.velocity[5].x = new;
    *snap = golden::Snapshot::of(&world);
    golden.seal(); // a consistent file, as an engine that stored this snapshot would write
    std::fs::write(&g, golden.to_json()).expect("write");

    let (code, report) = verify(&g, &[]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("snapshot stored at tick 3 differs from the run"), "{report}");
    let id = world.agents.id[5];
    assert!(
        report.contains(&format!("first differing agent: id {id} (row 5), field velocity.x")),
        "{report}"
    );
    assert_values(
        &report,
        ("stored", "run"),
        (
            &format!("{new:?} (f32 0x{:08x})", new.to_bits()),
            &format!("{old:?} (f32 0x{:08x})", old.to_bits()),
        ),
    );
}

/// What an engine whose results changed looks like to verify: the golden file holds another
/// state at tick 5, consistently (snapshot, hash and digests agree). A re-run of the recorded
/// inputs cannot reproduce it, so the expected values come from the stored snapshot.
#[test]
fn verify_takes_expected_values_from_the_snapshot_when_the_engine_changed() {
    let dir = scratch_dir("golden_engine_changed");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    let mut golden = Golden::load(&g).expect("golden file");
    let snap = golden.snapshots.iter_mut().find(|s| s.tick == 5).expect("a snapshot at tick 5");
    let mut world: throng_engine::World = snap.decode().expect("a world");
    let run_value = world.agents.position[7].y;
    let recorded = run_value + 0.25;
    world.agents.position[7].y = recorded;
    *snap = golden::Snapshot::of(&world);
    let rec = golden.records.iter_mut().find(|r| r.tick == 5).expect("tick 5");
    rec.hash = throng_engine::state_hash(&world).to_hex();
    let digest = throng_engine::state::fields::column_digests(&world)
        .into_iter()
        .find(|c| c.name == "agents.position")
        .expect("a position column");
    rec.digests.insert(digest.name, format!("{:016x}", digest.digest));
    golden.seal();
    std::fs::write(&g, golden.to_json()).expect("write");

    let (code, report) = verify(&g, &["--threads", "1"]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("first diverging tick: 5"), "{report}");
    assert!(report.contains("differing columns at tick 5: agents.position"), "{report}");
    assert!(report.contains("expected values: from the snapshot stored at tick 5"), "{report}");
    let id = world.agents.id[7];
    assert!(
        report.contains(&format!("first differing agent: id {id} (row 7), field position.y")),
        "{report}"
    );
    let bits = |v: f32| format!("{v:?} (f32 0x{:08x})", v.to_bits());
    assert_values(&report, ("expected", "actual"), (&bits(recorded), &bits(run_value)));
}

/// A golden file edited by hand (a record's hash, the seed) is refused as edited, naming it
/// (exit 2), not reported as a changed engine (exit 1).
#[test]
fn verify_refuses_a_hand_edited_file_as_edited() {
    let dir = scratch_dir("golden_hand_edited");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    let json = std::fs::read_to_string(&g).expect("read");
    let golden = Golden::load(&g).expect("golden file");
    assert_eq!(golden.seed, 3);
    let mut hash = golden.records[4].hash.clone();
    let last = hash.pop().expect("hex");
    hash.push(if last == '0' { '1' } else { '0' });
    let cases = [
        ("seed.json", json.replacen("\"seed\": 3,", "\"seed\": 4,", 1)),
        ("hash.json", json.replacen(&golden.records[4].hash, &hash, 1)),
        ("every.json", json.replacen("\"every\": 1,", "\"every\": 2,", 1)),
    ];
    for (name, edited) in cases {
        assert_ne!(edited, json, "{name}: the edit applies");
        let p = write(&dir, name, edited);
        let (code, report) = verify(&p, &[]);
        assert_eq!(code, Some(2), "{name}: {report}");
        assert!(
            report.starts_with(&format!(
                "error: {}: not a golden file: the file was edited or damaged",
                p.display()
            )),
            "{name}: {report}"
        );
    }
}

/// A file whose records hold other hashes, consistently (as another engine's would), is a
/// mismatch, and verify sees that the run's columns all agree.
#[test]
fn verify_names_a_file_whose_only_difference_is_its_hashes() {
    let dir = scratch_dir("golden_edit_hash");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    let mut golden = Golden::load(&g).expect("golden file");
    let rec = golden.records.iter_mut().find(|r| r.tick == 4).expect("tick 4");
    let last = rec.hash.pop().expect("hex");
    rec.hash.push(if last == '0' { '1' } else { '0' });
    golden.seal();
    std::fs::write(&g, golden.to_json()).expect("write");
    let (code, report) = verify(&g, &["--threads", "1"]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("first diverging tick: 4"), "{report}");
    assert!(
        report.contains("only the recorded hashes or digests differ (the golden file was edited)"),
        "{report}"
    );
}

#[test]
fn verify_names_a_changed_seed_with_both_values() {
    let dir = scratch_dir("golden_edit_seed");
    let (_, g) = record_small(&dir, &["--ticks", "12"]);
    let mut golden = Golden::load(&g).expect("golden file");
    golden.seed = 4;
    golden.seal();
    std::fs::write(&g, golden.to_json()).expect("write");
    let (code, report) = verify(&g, &[]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("first diverging tick: 0"), "{report}");
    assert!(
        report.contains("differing field seed: expected 3 (u64 0x0000000000000003), actual 4"),
        "{report}"
    );
    // Spawn positions come from the seed: agent 0's position differs first.
    assert!(report.contains("first differing agent: id 0 (row 0), field position.x"), "{report}");
    assert_values(&report, ("expected", "actual"), ("", ""));
}

/// Without snapshots and with a record only every 4 ticks, a changed scenario is still pinned
/// to the exact tick, agent and field: verify re-runs the recorded scenario text.
#[test]
fn verify_pins_a_changed_scenario_to_the_exact_tick_agent_and_field() {
    let dir = scratch_dir("golden_edit_scenario");
    let (scenario, g) = record_small(&dir, &["--ticks", "12", "--every", "4", "--max-snapshot-kib", "0"]);
    let golden = Golden::load(&g).expect("golden file");
    assert!(golden.snapshots.is_empty());
    // The wander jitter changes: spawn is identical, agents first move differently at tick 1.
    let before = std::fs::read_to_string(&scenario).expect("read");
    std::fs::write(&scenario, before.replacen("jitter = 2.0", "jitter = 2.5", 1)).expect("write");
    let (code, report) = verify(&g, &["--threads", "1"]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("scenario changed:"), "{report}");
    let line = before.lines().position(|l| l == "jitter = 2.0").expect("line") + 1;
    assert!(report.contains(&format!("first changed line {line}:")), "{report}");
    assert!(
        report.contains("recorded: jitter = 2.0") && report.contains("now:      jitter = 2.5"),
        "{report}"
    );
    assert!(
        report.contains("first diverging tick: 0"),
        "the behaviour's parameter differs from tick 0: {report}"
    );
    assert!(
        report.contains("jitter: expected 2.0 (f32 0x40000000), actual 2.5 (f32 0x40200000)"),
        "{report}"
    );
    assert!(report.contains("(agents first differ at tick 1)"), "{report}");
    assert!(report.contains("expected values: from a re-run of the recorded inputs"), "{report}");
    // Wander is drawn in `steer`; the neighbour lists of tick 1 still match.
    assert!(report.contains("first differing agent: id 0 (row 0), field "), "{report}");
    assert_values(&report, ("expected", "actual"), ("", ""));
}

/// Verify's reports read agents in id order: the same tick, agent (id and row), field and values
/// at every reorder interval, whether the expected values come from a stored snapshot or from a
/// re-run of the recorded inputs. `throng record` writes the same file at any interval too.
#[test]
fn verify_reports_do_not_depend_on_reordering() {
    let reports = |g: &Path| -> Vec<String> {
        REORDER_INTERVALS
            .iter()
            .map(|every| {
                let (code, report) = verify(g, &["--threads", "1", "--reorder-every", &every.to_string()]);
                assert_eq!(code, Some(1), "{report}");
                report
            })
            .collect()
    };
    let all_equal = |reports: &[String], has: &str| {
        assert!(reports[0].contains(has), "{}", reports[0]);
        for (every, r) in REORDER_INTERVALS.iter().zip(reports) {
            assert_eq!(*r, reports[0], "reordering every {every} ticks changes the report");
        }
    };

    // An edited snapshot value (the expected values come from the snapshot).
    let dir = scratch_dir("golden_reports_snapshot");
    let (_, g) = record_small(&dir, &["--ticks", "12", "--reorder-every", "0"]);
    std::fs::create_dir_all(dir.join("every-1")).expect("dir");
    let (_, g1) = record_small(&dir.join("every-1"), &["--ticks", "12", "--reorder-every", "1"]);
    assert!(std::fs::read(&g).unwrap() == std::fs::read(&g1).unwrap(), "record depends on reordering");
    let mut golden = Golden::load(&g).expect("golden file");
    let snap = golden.snapshots.iter_mut().find(|s| s.tick == 6).expect("a snapshot at tick 6");
    let mut world: throng_engine::World = snap.decode().expect("a world");
    world.agents.position[11].x += 0.5;
    *snap = golden::Snapshot::of(&world);
    golden.seal();
    std::fs::write(&g, golden.to_json()).expect("write");
    let id = world.agents.id[11];
    all_equal(&reports(&g), &format!("first differing agent: id {id} (row 11), field position.x"));

    // An edited scenario, records every 4 ticks, no snapshots (the expected values come from a
    // re-run, stepped in lockstep with the checked run).
    let dir = scratch_dir("golden_reports_rerun");
    let (scenario, g) = record_small(&dir, &["--ticks", "12", "--every", "4", "--max-snapshot-kib", "0"]);
    let before = std::fs::read_to_string(&scenario).expect("read");
    std::fs::write(&scenario, before.replacen("jitter = 2.0", "jitter = 2.5", 1)).expect("write");
    all_equal(&reports(&g), "expected values: from a re-run of the recorded inputs");
}

#[test]
fn verify_reports_a_changed_scenario_even_when_results_match() {
    let dir = scratch_dir("golden_comment");
    let (scenario, g) = record_small(&dir, &["--ticks", "5"]);
    let before = std::fs::read_to_string(&scenario).expect("read");
    std::fs::write(&scenario, before.replacen("# A small scenario for tests.", "# Edited.", 1))
        .expect("write");
    let (code, report) = verify(&g, &[]);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("scenario changed:") && report.contains("first changed line 1:"), "{report}");
    assert!(!report.contains("first diverging tick"), "{report}");
}

#[test]
fn verify_notes_another_engine_version_and_rejects_bad_files() {
    let dir = scratch_dir("golden_versions");
    let (_, g) = record_small(&dir, &["--ticks", "3"]);
    let mut golden = Golden::load(&g).expect("golden file");
    golden.engine_version = "0.0.1".into();
    golden.seal();
    std::fs::write(&g, golden.to_json()).expect("write");
    let (code, report) = verify(&g, &[]);
    assert_eq!(code, Some(0), "same results from another version pass: {report}");
    assert!(report.contains("note: recorded with throng-engine 0.0.1; this is"), "{report}");

    let json = std::fs::read_to_string(&g).expect("read");
    // Damage is a format error (exit 2) naming the part, not a changed engine (exit 1).
    let damaged = |edit: &dyn Fn(&mut Golden)| {
        let mut golden = Golden::load(&g).expect("golden file");
        edit(&mut golden);
        golden.seal(); // each is refused for what it is, not only for the digest
        golden.to_json()
    };
    let bad_hash = damaged(&|g| g.records[2].hash = "not a hash".into());
    let bad_digest = damaged(&|g| {
        if let Some(d) = g.records[1].digests.values_mut().next() {
            *d = "xyz".into();
        }
    });
    let out_of_order = damaged(&|g| {
        let t = g.records[1].tick;
        g.records[1].tick = g.records[2].tick;
        g.records[2].tick = t;
    });
    let final_hash = damaged(&|g| g.final_hash = g.records[0].hash.clone());
    let cases = [
        (
            "edited-scenario.json",
            json.replacen("seed = 3", "seed = 4", 1),
            "the embedded scenario text does not match its recorded hash",
        ),
        ("bad-hash.json", bad_hash, "record 2 (tick 2): the hash `not a hash` is not 64 hex digits"),
        ("bad-digest.json", bad_digest, "record 1 (tick 1): the digest of"),
        ("out-of-order.json", out_of_order, "record 2 (tick 1) comes after tick 2"),
        ("final-hash.json", final_hash, "`final_hash` is not the last record's hash"),
        (
            "future.json",
            json.replacen("\"format_version\": 2", "\"format_version\": 99", 1),
            "format version 99",
        ),
        ("other.json", json.replacen("throng-golden", "something-else", 1), "not a golden file"),
        ("broken.json", json[..json.len() / 2].to_string(), "invalid JSON"),
    ];
    for (name, contents, has) in cases {
        let p = write(&dir, name, contents);
        let (code, report) = verify(&p, &[]);
        assert_eq!(code, Some(2), "{name}: {report}");
        assert!(report.starts_with("error: ") && report.contains(has), "{name}: {report}");
    }

    // A golden file whose scenario path is gone (copied on its own) verifies against the
    // scenario text it holds, and says so; a missing --scenario is an error, its cause said once.
    std::fs::create_dir_all(dir.join("copied")).expect("dir");
    let gone = write(&dir.join("copied"), "gone.json", json.clone());
    let (code, report) = verify(&gone, &[]);
    assert_eq!(code, Some(0), "{report}");
    assert!(
        report.contains("small.toml") && report.contains("taken relative to the golden file"),
        "{report}"
    );
    assert!(report.contains("verified against the scenario text the golden file holds"), "{report}");
    let (code, report) = verify(&gone, &["--scenario", s(&dir.join("nowhere.toml"))]);
    assert_eq!(code, Some(2), "{report}");
    assert_eq!(report.matches("no such file").count(), 1, "the cause once: {report}");
}
