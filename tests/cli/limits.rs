//! Resource limits: a thread count far beyond the machine is refused at once, with the limit
//! and the reason, by every command that starts worker threads, and by the library.

use std::time::{Duration, Instant};

use throng_engine::pipeline::max_threads;
use throng_engine::{IndexKind, Pipeline, PipelineError};

use crate::common::throng;
use crate::fixtures::assert_error;

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
    assert!(matches!(Pipeline::new(max + 1, IndexKind::Kd), Err(PipelineError::TooManyThreads { .. })));
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
