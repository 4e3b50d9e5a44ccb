//! `--trace run.parquet` and `--metrics run.parquet` read back with the parquet crate's own
//! reader (the same values as the CSV files, the run's key-value metadata); a run killed
//! outright leaves a file that `throng recover` makes readable with every whole row group, and
//! `--resume` continues to the uninterrupted run's rows; pyarrow and polars load both files
//! (when Python has them).

use std::fs::File;
use std::path::Path;
use std::process::Command;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::trace_formats::{ROOM, kill_once_written};
use super::{text, write};
use crate::common::{python, python_with, root, scratch_dir, throng};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

fn ok(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
}

/// A Parquet file as its column names and rows, each value as text the way the CSV writes it
/// (floats as the shortest decimal of their own width).
pub(super) fn parquet_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let reader = SerializedFileReader::new(File::open(path).expect("opens")).expect("a Parquet file");
    let names = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let rows = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|row| {
            row.expect("row")
                .get_column_iter()
                .map(|(_, field)| match field {
                    Field::Long(x) => x.to_string(),
                    Field::Float(x) => x.to_string(),
                    Field::Double(x) => x.to_string(),
                    Field::Str(x) => x.clone(),
                    Field::Null => String::new(),
                    other => panic!("an unexpected value {other:?}"),
                })
                .collect()
        })
        .collect();
    (names, rows)
}

/// A CSV file as its header and rows; `time_s` as the f64 the Parquet file holds.
pub(super) fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).expect("opens");
    let header: Vec<String> = r.headers().expect("header").iter().map(str::to_owned).collect();
    let time = header.iter().position(|h| h == "time_s");
    let rows = r
        .records()
        .map(|rec| {
            let mut row: Vec<String> = rec.expect("row").iter().map(str::to_owned).collect();
            if let Some(t) = time {
                row[t] = row[t].parse::<f64>().expect("a time").to_string();
            }
            row
        })
        .collect();
    (header, rows)
}

fn key_value(path: &Path, key: &str) -> Option<String> {
    let reader = SerializedFileReader::new(File::open(path).expect("opens")).expect("a Parquet file");
    let kv = reader.metadata().file_metadata().key_value_metadata()?.clone();
    kv.into_iter().find(|e| e.key == key).and_then(|e| e.value)
}

#[test]
fn parquet_trace_and_metrics_hold_the_csv_values_and_the_runs_metadata() {
    let dir = scratch_dir("parquet_round_trip");
    let scenario = write(&dir, "room.toml", ROOM);
    let run = |trace: &str, metrics: &str| {
        let (t, m) = (dir.join(trace), dir.join(metrics));
        ok(&throng(&[
            "run",
            s(&scenario),
            "--trace",
            s(&t),
            "--trace-every",
            "2",
            "--metrics",
            s(&m),
            "--set",
            "groups.walkers.max_speed=1.4",
            "--quiet",
        ]));
    };
    run("t.csv", "m.csv");
    run("t.parquet", "m.parquet");
    for (csv, pq) in [("t.csv", "t.parquet"), ("m.csv", "m.parquet")] {
        let (header, expected) = csv_rows(&dir.join(csv));
        let (names, rows) = parquet_rows(&dir.join(pq));
        assert_eq!(names, header, "{pq}: the CSV's columns");
        assert_eq!(rows.len(), expected.len(), "{pq}: the CSV's rows");
        assert_eq!(rows, expected, "{pq}: the CSV's values");
        assert!(!dir.join(format!("{pq}-footer")).exists(), "a closed file keeps no footer beside it");
    }
    // 30 walkers at ticks 0, 2, ..., 60; the events column names the door's opening.
    assert_eq!(csv_rows(&dir.join("t.csv")).1.len(), 31 * 30);
    let (names, rows) = parquet_rows(&dir.join("m.parquet"));
    let events = names.iter().position(|n| n == "events").expect("an events column");
    assert_eq!(rows.iter().filter(|r| !r[events].is_empty()).count(), 1, "the door opens once");

    let t = dir.join("t.parquet");
    assert_eq!(key_value(&t, "throng.format").as_deref(), Some("throng trace"));
    assert_eq!(key_value(&t, "throng.scenario").as_deref(), Some("room"));
    assert_eq!(key_value(&t, "throng.seed").as_deref(), Some("4"));
    assert_eq!(key_value(&t, "throng.dt").as_deref(), Some("0.1"));
    assert_eq!(key_value(&t, "throng.trace_every").as_deref(), Some("2"));
    assert_eq!(key_value(&t, "throng.overrides").as_deref(), Some("groups.walkers.max_speed = 1.4"));
    let blake3 = blake3::hash(ROOM.as_bytes()).to_hex().to_string();
    assert_eq!(key_value(&t, "throng.scenario_blake3"), Some(blake3));
    assert_eq!(key_value(&dir.join("m.parquet"), "throng.format").as_deref(), Some("throng metrics"));

    // The format by option, whatever the extension.
    let (t, m) = (dir.join("trace.out"), dir.join("metrics.out"));
    ok(&throng(&[
        "run",
        s(&scenario),
        "--trace",
        s(&t),
        "--trace-format",
        "parquet",
        "--trace-every",
        "2",
        "--metrics",
        s(&m),
        "--metrics-format",
        "parquet",
        "--set",
        "groups.walkers.max_speed=1.4",
        "--quiet",
    ]));
    assert_eq!(parquet_rows(&t), parquet_rows(&dir.join("t.parquet")));
    assert_eq!(parquet_rows(&m), parquet_rows(&dir.join("m.parquet")));
}

