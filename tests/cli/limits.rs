//! Resource limits: a thread count far beyond the machine is refused at once, with the limit
//! and the reason, by every command that starts worker threads, and by the library; a run (or
//! a batch's runs at once) that cannot fit in memory is refused before anything is built.

use std::time::{Duration, Instant};

use throng_engine::pipeline::max_threads;
use throng_engine::{IndexKind, Pipeline, PipelineError, Scenario};

use crate::common::{scratch_dir, throng};
use crate::fixtures::{assert_error, write};

#[test]
fn absurd_thread_counts_are_refused_at_once() {
    let max = max_threads();
    assert!(max >= 64, "the cap is never below 64: {max}");
    let over = (max + 1).to_string();
    let cases: [(&[&str], &str); 6] = [
        (&["run", "scenarios/doorway.toml", "--threads", "100000"], "--threads 100000"),
        (&["run", "scenarios/doorway.toml", "--threads", &over], "--threads"),
        (&["bench", "scenarios/doorway.toml", "--threads", "5000"], "--threads 5000"),
        (
            &["batch", "scenarios/batches/flock_sweep.toml", "--threads-per-job", "5000"],
            "--threads-per-job 5000",
        ),
        (
            &["record", "scenarios/doorway.toml", "-o", "target/never.json", "--threads", "99999"],
            "--threads 99999",
        ),
        (&["verify", "tests/golden/doorway.golden.json", "--threads", "70000"], "--threads 70000"),
    ];
    for (args, flag) in cases {
        let start = Instant::now();
        let out = throng(args);
        assert!(start.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", start.elapsed());
        assert_error(
            &out,
            &[flag, "more threads than this machine runs well", "results do not depend on the thread count"],
        );
    }
    // The largest allowed count still runs.
    let out = throng(&[
        "run",
        "scenarios/seek_arrive.toml",
        "--ticks",
        "2",
        "--quiet",
        "--threads",
        &max.to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixtures::text(&out.stderr));
    // The library refuses too.
    assert!(matches!(
        Pipeline::<throng_engine::math::Vec2>::new(max + 1, IndexKind::Kd),
        Err(PipelineError::TooManyThreads { .. })
    ));
}

/// A run whose estimated peak memory exceeds `--max-memory` is refused before anything is
/// built, saying the estimate and what to change; under the limit it runs.
#[test]
fn a_run_over_max_memory_is_refused_before_it_starts() {
    let start = Instant::now();
    let out = throng(&["run", "scenarios/bench/crowd.toml", "--agents", "20000000", "--max-memory", "1G"]);
    assert!(start.elapsed() < Duration::from_secs(20), "the refusal took {:?}", start.elapsed());
    assert_error(&out, &["needs about", "20000000 agents at its peak", "more than --max-memory 1024 MiB"]);
    let out = throng(&["run", "scenarios/bench/crowd.toml", "--max-memory", "lots"]);
    let stderr = crate::fixtures::text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--max-memory") && stderr.contains("expected a size such as 512M"), "{stderr}");
    let out =
        throng(&["run", "scenarios/seek_arrive.toml", "--ticks", "2", "--quiet", "--max-memory", "512M"]);
    assert_eq!(out.status.code(), Some(0), "{}", crate::fixtures::text(&out.stderr));
}

/// The estimate stays within 25 % of the measured peak RSS of the standard crowd at 10k and
/// 1M agents (each size in its own process, so the peak is its own). Slow at 1M:
/// `cargo test --release --test suite estimate_is_honest -- --ignored`.
#[test]
#[ignore]
fn the_memory_estimate_is_honest_at_10k_and_1m() {
    for agents in ["10000", "1000000"] {
        let out = throng(&[
            "bench",
            "scenarios/bench/crowd.toml",
            "--agents",
            agents,
            "--threads",
            "2",
            "--ticks",
            "4",
            "--warmup",
            "2",
            "--repeats",
            "1",
            "--json",
            "--quiet",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", crate::fixtures::text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let r = &v["results"][0];
        let (rss, est) =
            (r["peak_rss_mb"].as_f64().expect("rss"), r["estimated_mb"].as_f64().expect("estimate"));
        eprintln!("{agents} agents: peak RSS {rss:.1} MB, estimate {est:.1} MB");
        assert!(
            (est / rss - 1.0).abs() <= 0.25,
            "{agents}: estimate {est:.1} MB against {rss:.1} MB measured"
        );
    }
}

/// `bench`, `record` and `verify` refuse a run over `--max-memory` as `run` does, before
/// anything is written.
#[test]
fn every_command_that_runs_refuses_what_cannot_fit() {
    let dir = scratch_dir("limits_memory_commands");
    let golden = dir.join("never.golden.json");
    let huge = ["scenarios/bench/crowd.toml", "--agents", "20000000", "--max-memory", "1G"];
    let bench = [&["bench"][..], &huge[..]].concat();
    assert_error(&throng(&bench), &["at 20000000 agents needs about", "more than --max-memory 1024 MiB"]);
    let record = [&["record"][..], &huge[..], &["-o", golden.to_str().expect("utf-8")][..]].concat();
    assert_error(&throng(&record), &["needs about", "20000000 agents at its peak"]);
    assert!(!golden.exists(), "nothing is recorded");
    // The crowd's golden run needs more than a megabyte.
    let out = throng(&["verify", "tests/golden/crowd.golden.json", "--max-memory", "1M"]);
    let stderr = crate::fixtures::text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the run tests/golden/crowd.golden.json holds needs about"), "{stderr}");
}

/// A batch's runs that would go at once must fit together: with `--jobs` given the batch is
/// refused saying how many fit; by default it runs fewer at a time and says so; a run too big
/// on its own is refused. Nothing is written when it is refused.
#[test]
fn a_batch_runs_only_as_many_at_once_as_fit() {
    let dir = scratch_dir("limits_memory_batch");
    let crowd = std::fs::canonicalize("scenarios/bench/crowd.toml").expect("the crowd");
    let batch = write(
        &dir,
        "sizes.toml",
        format!(
            "version = 1\nticks = 1\n\n[[sweep]]\nscenario = \"{}\"\n\n[sweep.grid]\nagents = [20000, 40000]\n",
            crowd.display()
        ),
    );
    let base = Scenario::load(&crowd).expect("the crowd");
    let bytes = |n: u64| base.scaled(n).expect("scaled").memory_estimate().bytes;
    // Room for the larger run alone, not for both together.
    let limit = (bytes(40000) + bytes(20000) / 2).to_string();
    let batch_path = batch.to_str().expect("utf-8");
    let out_dir = dir.join("out");
    let out_path = out_dir.to_str().expect("utf-8");
    let common = ["batch", batch_path, "-o", out_path, "--max-memory", &limit, "--quiet"];

    let explicit = [&common[..], &["--jobs", "2"]].concat();
    assert_error(&throng(&explicit), &["--jobs 2", "1 at a time fit (--jobs 1)"]);
    assert!(!out_dir.exists(), "a refused batch writes nothing");

    let small = (bytes(20000) / 2).to_string();
    let alone = ["batch", batch_path, "-o", out_path, "--max-memory", &small, "--quiet"];
    assert_error(&throng(&alone), &["needs about", "more than --max-memory"]);
    assert!(!out_dir.exists(), "a refused batch writes nothing");

    // With the default number of jobs (2 or more with two cores), it runs one at a time.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        let out = throng(&common);
        let stderr = crate::fixtures::text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("note: running 1 at a time"), "{stderr}");
        assert!(out_dir.join("results.csv").exists());
    }
}
