//! Batches on a cluster, as docs/batches.md tells users to run them: the job array script that
//! `throng batch --slurm-script` prints (the one the docs show) submitted to a real Slurm
//! cluster, its merged report equal row for row to the unsharded batch, with faults (a task
//! cancelled, a task killed with SIGKILL, a merge submitted before every shard finished) and
//! the recovery the script's header describes; and the documented GNU parallel lines.
//!
//! The Slurm test needs a running cluster (`.ci/slurm start`, as root) and `THRONG_SLURM=1`;
//! without the variable it is skipped with a message (CI sets it). The parallel test runs when
//! GNU parallel is installed and says it skipped otherwise.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::text;
use crate::common::{root, scratch_dir, throng};

/// The command the docs' array script is printed by (run in the repository's root).
const DOC_SCRIPT_ARGS: [&str; 6] =
    ["batch", "scenarios/batches/flock_sweep.toml", "--slurm-script", "4", "--out", "results"];

/// A scratch directory that looks like the repository to the scripts: `scenarios` is a link
/// to the shipped ones, so the documented relative paths work there.
fn workspace(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    std::os::unix::fs::symlink(root().join("scenarios"), dir.join("scenarios")).expect("link scenarios");
    dir
}

/// The throng binary under test.
fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_throng")
}

/// Runs `program args` in `dir` with `THRONG` and `PATH` pointing at the binary under test;
/// asserts success and returns stdout.
#[track_caller]
fn sh(dir: &Path, program: &str, args: &[&str]) -> String {
    let bin_dir = Path::new(binary()).parent().expect("the binary's folder");
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("THRONG", binary())
        .env("PATH", path)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// The rows of `runs.csv` in `dir`, without the wall-time columns (the only ones that may
/// differ between two runs of the same batch).
fn runs(dir: &Path) -> Vec<Vec<String>> {
    let path = dir.join("runs.csv");
    let mut r = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().expect("header").iter().map(str::to_owned).collect();
    let keep: Vec<usize> =
        (0..header.len()).filter(|&i| header[i] != "wall_s" && header[i] != "ms_per_tick").collect();
    let mut rows = vec![keep.iter().map(|&i| header[i].clone()).collect::<Vec<_>>()];
    for rec in r.records() {
        let rec = rec.expect("a whole row");
        rows.push(keep.iter().map(|&i| rec[i].to_owned()).collect());
    }
    rows
}

/// The batch run unsharded in one process, then reported: the rows a merge must equal.
fn unsharded(dir: &Path, batch: &str) -> Vec<Vec<String>> {
    let whole = dir.join("whole");
    let w = whole.to_str().expect("utf-8");
    sh(dir, binary(), &["batch", batch, "--out", w, "--quiet"]);
    sh(dir, binary(), &["report", w, "--quiet"]);
    runs(&whole)
}

/// Every file of every shard under `out` is whole: each line of `results.jsonl` parses, each
/// row of `results.csv` has every column, and every run either lists has its
/// `runs/<id>/result.json`. (The two files are each replaced atomically, one after the other,
/// so a task stopped between the two renames leaves one a run ahead of the other; the next
/// start rebuilds both from `runs/`.)
fn assert_whole_files(out: &Path) {
    for entry in std::fs::read_dir(out).expect("the output folder") {
        let shard = entry.expect("entry").path();
        if !shard.file_name().is_some_and(|n| n.to_string_lossy().starts_with("shard-")) {
            continue;
        }
        let done = |id: &str| shard.join("runs").join(id).join("result.json").is_file();
        let jsonl = std::fs::read_to_string(shard.join("results.jsonl")).unwrap_or_default();
        for line in jsonl.lines() {
            let row: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}: a torn line: {e}: {line}", shard.display()));
            assert!(done(row["id"].as_str().expect("an id")), "{}: {line}", shard.display());
        }
        if shard.join("results.csv").exists() {
            let mut r = csv::Reader::from_path(shard.join("results.csv")).expect("results.csv");
            let id = r.headers().expect("header").iter().position(|h| h == "id").expect("an id column");
            let mut n = 0usize;
            for rec in r.records() {
                let rec = rec.expect("a whole CSV row");
                assert!(done(&rec[id]), "{}: run {} listed but not finished", shard.display(), &rec[id]);
                n += 1;
            }
            assert!(n.abs_diff(jsonl.lines().count()) <= 1, "{}: {n} CSV rows", shard.display());
        }
    }
}

