//! A program running the simulation: a goal it gives steers its agent there, a removed agent is
//! gone, a bad call is refused in words and changes nothing, and the fixed-step accumulator
//! runs whole ticks of the scenario's dt whatever the host's frame time.

use throng_engine::math::Vec2;
use throng_engine::{ControlError, RunSettings, Scenario, Simulation};

use crate::determinism::host_control::village;

#[test]
fn a_goal_the_program_gives_steers_its_agent_there() {
    let mut sim = Simulation::new(&village(), RunSettings::embedded(1)).expect("a simulation");
    let id = sim.spawn(0, Vec2::new(5.0, 5.0)).expect("room");
    sim.run(40).expect("finite");
    let row = sim.row_of(id).expect("alive");
    let still = sim.world().agents.position[row];
    assert!((still - Vec2::new(5.0, 5.0)).length() < 0.05, "without a goal it stays put: {still}");
    sim.set_goal(id, Vec2::new(30.0, 25.0)).expect("a villager takes errands");
    sim.run(800).expect("finite");
    let row = sim.row_of(id).expect("alive");
    let at = sim.world().agents.position[row];
    assert!((at - Vec2::new(30.0, 25.0)).length() < 0.3, "it walked to its goal: {at}");
}

#[test]
fn a_despawned_agent_is_gone_and_counted_as_removed() {
    let mut sim = Simulation::new(&village(), RunSettings::embedded(1)).expect("a simulation");
    let ids: Vec<u32> = (0..5).map(|k| sim.spawn(0, Vec2::new(3.0 + k as f32, 3.0)).expect("room")).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4], "ids in spawn order");
    sim.step().expect("finite");
    sim.despawn(2).expect("alive");
    assert_eq!(sim.row_of(2), None);
    assert_eq!(sim.world().agents.len(), 4);
    assert_eq!(sim.world().removed, 1);
    assert_eq!(sim.despawn(2), Err(ControlError::NoAgent { id: 2 }));
    assert_eq!(sim.spawn(0, Vec2::new(1.0, 1.0)), Ok(5), "ids are never reused");
}

#[test]
fn bad_calls_are_refused_in_words_and_change_nothing() {
    let mut sim = Simulation::new(&village(), RunSettings::embedded(1)).expect("a simulation");
    sim.spawn(0, Vec2::new(3.0, 3.0)).expect("room");
    let before = sim.hash();
    let refused = [
        sim.spawn(4, Vec2::new(1.0, 1.0)).unwrap_err().to_string(),
        sim.spawn(0, Vec2::new(f32::NAN, 1.0)).unwrap_err().to_string(),
        sim.despawn_all(&[0, 9]).unwrap_err().to_string(),
        sim.set_goal(7, Vec2::new(1.0, 1.0)).unwrap_err().to_string(),
        sim.set_goal(0, Vec2::new(1.0, f32::INFINITY)).unwrap_err().to_string(),
        sim.query_radius(Vec2::new(1.0, 1.0), -1.0).unwrap_err().to_string(),
        sim.group_named("wolves").unwrap_err().to_string(),
    ];
    assert_eq!(
        refused,
        [
            "no group 4: the scenario has 1 groups (0 to 0)",
            "the position must be finite, found Vec2(NaN, 1.0)",
            "no live agent has id 9",
            "no live agent has id 7",
            "the goal must be finite, found Vec2(1.0, inf)",
            "the radius must be at least 0, found -1",
            "no group is named \"wolves\"",
        ]
    );
    assert_eq!(sim.hash(), before, "a refused call changes nothing");
    assert_eq!(sim.world().agents.len(), 1, "despawn_all removed none when one id was not alive");

    // A group that steers by no `own` target cannot be given goals.
    let doorway = Scenario::load(&crate::common::root().join("scenarios/doorway.toml")).expect("doorway");
    let mut sim = Simulation::new(&doorway, RunSettings::embedded(1)).expect("a simulation");
    let e = sim.set_goal(0, Vec2::new(1.0, 1.0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "agent 0's group \"crowd\" steers by no `kind = \"own\"` target, so a goal set for it would steer nothing"
    );
}

#[test]
fn advance_runs_whole_ticks_of_dt_and_carries_the_rest() {
    // dt = 0.25 s, exact in binary, so the expected counts are exact too.
    let text = crate::determinism::host_control::VILLAGE.replace("dt = 0.05", "dt = 0.25");
    assert!(text.contains("dt = 0.25"));
    let scenario = Scenario::parse(&text, "village.toml").expect("valid");
    let mut sim = Simulation::new(&scenario, RunSettings::embedded(1)).expect("a simulation");
    let step = sim.advance(0.625, 10).expect("finite");
    assert_eq!((step.ticks, step.alpha), (2, 0.5));
    let step = sim.advance(0.125, 10).expect("finite");
    assert_eq!((step.ticks, step.alpha), (1, 0.0));
    // A long stall runs at most `max_ticks` and drops the rest.
    let step = sim.advance(100.0, 3).expect("finite");
    assert_eq!((step.ticks, step.alpha, sim.tick()), (3, 0.0, 6));
    // No time, negative time or NaN runs nothing.
    for elapsed in [0.0, -1.0, f64::NAN] {
        assert_eq!(sim.advance(elapsed, 10).expect("finite").ticks, 0);
    }
    assert_eq!(sim.tick(), 6);
}

#[test]
fn neighbours_of_keeps_the_groups_nearest_few() {
    let mut sim = Simulation::new(&village(), RunSettings::embedded(1)).expect("a simulation");
    // Fifteen villagers on a line 0.1 apart: each has more within 3 m than its group keeps (8).
    for k in 0..15 {
        sim.spawn(0, Vec2::new(10.0 + 0.1 * k as f32, 10.0)).expect("room");
    }
    assert_eq!(sim.neighbours_of(7).expect("alive"), [6, 8, 5, 9, 4, 10, 3, 11]);
    assert_eq!(sim.neighbours_of(0).expect("alive"), [1, 2, 3, 4, 5, 6, 7, 8]);
}
