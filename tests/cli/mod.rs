//! Tests that run the real `throng` executable: `check` and `run` on bad and good input (every
//! rejected scenario exits with code 2, never panics, and names the file, the line and column,
//! and the key; the happy paths print what they promise), `bench` and `batch`.
//!
//! Expected positions are worked out by hand from the text written here (1-based lines, columns
//! counted in characters), not read back from the implementation.

mod agent_statistics;
mod batch;
mod batch_expectations;
mod batch_outputs;
mod batch_trends;
mod bench;
mod check_and_run;
mod event_actions;
mod event_set;
mod events;
mod expect_errors;
mod expectations;
mod experiments;
mod feature_validation;
mod formulas;
mod journeys;
mod limits;
mod listed_points;
mod measures;
mod models;
mod obstacle_shapes;
mod parquet_output;
mod parse_errors;
mod parties;
mod reference_errors;
mod signals;
mod slurm;
mod space_scenarios;
mod spawn_spacing;
mod trace_formats;
mod value_errors;
mod verification;
mod verification_table;
mod waiting;

use std::path::Path;
use std::process::Output;

use crate::common::{scratch_dir, throng};
pub(super) use crate::fixtures::{text, write};

/// A small valid scenario. Line numbers, for the expected positions below:
///
/// ```text
///  1 version = 1
///  2 name = "cli"
///  3 seed = 3
///  4 dt = 0.1
///  5 ticks = 10
///  6
///  7 [bounds]
///  8 min = [0, 0]
///  9 max = [100, 100]
/// 10
/// 11 [targets.home]
/// 12 kind = "point"
/// 13 position = [50, 50]
/// 14
/// 15 [[groups]]
/// 16 name = "walkers"
/// 17 count = 6
/// 18 spawn = { kind = "rect", min = [0, 0], max = [20, 20] }
/// 19 max_speed = 2.0
/// 20 max_force = 1.0
/// 21
/// 22 [[groups.behaviours]]
/// 23 kind = "seek"
/// 24 target = "home"
/// ```
const BASE: &str = r#"version = 1
name = "cli"
seed = 3
dt = 0.1
ticks = 10

[bounds]
min = [0, 0]
max = [100, 100]

[targets.home]
kind = "point"
position = [50, 50]

[[groups]]
name = "walkers"
count = 6
spawn = { kind = "rect", min = [0, 0], max = [20, 20] }
max_speed = 2.0
max_force = 1.0

[[groups.behaviours]]
kind = "seek"
target = "home"
"#;

/// `BASE` with the whole line `line` replaced by `with` (which may span several lines).
fn base_with(line: &str, with: &str) -> String {
    let needle = format!("\n{line}\n");
    assert_eq!(BASE.matches(&needle).count(), 1, "`{line}` is not exactly one line of BASE");
    BASE.replacen(&needle, &format!("\n{with}\n"), 1)
}

/// Asserts the run failed cleanly: exit code 2, nothing on stdout, no panic, and one
/// `error: ` line on stderr that starts with `FILE:LINE:COL: ` and contains every piece of `has`.
#[track_caller]
fn assert_error_at(out: &Output, file: &Path, line_col: (usize, usize), has: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(out.stdout.is_empty(), "stdout should be empty: {}", text(&out.stdout));
    let (line, col) = line_col;
    let prefix = format!("error: {}:{line}:{col}: ", file.display());
    assert!(stderr.starts_with(&prefix), "expected stderr to start with `{prefix}`, got: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    for piece in has {
        assert!(stderr.contains(piece), "expected `{piece}` in: {stderr}");
    }
}

/// `throng check` on `contents` written to `name` in a fresh scratch dir; asserts the error.
#[track_caller]
fn check_rejects(test: &str, contents: impl AsRef<[u8]>, line_col: (usize, usize), has: &[&str]) {
    let dir = scratch_dir(test);
    let path = write(&dir, "scenario.toml", contents);
    let out = throng(&["check", path.to_str().expect("utf-8 path")]);
    assert_error_at(&out, &path, line_col, has);
}

/// Runs the binary, expects success and exactly one JSON line on stdout.
fn run_json(args: &[&str]) -> serde_json::Value {
    let out = throng(args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout}");
    serde_json::from_str(&stdout).expect("stdout is a JSON object")
}
