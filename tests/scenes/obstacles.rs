//! Obstacles: one agent through a dense forest, a thousand against a wall, and solid or
//! passable obstacles.

use throng_engine::index::penetration;
use throng_engine::math::Vec2;
use throng_engine::metrics::MetricsCollector;
use throng_engine::world::Obstacle;
use throng_engine::{IndexKind, Pipeline, state_hash};

use super::{parse, step};

/// A 64-bit LCG (Knuth's MMIX constants): uniform in [0, 1) from the top 24 bits.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` circles of radius 0.5 to 1.5 in x ∈ [10, 390], y ∈ [-100, 100], at least 1.5 apart
/// (wider than an agent of radius 0.5), so a way through always exists.
fn forest(n: usize, seed: u64) -> Vec<Obstacle> {
    let mut rng = Lcg(seed);
    let mut trees: Vec<Obstacle> = Vec::with_capacity(n);
    while trees.len() < n {
        let centre = Vec2::new(10.0 + rng.next() * 380.0, rng.next() * 200.0 - 100.0);
        let radius = 0.5 + rng.next();
        let clear = trees.iter().all(|t| match *t {
            Obstacle::Circle { centre: c, radius: r } => (c - centre).length() >= r + radius + 1.5,
            _ => unreachable!(),
        });
        if clear {
            trees.push(Obstacle::Circle { centre, radius });
        }
    }
    trees
}

#[test]
fn one_agent_crosses_a_dense_forest_without_touching_a_tree() {
    // Measured for seeds 1, 2, 3: arrives at ticks 2239, 2201, 2195 (a straight walk takes
    // 2,050), with 69, 86, 49 ticks in contact (within 0.05) with a tree on the way. With the
    // avoidance force zeroed it still arrives (sliding along the trees, 2510, 2397, 2379) but
    // is in contact for 598, 471, 420 ticks: the upper contact bound checks that it steers around.
    let text = r#"version = 1
name = "forest"
seed = 1
dt = 0.1
ticks = 2600
[bounds]
min = [-20, -120]
max = [420, 120]
[targets.far]
kind = "point"
position = [410, 0]
[[groups]]
name = "walker"
count = 1
spawn = { kind = "points", points = [[0, 0]] }
max_speed = 2.0
max_force = 4.0
radius = 0.5
[[groups.behaviours]]
kind = "seek"
target = "far"
[[groups.behaviours]]
kind = "avoid_obstacles"
weight = 2.0
see_ahead = 4.0
max_avoid_force = 4.0
"#;
    let scenario = parse(text, "forest");
    let goal = Vec2::new(410.0, 0.0);
    for seed in [1, 2, 3] {
        let mut world = scenario.build_world();
        world.obstacles = forest(2000, seed);
        let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
        let mut metrics = MetricsCollector::new(scenario.metrics, &world);
        let mut contacts = 0;
        while world.tick < 2600 && (world.agents.position[0] - goal).length() >= 1.0 {
            let m = step(&mut world, &mut pipeline, &mut metrics);
            assert_eq!(m.obstacle_penetrations, 0, "seed {seed}: inside a tree at tick {}", m.tick);
            let index = pipeline.obstacle_index().expect("obstacle index");
            if penetration(index, &world.obstacles, world.agents.position[0], 0.55) > 0.0 {
                contacts += 1;
            }
        }
        let p = world.agents.position[0];
        eprintln!("forest seed {seed}: at {p} at tick {}, {contacts} ticks in contact", world.tick);
        assert!((p - goal).length() < 1.0, "seed {seed}: stuck at {p} at tick {}", world.tick);
        assert!(
            contacts >= 10,
            "seed {seed}: only {contacts} ticks near a tree; the forest is not in the way"
        );
        assert!(
            contacts <= 200,
            "seed {seed}: {contacts} ticks in contact; the agent does not avoid the trees"
        );
    }
}

/// 1,000 seekers behind a long wall (x from 50 to 52), pressing against it.
const WALL: &str = r#"version = 1
name = "wall"
seed = 5
dt = 0.1
ticks = 400
obstacles = [ { kind = "rect", min = [50, -200], max = [52, 200] } ]
[bounds]
min = [0, -100]
max = [100, 100]
[targets.beyond]
kind = "point"
position = [90, 0]
[[groups]]
name = "crowd"
count = 1000
spawn = { kind = "rect", min = [5, -40], max = [45, 40] }
max_speed = 2.0
max_force = 3.0
radius = 0.4
max_neighbours = 8
[[groups.behaviours]]
kind = "seek"
target = "beyond"
[[groups.behaviours]]
kind = "separation"
weight = 1.5
radius = 1.0
max_separation = 2.0
"#;

