//! What a batch keeps besides its results (`keep = ["metrics", "trace"]`), `results.parquet`,
//! and `throng report --series`: each kept file holds what `throng run` writes for the same
//! run; results.parquet and runs.parquet hold results.csv's rows; the series is every run's
//! metrics with its swept values; bad `keep` entries are refused at their place.

use std::path::Path;

use std::process::Command;

use super::parquet_output::{csv_rows, parquet_rows};
use super::trace_formats::ROOM;
use crate::common::{python, python_with, root, scratch_dir, throng};
use crate::fixtures::{assert_error, s, text, write};

/// Four runs of the 30 walkers: two speeds by two seeds, 40 ticks each, keeping both.
const BATCH: &str = r#"version = 1
name = "kept"
ticks = 40
keep = ["metrics", "trace"]
trace_every = 4

[[sweep]]
scenario = "room.toml"
seeds = [1, 2]
grid = { "groups.walkers.max_speed" = [1.2, 1.6] }
"#;

fn ok(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// results.jsonl's rows as JSON.
fn result_rows(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .expect("results.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a row"))
        .collect()
}

#[test]
fn kept_files_results_parquet_and_the_series_hold_what_the_runs_wrote() {
    let dir = scratch_dir("batch_kept");
    write(&dir, "room.toml", ROOM);
    let batch = write(&dir, "batch.toml", BATCH);
    let out = dir.join("out");
    ok(&throng(&["batch", s(&batch), "--out", s(&out), "--quiet"]));
    let rows = result_rows(&out);
    assert_eq!(rows.len(), 4);

    // Each run's kept files are what `throng run` writes for its seed and overrides.
    for row in &rows {
        let id = row["id"].as_str().expect("an id");
        let seed = row["seed"].as_u64().expect("a seed").to_string();
        let speed = row["overrides"]["groups.walkers.max_speed"].as_f64().expect("a speed");
        let (m, t) = (dir.join(format!("{id}-m.csv")), dir.join(format!("{id}-t.csv")));
        ok(&throng(&[
            "run",
            s(&dir.join("room.toml")),
            "--seed",
            &seed,
            "--set",
            &format!("groups.walkers.max_speed={speed}"),
            "--ticks",
            "40",
            "--metrics",
            s(&m),
            "--trace",
            s(&t),
            "--trace-every",
            "4",
            "--quiet",
        ]));
        let run_dir = out.join("runs").join(id);
        assert_eq!(parquet_rows(&run_dir.join("metrics.parquet")), csv_rows(&m), "{id}: metrics");
        assert_eq!(parquet_rows(&run_dir.join("trace.parquet")), csv_rows(&t), "{id}: trace");
        assert_eq!(csv_rows(&m).1.len(), 41, "ticks 0 to 40");
        assert_eq!(csv_rows(&t).1.len(), 11 * 30, "ticks 0, 4, ..., 40 of 30 walkers");
    }

    // results.parquet: results.csv's columns and rows, typed (an empty CSV cell is null).
    let (header, csv) = csv_rows(&out.join("results.csv"));
    let (names, parquet) = parquet_rows(&out.join("results.parquet"));
    assert_eq!(names, header);
    assert_eq!(parquet.len(), 4);
    for (a, b) in parquet.iter().zip(&csv) {
        for ((name, x), y) in names.iter().zip(a).zip(b) {
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert_eq!(x, y, "{name}"),
                _ => assert_eq!(x, y, "{name}"),
            }
        }
    }

    // The series: every run's metrics after its id, point, scenario, seed and swept values.
    let series = dir.join("series.parquet");
    let report = ok(&throng(&["report", s(&out), "--series", s(&series)]));
    assert!(report.contains("series.parquet (164 rows)"), "{report}");
    assert!(out.join("runs.parquet").is_file());
    let (names, series_rows) = parquet_rows(&series);
    assert_eq!(
        &names[..6],
        ["run_id", "point", "scenario", "seed", "set.groups.walkers.max_speed", "set.ticks"]
    );
    assert_eq!(names[6..], csv_rows(&dir.join(format!("{}-m.csv", rows[0]["id"].as_str().unwrap()))).0[..]);
    assert_eq!(series_rows.len(), 4 * 41);
    for (k, row) in rows.iter().enumerate() {
        let id = row["id"].as_str().unwrap();
        let part = &series_rows[k * 41..(k + 1) * 41];
        let seed = row["seed"].as_u64().unwrap();
        assert!(part.iter().all(|r| r[0] == id && r[3].parse::<u64>() == Ok(seed)), "plan order");
        let speed = row["overrides"]["groups.walkers.max_speed"].as_f64().unwrap();
        assert!(part.iter().all(|r| r[4].parse::<f64>().unwrap() == speed));
        let metrics = csv_rows(&dir.join(format!("{id}-m.csv"))).1;
        let tail: Vec<Vec<String>> = part.iter().map(|r| r[6..].to_vec()).collect();
        assert_eq!(tail, metrics, "{id}: its metrics");
    }

    // The docs' pandas example: the mean speed over the seeds per swept value and tick.
    if !python_with(
        &["pandas", "pyarrow"],
        "THRONG_REQUIRE_PYARROW",
        "the pandas part of a batch's outputs test",
    ) {
        return;
    }
    let script =
        std::fs::read_to_string(root().join("docs/examples/series_pandas.py")).expect("the docs' example");
    let out = Command::new(python())
        .arg("-c")
        .arg(&script)
        .arg(&series)
        .arg("groups.walkers.max_speed")
        .output()
        .expect("python runs");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("ticks: 41\n") && stdout.contains("values: [1.2, 1.6]\n"), "{stdout}");
    let speed = names.iter().position(|n| n == "mean_speed").expect("mean_speed");
    let last = |k: usize| series_rows[k * 41 + 40][speed].parse::<f64>().unwrap();
    // Plan order: the grid's speed outermost, then the seeds.
    let expected = format!("last: {:.6} {:.6}", (last(0) + last(1)) / 2.0, (last(2) + last(3)) / 2.0);
    assert!(stdout.contains(&expected), "{expected} in {stdout}");
}

