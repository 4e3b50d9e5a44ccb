//! Journeys are part of the state. The station (400 passengers from two platforms choosing
//! among three exits by `least_targeted`, through a 700-tick stretch in which they spawn, reach
//! the stairs, choose and start to leave), the security check (two queues fed round robin and
//! served at their heads) and a square where 60 walkers draw their exit at random and a waiting
//! stage releases them in turns give the same per-tick hashes at 1–8 threads, with every index
//! and with rows in spatial order; a run resumed from a checkpoint taken while agents are
//! choosing or standing in line continues bit for bit.

use throng_engine::{IndexKind, Scenario};

use super::events::{resumed_bit_for_bit, run};
use crate::common::{hashes, hashes_reordered, load, root};

/// 60 walkers on a lattice walk to a waiting area, are released 10 at a time every 2 s from
/// 8 s, and each draws its exit, west, east or north, with weights 1, 2, 1; the west stage
/// closes at 13 s, and those heading there draw again.
fn square() -> Scenario {
    let points: Vec<String> = (0..60).map(|k| format!("[{}, {}]", 2 + 2 * (k % 6), 2 + k / 6)).collect();
    let text = format!(
        r#"version = 1
name = "square"
seed = 9
dt = 0.1
ticks = 400

[bounds]
min = [0, 0]
max = [30, 30]

[[exits]]
name = "west"
kind = "rect"
min = [0, 10]
max = [1, 20]

[[exits]]
name = "east"
kind = "rect"
min = [29, 10]
max = [30, 20]

[[exits]]
name = "north"
kind = "rect"
min = [10, 29]
max = [20, 30]

[[waiting]]
name = "hall"
kind = "circle"
centre = [15, 15]
radius = 3

[[stages]]
name = "hall"
kind = "waiting"
area = "hall"

[[stages]]
name = "west"
kind = "exit"
exit = "west"

[[stages]]
name = "east"
kind = "exit"
exit = "east"

[[stages]]
name = "north"
kind = "exit"
exit = "north"

[[journeys]]
name = "out"
start = "hall"
[[journeys.transitions]]
from = "hall"
choose = "random"
to = ["west", "east", "north"]
weights = [1, 2, 1]

[targets.stage]
kind = "journey"

[[groups]]
name = "walkers"
count = 60
spawn = {{ kind = "points", points = [{points}] }}
max_speed = 1.5
max_force = 10.0
radius = 0.25
journey = "out"
model = "orca"

[[groups.behaviours]]
kind = "seek"
target = "stage"

[[events]]
every_s = 2
start_s = 8
action = "release"
area = "hall"
count = 10

[[events]]
at_s = 13
action = "close"
stage = "west"
"#,
        points = points.join(", ")
    );
    Scenario::parse(&text, "square.toml").expect("a valid scene")
}

pub(super) fn same_everywhere(scenario: &Scenario, ticks: u64) {
    let (reference, _) = run(scenario, ticks, 1, IndexKind::Kd);
    for threads in [2, 3, 4, 8] {
        assert_eq!(run(scenario, ticks, threads, IndexKind::Kd).0, reference, "{threads} threads");
    }
    for index in [IndexKind::Grid, IndexKind::Brute] {
        assert_eq!(run(scenario, ticks, 2, index).0, reference, "{index:?}");
    }
    let straight = hashes(scenario, ticks, 2, IndexKind::Grid);
    assert_eq!(hashes_reordered(scenario, ticks, 2, IndexKind::Grid, 7), straight, "rows in spatial order");
}

#[test]
fn the_station_chooses_the_same_exits_at_any_thread_count_index_and_row_order() {
    let station = load(&root().join("scenarios/station.toml"));
    same_everywhere(&station, 700);
    // The stretch covers choices: passengers reached the stairs and some have left.
    let mut sim = throng_engine::Simulation::new(&station, Default::default()).expect("simulation");
    sim.run(700).expect("runs");
    let w = sim.world();
    let stairs = w.scene.stages[0].finished + w.scene.stages[1].finished;
    assert!(stairs > 100 && w.exited > 0, "{stairs} reached the stairs, {} left", w.exited);
}

#[test]
fn random_choices_and_a_waiting_stage_are_the_same_at_any_thread_count_index_and_row_order() {
    let square = square();
    same_everywhere(&square, 250);
    let mut sim = throng_engine::Simulation::new(&square, Default::default()).expect("simulation");
    sim.run(250).expect("runs");
    let stages: Vec<u64> = sim.world().scene.stages.iter().map(|s| s.finished).collect();
    assert!(stages[0] >= 50 && stages[1] + stages[2] + stages[3] > 10, "{stages:?}");
}

#[test]
fn queues_serve_the_same_at_any_thread_count_index_and_row_order() {
    let security = load(&root().join("scenarios/security.toml"));
    same_everywhere(&security, 900);
    let mut sim = throng_engine::Simulation::new(&security, Default::default()).expect("simulation");
    sim.run(900).expect("runs");
    let w = sim.world();
    let lines: Vec<usize> =
        w.scene.stages.iter().filter_map(|s| s.queue.as_ref()).map(|q| q.queued.len()).collect();
    assert!(w.exited > 0 && lines.iter().all(|&n| n > 5), "{} left, lines {lines:?}", w.exited);
}

#[test]
fn a_run_resumed_while_agents_choose_continues_bit_for_bit() {
    resumed_bit_for_bit(&load(&root().join("scenarios/station.toml")), 500, &[150, 320]);
    resumed_bit_for_bit(&load(&root().join("scenarios/security.toml")), 700, &[333, 600]);
    resumed_bit_for_bit(&square(), 260, &[85, 101, 180]);
}
