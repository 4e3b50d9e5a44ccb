//! Cases that fail a criterion or jam in both engines, beside JuPedSim 1.4.2 with the
//! machinery of `jupedsim_runs.rs`: the reds docs/verification.md records under JuPedSim's
//! models (the criterion measured in both: the most agents at once in an area, SteerBench's
//! collisions), and CFSM's `corridor` preset, which clogs a narrow door in both.

use super::jupedsim_runs::{Case, Outcome, beside, jupedsim_here, jupedsim_run, throng_run};

/// RiMEA 12 under social force: the crowd packs the area before the last exit past 2 per m²
/// (12 in its 6 m²) in both engines; JuPedSim's also leaves some in the building.
#[test]
fn rimea_12_under_social_force_jams_before_the_last_exit_in_jupedsim_too() {
    let name = "RiMEA 12, social force";
    if !jupedsim_here(name) {
        return;
    }
    let mut case = Case::new("scenarios/verification/rimea_12_bottleneck.toml", "social_force", &[12], &[]);
    case.areas = &["before_first_door", "before_last_exit"];
    let (ours, theirs) = beside(name, &case, 12);
    eprintln!(
        "{name}: the most before the last exit at once: throng {}, JuPedSim {}",
        ours.most_in_area[1], theirs.most_in_area[1]
    );
    assert!(ours.most_in_area[1] > 12, "throng's red: {:?}", ours.most_in_area);
    assert!(theirs.most_in_area[1] > 12, "JuPedSim's: {:?}", theirs.most_in_area);
    // The jam before the first door, which the case asks for, forms in both.
    assert!(ours.most_in_area[0] > 12 && theirs.most_in_area[0] > 12);
}

/// The circle of 250 under social force: more than one collision per agent (SteerBench's
/// bound) in both engines. JuPedSim runs at dt 0.01 s: at the case's 0.02 s its social force
/// throws an agent out of any bounds (past 1,000 m within seconds), where throng's keeps
/// everyone (its velocity capped at `max_speed`).
#[test]
fn the_circle_under_social_force_collides_in_jupedsim_too() {
    let name = "circle of 250, social force";
    if !jupedsim_here(name) {
        return;
    }
    let mut case = Case::new(
        "scenarios/verification/steerbench_circle_250.toml",
        "social_force",
        &[7],
        &[[-80.0, -80.0], [80.0, -80.0], [80.0, 80.0], [-80.0, 80.0]],
    );
    case.contacts = true;
    let (ours, scene) = throng_run(&case, 7);
    let mut scene: serde_json::Value = serde_json::from_str(&scene).expect("JSON");
    scene["dt"] = serde_json::json!(0.01);
    let theirs = jupedsim_run(&scene.to_string());
    let (a, b) = (ours.collisions_per_agent.expect("counted"), theirs.collisions_per_agent.expect("counted"));
    eprintln!("{name}: collisions per agent: throng {a}, JuPedSim (dt 0.01) {b}");
    assert!(a > 1.0 && b > 1.0, "both above the bound of 1: throng {a}, JuPedSim {b}");
    assert!(
        ours.out_s.iter().all(Option::is_some) && theirs.out_s.iter().all(Option::is_some),
        "everyone home in both"
    );
}

/// CFSM's `corridor` preset (`time_gap = 0.6`, `strength = 10`, `range = 0.3`) at a 0.9 m
/// bottleneck, 150 walkers: throng's clogs (docs/models.md, "The experiments"), and so does
/// JuPedSim's CFSM with the same parameters, so the clog is the model's. Measured at seeds 1,
/// 2, 3: throng leaves 3 walkers at each, JuPedSim 8, 3 and 8, each of JuPedSim's stepping to
/// and fro at the full desired speed every step, as throng's do. Both engines must jam.
#[test]
fn the_corridor_preset_jams_a_narrow_door_in_jupedsim_too() {
    let name = "CFSM corridor preset at 0.9 m";
    if !jupedsim_here(name) {
        return;
    }
    let mut case = Case::new("scenarios/models/bottleneck_flow.toml", "cfsm", &[1, 3], &[]);
    case.edits = &[
        ("model = \"cfsm\"", "model = { kind = \"cfsm\", time_gap = 0.6, strength = 10, range = 0.3 }"),
        ("width = 1.2", "width = 0.9"),
    ];
    case.parameters = "\"model_parameters\": {\"strength_neighbor_repulsion\": 10, \"range_neighbor_repulsion\": 0.3}, \
                       \"agent_parameters\": {\"time_gap\": 0.6}";
    for &seed in case.seeds {
        let (ours, theirs) = beside(name, &case, seed);
        let left = |o: &Outcome| o.out_s.iter().filter(|t| t.is_none()).count();
        assert!(left(&ours) > 0 && left(&theirs) > 0, "{name}, seed {seed}: both jam ({ours:?}, {theirs:?})");
    }
}
