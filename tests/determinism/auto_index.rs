//! Determinism: the automatic index (`index = "auto"`, the default) switches between the grid
//! and the k-d tree as the agents spread, and the run gives the same per-tick hashes as either
//! backend alone, at any thread count, with and without reused sensing candidates.

use throng_engine::{IndexKind, Pipeline, Scenario};

use crate::common::{hashes, hashes_with_skin};

/// 900 agents flocking in a 40 m square of an open world, and one sprinting east from beside
/// them at 100 m/s: once the agents' bounding box is about 360 m wide (after some 35 ticks) the
/// grid would need more than four cells per agent at cells one sensing reach wide, and `auto`
/// goes over to the k-d tree.
const RUNAWAY: &str = r#"
version = 1
name = "runaway"
seed = 3
dt = 0.1
ticks = 60

[bounds]
min = [0, 0]
max = [100000, 100000]

[targets.east]
kind = "point"
position = [100000, 20]

[[groups]]
name = "flock"
count = 900
spawn = { kind = "rect", min = [0, 0], max = [40, 40] }
max_speed = 1.2
max_force = 3.0
radius = 0.2
initial_speed = 1.0
sensing_radius = 2.0
max_neighbours = 12

[[groups.behaviours]]
kind = "separation"
weight = 1.5
radius = 1.0

[[groups.behaviours]]
kind = "alignment"
weight = 0.3
radius = 2.0

[[groups.behaviours]]
kind = "cohesion"
weight = 0.2
radius = 2.0

[[groups]]
name = "runner"
spawn = { kind = "points", points = [[42, 20]] }
max_speed = 100.0
max_force = 5000.0
radius = 0.2
sensing_radius = 2.0
max_neighbours = 12

[[groups.behaviours]]
kind = "seek"
target = "east"
"#;

const TICKS: u64 = 60;

fn runaway() -> Scenario {
    Scenario::parse(RUNAWAY, "runaway.toml").expect("a valid scene")
}

#[test]
fn the_automatic_index_switches_backends_and_changes_no_bit() {
    let scenario = runaway();
    let reference = hashes(&scenario, TICKS, 1, IndexKind::Kd);
    assert_ne!(reference[0], reference[TICKS as usize], "the state must move");
    for threads in [1, 2, 3, 4, 8] {
        for index in [IndexKind::Auto, IndexKind::Grid] {
            let got = hashes(&scenario, TICKS, threads, index);
            if let Some(t) = (0..got.len()).find(|&t| got[t] != reference[t]) {
                panic!("{threads} threads, {index} index diverges at tick {t}");
            }
        }
    }
    // The runner really leaves the grid's reach: its distance from the flock's box makes the
    // grid's cells widen (so `auto` builds the k-d tree) before the run ends.
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(1, IndexKind::Auto).expect("thread pool");
    let mut built = Vec::new();
    for _ in 0..TICKS {
        pipeline.step(&mut world).expect("a finite run");
        built.push(pipeline.built_index_kind());
    }
    assert_eq!(built.first(), Some(&IndexKind::Grid), "the flock starts on the grid");
    assert_eq!(built.last(), Some(&IndexKind::Kd), "the runner takes the index to the k-d tree");
}

#[test]
fn the_automatic_index_with_reused_candidates_changes_no_bit() {
    let scenario = runaway();
    let reference = hashes(&scenario, TICKS, 2, IndexKind::Kd);
    for skin in [0.5, 1.5] {
        let got = hashes_with_skin(&scenario, TICKS, 2, IndexKind::Auto, skin);
        if let Some(t) = (0..got.len()).find(|&t| got[t] != reference[t]) {
            panic!("skin {skin}: the automatic index diverges at tick {t}");
        }
    }
}
