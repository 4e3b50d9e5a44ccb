//! Shared setup for throng's criterion benchmarks: worlds are built and warmed here, never
//! inside a timed routine.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

/// A file under the repository's `scenarios/`.
pub fn scenario_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenarios").join(name)
}

pub fn load(name: &str) -> Scenario {
    Scenario::load(&scenario_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenario` scaled to `agents` at its density, after `warmup` ticks, without metrics (so every
/// pass's scratch is valid, and a tick is the passes alone).
pub fn warmed_scaled(
    scenario: &Scenario,
    agents: u64,
    threads: usize,
    index: IndexKind,
    warmup: u64,
) -> Simulation {
    let scaled = scenario.scaled(agents).unwrap_or_else(|e| panic!("{e}"));
    let settings = RunSettings { threads, index: Some(index), metrics: false, ..RunSettings::default() };
    let mut sim = Simulation::new(&scaled, settings).expect("thread pool");
    sim.run(warmup).expect("finite state");
    sim
}

/// The standard crowd (`scenarios/bench/crowd.toml`) at `agents`, warmed for 10 ticks.
pub fn crowd(agents: u64, threads: usize, index: IndexKind) -> Simulation {
    warmed_scaled(&load("bench/crowd.toml"), agents, threads, index, 10)
}

/// Worker threads for benches: `THRONG_BENCH_THREADS`, else every core.
pub fn bench_threads() -> usize {
    std::env::var("THRONG_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Times `iters` calls of `f` back to back inside [`Simulation::enter`], as `throng run` and
/// `throng bench` run their ticks: on a worker of the pipeline's pool, with the other workers
/// awake. One untimed call first wakes them. Timed from outside the pool instead, a short pass
/// would also pay a hand-over to the pool and a wake-up of its workers every time (some tens
/// of microseconds on the project's 2-core machine, as much as `integrate` itself at 10k).
pub fn time_inside(sim: &mut Simulation, iters: u64, mut f: impl FnMut(&mut Simulation) + Send) -> Duration {
    sim.enter(|sim| {
        f(sim);
        let start = Instant::now();
        for _ in 0..iters {
            f(sim);
        }
        start.elapsed()
    })
}

/// The groups of the dimension benchmark's flock: boids with separation, alignment, the Unity
/// cruise force and wander, sensing 2 units, at most 32 neighbours. No cohesion: a cohesive
/// flock clumps (from 10 neighbours each to over 50 within 100 ticks, more in space than in
/// the plane), and the comparison is at equal neighbour numbers.
const FLOCK_GROUPS: &str = r#"
version = 1
name = "flock in plane and space"
seed = 5
dt = 0.1
ticks = 1
[bounds]
kind = "wrap"
min = [0, 0]
max = [10, 10]
[[groups]]
name = "boids"
count = 1
spawn = { kind = "points", points = [[1, 1]] }
max_speed = 3.0
max_force = 2.0
sensing_radius = 2.0
max_neighbours = 32
behaviours = [
  { kind = "separation", radius = 1.0, weight = 1.5 },
  { kind = "alignment", radius = 2.0 },
  { kind = "cruise", speed = 1.0, weight = 0.5 },
  { kind = "wander", radius = 1.0, distance = 2.0, jitter = 1.0, weight = 0.2 },
]
"#;

/// Neighbours the flock's density gives each boid within its sensing radius (2 units), in the
/// plane and in space alike: 10.
pub const FLOCK_NEIGHBOURS: f64 = 10.0;

/// The dimension benchmark's flock of `agents` boids, uniform in a wrapped square (`V = Vec2`)
/// or cube (`Vec3`) sized so that each has [`FLOCK_NEIGHBOURS`] neighbours within 2 units on
/// average (density 10 / (π · 2²) per unit² in the plane, 10 / (4/3 · π · 2³) per unit³ in
/// space), warmed for 10 ticks on `pipeline`.
pub fn flock_world<V: throng_engine::pipeline::Passes>(
    agents: u64,
    pipeline: &mut throng_engine::Pipeline<V>,
) -> throng_engine::World<V> {
    use std::f64::consts::PI;
    use throng_engine::rng::{Purpose, agent_rng, unit};
    use throng_engine::world::{Bounds, BoundsKind};
    let template: throng_engine::World =
        Scenario::parse(FLOCK_GROUPS, "flock.toml").unwrap_or_else(|e| panic!("{e}")).build_world();
    let r = 2.0f64;
    let ball = if V::DIMENSIONS == 2 { PI * r * r } else { 4.0 / 3.0 * PI * r * r * r };
    let volume = agents as f64 * ball / FLOCK_NEIGHBOURS;
    let side = if V::DIMENSIONS == 2 { volume.sqrt() } else { volume.cbrt() } as f32;
    let bounds = Bounds { kind: BoundsKind::Wrap, min: V::ZERO, max: V::splat(side) };
    let mut world = throng_engine::World::empty("flock", 5, 0.1, bounds, template.groups.clone(), Vec::new());
    for k in 0..agents {
        let mut draw = agent_rng(5, k, Purpose::Spawn);
        let p = V::from_fn(|_| side * unit(&mut draw));
        world.push_agent(0, k, p);
    }
    for _ in 0..10 {
        pipeline.step(&mut world).expect("finite state");
    }
    world
}
