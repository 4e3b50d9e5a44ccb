//! Batches with the real binary: results do not depend on --jobs or --threads-per-job; a batch
//! killed with SIGKILL at any moment and re-run does every run exactly once and ends with the
//! rows of an uninterrupted batch and no torn file; shards partition the runs and `report`
//! merges them into the same aggregates; `--set` on `run` is the same override as in a batch;
//! bad input is one clear error, exit 2, nothing overwritten.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{root, scratch_dir, throng};
use crate::fixtures::{assert_error, s, small, text, write};

/// 16 runs: a 2 × 2 grid over 3 seeds, and two explicit points over 2 seeds.
const BATCH: &str = r#"version = 1
name = "test sweep"
ticks = 8

[[sweep]]
scenario = "small.toml"
seeds = [1, 2, 3]
grid = { "groups.walkers.max_speed" = [1.5, 2.5], groups.walkers.behaviours.separation.weight = [1.0, 2.0] }

[[sweep]]
scenario = "small.toml"
seeds = { from = 10, count = 2 }
points = [{ dt = 0.05 }, { "groups.walkers.count" = 20 }]
"#;

fn setup(name: &str, agents: u32, batch: &str) -> (PathBuf, PathBuf) {
    let dir = scratch_dir(name);
    write(&dir, "small.toml", small(5, agents));
    let b = write(&dir, "batch.toml", batch);
    (dir, b)
}

fn run_batch(args: &[&str]) -> String {
    let mut all = vec!["batch"];
    all.extend_from_slice(args);
    let out = throng(&all);
    assert_eq!(out.status.code(), Some(0), "{all:?}: {}{}", text(&out.stderr), text(&out.stdout));
    text(&out.stdout)
}

/// results.jsonl as rows, without the wall-clock fields.
fn rows(out: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    text.lines()
        .map(|l| {
            let mut v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("torn row `{l}`: {e}"));
            let m = v.as_object_mut().expect("an object");
            m.remove("wall_s");
            m.remove("ms_per_tick");
            v
        })
        .collect()
}

/// results.csv as records, with the wall-clock columns blanked; checks every row is whole.
fn csv_rows(out: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(out.join("results.csv")).expect("results.csv");
    let header: Vec<String> = r.headers().expect("header").iter().map(str::to_owned).collect();
    let wall: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| *h == "wall_s" || *h == "ms_per_tick")
        .map(|(i, _)| i)
        .collect();
    let mut out = vec![header.clone()];
    for rec in r.records() {
        let rec = rec.expect("a whole CSV row");
        assert_eq!(rec.len(), header.len(), "a torn CSV row: {rec:?}");
        out.push(
            rec.iter()
                .enumerate()
                .map(|(i, f)| if wall.contains(&i) { String::new() } else { f.to_owned() })
                .collect(),
        );
    }
    out
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    files(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".tmp")))
        .collect()
}

#[test]
fn results_do_not_depend_on_jobs_or_threads() {
    let (dir, b) = setup("batch_jobs", 30, BATCH);
    let (one, two) = (dir.join("one"), dir.join("two"));
    let stdout = run_batch(&[s(&b), "--jobs", "1", "--threads-per-job", "1", "--out", s(&one)]);
    assert!(stdout.contains("16 runs, 0 already done, 16 run now"), "{stdout}");
    run_batch(&[s(&b), "--jobs", "2", "--threads-per-job", "2", "--out", s(&two), "--quiet"]);
    let (a, c) = (rows(&one), rows(&two));
    assert_eq!(a.len(), 16);
    assert_eq!(a, c, "rows differ between --jobs 1 and --jobs 2");
    assert_eq!(csv_rows(&one), csv_rows(&two));
    // Rows are in plan order, each run has its own directory and a distinct id.
    let ids: Vec<&str> = a.iter().map(|r| r["id"].as_str().expect("id")).collect();
    for (i, r) in a.iter().enumerate() {
        assert_eq!(r["index"], i);
        assert_eq!(r["status"], "ok");
        assert!(one.join("runs").join(ids[i]).join("result.json").is_file());
    }
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), 16);
    // The grid: the first key outermost, seeds innermost.
    assert_eq!(a[0]["overrides"]["groups.walkers.max_speed"], 1.5);
    assert_eq!(a[3]["overrides"]["groups.walkers.behaviours.separation.weight"], 2.0);
    assert_eq!(a[6]["overrides"]["groups.walkers.max_speed"], 2.5);
    assert_eq!((a[12]["seed"].as_u64(), a[12]["overrides"]["dt"].as_f64()), (Some(10), Some(0.05)));
    // Re-running the finished batch does nothing.
    let stdout = run_batch(&[s(&b), "--out", s(&one)]);
    assert!(stdout.contains("16 already done, 0 run now"), "{stdout}");
}

