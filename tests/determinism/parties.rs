//! Parties are part of the state. The bottleneck with 80 % of its people in parties (social
//! force), the free walk of pairs and triples, and a square where parties under ORCA, CFSM
//! and steering leave together give the same per-tick hashes at 1–8 threads, with every index
//! and with rows in spatial order; a run resumed from a checkpoint continues bit for bit.

use throng_engine::Scenario;

use super::events::resumed_bit_for_bit;
use super::journeys::same_everywhere;
use crate::common::{load, root};

/// 36 walkers of three groups (ORCA, CFSM, steering) in parties of two and three cross a
/// 20 × 20 square to an exit at its east side, each party leaving together.
fn square() -> Scenario {
    let mut groups = String::new();
    for (g, model) in ["orca", "cfsm", "steering"].iter().enumerate() {
        let points: Vec<String> =
            (0..12).map(|k| format!("[{}, {}]", 2 + k % 3, 2 + 6 * g + k / 3)).collect();
        groups += &format!(
            r#"
[[groups]]
name = "{model}"
spawn = {{ kind = "points", points = [{points}] }}
max_speed = {{ min = 0.9, max = 1.5 }}
max_force = 10.0
radius = 0.2
model = "{model}"
parties = {{ shares = [0.25, 0.5, 0.25], leave_together = true }}

[[groups.behaviours]]
kind = "seek"
target = "east"
"#,
            points = points.join(", ")
        );
    }
    let text = format!(
        r#"version = 1
name = "party_square"
seed = 12
dt = 0.05
ticks = 600

[bounds]
min = [0, 0]
max = [20, 20]

[targets.east]
kind = "point"
position = [19, 10]

[[exits]]
name = "east"
kind = "rect"
min = [17, 0]
max = [20, 20]
{groups}"#
    );
    Scenario::parse(&text, "party_square.toml").expect("a valid scene")
}

#[test]
fn parties_walk_the_same_at_any_thread_count_index_and_row_order() {
    same_everywhere(&load(&root().join("scenarios/parties/bottleneck_parties.toml")), 900);
    same_everywhere(&load(&root().join("scenarios/parties/walking_parties.toml")), 400);
    let square = square();
    same_everywhere(&square, 400);
    // The stretch covers parties waiting in the exit and leaving.
    let mut sim = throng_engine::Simulation::new(&square, Default::default()).expect("simulation");
    sim.run(400).expect("runs");
    assert!(sim.world().exited > 10, "{} left", sim.world().exited);
}

#[test]
fn a_run_resumed_while_parties_walk_continues_bit_for_bit() {
    resumed_bit_for_bit(&load(&root().join("scenarios/parties/bottleneck_parties.toml")), 900, &[250, 700]);
    resumed_bit_for_bit(&square(), 400, &[120, 333]);
}
