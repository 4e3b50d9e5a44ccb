//! SteerBench's measures (`[metrics] steerbench = true`), recomputed here from the world after
//! every tick: unique collisions (a contact, more than 1 mm deep, that begins), seconds alive
//! and `Σ ½ |v|² · dt · 20`, and the composite score `50 · collisions + time + energy`,
//! averaged over the agents.

use throng_engine::{RunSettings, Scenario, Simulation};

/// Three walkers head east and three head west on the lines y = 0, 2 and 4 (radius 0.5, so
/// only the two on a line ever touch: once, passing through each other, as steering bodies
/// do); on y = 4 a circle stands at x = 5 that is not solid, so both walkers there also walk
/// through it. Collisions: 1, 1, 2 on each side, a mean of 4/3; all live the 15 s.
const SCENE: &str = r#"version = 1
name = "steerbench"
seed = 1
dt = 0.1
ticks = 150
solid_obstacles = false
obstacles = [{ kind = "circle", centre = [5, 4], radius = 0.5 }]

[metrics]
steerbench = true

[bounds]
min = [-20, -5]
max = [30, 10]

[targets.east]
kind = "direction"
direction = [1, 0]

[targets.west]
kind = "direction"
direction = [-1, 0]

[[groups]]
name = "eastbound"
spawn = { kind = "points", points = [[0, 0], [0, 2], [0, 4]] }
max_speed = 1.0
max_force = 5.0

[[groups.behaviours]]
kind = "seek"
target = "east"

[[groups]]
name = "westbound"
spawn = { kind = "points", points = [[10, 0], [10, 2], [10, 4]] }
max_speed = 1.0
max_force = 5.0

[[groups.behaviours]]
kind = "seek"
target = "west"

[[expect]]
name = "the composite score"
check = "end"
metric = "steerbench.score"
min = 0
"#;

#[test]
fn steerbench_measures_are_counted_as_steersuite_counts_them() {
    let scenario = Scenario::parse(SCENE, "steerbench.toml").expect("valid");
    let mut sim =
        Simulation::new(&scenario, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation");
    let n = 6;
    let (mut collisions, mut ticks, mut energy) = (vec![0u32; n], vec![0u64; n], vec![0.0f64; n]);
    let (mut touching, mut inside) = (vec![false; n * n], vec![false; n]);
    for _ in 0..150 {
        sim.step().expect("a step");
        let w = sim.world();
        let a = &w.agents;
        let mut pos = vec![None; n];
        for r in 0..a.len() {
            let id = a.id[r] as usize;
            pos[id] = Some((a.position[r], a.radius[r]));
            ticks[id] += 1;
            energy[id] += 0.5 * (a.velocity[r].length_squared() as f64) * w.dt as f64 * 20.0;
        }
        for i in 0..n {
            for j in i + 1..n {
                let (Some((p, r)), Some((q, s))) = (pos[i], pos[j]) else { continue };
                let now = (r + s) - (p - q).length() > 1e-3;
                if now && !touching[i * n + j] {
                    collisions[i] += 1;
                    collisions[j] += 1;
                }
                touching[i * n + j] = now;
            }
            let Some((p, r)) = pos[i] else { continue };
            let now = r + 0.5 - (p - throng_engine::math::Vec2::new(5.0, 4.0)).length() > 1e-3;
            if now && !inside[i] {
                collisions[i] += 1;
            }
            inside[i] = now;
        }
    }
    assert_eq!(
        collisions,
        vec![1, 1, 2, 1, 1, 2],
        "each pair on a line meets once; y = 4 also walks through the circle"
    );
    let b = sim.summary().expect("metrics").steerbench.expect("steerbench is on");
    assert_eq!(b.agents, 6);
    assert_eq!(b.collisions, 8.0 / 6.0);
    assert_eq!(b.time_s, 150.0 * 0.1f32 as f64, "150 ticks of dt (an f32)");
    let mean_energy = energy.iter().sum::<f64>() / 6.0;
    assert!((b.energy - mean_energy).abs() < 1e-9 * mean_energy, "{} vs {mean_energy}", b.energy);
    // At 1 unit/s most of the 15 s: about ½ · 1 · 15 s · 20 = 150 per agent, less the start.
    assert!(b.energy > 120.0 && b.energy < 150.0, "{}", b.energy);
    assert!((b.score - (50.0 * b.collisions + b.time_s + b.energy)).abs() < 1e-9);
    // The expectation reads it at the end.
    let outcomes = sim.outcomes().expect("expectations");
    assert_eq!(outcomes[0].value, Some(b.score));
}

#[test]
fn steerbench_metrics_need_steerbench_on() {
    let text = SCENE.replace("[metrics]\nsteerbench = true\n", "");
    let e = Scenario::parse(&text, "steerbench.toml").expect_err("refused");
    let msg = e.to_string();
    assert!(msg.contains("`expect[0].metric`") && msg.contains("steerbench = true"), "{msg}");
    let text = SCENE.replace("check = \"end\"\n", "check = \"always\"\n");
    let msg = Scenario::parse(&text, "steerbench.toml").expect_err("refused").to_string();
    assert!(msg.contains("only be checked at the end"), "{msg}");
}

/// SteerBench's measures are the same bits at any thread count and after a checkpoint and
/// resume: per-agent counts and sums, means in id order (the forest, 48 agents among trees).
#[test]
fn steerbench_measures_do_not_depend_on_threads_or_a_resume() {
    let path = crate::common::root().join("scenarios/verification/steerbench_forest.toml");
    let scenario = crate::common::load(&path);
    let run = |threads: usize| {
        let mut sim = Simulation::new(&scenario, RunSettings { threads, ..RunSettings::default() })
            .expect("simulation");
        for _ in 0..600 {
            sim.step().expect("a step");
        }
        sim.summary().expect("metrics").steerbench.expect("steerbench is on")
    };
    let reference = run(2);
    assert!(reference.collisions > 0.0 || reference.energy > 0.0, "{reference:?}");
    for threads in [1, 3, 4, 8] {
        assert_eq!(run(threads), reference, "{threads} threads");
    }
    // Saved at tick 300 and resumed: the same summary at 600.
    let dir = crate::common::scratch_dir("steerbench_resume");
    let ckpt = dir.join("at300.ckpt");
    let mut sim =
        Simulation::new(&scenario, RunSettings { threads: 3, ..RunSettings::default() }).expect("simulation");
    for _ in 0..300 {
        sim.step().expect("a step");
    }
    sim.save_checkpoint(&ckpt).expect("saved");
    let mut resumed =
        Simulation::resume(&scenario, &ckpt, RunSettings { threads: 2, ..RunSettings::default() })
            .expect("resumed");
    for _ in 0..300 {
        resumed.step().expect("a step");
    }
    assert_eq!(resumed.summary().expect("metrics").steerbench.expect("on"), reference);
}
