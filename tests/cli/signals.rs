//! A run stopped by a signal: SIGINT and SIGTERM end it between ticks with its trace and
//! metrics files flushed, every row whole, and exit codes 130 and 143; `kill -9` cannot be
//! caught: every row it leaves is whole but, at most, an unfinished last line (the kernel cuts
//! a write short when the kill lands inside it), which a resume cuts off
//! (tests/determinism/resumed_outputs.rs). A benchmark stopped by SIGINT keeps its measured
//! rows.

#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{root, scratch_dir};
use crate::fixtures::{s, text};

/// Starts a long crowd run writing a trace (every 5 ticks), metrics and checkpoints in `dir`.
fn start(dir: &Path) -> Child {
    let arg = |name: &str| s(&dir.join(name)).to_owned();
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["run", "scenarios/bench/crowd.toml", "--agents", "3000", "--ticks", "1000000", "--quiet"])
        .args(["--trace", &arg("t.csv"), "--trace-every", "5", "--metrics", &arg("m.csv")])
        .args(["--checkpoint-every", "20", "--checkpoint-dir", &arg("ck")])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("throng starts")
}

/// Waits until `path` exists (the run is under way), at most two minutes.
fn wait_for(path: &Path) {
    let t = Instant::now();
    while !path.exists() && t.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(path.exists(), "{} did not appear", path.display());
}

/// Every line of the CSV `path`, checking that the file ends with a newline and that every
/// row has the header's number of fields; returns the last row's tick.
fn whole_rows(path: &Path) -> u64 {
    let bytes = std::fs::read(path).expect("the file");
    assert_eq!(bytes.last(), Some(&b'\n'), "{} ends inside a row", path.display());
    let text = String::from_utf8(bytes).expect("UTF-8");
    let mut lines = text.lines();
    let fields = lines.next().expect("a header").split(',').count();
    let mut last = 0;
    for (k, line) in lines.enumerate() {
        assert_eq!(line.split(',').count(), fields, "{}:{}: a torn row: {line}", path.display(), k + 2);
        last = line.split(',').next().expect("a tick").parse().expect("a tick");
    }
    last
}

fn stopped_by(signal: &str, code: i32) {
    let dir = scratch_dir(&format!("signal_{signal}"));
    let child = start(&dir);
    wait_for(&dir.join("ck").join(throng_engine::state::checkpoint::file_name(20)));
    let status =
        Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("the run ends");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{signal}: {stderr}");
    assert!(stderr.contains(&format!("stopped by SIG{signal} after tick ")), "{stderr}");
    let tick: u64 = stderr
        .split("after tick ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .expect("the tick in the message");
    assert_eq!(whole_rows(&dir.join("m.csv")), tick, "the metrics end at the tick the run stopped after");
    assert_eq!(whole_rows(&dir.join("t.csv")), tick - tick % 5, "the trace ends at the last traced tick");
    assert!(stderr.contains("--resume"), "the message says how to go on: {stderr}");
}

/// `throng run --help` ends with every exit code a run gives, the signals' among them.
#[test]
fn run_help_lists_the_exit_codes() {
    let out = crate::common::throng(&["run", "--help"]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    let codes = help.split("Exit codes:").nth(1).expect("an exit code paragraph");
    for code in ["0", "1", "2", "130", "143"] {
        assert!(
            codes.lines().any(
                |l| l.trim_start().starts_with(&format!("{code} ")) || l.contains(&format!(" {code} by"))
            ),
            "exit code {code} is not listed: {codes}"
        );
    }
}

#[test]
fn sigint_stops_a_run_between_ticks_with_whole_files() {
    stopped_by("INT", 130);
}

#[test]
fn sigterm_stops_a_run_between_ticks_with_whole_files() {
    stopped_by("TERM", 143);
}

/// `kill -9` stops the process anywhere, but the files only ever receive whole rows.
#[test]
fn kill_9_leaves_no_torn_row() {
    let dir = scratch_dir("signal_kill");
    let mut child = start(&dir);
    // Past the first 64 KiB block of the trace: rows are being written.
    let trace = dir.join("t.csv");
    let t = Instant::now();
    while std::fs::metadata(&trace).map_or(0, |m| m.len()) < 400_000 && t.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    for file in [trace, dir.join("m.csv")] {
        whole_rows_but_an_unfinished_tail(&file);
    }
}

/// As [`whole_rows`], but the file may end in an unfinished line: a prefix of a row, fewer
/// fields than the header or the last field cut short, and never a whole row past it.
fn whole_rows_but_an_unfinished_tail(path: &Path) {
    let bytes = std::fs::read(path).expect("the file");
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let (whole, tail) = bytes.split_at(end);
    let whole_path = path.with_extension("whole.csv");
    std::fs::write(&whole_path, whole).expect("the whole rows");
    whole_rows(&whole_path);
    let fields = String::from_utf8_lossy(whole).lines().next().expect("a header").split(',').count();
    let tail = String::from_utf8_lossy(tail);
    assert!(
        tail.split(',').count() <= fields,
        "{}: the unfinished tail is longer than a row: {tail}",
        path.display()
    );
}

/// `throng bench` stopped by SIGINT: the sizes measured so far stay in its CSV as whole rows,
/// the report says how many finished, and it exits 130.
#[test]
fn sigint_stops_a_benchmark_keeping_its_measured_rows() {
    let dir = scratch_dir("signal_bench");
    let csv = dir.join("bench.csv");
    let child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["bench", "scenarios/bench/crowd.toml", "--agents", "500,600,700,800,900,1000,1100,1200"])
        .args(["--threads", "1", "--warmup", "1", "--ticks", "5", "--repeats", "400", "--quiet"])
        .args(["--csv", s(&csv), "--json"])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("throng starts");
    // Wait for the first measured row (header + one line).
    let t = Instant::now();
    let rows = || std::fs::read_to_string(&csv).map_or(0, |c| c.lines().count().saturating_sub(1));
    while rows() < 1 && t.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(rows() >= 1, "no row was measured");
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let out = child.wait_with_output().expect("the benchmark ends");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopped by SIGINT: ") && stderr.contains("of 8 measurements finished"),
        "{stderr}"
    );
    let finished = rows();
    assert!((1..8).contains(&finished), "{finished} rows");
    // Every row whole, with the header's number of fields.
    let content = std::fs::read_to_string(&csv).expect("the CSV");
    assert!(content.ends_with('\n'));
    let fields = content.lines().next().expect("a header").split(',').count();
    assert!(content.lines().all(|l| l.split(',').count() == fields), "{content}");
    // The report has the finished sizes.
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the JSON report");
    assert_eq!(report["results"].as_array().map(Vec::len), Some(finished));
}
