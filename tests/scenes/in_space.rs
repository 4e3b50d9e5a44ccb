//! Scenes in space do what their expectations claim because of the behaviour they show: the
//! asteroid field's fliers stay out of the balls and boxes by looking ahead (with
//! `avoid_obstacles` off, many times more are inside at once), and the hawks' prey keep their
//! distance by evading (with `evade` off, the hawks close in and the expectation fails).

use throng_engine::expect::Status;
use throng_engine::math::Vec3;
use throng_engine::scenario::overrides;
use throng_engine::{RunSettings, Simulation};

use crate::common::root;

/// Runs a shipped scene in space to its end with `set` overrides: the most agents inside an
/// obstacle at once, and each expectation's verdict by name.
fn run(name: &str, set: &[&str]) -> (u64, Vec<(String, Status)>) {
    let path = root().join("scenarios").join(format!("{name}.toml"));
    let sets: Vec<_> =
        set.iter().flat_map(|s| overrides::parse_set(s, "--set").expect("an override")).collect();
    let scenario = overrides::load_as::<Vec3>(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim =
        Simulation::new(&scenario, RunSettings { threads: 2, ..RunSettings::default() }).expect("a pool");
    sim.run(scenario.ticks).unwrap_or_else(|e| panic!("{e}"));
    let summary = sim.summary().expect("metrics");
    let verdicts = sim.outcomes().expect("expectations").into_iter().map(|o| (o.name, o.status)).collect();
    (summary.obstacle_penetrations, verdicts)
}

#[test]
fn fliers_avoid_the_balls_and_boxes_by_looking_ahead() {
    let (with, verdicts) = run("asteroids", &[]);
    assert!(verdicts.iter().all(|(_, s)| *s == Status::Pass), "{verdicts:?}");
    let (without, _) = run("asteroids", &["groups.fliers.behaviours.avoid_obstacles.weight=0"]);
    println!("most fliers inside an obstacle at once: {with} avoiding, {without} not");
    // Measured: 10 avoiding, 56 not.
    assert!(with > 0 && with * 3 < without, "{with} avoiding, {without} not");
}

#[test]
fn starlings_keep_from_the_hawks_by_evading() {
    let (_, verdicts) = run("hawks", &[]);
    assert!(verdicts.iter().all(|(_, s)| *s == Status::Pass), "{verdicts:?}");
    let (_, without) = run("hawks", &["groups.starlings.behaviours.evade.weight=0"]);
    let evade =
        without.iter().find(|(n, _)| n.starts_with("the starlings evade")).expect("the evasion check");
    // Measured without evasion: the hawks' mean distance to their prey falls to 0.83 by 10 s.
    assert_eq!(evade.1, Status::Fail, "{without:?}");
}

/// `--agents` scales a scene in space as a whole: eight times the asteroids' crowd doubles every
/// length, the solids' centres and sizes with the bounds, so the field keeps its density of
/// rocks (the solids stayed as they were until they were scaled too).
#[test]
fn a_scaled_scene_in_space_scales_its_solids_with_its_bounds() {
    use throng_engine::world::Solid;
    let scenario = throng_engine::Scenario::load_in_space(&root().join("scenarios/asteroids.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!scenario.obstacles.is_empty(), "the asteroids have solids");
    let big = scenario.scaled(8 * scenario.agent_count()).expect("scaled");
    assert_eq!(big.bounds.max, scenario.bounds.max * 2.0);
    for (a, b) in scenario.obstacles.iter().zip(&big.obstacles) {
        match (a, b) {
            (Solid::Ball { centre, radius }, Solid::Ball { centre: c2, radius: r2 }) => {
                assert_eq!((*c2, *r2), (*centre * 2.0, radius * 2.0));
            }
            (Solid::Cuboid { min, max }, Solid::Cuboid { min: m2, max: x2 }) => {
                assert_eq!((*m2, *x2), (*min * 2.0, *max * 2.0));
            }
            _ => panic!("a solid changed kind: {a:?} -> {b:?}"),
        }
    }
}
