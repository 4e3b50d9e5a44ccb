//! Small scenarios written into scratch directories by the golden-file, checkpoint and batch
//! tests: fast (tens of agents), yet every kind of state moves (wander draws from each agent's
//! generator, separation reads neighbours, seek reads a target).

use std::path::{Path, PathBuf};
use std::process::Output;

/// A scenario of `count` walkers that seek, wander and keep apart on a 40 × 40 torus.
pub fn small(seed: u64, count: u32) -> String {
    format!(
        r#"# A small scenario for tests.
version = 1
name = "small"
seed = {seed}
dt = 0.1
ticks = 12

[bounds]
kind = "wrap"
min = [0, 0]
max = [40, 40]

[targets.home]
kind = "point"
position = [20, 20]

[[groups]]
name = "walkers"
count = {count}
spawn = {{ kind = "rect", min = [0, 0], max = [40, 40] }}
max_speed = {{ min = 1.5, max = 2.5 }}
max_force = 1.0
initial_speed = 1.0

[[groups.behaviours]]
kind = "seek"
weight = 0.5
target = "home"

[[groups.behaviours]]
kind = "wander"
radius = 1.0
distance = 2.0
jitter = 2.0

[[groups.behaviours]]
kind = "separation"
weight = 1.5
radius = 2.0
"#
    )
}

pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write scratch file");
    path
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Asserts a clean failure: exit code 2, no panic, one `error: ` line containing every piece.
#[track_caller]
pub fn assert_error(out: &Output, has: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {stderr}; stdout: {}", text(&out.stdout));
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    for piece in has {
        assert!(stderr.contains(piece), "expected `{piece}` in: {stderr}");
    }
}
