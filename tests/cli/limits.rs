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