#[test]
fn set_on_run_is_the_batch_override() {
    let (dir, b) = setup("batch_set", 30, BATCH);
    let out = dir.join("out");
    run_batch(&[s(&b), "--out", s(&out), "--quiet"]);
    let rows = rows(&out);
    let row = rows
        .iter()
        .find(|r| {
            r["seed"] == 2
                && r["overrides"]["groups.walkers.max_speed"] == 2.5
                && r["overrides"]["groups.walkers.behaviours.separation.weight"] == 2.0
        })
        .expect("the row");
    let run = throng(&[
        "run",
        s(&dir.join("small.toml")),
        "--ticks",
        "8",
        "--seed",
        "2",
        "--set",
        "groups.walkers.max_speed=2.5",
        "--set",
        "groups.walkers.behaviours.separation.weight=2.0",
        "--json",
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(v["hash"], row["final_hash"]);
}

/// `agents` in a grid scales each run's scenario, as `throng run --agents N` does.
#[test]
fn agents_in_a_grid_scale_runs_as_run_agents_does() {
    let batch = "version = 1\nticks = 8\n[[sweep]]\nscenario = \"small.toml\"\nseeds = [3]\ngrid = { agents = [12, 45] }\n";
    let (dir, b) = setup("batch_agents", 30, batch);
    let out = dir.join("out");
    run_batch(&[s(&b), "--out", s(&out), "--quiet"]);
    let rows = rows(&out);
    assert_eq!(rows.len(), 2);
    for (row, n) in rows.iter().zip([12, 45]) {
        assert_eq!(row["agents"], n, "{row}");
        assert_eq!(row["overrides"]["agents"], n, "{row}");
        let run = throng(&[
            "run",
            s(&dir.join("small.toml")),
            "--agents",
            &n.to_string(),
            "--ticks",
            "8",
            "--seed",
            "3",
            "--json",
        ]);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
        assert_eq!(v["hash"], row["final_hash"], "{n} agents");
    }
}

/// Kills the batch with SIGKILL at several moments (each once its attempt has finished a run,
/// so it progresses at any speed), re-running it in between; checks no file
/// is torn after any kill and finished runs are never redone; then compares with an
/// uninterrupted batch.
#[test]
fn a_killed_batch_resumes_to_the_rows_of_an_uninterrupted_one() {
    let (dir, b) = setup("batch_kill", 700, &BATCH.replace("ticks = 8", "ticks = 25"));
    let (reference, out) = (dir.join("reference"), dir.join("killed"));
    run_batch(&[s(&b), "--jobs", "2", "--out", s(&reference), "--quiet"]);
    let want = rows(&reference);
    let results = |dir: &Path| files(dir).iter().filter(|p| p.ends_with("result.json")).count();

    let mut finished: BTreeMap<PathBuf, Vec<u8>> = BTreeMap::new();
    let mut kills = 0;
    for attempt in 0..40 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["batch", s(&b), "--jobs", "2", "--out", s(&out), "--quiet"])
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("throng starts");
        // Kill once this attempt has finished a run (so every attempt makes progress, whatever
        // the machine's speed or load), at a moment that varies: right after the run's result
        // appears, or a little later, mid-way through the next runs.
        let before = if out.exists() { results(&out) } else { 0 };
        let started = Instant::now();
        while child.try_wait().expect("wait").is_none()
            && !(out.exists() && results(&out) > before)
            && started.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(7 * (attempt % 4)));
        let done = child.try_wait().expect("wait").is_some();
        if !done {
            child.kill().expect("SIGKILL");
            kills += 1;
        }
        let status = child.wait().expect("wait");
        if done {
            assert!(status.success(), "the batch failed");
        }
        // Whatever the moment, every file that is not a temporary is whole. (results.csv and
        // results.jsonl are replaced one after the other: a kill between the two leaves one a
        // row behind; both are rebuilt from runs/ at the next start.)
        if out.join("results.csv").exists() {
            csv_rows(&out);
        }
        if out.join("results.jsonl").exists() {
            rows(&out);
        }
        for p in files(&out) {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            if name == "result.json" {
                let bytes = std::fs::read(&p).expect("read");
                serde_json::from_slice::<serde_json::Value>(&bytes).expect("a whole result.json");
                // A run finished before is never redone.
                if let Some(before) = finished.insert(p.clone(), bytes.clone()) {
                    assert!(before == bytes, "{} was rewritten: a finished run was redone", p.display());
                }
            }
        }
        if done {
            break;
        }
    }
    assert!(kills >= 3, "the batch was killed only {kills} times (runs too fast?)");
    // One more invocation finishes anything left, then nothing is left to do.
    run_batch(&[s(&b), "--jobs", "2", "--out", s(&out), "--quiet"]);
    let stdout = run_batch(&[s(&b), "--out", s(&out)]);
    assert!(stdout.contains("16 already done, 0 run now"), "{stdout}");
    assert_eq!(rows(&out), want, "rows differ from the uninterrupted batch");
    assert_eq!(csv_rows(&out), csv_rows(&reference));
    assert_eq!(finished.len(), 16);
    assert!(temporaries(&out).is_empty(), "temporary files left: {:?}", temporaries(&out));
}

