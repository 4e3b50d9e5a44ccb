//! Expectations (`[[expect]]`) and `throng test`: verdicts worked out by hand on a scene whose
//! every value is known, the exit codes of `run --expect` and `test`, the JUnit file read
//! with an XML parser, and the shipped scenarios passing their own expectations.

use std::path::Path;

use super::{text, write};
use crate::common::{scratch_dir, throng};

/// Five agents that never move (no behaviours, no initial speed): three at x = 5, inside the
/// exit, which removes them in the first tick; two at (50, 50) and (60, 50). Agent ids: the
/// left three 0, 1, 2; the right two 3, 4. So: 5 active at tick 0, 2 from tick 1 (0.1 s) on,
/// 3 exited from tick 1 on; 20 ticks, the run ends at 2 s.
const STILL: &str = r#"version = 1
name = "still"
seed = 1
dt = 0.1
ticks = 20

[bounds]
min = [0, 0]
max = [100, 100]

[[exits]]
name = "out"
kind = "rect"
min = [0, 0]
max = [10, 100]

[[groups]]
name = "left"
spawn = { kind = "points", points = [[5, 10], [5, 20], [5, 30]] }
max_speed = 1.0
max_force = 1.0

[[groups]]
name = "right"
spawn = { kind = "points", points = [[50, 50], [60, 50]] }
max_speed = 1.0
max_force = 1.0
"#;

/// Each expectation with the line `throng run` prints for it, worked out from `STILL`.
const CASES: [(&str, &str); 11] = [
    (
        "name = \"two stay\"\nmetric = \"agents_active\"\nmin = 2\nmax = 2",
        "PASS      two stay: agents_active at the end between 2 and 2 (was 2)",
    ),
    (
        "name = \"five at first\"\ncheck = \"at\"\nat_s = 0\nmetric = \"agents_active\"\nmin = 5",
        "PASS      five at first: agents_active at 0.00 s >= 5 (was 5)",
    ),
    (
        "name = \"three out fast\"\ncheck = \"first\"\nmetric = \"agents_exited\"\nmin = 3\nbefore_s = 1",
        "PASS      three out fast: agents_exited first >= 3 by 1.00 s (first at 0.10 s)",
    ),
    (
        "name = \"never five\"\ncheck = \"always\"\nmetric = \"agents_active\"\nmax = 4",
        "FAIL      never five: agents_active <= 4 at every tick (was 5 at 0.00 s)",
    ),
    (
        "name = \"at most four later\"\ncheck = \"always\"\nfrom_s = 0.1\nmetric = \"agents_active\"\nmax = 4",
        "PASS      at most four later: agents_active <= 4 at every tick from 0.10 s (held at every tick; highest 2 at 0.10 s)",
    ),
    (
        "name = \"ever six\"\ncheck = \"ever\"\nmetric = \"agents_active\"\nmin = 6",
        "FAIL      ever six: agents_active >= 6 at some tick (never; highest 5 at 0.00 s)",
    ),
    (
        "name = \"right pair\"\nregion = { kind = \"rect\", min = [40, 40], max = [70, 60] }\ngroup = \"right\"\nmin = 2\nmax = 2",
        "PASS      right pair: agents of \"right\" in the region at the end between 2 and 2 (was 2)",
    ),
    (
        "name = \"both at the mark\"\ncheck = \"reach\"\ngroup = \"right\"\nregion = { kind = \"circle\", centre = [50, 50], radius = 1 }\nbefore_s = 1",
        "FAIL      both at the mark: every agent of \"right\" in the region by 1.00 s (1 of 2 arrived; agent 4 did not)",
    ),
    (
        "name = \"agent 3 at the mark\"\ncheck = \"reach\"\nagent = 3\nregion = { kind = \"circle\", centre = [50, 50], radius = 1 }\nbefore_s = 1",
        "PASS      agent 3 at the mark: agent 3 in the region by 1.00 s (1 of 1 arrived)",
    ),
    (
        "name = \"late\"\ncheck = \"at\"\nat_s = 5\nmetric = \"agents_active\"\nmin = 0",
        "UNCHECKED late: agents_active at 5.00 s >= 0 (the run ended at 2.00 s)",
    ),
    ("metric = \"mean_wait_s\"\nmax = 0", "PASS      mean_wait_s at the end <= 0 (was 0)"),
];

fn with_expectations(cases: &[&str]) -> String {
    let mut text = STILL.to_string();
    for c in cases {
        text.push_str("\n[[expect]]\n");
        text.push_str(c);
        text.push('\n');
    }
    text
}

