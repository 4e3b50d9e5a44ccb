//! `throng bench`: every size, index and thread count reported as JSON and CSV, `--set`, rows
//! written as they are measured, and bad options.

use std::path::Path;

use super::{run_json, text};
use crate::common::{root, scratch_dir, throng};

/// A number out of a JSON object, or a failure naming the key.
fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is a number: {v}"))
}

#[test]
fn bench_reports_every_size_and_thread_count_as_json_and_csv() {
    let dir = scratch_dir("cli_bench");
    let csv = dir.join("bench.csv");
    let csv_arg = csv.to_str().expect("utf-8 path");
    let v = run_json(&[
        "bench",
        "scenarios/bench/crowd.toml",
        "--agents",
        "1600,400",
        "--threads",
        "1,2",
        "--ticks",
        "3",
        "--repeats",
        "3",
        "--warmup",
        "2",
        "--index",
        "kd,grid",
        "--json",
        "--csv",
        csv_arg,
    ]);
    assert_eq!(v["scenario"], "crowd");
    assert_eq!(v["index"], "kd,grid");
    assert_eq!(v["floor_runs"], 3, "three floors after each repeat");
    let results = v["results"].as_array().expect("results is a list");
    // Sizes ascending; at each, every index in the order given, at every thread count.
    let expected: Vec<(u64, &str, u64)> = [400, 1600]
        .into_iter()
        .flat_map(|a| ["kd", "grid"].into_iter().flat_map(move |i| [1, 2].map(|t| (a, i, t))))
        .collect();
    assert_eq!(results.len(), expected.len(), "{v}");
    for (r, &(agents, index, threads)) in results.iter().zip(&expected) {
        assert_eq!(r["agents"], agents, "{r}");
        assert_eq!(r["index"], index, "{r}");
        assert_eq!(r["threads"], threads, "{r}");
        // Density kept as the crowd scales: about 10 neighbours within the sensing radius.
        assert!((9.0..11.0).contains(&num(r, "neighbours")), "{r}");
        let (ms, lo, hi) = (num(r, "ms_per_tick"), num(r, "ms_per_tick_min"), num(r, "ms_per_tick_max"));
        assert!(0.0 < lo && lo <= ms && ms <= hi, "min <= median <= max: {r}");
        let floor = num(r, "floor_ms");
        assert!(floor > 0.0, "{r}");
        assert!((num(r, "ratio_to_floor") - ms / floor).abs() <= 1e-9 * ms / floor, "{r}");
        assert!(num(r, "ideal_pass_ms") > 0.0, "{r}");
        assert!((num(r, "ticks_per_s") - 1e3 / ms).abs() <= 1e-6 * 1e3 / ms, "{r}");
        assert!(
            (num(r, "agent_ticks_per_s") - agents as f64 * 1e3 / ms).abs() <= 1e-3 * agents as f64 / ms,
            "{r}"
        );
        assert!(num(r, "peak_rss_mb") > 0.0, "{r}");
        let passes = r["passes"].as_object().expect("passes is an object");
        for pass in throng_engine::Pass::ALL.iter().map(|p| p.name()) {
            assert!(passes.get(pass).and_then(|ms| ms.as_f64()).is_some_and(|ms| ms >= 0.0), "{pass}: {r}");
        }
        // The crowd reuses sensing candidates (`sensing_skin = 1.0`), so some ticks sense.
        assert_eq!(num(r, "sensing_skin"), 1.0, "{r}");
        assert!((0.0..=1.0).contains(&num(r, "sensed_fraction")), "{r}");
    }
    // The same results as CSV: a header, then one row per (agents, threads).
    let text = std::fs::read_to_string(&csv).expect("the CSV was written");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    for key in [
        "agents",
        "index",
        "threads",
        "ms_per_tick",
        "floor_ms",
        "ratio_to_floor",
        "ideal_pass_ms",
        "sensed_fraction",
        "peak_rss_mb",
    ] {
        assert!(header.contains(&key), "{key} in {header:?}");
    }
    assert!(header.contains(&"pass_sense_neighbours_ms"), "{header:?}");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), expected.len(), "{text}");
    let col = |key: &str| header.iter().position(|h| *h == key).expect("column");
    for (row, &(agents, index, threads)) in rows.iter().zip(&expected) {
        assert_eq!(row.len(), header.len(), "{text}");
        assert_eq!(row[col("agents")], agents.to_string(), "{text}");
        assert_eq!(row[col("index")], index, "{text}");
        assert_eq!(row[col("threads")], threads.to_string(), "{text}");
        assert!(row[col("ms_per_tick")].parse::<f64>().is_ok_and(|ms| ms > 0.0), "{text}");
    }
}

