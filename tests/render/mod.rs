//! `throng render` and `throng plot`, through the real binary: golden pictures compared byte for
//! byte, determinism (same input, same bytes, whatever the thread count), trace input, the GIF's
//! frames, the HTML player in headless Chromium, plots, and bad input (exit 2, never a panic).
//!
//! Re-mint the golden pictures after a deliberate change to the drawing or the simulation:
//!
//! ```sh
//! THRONG_REMINT=1 cargo test --test suite render
//! ```

mod errors;
mod html_player;
mod in_space;
mod pictures;
mod plots;

use std::path::{Path, PathBuf};
use std::process::Output;

pub(super) use crate::fixtures::{s, text};

/// A small scene with every kind of geometry: bounds, a circle and a rectangle obstacle, a path,
/// an exit, a spawn source and a gate, and two groups.
const SCENE: &str = r#"version = 1
name = "scene"
seed = 5
dt = 0.1
ticks = 30

obstacles = [
  { kind = "circle", centre = [20, 12], radius = 3 },
  { kind = "rect", min = [8, 20], max = [14, 24] },
]

[bounds]
kind = "open"
min = [0, 0]
max = [40, 30]

[targets.goal]
kind = "point"
position = [36, 26]

[paths.tour]
nodes = [[4, 4], [30, 4], [30, 16]]
radius = 1.5

[[exits]]
name = "out"
kind = "rect"
min = [34, 24]
max = [40, 30]

[[sources]]
name = "door"
group = "walkers"
kind = "circle"
centre = [4, 26]
radius = 2
rate = 4
max_agents = 6

[[gates]]
name = "line"
from = [26, 18]
to = [26, 30]

[[groups]]
name = "walkers"
count = 12
spawn = { kind = "rect", min = [2, 8], max = [12, 18] }
max_speed = 3.0
max_force = 3.0
radius = 0.6
initial_speed = 1.0

[[groups.behaviours]]
kind = "seek"
target = "goal"

[[groups.behaviours]]
kind = "avoid_obstacles"
weight = 2.0

[[groups]]
name = "guards"
count = 3
spawn = { kind = "points", points = [[4, 4], [6, 4], [8, 4]] }
max_speed = 2.0
max_force = 2.0
radius = 0.8

[[groups.behaviours]]
kind = "follow_path"
path = "tour"
mode = "loop"
"#;

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn scene(dir: &Path) -> PathBuf {
    let path = dir.join("scene.toml");
    std::fs::write(&path, SCENE).expect("write the scene");
    path
}