fn scenario_path(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn verdicts_match_the_hand_worked_values() {
    let dir = scratch_dir("expect_verdicts");
    let entries: Vec<&str> = CASES.iter().map(|(e, _)| *e).collect();
    let path = write(&dir, "still.toml", with_expectations(&entries));
    let out = throng(&["run", scenario_path(&path), "--threads", "1"]);
    assert_eq!(out.status.code(), Some(0), "without --expect, failures are reported only");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("expectations: 7 of 11 passed"), "{stdout}");
    for (_, line) in CASES {
        assert!(stdout.contains(&format!("  {line}\n")), "missing `{line}` in:\n{stdout}");
    }
    // The time past the run's end is warned about when the file is read.
    let stderr = text(&out.stderr);
    assert!(stderr.contains("`expect[9].at_s`") && stderr.contains("after the run's end (2 s)"), "{stderr}");
    // --expect turns what did not pass into exit code 1.
    let out = throng(&["run", scenario_path(&path), "--expect", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("4 of 11 expectations did not pass"), "{}", text(&out.stderr));
}

/// The warning about a time past the run's end follows the run's own length: `--ticks` longer
/// than the file's takes it away, shorter brings it (in `run`, `plot` and `render` alike).
#[test]
fn the_runs_end_in_warnings_is_the_end_of_the_run_asked_for() {
    let dir = scratch_dir("expect_run_length");
    let path = write(
        &dir,
        "still.toml",
        with_expectations(&["check = \"at\"\nat_s = 5\nmetric = \"agents_active\"\nmin = 0"]),
    );
    let warned = |extra: &[&str]| -> String {
        let mut args = vec!["run", scenario_path(&path), "--quiet"];
        args.extend_from_slice(extra);
        let out = throng(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    // The file's 20 ticks end at 2 s: at_s = 5 is past it.
    assert!(warned(&[]).contains("at_s = 5 is after the run's end (2 s)"));
    // 60 ticks end at 6 s: no warning.
    assert!(!warned(&["--ticks", "60"]).contains("after the run's end"), "{}", warned(&["--ticks", "60"]));
    // 30 ticks (3 s), with the file's own 20 set longer: the run's length decides.
    let err = warned(&["--ticks", "30", "--set", "ticks=100"]);
    assert!(
        err.contains("at_s = 5 is after the run's end (3 s)") && err.contains("(a run of 30 ticks)"),
        "{err}"
    );
    let svg = dir.join("p.svg");
    let out = throng(&["plot", scenario_path(&path), "--ticks", "60", "--out", svg.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("after the run's end"), "{}", text(&out.stderr));
}

#[test]
fn run_json_lists_each_verdict() {
    let dir = scratch_dir("expect_json");
    let path = write(&dir, "still.toml", with_expectations(&[CASES[2].0, CASES[3].0]));
    let out = throng(&["run", scenario_path(&path), "--json", "--quiet"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let list = v["expectations"].as_array().expect("expectations");
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["status"], "pass");
    assert_eq!(list[0]["value"].as_f64(), Some(0.1f32 as f64));
    assert_eq!(list[1]["status"], "fail");
    assert_eq!((list[1]["value"].as_f64(), list[1]["time_s"].as_f64()), (Some(5.0), Some(0.0)));
}

/// `throng test` on a directory: files found recursively, batch files and scenarios without
/// expectations skipped, a broken file reported (exit 2) without stopping the others;
/// `--filter`, `--json`, and JUnit XML as a CI system reads it.
#[test]
fn throng_test_finds_runs_and_reports() {
    let dir = scratch_dir("expect_test_command");
    std::fs::create_dir_all(dir.join("a/b")).expect("dirs");
    write(&dir, "a/pass.toml", with_expectations(&[CASES[0].0, CASES[1].0]));
    write(&dir, "a/b/fail.toml", with_expectations(&[CASES[2].0, CASES[3].0]));
    write(&dir, "plain.toml", STILL);
    write(&dir, "batch.toml", "version = 1\n\n[[sweep]]\nscenario = \"plain.toml\"\n");
    let d = scenario_path(&dir);

    let out = throng(&["test", d, "--junit", &format!("{d}/junit.xml")]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains(&format!("PASS      {d}/a/pass.toml: two stay: ")), "{stdout}");
    assert!(stdout.contains(&format!("FAIL      {d}/a/b/fail.toml: never five: ")), "{stdout}");
    assert!(stdout.contains("4 expectations in 2 scenarios: 3 passed, 1 failed, 0 unchecked"), "{stdout}");

    // The JUnit file, read as XML: a suite per scenario, a case per expectation.
    let xml = std::fs::read_to_string(dir.join("junit.xml")).expect("junit.xml");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let suites: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testsuite")).collect();
    assert_eq!(suites.len(), 2);
    let failing = suites.iter().find(|s| s.attribute("failures") == Some("1")).expect("the failing suite");
    assert_eq!(failing.attribute("name"), Some(format!("{d}/a/b/fail.toml").as_str()));
    let failure = failing.descendants().find(|n| n.has_tag_name("failure")).expect("a failure");
    assert_eq!(failure.parent().and_then(|c| c.attribute("name")), Some("never five"));
    assert!(failure.attribute("message").is_some_and(|m| m.contains("agents_active <= 4")));
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("testcase")).count(), 4);

    // --filter keeps the matching expectations (and runs only their scenarios).
    let out = throng(&["test", d, "--filter", "two stay", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((v["passed"].as_u64(), v["failed"].as_u64()), (Some(1), Some(0)));
    assert_eq!(v["files"].as_array().map(Vec::len), Some(1));

    // A broken scenario is an error (exit 2); the others are still run and reported.
    write(&dir, "a/broken.toml", with_expectations(&["metric = \"agents_active\"\nmin = 3\nmax = 1"]));
    let out = throng(&["test", d]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("ERROR") && stdout.contains("broken.toml:") && stdout.contains("min <= max"),
        "{stdout}"
    );
    assert!(stdout.contains("1 files with errors") && stdout.contains("3 passed, 1 failed"), "{stdout}");
}

#[test]
fn the_shipped_scenarios_pass_their_expectations() {
    let out = throng(&["test", "scenarios", "--quiet"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // Every shipped scenario says what it shows.
    let scenarios = crate::common::shipped_scenarios().len();
    assert!(stdout.contains(&format!(" in {scenarios} scenarios: ")), "{stdout}");
    assert!(stdout.contains(" 0 failed, 0 unchecked"), "{stdout}");
}
