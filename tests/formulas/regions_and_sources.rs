//! Regions (containment and uniform sampling) and spawn sources (agents due by a time).

use throng_engine::Scenario;
use throng_engine::math::Vec2;
use throng_engine::rng::{Purpose, agent_rng};
use throng_engine::world::{Region, Source};

use crate::common::v;

#[test]
fn region_contains_is_inclusive() {
    let r = Region::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    for p in [v(0.0, 0.0), v(4.0, 2.0), v(2.0, 1.0), v(4.0, 0.0)] {
        assert!(r.contains(p), "{p}");
    }
    for p in [v(4.001, 1.0), v(2.0, -0.001), v(-1.0, 1.0), v(2.0, 2.5)] {
        assert!(!r.contains(p), "{p}");
    }
    // Circle centre (1, 1), radius 2: (3, 1) is on it (4 <= 4); (2.5, 2.5) is 1.5² + 1.5² = 4.5 > 4.
    let c = Region::Circle { centre: v(1.0, 1.0), radius: 2.0 };
    for p in [v(3.0, 1.0), v(1.0, -1.0), v(1.0, 1.0), v(2.0, 2.0)] {
        assert!(c.contains(p), "{p}");
    }
    for p in [v(2.5, 2.5), v(3.0, 1.01), v(-1.1, 1.0)] {
        assert!(!c.contains(p), "{p}");
    }
}

#[test]
fn region_samples_fill_the_region_uniformly() {
    const N: usize = 20_000;
    let mut rng = agent_rng(5, 77, Purpose::Spawn);
    // Rect (10, -4)-(14, 4): every sample inside, the extremes within 1% of the edges, the mean
    // within 2% of the size from the centre (12, 0).
    let r = Region::Rect { min: v(10.0, -4.0), max: v(14.0, 4.0) };
    let samples: Vec<Vec2> = (0..N).map(|_| r.sample(&mut rng)).collect();
    assert!(samples.iter().all(|&p| r.contains(p)));
    let lo = samples.iter().fold(Vec2::splat(f32::MAX), |a, &p| a.min(p));
    let hi = samples.iter().fold(Vec2::splat(f32::MIN), |a, &p| a.max(p));
    assert!(lo.x < 10.04 && lo.y < -3.92 && hi.x > 13.96 && hi.y > 3.92, "{lo} {hi}");
    let mean = samples.iter().sum::<Vec2>() / N as f32;
    assert!((mean - v(12.0, 0.0)).abs().cmplt(v(0.08, 0.16)).all(), "mean {mean}");
    // Circle centre (-3, 2), radius 5: all inside; uniform over the area, so about a quarter
    // (r < R/2 has 1/4 of the area) fall in the inner half radius, and some reach the rim.
    let c = Region::Circle { centre: v(-3.0, 2.0), radius: 5.0 };
    let samples: Vec<Vec2> = (0..N).map(|_| c.sample(&mut rng)).collect();
    assert!(samples.iter().all(|&p| c.contains(p)));
    let inner = samples.iter().filter(|&&p| (p - v(-3.0, 2.0)).length() < 2.5).count() as f32 / N as f32;
    assert!((0.23..0.27).contains(&inner), "inner fraction {inner}");
    let rim = samples.iter().map(|&p| (p - v(-3.0, 2.0)).length()).fold(0.0, f32::max);
    assert!(rim > 4.95, "{rim}");
    // All four quadrants around the centre are used about equally (a quarter each, ±2%).
    for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        let q = samples.iter().filter(|&&p| (p.x + 3.0) * sx > 0.0 && (p.y - 2.0) * sy > 0.0).count() as f32
            / N as f32;
        assert!((0.23..0.27).contains(&q), "quadrant ({sx}, {sy}): {q}");
    }
}

/// A spawn source as the scenario loader builds it.
fn source(rate: f32, start_s: f32, end_s: f32, max_agents: u32) -> Source {
    let text = format!(
        r#"version = 1
name = "s"
seed = 1
dt = 0.1
ticks = 10
[bounds]
min = [0, 0]
max = [10, 10]
[[groups]]
name = "g"
count = 1
spawn = {{ kind = "points", points = [[1, 1]] }}
max_speed = 1.0
max_force = 1.0
[[sources]]
name = "s"
group = "g"
kind = "rect"
min = [0, 0]
max = [1, 1]
rate = {rate}
start_s = {start_s}
end_s = {end_s}
max_agents = {max_agents}
"#
    );
    Scenario::parse(&text, "s").unwrap_or_else(|e| panic!("{e}")).sources.remove(0)
}