#[test]
fn a_batch_that_starts_keeping_runs_again_only_what_lacks_the_files() {
    let dir = scratch_dir("batch_keep_later");
    write(&dir, "room.toml", ROOM);
    let plain = BATCH.replace("keep = [\"metrics\", \"trace\"]\ntrace_every = 4\n", "");
    let batch = write(&dir, "batch.toml", &plain);
    let out = dir.join("out");
    ok(&throng(&["batch", s(&batch), "--out", s(&out), "--quiet"]));
    let before = result_rows(&out);
    // No kept metrics: --series says so, naming the run and the way out; nothing is written.
    let series = dir.join("series.parquet");
    let e = throng(&["report", s(&out), "--series", s(&series), "--quiet"]);
    assert_error(&e, &["kept no metrics", "metrics.parquet", "keep = [\"metrics\"]"]);
    assert!(!series.exists());
    // The same runs (keep is not part of a run's id), now keeping metrics: all four run again.
    write(
        &dir,
        "batch.toml",
        BATCH.replace("\"metrics\", \"trace\"", "\"metrics\"").replace("trace_every = 4\n", ""),
    );
    let said = ok(&throng(&["batch", s(&batch), "--out", s(&out)]));
    assert!(said.contains("4 runs, 0 already done, 4 run now"), "{said}");
    let after = result_rows(&out);
    for (a, b) in before.iter().zip(&after) {
        assert_eq!((&a["id"], &a["final_hash"]), (&b["id"], &b["final_hash"]), "the same runs");
    }
    ok(&throng(&["report", s(&out), "--series", s(&series), "--quiet"]));
    assert_eq!(parquet_rows(&series).1.len(), 4 * 41);
    // Run again: nothing to do.
    let said = ok(&throng(&["batch", s(&batch), "--out", s(&out)]));
    assert!(said.contains("4 already done, 0 run now"), "{said}");
}

#[test]
fn bad_keep_entries_are_refused_at_their_place() {
    let dir = scratch_dir("batch_keep_errors");
    write(&dir, "room.toml", ROOM);
    let cases: [(&str, &[&str]); 4] = [
        (
            "keep = [\"metric\"]",
            &[
                "batch.toml:4:9",
                "keep",
                "expected \"metrics\" or \"trace\", found \"metric\"",
                "did you mean \"metrics\"",
            ],
        ),
        ("keep = \"trace\"", &["batch.toml:4:8", "keep", "expected a list", "found string"]),
        (
            "keep = [\"metrics\"]\ntrace_every = 5",
            &["batch.toml:5:1", "trace_every", "add \"trace\" to `keep`"],
        ),
        (
            "keep = [\"trace\"]\ntrace_every = 0",
            &["batch.toml:5:15", "trace_every", "whole number of ticks", "found 0"],
        ),
    ];
    for (keep, has) in cases {
        let text = BATCH.replace("keep = [\"metrics\", \"trace\"]\ntrace_every = 4", keep);
        let batch = write(&dir, "batch.toml", &text);
        assert_error(&throng(&["batch", s(&batch), "--out", s(&dir.join("out"))]), has);
        assert!(!dir.join("out").exists(), "nothing written");
    }
}