/// The ticks of a trace's rows, checked to be whole ticks of 30 walkers in order from 0.
fn whole_ticks(rows: &[Vec<String>], every: u64) -> usize {
    let mut ticks: Vec<(u64, usize)> = Vec::new();
    for r in rows {
        let tick: u64 = r[0].parse().expect("a tick");
        match ticks.last_mut() {
            Some((t, n)) if *t == tick => *n += 1,
            _ => ticks.push((tick, 1)),
        }
    }
    for (k, (tick, n)) in ticks.iter().enumerate() {
        assert_eq!((*tick, *n), (k as u64 * every, 30), "whole ticks, in order");
    }
    ticks.len()
}

#[test]
fn a_killed_parquet_trace_is_recovered_and_resumes_to_the_uninterrupted_rows() {
    let dir = scratch_dir("parquet_killed");
    let scenario = write(&dir, "room.toml", ROOM.replace("ticks = 60", "ticks = 3000"));
    let args = |name: &str| -> Vec<String> {
        [
            "run",
            s(&scenario),
            "--trace",
            s(&dir.join(format!("{name}.parquet"))),
            "--trace-every",
            "3",
            "--metrics",
            s(&dir.join(format!("{name}-metrics.parquet"))),
            "--checkpoint-every",
            "100",
            "--checkpoint-dir",
            s(&dir.join(format!("{name}-ck"))),
            "--quiet",
        ]
        .map(String::from)
        .to_vec()
    };
    ok(&throng(&args("straight").iter().map(String::as_str).collect::<Vec<_>>()));
    // Killed outright once its second checkpoint is written (the files flush before it).
    let kill = |name: &str| {
        kill_once_written(&args(name), &dir.join(format!("{name}-ck")).join("tick-0000000200.ckpt"));
    };

    // Recovered by hand: every whole row group reads back, whole ticks from 0 to at least the
    // checkpoint's (tick 198 is the last traced tick before 200).
    kill("killed");
    let path = dir.join("killed.parquet");
    if SerializedFileReader::new(File::open(&path).expect("opens")).is_ok() {
        // The run may have been killed between two ticks' flushes; nothing to recover then.
        eprintln!("note: the killed run's trace was whole");
    }
    let out = throng(&["recover", s(&path), s(&dir.join("killed-metrics.parquet"))]);
    ok(&out);
    assert!(text(&out.stdout).contains("recovered") || text(&out.stdout).contains("already whole"));
    let (_, rows) = parquet_rows(&path);
    assert!(whole_ticks(&rows, 3) >= 67, "ticks 0 to 198 at least");
    let (_, metrics) = parquet_rows(&dir.join("killed-metrics.parquet"));
    assert!(metrics.len() >= 201, "metrics of ticks 0 to 200 at least: {}", metrics.len());
    for (k, r) in metrics.iter().enumerate() {
        assert_eq!(r[0], k.to_string(), "a row per tick, in order");
    }
    assert!(!dir.join("killed.parquet-footer").exists(), "the footer beside it is used up");
    // Recovering a whole file changes nothing.
    let before = std::fs::read(&path).expect("reads");
    ok(&throng(&["recover", s(&path)]));
    assert_eq!(std::fs::read(&path).expect("reads"), before);

    // Resumed, after recovering and without: the same rows as the uninterrupted run.
    ok(&throng(&["run", "--resume", s(&dir.join("killed-ck")), "--quiet"]));
    kill("again");
    ok(&throng(&["run", "--resume", s(&dir.join("again-ck")), "--quiet"]));
    let straight = parquet_rows(&dir.join("straight.parquet"));
    assert_eq!(straight.1.len(), 1001 * 30, "ticks 0, 3, ..., 3000");
    let straight_metrics = parquet_rows(&dir.join("straight-metrics.parquet"));
    assert_eq!(straight_metrics.1.len(), 3001);
    for name in ["killed", "again"] {
        assert_eq!(parquet_rows(&dir.join(format!("{name}.parquet"))), straight, "{name}");
        assert_eq!(parquet_rows(&dir.join(format!("{name}-metrics.parquet"))), straight_metrics, "{name}");
        assert!(!dir.join(format!("{name}.parquet-footer")).exists());
    }
}