#[test]
fn a_thousand_agents_pressed_against_a_wall_stay_out_of_it() {
    // Measured: after 400 ticks 445 agents are within 1 of the wall's face (x = 50), none
    // inside it, and the k-d and brute runs agree at every tick.
    let scenario = parse(WALL, "wall");
    let mut kd = scenario.build_world();
    let mut brute = scenario.build_world();
    let mut kd_pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let mut brute_pipeline = Pipeline::new(2, IndexKind::Brute).unwrap();
    let mut metrics = MetricsCollector::new(scenario.metrics, &kd);
    for _ in 0..400 {
        let m = step(&mut kd, &mut kd_pipeline, &mut metrics);
        brute_pipeline.step(&mut brute).unwrap();
        assert_eq!(m.obstacle_penetrations, 0, "an agent inside the wall at tick {}", m.tick);
        assert_eq!(m.agents_active, 1000);
        assert_eq!(state_hash(&kd), state_hash(&brute), "k-d and brute differ at tick {}", kd.tick);
    }
    let xs = &kd.agents.position;
    let pressed = xs.iter().filter(|p| p.x > 49.0).count();
    let deepest = xs.iter().map(|p| p.x).fold(f32::MIN, f32::max);
    eprintln!("wall: {pressed} agents within 1 of the wall, largest x {deepest}");
    assert!(pressed >= 300, "only {pressed} agents reached the wall");
    // The wall's face is at x = 50 and the bodies' radius 0.4: nobody's centre is past 49.6.
    assert!(deepest <= 49.6 + 1e-3, "an agent's centre at x = {deepest} puts its body inside the wall");
}

#[test]
fn without_solid_obstacles_an_agent_walks_through() {
    // A seeker with no avoidance heads straight through a circle of radius 2 at (10, 0).
    // Measured: solid, it stops against it at x = 7.5 (10 - 2 - 0.5) with no penetration;
    // not solid, it is inside for 25 ticks and walks on to its target.
    let text = |solid: bool| {
        format!(
            r#"version = 1
name = "solid"
seed = 1
dt = 0.1
ticks = 150
solid_obstacles = {solid}
obstacles = [ {{ kind = "circle", centre = [10, 0], radius = 2 }} ]
[bounds]
min = [-10, -10]
max = [30, 10]
[targets.far]
kind = "point"
position = [20, 0]
[[groups]]
name = "walker"
count = 1
spawn = {{ kind = "points", points = [[0, 0]] }}
max_speed = 2.0
max_force = 2.0
radius = 0.5
[[groups.behaviours]]
kind = "seek"
target = "far"
"#
        )
    };
    let mut inside_ticks = [0, 0];
    let mut end_x = [0.0, 0.0];
    for (k, solid) in [true, false].into_iter().enumerate() {
        let scenario = parse(&text(solid), "solid");
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
        let mut metrics = MetricsCollector::new(scenario.metrics, &world);
        for _ in 0..150 {
            if step(&mut world, &mut pipeline, &mut metrics).obstacle_penetrations > 0 {
                inside_ticks[k] += 1;
            }
        }
        end_x[k] = world.agents.position[0].x;
    }
    eprintln!(
        "solid: inside {} ticks, ends at x {}; not solid: inside {} ticks, ends at x {}",
        inside_ticks[0], end_x[0], inside_ticks[1], end_x[1]
    );
    assert_eq!(inside_ticks[0], 0);
    assert!(end_x[0] <= 7.5 + 1e-3, "the solid obstacle let the agent through to x = {}", end_x[0]);
    assert!(inside_ticks[1] >= 10, "without solid obstacles the agent should pass through the circle");
    assert!(end_x[1] > 19.0, "ends at x = {}", end_x[1]);
}

#[test]
fn a_step_through_a_thin_wall_counts_as_a_crossing_though_no_body_ends_inside_it() {
    // A walker seeks (20, 0) through a wall along x = 10, 0.1 thick. At 30 units/s (3 a tick)
    // its first step takes its centre from 8.6 to 11.6, past the wall: `collide` finds no body
    // inside anything, but the step went through, once. At 1 unit/s it walks into the wall's
    // face and is pushed back each tick: no crossing, and before each push-out its body
    // reaches into the wall, at most one step (0.1) deep.
    let text = |speed: f32| {
        format!(
            r#"version = 1
name = "thin"
seed = 1
dt = 0.1
ticks = 60
obstacles = [ {{ kind = "wall", points = [[10, -5], [10, 5]], thickness = 0.1 }} ]
[bounds]
min = [0, -10]
max = [30, 10]
[targets.far]
kind = "point"
position = [20, 0]
[[groups]]
name = "walker"
count = 1
spawn = {{ kind = "points", points = [[8.6, 0]] }}
max_speed = {speed}
max_force = 1000.0
radius = 0.2
[[groups.behaviours]]
kind = "seek"
target = "far"
"#
        )
    };
    let run = |speed: f32| {
        let scenario = parse(&text(speed), "thin");
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
        let mut metrics = MetricsCollector::new(scenario.metrics, &world);
        let (mut inside, mut deepest) = (0, 0.0f64);
        for _ in 0..60 {
            let m = step(&mut world, &mut pipeline, &mut metrics);
            inside += m.obstacle_penetrations;
            deepest = deepest.max(m.wall_depth);
        }
        (inside, metrics.summary(&world).wall_crossings, deepest, world.agents.position[0].x)
    };
    let (inside, crossings, _, x) = run(30.0);
    assert_eq!((inside, crossings), (0, 1), "ends at x = {x}");
    assert!(x > 10.0, "the fast walker is past the wall: x = {x}");
    let (inside, crossings, deepest, x) = run(1.0);
    assert_eq!((inside, crossings), (0, 0), "ends at x = {x}");
    assert!((x - (10.0 - 0.05 - 0.2)).abs() < 1e-3, "held at the wall's face: x = {x}");
    assert!((0.01..=0.1 + 1e-4).contains(&deepest), "at most a step in before the push-out: {deepest}");
}
