//! A scenario in space (`dimensions = 3`) runs through the same pipeline as the plane's: a bird flock
//! (separation, alignment, cohesion, cruise, a moving target it follows, wander on a sphere)
//! with hawks pursuing the nearest bird and birds evading the nearest hawk, in a wrapped box.
//! Its per-tick state hashes are the same at 1, 2, 3, 4 and 8 threads, with every index, with
//! the rows reordered (3D Morton) at any interval and with reused sensing candidates; and it
//! really is three-dimensional.

use throng_engine::math::Vec3;
use throng_engine::{IndexKind, Pipeline, Scenario, World, state_hash};

/// The flock as a scenario file in space.
const BIRDS: &str = r#"
version = 1
name = "birds in space"
dimensions = 3
seed = 7
dt = 0.1
ticks = 40
[bounds]
kind = "wrap"
min = [0, 0, 0]
max = [40, 40, 40]
[targets.beacon]
kind = "moving"
waypoints = [[10, 10, 10], [30, 10, 20], [30, 30, 30]]
speed = 2.0
[targets.hawk]
kind = "nearest"
group = "hawks"
[targets.bird]
kind = "nearest"
group = "birds"
[[groups]]
name = "birds"
count = 600
spawn = { kind = "rect", min = [0, 0, 0], max = [40, 40, 40] }
max_speed = 3.0
max_force = 2.0
max_neighbours = 12
behaviours = [
  { kind = "separation", radius = 1.5, weight = 1.5 },
  { kind = "alignment", radius = 4.0 },
  { kind = "cohesion", radius = 4.0, form = "unity" },
  { kind = "cruise", speed = 1.0, weight = 0.5 },
  { kind = "flock_target", target = "beacon", speed = 1.0, weight = 0.3 },
  { kind = "wander", radius = 1.0, distance = 2.0, jitter = 1.0, weight = 0.2 },
  { kind = "evade", target = "hawk", weight = 0.5 },
]
[[groups]]
name = "hawks"
count = 6
spawn = { kind = "circle", centre = [20, 20, 20], radius = 5 }
max_speed = 3.5
max_force = 2.0
behaviours = [{ kind = "pursuit", target = "bird" }]
"#;

/// The flock in its wrapped 40³ box: 600 birds uniform in it, 6 hawks in a ball at the middle.
fn world() -> World<Vec3> {
    Scenario::<Vec3>::parse_as(BIRDS, "birds.toml").unwrap_or_else(|e| panic!("{e}")).build_world()
}

/// The state hash after every tick.
fn hashes(ticks: u64, threads: usize, index: IndexKind, reorder_every: u64, skin: f32) -> Vec<String> {
    let mut world = world();
    let mut pipeline: Pipeline<Vec3> = Pipeline::new(threads, index).expect("thread pool");
    pipeline.set_reorder_every(reorder_every);
    pipeline.set_sensing_skin(skin);
    (0..ticks)
        .map(|_| {
            pipeline.step(&mut world).unwrap_or_else(|e| panic!("{e}"));
            state_hash(&world).to_hex()
        })
        .collect()
}

#[test]
fn a_flock_in_space_gives_the_same_hashes_at_every_thread_count_index_order_and_skin() {
    let ticks = 40;
    let reference = hashes(ticks, 1, IndexKind::Brute, 0, 0.0);
    for threads in [1, 2, 3, 4, 8] {
        for index in [IndexKind::Kd, IndexKind::Grid, IndexKind::Auto, IndexKind::Brute] {
            assert_eq!(hashes(ticks, threads, index, 20, 0.0), reference, "{threads} threads, {index}");
        }
    }
    for (reorder, skin) in [(1, 0.0), (7, 0.0), (20, 0.5), (7, 1.5)] {
        assert_eq!(
            hashes(ticks, 2, IndexKind::Kd, reorder, skin),
            reference,
            "reorder {reorder}, skin {skin}"
        );
    }
}

#[test]
fn the_flock_moves_in_all_three_dimensions() {
    let mut world = world();
    let start: Vec<Vec3> = world.agents.position.clone();
    let mut pipeline: Pipeline<Vec3> = Pipeline::new(2, IndexKind::Kd).expect("thread pool");
    for _ in 0..50 {
        pipeline.step(&mut world).unwrap_or_else(|e| panic!("{e}"));
    }
    let a = &world.agents;
    assert_eq!(a.len(), 606);
    // Every bird's velocity has a vertical part, and the vertical moves are as large as the
    // horizontal ones would be in an isotropic flock (not a plane with a z column).
    // Rows are reordered as the run goes; at spawn, row = id.
    let moved: Vec<Vec3> =
        a.position.iter().zip(&a.id).map(|(p, &id)| world.bounds.offset(start[id as usize], *p)).collect();
    let mean_abs = |axis: usize| moved.iter().map(|m| m[axis].abs()).sum::<f32>() / moved.len() as f32;
    let (x, z) = (mean_abs(0), mean_abs(2));
    assert!(z > 0.3 * x && z > 0.5, "vertical travel {z} against horizontal {x}");
    assert!(a.velocity.iter().filter(|v| v.z.abs() > 1e-3).count() > 590);
    // The wander point lies on its sphere of radius 1.
    let birds = (0..a.len()).filter(|&r| a.group[r] == 0);
    assert!(birds.clone().all(|r| (a.wander[r].length() - 1.0).abs() < 1e-4));
    // Every point is inside the box.
    assert!(a.position.iter().all(|p| p.cmpge(Vec3::ZERO).all() && p.cmplt(Vec3::splat(40.0)).all()));
    // The hawks (ids 600 to 605) spawned inside their ball.
    assert!(start[600..].iter().all(|p| (*p - Vec3::splat(20.0)).length() <= 5.0 + 1e-4));
}

/// Solid obstacles in space (the asteroid field with `solid_obstacles = true`, so bodies are
/// pushed out of the balls and boxes after every tick) give the same per-tick hashes at every
/// thread count and with every index, and leave no body inside a solid.
#[test]
fn solids_in_space_push_out_the_same_at_every_thread_count_and_index() {
    use throng_engine::scenario::overrides;
    let path = crate::common::root().join("scenarios/asteroids.toml");
    let sets = overrides::parse_set("solid_obstacles=true", "--set").expect("an override");
    let scenario = overrides::load_as::<Vec3>(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let run = |threads: usize, index: IndexKind| -> (Vec<String>, World<Vec3>) {
        let mut world = scenario.build_world();
        let mut pipeline: Pipeline<Vec3> = Pipeline::new(threads, index).expect("thread pool");
        let hashes = (0..150)
            .map(|_| {
                pipeline.step(&mut world).unwrap_or_else(|e| panic!("{e}"));
                state_hash(&world).to_hex()
            })
            .collect();
        (hashes, world)
    };
    let (reference, world) = run(1, IndexKind::Kd);
    for index in [IndexKind::Kd, IndexKind::Grid, IndexKind::Auto, IndexKind::Brute] {
        for threads in [1, 2, 3, 4, 8] {
            assert_eq!(run(threads, index).0, reference, "{threads} threads, {index} index");
        }
    }
    // Every body ends each tick outside every solid (to the push-out's rounding).
    let inside = world
        .agents
        .position
        .iter()
        .zip(&world.agents.radius)
        .filter(|&(&p, &r)| {
            world.obstacles.iter().any(|o| r - o.signed_distance(o.local(&world.bounds, p)) > 1e-3)
        })
        .count();
    assert_eq!(inside, 0);
}