#[test]
fn source_due_by_follows_rate_start_end_and_max() {
    // rate 2/s from 1 s to 5 s: floor(2 * (min(t, 5) - 1)), never below 0.
    let s = source(2.0, 1.0, 5.0, 100);
    for (t, due) in
        [(0.0, 0), (0.5, 0), (1.0, 0), (1.5, 1), (2.25, 2), (3.0, 4), (5.0, 8), (6.0, 8), (100.0, 8)]
    {
        assert_eq!(s.due_by(t, 0.1), due, "t = {t}");
    }
    // The same capped at 5 agents: 4 by 3 s, then 5.
    let s = source(2.0, 1.0, 5.0, 5);
    for (t, due) in [(3.0, 4), (3.5, 5), (5.0, 5), (100.0, 5)] {
        assert_eq!(s.due_by(t, 0.1), due, "t = {t}");
    }
    // Rate 0 never spawns.
    assert_eq!(source(0.0, 0.0, 5.0, 10).due_by(4.0, 0.1), 0);
    // Rate 12.5/s from 0: 1 by 0.1 s (1.25), 2 by 0.2 s (2.5), 12 by 1 s (12.5), 125 by 10 s.
    let s = source(12.5, 0.0, 100.0, 1000);
    for (t, due) in [(0.1, 1), (0.2, 2), (1.0, 12), (10.0, 125)] {
        assert_eq!(s.due_by(t, 0.1), due, "t = {t}");
    }
}

#[test]
fn source_due_by_does_not_drift_over_many_ticks() {
    // 10 agents per second with dt = 0.1 (f32, slightly above 0.1): exactly k agents by the end
    // of tick k, evaluated the way the pipeline does, (k as f64) * (dt as f64).
    let s = source(10.0, 0.0, 1000.0, 100_000);
    let dt = 0.1f32;
    for k in 0..=5000u32 {
        assert_eq!(s.due_by(k as f64 * dt as f64, 0.1), k, "tick {k}");
    }
}

/// A `"goal"` exit removes each agent within its radius of its own goal: four walkers on a
/// circle of radius 10, each seeking the point opposite (an `opposite` target), leave one by
/// one as they get within 1 of it, after about 19 s at 1 unit/s; a group without a goal of its
/// own cannot use such an exit, and the exit needs its radius.
#[test]
fn a_goal_exit_takes_each_agent_at_its_own_goal() {
    use throng_engine::{RunSettings, Scenario, Simulation};
    let text = r#"version = 1
name = "antipodes"
seed = 1
dt = 0.1
ticks = 400

[bounds]
min = [-15, -15]
max = [15, 15]

[targets.opposite]
kind = "opposite"
centre = [0, 0]

[[exits]]
name = "arrived"
kind = "goal"
radius = 1

[[groups]]
name = "walkers"
spawn = { kind = "points", points = [[10, 0.5], [-0.5, 10], [-10, -0.5], [0.5, -10]] }
max_speed = 1.0
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = "opposite"
"#;
    let s = Scenario::parse(text, "antipodes.toml").expect("valid");
    let mut sim = Simulation::new(&s, RunSettings::default()).expect("simulation");
    let mut left_at = Vec::new();
    for _ in 0..400 {
        let before = sim.world().agents.len();
        sim.step().expect("a step");
        for _ in sim.world().agents.len()..before {
            left_at.push(sim.world().time_s());
        }
    }
    assert_eq!(left_at.len(), 4, "everyone reaches the point opposite: {left_at:?}");
    // 19 units to within 1 of the goal, at up to 1 unit/s (they pass the middle together, and
    // the bodies of the steering model pass through each other).
    for t in &left_at {
        assert!((19.0..23.0).contains(t), "{left_at:?}");
    }
    // A group with no goal of its own is refused, naming it; so is a goal exit without radius.
    let plain = text.replace("target = \"opposite\"", "target = [0, 0]");
    let msg = Scenario::parse(&plain, "antipodes.toml").expect_err("refused").to_string();
    assert!(
        msg.contains("`exits[0].kind`") && msg.contains("group \"walkers\" has no goal of its own"),
        "{msg}"
    );
    let bare = text.replace("radius = 1\n", "");
    let msg = Scenario::parse(&bare, "antipodes.toml").expect_err("refused").to_string();
    assert!(msg.contains("missing key `radius` for a \"goal\" exit"), "{msg}");
}