/// `--set` overrides the scenario before it is scaled, and the report says so: without a
/// sensing skin every timed tick senses with the index.
#[test]
fn bench_set_overrides_the_scenario_and_is_reported() {
    let dir = scratch_dir("cli_bench_set");
    let csv = dir.join("bench.csv");
    let v = run_json(&[
        "bench",
        "scenarios/bench/crowd.toml",
        "--agents",
        "600",
        "--threads",
        "1",
        "--ticks",
        "4",
        "--repeats",
        "1",
        "--warmup",
        "1",
        "--set",
        "sensing_skin=0",
        "--set",
        "groups.crowd.max_neighbours=4",
        "--json",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(v["overrides"], serde_json::json!(["groups.crowd.max_neighbours = 4", "sensing_skin = 0"]));
    let r = &v["results"][0];
    assert_eq!((num(r, "sensing_skin"), num(r, "sensed_fraction")), (0.0, 1.0), "{r}");
    assert_eq!(r["agents"], 600);
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let row = reader.records().next().expect("a row").expect("a record");
    let col = |key: &str| header.iter().position(|h| h == key).expect("column");
    assert_eq!(&row[col("overrides")], "groups.crowd.max_neighbours = 4; sensing_skin = 0");
    assert_eq!(&row[col("sensed_fraction")], "1.000");
}

/// `--models` measures every model on the same scene in one run: each result names its model,
/// with the model's own neighbour reach, and the CSV has a `model` column.
#[test]
fn bench_models_measures_each_model_in_one_run() {
    let dir = scratch_dir("cli_bench_models");
    let csv = dir.join("bench.csv");
    let v = run_json(&[
        "bench",
        "scenarios/models/bottleneck.toml",
        "--threads",
        "1",
        "--ticks",
        "3",
        "--repeats",
        "1",
        "--warmup",
        "1",
        "--models",
        "steering,orca,cfsm,social_force",
        "--json",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    let results = v["results"].as_array().expect("results");
    let models: Vec<&str> = results.iter().map(|r| r["model"].as_str().expect("a model")).collect();
    assert_eq!(models, ["steering", "orca", "cfsm", "social_force"]);
    // The bottleneck's walkers sense nobody under steering; ORCA reads 15 around, the others 3.
    assert_eq!(num(&results[0], "neighbours"), 0.0);
    assert!(num(&results[1], "neighbours") > num(&results[2], "neighbours"), "{v}");
    assert!(results[1]["passes"]["models"].as_f64().is_some_and(|ms| ms > 0.0), "{v}");
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let col = reader.headers().expect("header").iter().position(|h| h == "model").expect("a model column");
    let rows: Vec<String> = reader.records().map(|r| r.expect("a record")[col].to_string()).collect();
    assert_eq!(rows, models);
}

/// `--csv` gets each row as soon as it is measured: a sweep stopped after its first size keeps
/// that size's row, whole, under the header.
#[test]
fn bench_csv_keeps_the_rows_of_a_stopped_sweep() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = scratch_dir("cli_bench_stopped");
    let csv = dir.join("bench.csv");
    // The first size takes a fraction of a second; the second, 25 times as many agents over
    // a thousand ticks, far longer than the test waits.
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["bench", "scenarios/bench/crowd.toml", "--agents", "200,5000", "--threads", "1"])
        .args(["--ticks", "500", "--repeats", "2", "--warmup", "0", "--quiet", "--csv"])
        .arg(&csv)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("throng starts");
    let started = Instant::now();
    let lines = |path: &Path| std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0);
    while lines(&csv) < 2 {
        assert!(child.try_wait().expect("wait").is_none(), "the sweep ended before its second size");
        assert!(started.elapsed() < Duration::from_secs(300), "no row after 300 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    let still_running = child.try_wait().expect("wait").is_none();
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    assert!(still_running, "the second size was still running when the first row appeared");
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "the header and the first size only: {text}");
    assert!(text.ends_with('\n'), "the row is whole: {text:?}");
    let header = &rows[0];
    assert_eq!(rows[1].len(), header.len(), "{text}");
    let col = |key: &str| header.iter().position(|h| *h == key).expect("column");
    assert_eq!(rows[1][col("agents")], "200", "{text}");
    assert!(rows[1][col("ms_per_tick")].parse::<f64>().is_ok_and(|ms| ms > 0.0), "{text}");
}

#[test]
fn bench_rejects_bad_options_with_exit_2() {
    let cases: [(&[&str], &str); 11] = [
        (&["--index", "kd,nope"], "invalid value 'nope' for '--index"),
        (&["--models", "orca,orka"], "--models: unknown model `orka` (expected some of: steering, orca"),
        (&["--set", "agents=500"], "--set agents=...: throng bench scales the scenario with --agents"),
        (&["--set", "groups.crowd.max_neighbour=5"], "--set: `groups.crowd.max_neighbour`: unknown key"),
        (&["--agents", "0"], "cannot scale to 0 agents"),
        // Every size is scaled before any runs, so a bad last size fails at once.
        (&["--agents", "400,30000000"], "cannot scale to 30000000 agents"),
        (
            &["--agents", "400", "--csv", "target/no/such/dir/bench.csv"],
            "cannot write target/no/such/dir/bench.csv",
        ),
        (&["--threads", "0"], "--threads must be at least 1"),
        (&["--repeats", "0"], "--ticks and --repeats must be at least 1"),
        (&["--neighbours=-1"], "--neighbours must be positive"),
        (&["--agents", "ten"], "invalid value 'ten' for '--agents"),
    ];
    for (extra, message) in cases {
        let mut args =
            vec!["bench", "scenarios/bench/crowd.toml", "--ticks", "1", "--warmup", "0", "--quiet"];
        args.extend_from_slice(extra);
        let out = throng(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{extra:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{extra:?}: {}", text(&out.stdout));
    }
    let out = throng(&["bench", "scenarios/no_such.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("scenarios/no_such.toml"), "{}", text(&out.stderr));
}

#[test]
fn bench_times_a_scene_with_listed_points_at_its_own_count_and_refuses_to_grow_it() {
    // alarm.toml places its guards at listed points: its own count needs no scaling.
    let own = ["bench", "scenarios/alarm.toml", "--ticks", "2", "--warmup", "0", "--repeats", "1", "--json"];
    let out = throng(&own);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let results = report["results"].as_array().expect("results");
    assert!(!results.is_empty() && results.iter().all(|r| r["agents"] == 5), "{report}");
    let out = throng(&[&own[..], &["--agents", "5000"]].concat());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("group \"guards\" spawns at listed points, which cannot be scaled"),
        "{}",
        text(&out.stderr)
    );
}