/// A job's (or every array task's) state, from `scontrol`: `JobState=...` per line.
fn job_states(id: &str) -> Vec<String> {
    let out = Command::new("scontrol").args(["show", "job", "-o", id]).output().expect("scontrol");
    text(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().find_map(|w| w.strip_prefix("JobState=")).map(str::to_owned))
        .collect()
}

/// Waits until the job (every task of an array) has ended; returns the states.
fn wait_for(id: &str, within: Duration) -> Vec<String> {
    let ended = ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED"];
    let start = Instant::now();
    loop {
        let states = job_states(id);
        if !states.is_empty() && states.iter().all(|s| ended.contains(&s.as_str())) {
            return states;
        }
        assert!(start.elapsed() < within, "job {id} still {states:?} after {within:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The array and merge job ids from the script's submission line ("array job A (...), merge
/// job M after it").
fn submitted(line: &str) -> (String, String) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |w: &str| words.iter().position(|x| *x == w).map(|i| words[i + 1].to_string());
    let array = after("job").expect("the array job id");
    let merge = words.windows(3).find(|w| w[0] == "merge" && w[1] == "job").map(|w| w[2].to_string());
    (array, merge.expect("the merge job id"))
}

/// Waits until `path` has at least `n` lines.
fn wait_for_lines(path: &Path, n: usize, within: Duration) {
    let start = Instant::now();
    while std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0) < n {
        assert!(start.elapsed() < within, "{} has fewer than {n} lines after {within:?}", path.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_documented_array_script_is_what_batch_prints() {
    let out = throng(&DOC_SCRIPT_ARGS);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let script = text(&out.stdout);
    assert!(script.starts_with("#!/bin/bash\n") && script.contains("#SBATCH --array=0-3\n"), "{script}");
    crate::docs::generated_table("docs/batches.md", "slurm-script", &format!("```bash\n{script}```\n"));
    // Nonsense is refused before a script exists.
    for (n, says) in [("0", "from 1 to 1000"), ("25", "24 runs would leave shards with nothing to run")] {
        let out = throng(&["batch", "scenarios/batches/flock_sweep.toml", "--slurm-script", n]);
        assert_eq!(out.status.code(), Some(2), "{n}");
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_job_array_on_slurm_merges_to_the_unsharded_batch_through_faults() {
    if std::env::var_os("THRONG_SLURM").is_none() {
        crate::common::skip(
            "a_job_array_on_slurm_merges_to_the_unsharded_batch_through_faults",
            "it needs a cluster; start one with `sudo .ci/slurm start` and set THRONG_SLURM=1",
        );
        return;
    }
    let long = Duration::from_secs(600);

    // 1. The documented script, submitted as the docs say; the merge waits for every shard.
    let dir = workspace("slurm_clean");
    let script = throng(&DOC_SCRIPT_ARGS);
    std::fs::write(dir.join("sweep.sh"), &script.stdout).expect("write the script");
    let (array, merge) = submitted(&sh(&dir, "bash", &["sweep.sh"]));
    assert!(wait_for(&array, long).iter().all(|s| s == "COMPLETED"), "array {array}");
    assert_eq!(wait_for(&merge, long), ["COMPLETED"], "merge {merge}");
    let merged = runs(&dir.join("results"));
    assert_eq!(merged.len(), 1 + 24, "24 runs");
    assert_eq!(merged, unsharded(&dir, "scenarios/batches/flock_sweep.toml"), "merged rows = unsharded rows");
    assert_whole_files(&dir.join("results"));

    // 2. Faults. Twelve runs of the flock in four shards of three, one run at a time each,
    // long enough (600 ticks) that a shard is still running when the faults reach it.
    let dir = workspace("slurm_faults");
    let batch = "version = 1\nname = \"faults\"\nticks = 600\n\n[[sweep]]\nscenario = \"scenarios/flock.toml\"\nseeds = { from = 1, count = 12 }\n";
    std::fs::write(dir.join("faults.toml"), batch).expect("write the batch");
    let script = sh(&dir, binary(), &["batch", "faults.toml", "--slurm-script", "4", "--out", "faulty"]);
    std::fs::write(dir.join("sweep.sh"), script).expect("write the script");
    let (array, merge) = submitted(&sh(&dir, "bash", &["sweep.sh"]));
    // Mid-run (one of its three rows written): task 0 is cancelled, task 1's process killed.
    let out = dir.join("faulty");
    wait_for_lines(&out.join("shard-0-of-4/results.jsonl"), 1, long);
    wait_for_lines(&out.join("shard-1-of-4/results.jsonl"), 1, long);
    sh(&dir, "scancel", &[&format!("{array}_0")]);
    sh(&dir, "pkill", &["-KILL", "-f", "faulty/shard-1-of-4"]);
    let states = wait_for(&array, long);
    assert!(states.iter().filter(|s| *s == "COMPLETED").count() == 2, "tasks 2 and 3 complete: {states:?}");
    assert!(
        states.contains(&"CANCELLED".to_string()) && states.contains(&"FAILED".to_string()),
        "{states:?}"
    );
    // The merge that waited for all of them can never run: Slurm cancels it.
    assert_eq!(wait_for(&merge, long), ["CANCELLED"], "merge {merge}");
    assert_whole_files(&out);
    for shard in ["shard-0-of-4", "shard-1-of-4"] {
        let rows = std::fs::read_to_string(out.join(shard).join("results.jsonl")).unwrap_or_default();
        assert!(rows.lines().count() < 3, "{shard} was stopped before its last run");
    }
    // A merge submitted now, before every shard has finished, refuses and writes nothing.
    let early = sh(
        &dir,
        "sbatch",
        &[
            "--parsable",
            "--output=faulty/logs/early-merge.out",
            "--wrap",
            &format!("{} report faulty/shard-*-of-4 --out faulty", binary()),
        ],
    );
    let early = early.trim().split(';').next().expect("job id").to_string();
    assert_eq!(wait_for(&early, long), ["FAILED"], "the early merge fails");
    let log = std::fs::read_to_string(out.join("logs/early-merge.out")).expect("its log");
    assert!(
        log.contains("runs of batch") && log.contains("are missing") && log.contains("nothing was written"),
        "{log}"
    );
    assert!(!out.join("summary.csv").exists() && !out.join("runs.csv").exists(), "nothing merged");
    // Resubmitting the two shards (as the script's header says) resumes them; the new merge runs.
    let (array, merge) = submitted(&sh(&dir, "bash", &["sweep.sh", "0", "1"]));
    assert!(wait_for(&array, long).iter().all(|s| s == "COMPLETED"), "array {array}");
    assert_eq!(wait_for(&merge, long), ["COMPLETED"], "merge {merge}");
    for shard in ["shard-0-of-4", "shard-1-of-4"] {
        let log = std::fs::read_to_string(out.join("logs").join(shard.replace("-of-4", ".out")))
            .unwrap_or_default();
        assert!(!log.contains("error"), "{shard}: {log}");
    }
    assert_whole_files(&out);
    assert_eq!(runs(&out), unsharded(&dir, "faults.toml"), "merged rows after the faults = unsharded rows");
}

#[test]
fn the_documented_gnu_parallel_lines_merge_to_the_unsharded_batch() {
    if Command::new("parallel").arg("--version").output().is_err() {
        crate::common::skip(
            "the_documented_gnu_parallel_lines_merge_to_the_unsharded_batch",
            "GNU parallel is not installed (apt-get install parallel)",
        );
        return;
    }
    let docs = std::fs::read_to_string(root().join("docs/batches.md")).expect("docs/batches.md");
    let start = docs.find("<!-- parallel-lines: run by tests/cli/slurm.rs -->").expect("the parallel marker");
    let block = &docs[start..];
    let body = &block[block.find("```sh\n").expect("a sh block") + 6..];
    let lines = &body[..body.find("```").expect("the block's end")];
    let dir = workspace("parallel_lines");
    sh(&dir, "bash", &["-euo", "pipefail", "-c", lines]);
    assert_eq!(runs(&dir.join("results")), unsharded(&dir, "scenarios/batches/flock_sweep.toml"));
}