#[test]
fn recover_refuses_what_it_cannot_recover() {
    let dir = scratch_dir("parquet_recover_errors");
    let junk = write(&dir, "junk.parquet", "not parquet at all");
    let out = throng(&["recover", s(&junk)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("junk.parquet") && err.contains("junk.parquet-footer"), "{err}");
    let out = throng(&["recover", s(&dir.join("missing.parquet"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.parquet"), "{}", text(&out.stderr));
}

#[test]
fn pyarrow_and_polars_load_the_parquet_trace_and_metrics() {
    if !python_with(
        &["pyarrow", "polars", "pandas"],
        "THRONG_REQUIRE_PYARROW",
        "pyarrow_and_polars_load_the_parquet_trace_and_metrics",
    ) {
        return;
    }
    let dir = scratch_dir("parquet_python");
    let scenario = write(&dir, "room.toml", ROOM);
    let (trace, metrics) = (dir.join("room.parquet"), dir.join("room-metrics.parquet"));
    ok(&throng(&[
        "run",
        s(&scenario),
        "--trace",
        s(&trace),
        "--trace-every",
        "2",
        "--metrics",
        s(&metrics),
        "--quiet",
    ]));
    let script =
        std::fs::read_to_string(root().join("docs/examples/parquet_load.py")).expect("the docs' example");
    let out = Command::new(python())
        .arg("-c")
        .arg(&script)
        .arg(&trace)
        .arg(&metrics)
        .output()
        .expect("python runs");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let value = |key: &str| -> String {
        let line = stdout.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key} in {stdout}"));
        line[key.len()..].trim().to_string()
    };
    assert_eq!(value("pandas rows:"), "930", "31 traced ticks of 30 walkers");
    assert_eq!(value("polars rows:"), "930");
    assert_eq!(value("groups:"), "['walkers']");
    assert_eq!(value("scenario:"), "room");
    assert_eq!(value("dt:"), "0.1");
    assert_eq!(value("metrics rows:"), "61");
    // One value of every column, against the CSV trace's first walker at tick 60.
    let csv = dir.join("room.csv");
    ok(&throng(&["run", s(&scenario), "--trace", s(&csv), "--trace-every", "2", "--quiet"]));
    let (header, rows) = csv_rows(&csv);
    let first = rows.iter().find(|r| r[0] == "60").expect("tick 60");
    let shown = value("first walker at tick 60:");
    let columns: Vec<(&str, &str)> = shown.split(' ').filter_map(|kv| kv.split_once('=')).collect();
    assert_eq!(columns.iter().map(|(k, _)| *k).collect::<Vec<_>>(), header, "every column");
    for ((name, got), want) in columns.iter().zip(first) {
        let got = got.trim_matches('\'');
        match (got.parse::<f64>(), want.parse::<f64>()) {
            // Python shows a float column's value as the f64 of the f32 the file holds.
            (Ok(g), Ok(w)) => assert!(g == w || g as f32 == w as f32, "{name}: {g} vs {w}"),
            _ => assert_eq!(got, want, "{name}"),
        }
    }
    assert!(value("mean speed at the last tick:").parse::<f64>().is_ok());

    // PedPy, from the Parquet trace as the docs make its trajectory.
    if !python_with(
        &["pedpy"],
        "THRONG_REQUIRE_PEDPY",
        "the PedPy part of pyarrow_and_polars_load_the_parquet_trace_and_metrics",
    ) {
        return;
    }
    let printed = super::trace_formats::run_example("docs/examples/parquet_pedpy.py", &trace);
    let value = |key: &str| printed.value(key);
    assert_eq!(value("frame rate:"), 5.0, "1 / (0.1 s x 2)");
    assert_eq!(value("frames:"), 31.0, "ticks 0, 2, ..., 60");
    assert!(value("max density:") >= 0.0);
}

#[test]
fn render_draws_a_parquet_trace_as_it_draws_the_csv_one() {
    let dir = scratch_dir("parquet_render");
    let scenario = write(&dir, "room.toml", ROOM);
    for trace in ["t.csv", "t.parquet"] {
        ok(&throng(&["run", s(&scenario), "--trace", s(&dir.join(trace)), "--trace-every", "5", "--quiet"]));
    }
    for (trace, picture) in [("t.csv", "csv.png"), ("t.parquet", "parquet.png")] {
        let out = throng(&[
            "render",
            s(&dir.join(trace)),
            "--scenario",
            s(&scenario),
            "--out",
            s(&dir.join(picture)),
            "--tick",
            "60",
        ]);
        ok(&out);
    }
    let (a, b) =
        (std::fs::read(dir.join("csv.png")).unwrap(), std::fs::read(dir.join("parquet.png")).unwrap());
    assert!(a == b, "the same picture, byte for byte");
    // A metrics file is not a trace; an unfinished one says how to recover it.
    ok(&throng(&["run", s(&scenario), "--metrics", s(&dir.join("m.parquet")), "--quiet"]));
    let e = throng(&["render", s(&dir.join("m.parquet")), "--out", s(&dir.join("x.png"))]);
    assert_eq!(e.status.code(), Some(2));
    assert!(
        text(&e.stderr).contains("not a trace: expected the columns tick, time_s"),
        "{}",
        text(&e.stderr)
    );
    let bytes = std::fs::read(dir.join("t.parquet")).unwrap();
    std::fs::write(dir.join("cut.parquet"), &bytes[..bytes.len() / 2]).unwrap();
    let e = throng(&["render", s(&dir.join("cut.parquet")), "--out", s(&dir.join("x.png"))]);
    assert_eq!(e.status.code(), Some(2));
    assert!(text(&e.stderr).contains("throng recover"), "{}", text(&e.stderr));
    assert!(!dir.join("x.png").exists());
}

#[test]
fn plot_draws_parquet_metrics_as_it_draws_the_csv_ones() {
    let dir = scratch_dir("parquet_plot");
    let scenario = write(&dir, "room.toml", ROOM);
    for (sub, file) in [("csv", "room.csv"), ("parquet", "room.parquet")] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        let metrics = dir.join(sub).join(file);
        ok(&throng(&["run", s(&scenario), "--metrics", s(&metrics), "--quiet"]));
        ok(&throng(&["plot", s(&metrics), "--out", s(&dir.join(sub).join("plot.svg"))]));
    }
    let (a, b) = (
        std::fs::read(dir.join("csv/plot.svg")).unwrap(),
        std::fs::read(dir.join("parquet/plot.svg")).unwrap(),
    );
    assert!(!a.is_empty() && a == b, "the same plot, byte for byte");
}