#[test]
fn shards_partition_the_batch_and_report_merges_them() {
    let (dir, b) = setup("batch_shards", 30, BATCH);
    let whole = dir.join("whole");
    run_batch(&[s(&b), "--out", s(&whole), "--quiet"]);
    let mut shard_dirs = Vec::new();
    let mut merged = Vec::new();
    for i in 0..3 {
        let d = dir.join("shards").join(format!("shard-{i}"));
        run_batch(&[s(&b), "--shard", &format!("{i}/3"), "--out", s(&d), "--quiet"]);
        let r = rows(&d);
        assert!(r.iter().all(|row| row["index"].as_u64().expect("index") % 3 == i), "shard {i}");
        merged.extend(r);
        shard_dirs.push(d);
    }
    merged.sort_by_key(|r| r["index"].as_u64());
    assert_eq!(merged, rows(&whole), "the shards' rows are the whole batch's");

    // The default output directory of a shard.
    run_batch(&[s(&b), "--shard", "1/3", "--quiet"]);
    assert!(dir.join("batch.out").join("shard-1-of-3").join("results.csv").is_file());

    let out = throng(&["report", s(&shard_dirs[0]), s(&shard_dirs[1]), s(&shard_dirs[2])]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("16 of 16 runs, 6 points, from 3 directories"), "{table}");
    assert!(table.contains("point 1/6  small  groups.walkers.behaviours.separation.weight=1.0, groups.walkers.max_speed=1.5, ticks=8  (3 seeds)"), "{table}");
    let out = throng(&["report", s(&whole), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Merged shards and the whole batch aggregate to the same numbers (but wall time).
    let summary = |p: &Path| {
        let mut r = csv::Reader::from_path(p).expect("summary.csv");
        let header: Vec<String> = r.headers().expect("header").iter().map(str::to_owned).collect();
        let keep: Vec<usize> = (0..header.len())
            .filter(|&i| !header[i].starts_with("wall_s.") && !header[i].starts_with("ms_per_tick."))
            .collect();
        let mut rows = vec![keep.iter().map(|&i| header[i].clone()).collect::<Vec<_>>()];
        for rec in r.records() {
            let rec = rec.expect("row");
            rows.push(keep.iter().map(|&i| rec[i].to_owned()).collect());
        }
        rows
    };
    let merged_summary = summary(&dir.join("shards").join("summary.csv"));
    assert_eq!(merged_summary, summary(&whole.join("summary.csv")));
    assert_eq!(merged_summary.len(), 1 + 6);

    // The aggregates, by hand, for one metric of the first point (seeds 1, 2, 3).
    let col =
        |name: &str| merged_summary[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("{name}"));
    let values: Vec<f64> =
        rows(&whole)[..3].iter().map(|r| r["metrics"]["mean_speed"].as_f64().expect("metric")).collect();
    let mean = (values[0] + values[1] + values[2]) / 3.0;
    let sq = |x: f64| (x - mean) * (x - mean);
    let var = (sq(values[0]) + sq(values[1]) + sq(values[2])) / 2.0;
    let got =
        |stat: &str| merged_summary[1][col(&format!("mean_speed.{stat}"))].parse::<f64>().expect("a number");
    assert_eq!(got("mean"), mean);
    assert_eq!(got("std"), var.sqrt());
    assert_eq!(got("min"), values.iter().copied().fold(f64::INFINITY, f64::min));
    assert_eq!(got("max"), values.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    assert_eq!(merged_summary[1][col("seeds")], "3");
    assert_eq!(merged_summary[1][col("set.groups.walkers.max_speed")], "1.5");

    // A report of shards of another batch is refused.
    let (other_dir, other_b) = setup("batch_shards_other", 30, &BATCH.replace("ticks = 8", "ticks = 9"));
    let other = other_dir.join("out");
    run_batch(&[s(&other_b), "--shard", "0/2", "--out", s(&other), "--quiet"]);
    assert_error(
        &throng(&["report", s(&shard_dirs[0]), s(&other)]),
        &["holds batch", "merges the shards of one batch"],
    );

    // Two shards of three: the report refuses, names the shard not given, writes nothing;
    // --partial reports what is there.
    let partial = dir.join("partial");
    let out = throng(&["report", s(&shard_dirs[0]), s(&shard_dirs[2]), "--out", s(&partial)]);
    assert_error(
        &out,
        &["runs of batch", "are missing", "shards found: 0/3, 2/3; not given: 1/3", "nothing was written"],
    );
    assert!(!partial.exists(), "nothing written");
    let out = throng(&[
        "report",
        s(&shard_dirs[0]),
        s(&shard_dirs[2]),
        "--out",
        s(&partial),
        "--partial",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("runs are not in these directories (shards found: 0/3, 2/3; not given: 1/3)")
    );
    assert!(partial.join("summary.csv").is_file());
}

// ---------------------------------------------------------------------------------------------
// Bad input: one clear error each, exit code 2, nothing written or overwritten.

/// Writes `batch` and runs it; asserts the error and that no output directory appeared.
#[track_caller]
fn rejects(name: &str, batch: &str, has: &[&str]) {
    let (dir, b) = setup(name, 10, batch);
    let out = dir.join("out");
    let o = throng(&["batch", s(&b), "--out", s(&out)]);
    let mut has = has.to_vec();
    let prefix = format!("error: {}", b.display());
    has.push(&prefix);
    assert_error(&o, &has);
    assert!(!out.exists(), "{name}: an output directory was created");
}

#[test]
fn malformed_batch_files_are_located() {
    rejects("batch_syntax", "version = 1\n[[sweep]\n", &["batch.toml:2:9"]);
    rejects("batch_empty", "", &["batch.toml:1:1", "the file is empty"]);
    rejects(
        "batch_version",
        "version = 2\n[[sweep]]\nscenario = \"small.toml\"\n",
        &["batch.toml:1:11", "format version 1, found 2"],
    );
    rejects("batch_no_version", "[[sweep]]\nscenario = \"small.toml\"\n", &["missing key `version`"]);
    rejects(
        "batch_unknown_top",
        "version = 1\nsweeps = 1\n",
        &["batch.toml:2:1", "unknown key `sweeps`; did you mean `sweep`?"],
    );
    rejects("batch_no_sweep", "version = 1\n", &["expected at least one [[sweep]]"]);
    rejects(
        "batch_unknown_sweep_key",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nseed = [1]\n",
        &["batch.toml:4:1", "`sweep[0].seed`", "did you mean `seeds`?"],
    );
    rejects(
        "batch_missing_scenario_key",
        "version = 1\n[[sweep]]\nseeds = [1]\n",
        &["batch.toml:2:1", "missing key `scenario`"],
    );
    rejects(
        "batch_missing_scenario_file",
        "version = 1\n[[sweep]]\nscenario = \"nope.toml\"\n",
        &["batch.toml:3:12", "nope.toml: no such file"],
    );
    rejects(
        "batch_bad_seed",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nseeds = [1, -2]\n",
        &["batch.toml:4:13", "expected a seed (a whole number from 0 to 18446744073709551615), found -2"],
    );
    // A seed count past the cap is placed at `count`; a range past the largest seed is refused.
    rejects(
        "batch_many_seeds",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nseeds = { from = 1, count = 18446744073709551615 }\n",
        &["batch.toml:4:29", "`sweep[0].seeds.count`", "expected a count from 1 to 10000000"],
    );
    rejects(
        "batch_seeds_past_the_last",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nseeds = { from = 18446744073709551615, count = 2 }\n",
        &["batch.toml:4:9", "the seed range runs past the largest seed"],
    );
    // An override's whole number beyond what a value holds, in plain words.
    rejects(
        "batch_huge_value",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\npoints = [{ dt = 18446744073709551615 }]\n",
        &["batch.toml:4:18", "`dt`", "too large to read (at most 9223372036854775807)"],
    );
    // A table given twice is named.
    rejects(
        "batch_table_twice",
        "version = 1\n[set]\ndt = 0.1\n[set]\n[[sweep]]\nscenario = \"small.toml\"\n",
        &["batch.toml:4:2", "`set`", "the table `[set]` is given twice"],
    );
    rejects(
        "batch_twice",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nseeds = [1, 1]\n",
        &["batch.toml:4:9", "seed 1 is listed twice"],
    );
    rejects(
        "batch_grid_not_list",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\ngrid = { dt = 0.1 }\n",
        &["batch.toml:4:15", "a grid lists the values to sweep"],
    );
}

#[test]
fn bad_overrides_name_the_key_and_place() {
    // The error is placed at the first value swept: `1.0` is at column 39.
    rejects(
        "batch_unknown_override",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\ngrid = { \"groups.walkers.max_sped\" = [1.0, 2.0] }\n",
        &[
            "batch.toml:4:39",
            "`groups.walkers.max_sped`",
            "unknown key `max_sped`; did you mean `max_speed`?",
        ],
    );
    rejects(
        "batch_unknown_group",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\nset = { \"groups.walker.count\" = 5 }\n",
        &["batch.toml:4:33", "no element of `groups` is named `walker`; did you mean `walkers`?"],
    );
    rejects(
        "batch_wrong_type",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\n\n[sweep.set]\n\"groups.walkers.max_force\" = \"strong\"\n",
        &[
            "batch.toml:6:30",
            "`groups.walkers.max_force`",
            "expected a number, a uniform range { min = .., max = .. }, or a normal distribution { mean = .., sd = .., min = .., max = .. }, found the text \"strong\"",
        ],
    );
    rejects(
        "batch_out_of_range",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\npoints = [{ dt = 0.1 }, { dt = -1 }]\n",
        &["batch.toml:4:32", "`dt`", "expected a finite number from 0.0001 to 10"],
    );
    rejects(
        "batch_set_twice",
        "version = 1\nset = { dt = 0.1 }\n[[sweep]]\nscenario = \"small.toml\"\nset = { dt = 0.2 }\n",
        &["batch.toml:5:14", "`dt` is already set at"],
    );
    rejects(
        "batch_bad_agents",
        "version = 1\n[[sweep]]\nscenario = \"small.toml\"\ngrid = { agents = [10, 0] }\n",
        &["batch.toml:4:24", "`agents`", "expected a whole number of agents from 1 to 20000000", "found `0`"],
    );
    // On `throng run`: the same mechanism, placed at `--set`.
    let (dir, _) = setup("batch_run_set", 10, BATCH);
    let sc = dir.join("small.toml");
    assert_error(
        &throng(&["run", s(&sc), "--set", "groups.walkers.max_sped=2"]),
        &["--set: `groups.walkers.max_sped`: unknown key `max_sped`; did you mean `max_speed`?"],
    );
    assert_error(
        &throng(&["run", s(&sc), "--set", "dt=fast"]),
        &["--set: `dt`: expected a number, found the text \"fast\""],
    );
    assert_error(&throng(&["run", s(&sc), "--set", "dt=0.1.2"]), &["--set: `dt`: invalid value `0.1.2`"]);
    // Whole numbers beyond what a value holds, in the reader's two wordings, in plain words.
    for huge in ["18446744073709551615", "99999999999999999999"] {
        let set = format!("dt={huge}");
        assert_error(
            &throng(&["run", s(&sc), "--set", &set]),
            &["--set: `dt`: invalid value", "too large to read (at most 9223372036854775807)"],
        );
    }
    assert_error(&throng(&["run", s(&sc), "--set", "dt"]), &["expected KEY=VALUE"]);
}

#[test]
fn bad_options_and_foreign_directories_are_refused() {
    let (dir, b) = setup("batch_options", 10, BATCH);
    let out = dir.join("out");
    for (shard, has) in [
        ("3/3", "shard index 3 is out of range; with 3 shards it is 0 to 2"),
        ("1/0", "at least 1"),
        ("x", "expected i/n"),
    ] {
        assert_error(&throng(&["batch", s(&b), "--shard", shard, "--out", s(&out)]), &[has]);
    }
    assert_error(&throng(&["batch", s(&b), "--jobs", "0", "--out", s(&out)]), &["--jobs must be at least 1"]);
    assert_error(
        &throng(&["batch", s(&b), "--threads-per-job", "0", "--out", s(&out)]),
        &["--threads-per-job must be at least 1"],
    );
    assert!(!out.exists());

    // A directory holding another batch's results: refused, nothing overwritten.
    run_batch(&[s(&b), "--out", s(&out), "--quiet"]);
    let snapshot: Vec<(PathBuf, Vec<u8>)> = files(&out)
        .into_iter()
        .filter(|p| !p.ends_with(".lock"))
        .map(|p| (p.clone(), std::fs::read(&p).expect("read")))
        .collect();
    let other = write(&dir, "other.toml", BATCH.replace("seeds = [1, 2, 3]", "seeds = [1, 2]"));
    assert_error(
        &throng(&["batch", s(&other), "--out", s(&out)]),
        &["holds the results of another batch", "nothing was written"],
    );
    // Another shard of the same batch, too.
    assert_error(
        &throng(&["batch", s(&b), "--shard", "0/2", "--out", s(&out)]),
        &["holds shard 0/1 of this batch, not 0/2"],
    );
    for (p, bytes) in &snapshot {
        assert!(std::fs::read(p).expect("still there") == *bytes, "{} changed", p.display());
    }
    // A directory that is not a batch output.
    let stranger = dir.join("stranger");
    std::fs::create_dir_all(&stranger).expect("dir");
    write(&stranger, "notes.txt", "mine");
    assert_error(
        &throng(&["batch", s(&b), "--out", s(&stranger)]),
        &["not empty and not a batch output directory"],
    );
    assert_eq!(files(&stranger).len(), 1);
}

#[test]
fn shipped_batch_files_are_valid() {
    let dir = root().join("scenarios").join("batches");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("scenarios/batches") {
        let p = entry.expect("entry").path();
        if p.extension().is_some_and(|e| e == "toml") {
            let plan = throng_engine::batch::Plan::load(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(!plan.runs.is_empty(), "{}", p.display());
            n += 1;
        }
    }
    assert!(n >= 1, "no batch file in {}", dir.display());
}

/// A cross-key check of one item (bounds' max below a min the batch set) is placed at the
/// override that broke it, not at the batch file's first override.
#[test]
fn a_cross_key_error_points_at_the_override_that_caused_it() {
    rejects(
        "batch_cross_key",
        "version = 1\nticks = 5\n[[sweep]]\nscenario = \"small.toml\"\npoints = [{ \"bounds.min\" = [500, 500] }]\n",
        &["batch.toml:5:28", "`bounds.min`", "`bounds.max`"],
    );
}
