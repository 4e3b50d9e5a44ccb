//! Walls of any shape: a funnel corridor drawn with concave polygons takes a crowd the same time
//! to pass whether the corridor runs along x or is turned by 37° or 90°, and no one ends a tick
//! inside a polygon or a wall.

use throng_engine::math::{PI, Vec2, rotate};
use throng_engine::{RunSettings, Scenario, Simulation};

/// The funnel corridor turned by `degrees` about the origin: 6 wide, narrowing to 2 at x = 20,
/// its sides two concave polygons (listed clockwise for the upper one, to be normalised), a
/// crowd of 24 at its west end seeking a point beyond its east end, where an exit takes them.
fn funnel(degrees: f32) -> Scenario {
    let turn = |x: f32, y: f32| rotate(Vec2::new(x, y), degrees * PI / 180.0);
    let list = |pts: &[(f32, f32)]| {
        let s: Vec<String> =
            pts.iter().map(|&(x, y)| turn(x, y)).map(|p| format!("[{}, {}]", p.x, p.y)).collect();
        format!("[{}]", s.join(", "))
    };
    let upper =
        list(&[(0.0, 3.0), (0.0, 4.0), (40.0, 4.0), (40.0, 3.0), (24.0, 3.0), (20.0, 1.0), (16.0, 3.0)]);
    let lower = list(&[
        (0.0, -3.0),
        (16.0, -3.0),
        (20.0, -1.0),
        (24.0, -3.0),
        (40.0, -3.0),
        (40.0, -4.0),
        (0.0, -4.0),
    ]);
    let back = list(&[(-0.5, -4.0), (-0.5, 4.0)]);
    let crowd: Vec<(f32, f32)> =
        (0..24).map(|k| (1.5 + (k / 6) as f32 * 1.5, -2.25 + (k % 6) as f32 * 0.9)).collect();
    let (target, exit) = (turn(46.0, 0.0), turn(44.0, 0.0));
    Scenario::parse(
        &format!(
            r#"version = 1
name = "funnel"
seed = 4
dt = 0.05
ticks = 2400
obstacles = [
  {{ kind = "polygon", vertices = {upper} }},
  {{ kind = "polygon", vertices = {lower} }},
  {{ kind = "wall", points = {back}, thickness = 0.2 }},
]

[bounds]
min = [-60, -60]
max = [60, 60]

[targets.out]
kind = "point"
position = [{}, {}]

[[exits]]
name = "out"
kind = "circle"
centre = [{}, {}]
radius = 2

[[groups]]
name = "crowd"
spawn = {{ kind = "points", points = {} }}
max_speed = 1.3
max_force = 4.0
radius = 0.3

[[groups.behaviours]]
kind = "seek"
target = "out"

[[groups.behaviours]]
kind = "avoid_obstacles"
weight = 2.0
see_ahead = 1.5
max_avoid_force = 4.0

[[groups.behaviours]]
kind = "separation"
weight = 1.5
radius = 0.8
max_separation = 3.0
"#,
            target.x,
            target.y,
            exit.x,
            exit.y,
            list(&crowd)
        ),
        "funnel.toml",
    )
    .expect("a valid funnel")
}

/// Seconds until everyone has left, and the most penetrating body over the run.
fn pass(s: &Scenario) -> (f64, f32) {
    let mut sim =
        Simulation::new(s, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation");
    let mut worst = 0.0f32;
    while !sim.world().agents.is_empty() && sim.tick() < s.ticks {
        sim.step().expect("steps");
        let w = sim.world();
        for (p, r) in w.agents.position.iter().zip(&w.agents.radius) {
            for o in &w.obstacles {
                worst = worst.max(r - o.signed_distance(*p));
            }
        }
    }
    assert!(sim.world().agents.is_empty(), "not everyone passed in {} s", s.ticks as f64 * s.dt as f64);
    (sim.world().time_s(), worst)
}

#[test]
fn a_turned_funnel_takes_the_same_time_to_pass() {
    let (along, worst) = pass(&funnel(0.0));
    assert!(worst < 0.02, "a body {worst} deep in a wall");
    for degrees in [37.0, 90.0] {
        let (turned, worst) = pass(&funnel(degrees));
        let ratio = turned / along;
        assert!((ratio - 1.0).abs() <= 0.01, "{degrees}°: {turned} s against {along} s along x");
        assert!(worst < 0.02, "{degrees}°: a body {worst} deep in a wall");
    }
}

/// The shipped U trap (ten walkers inside a U of walls open to the west, their goal east of
/// its closed side) with its seek's `route` set to `route`.
fn trap_text(route: &str) -> String {
    std::fs::read_to_string(crate::common::root().join("scenarios/walls/u_trap.toml"))
        .expect("the trap")
        .replace("route = \"field\"", &format!("route = \"{route}\""))
}

fn trap(route: &str) -> Scenario {
    Scenario::parse(&trap_text(route), "u_trap.toml").expect("a valid trap")
}

/// How many agents the exits took over the whole run.
fn exited(s: &Scenario) -> u64 {
    let mut sim =
        Simulation::new(s, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation");
    sim.run(s.ticks).expect("runs");
    sim.world().exited
}

#[test]
fn straight_seeking_never_leaves_a_u_trap_and_the_field_takes_everyone_out() {
    assert_eq!(exited(&trap("straight")), 0, "straight-line seeking pushes into the wall for ever");
    assert_eq!(exited(&trap("field")), 10, "the field routes everyone out of the U and round to the goal");
}

#[test]
fn a_routed_scene_is_the_same_at_any_thread_count_and_index() {
    let s = trap("field");
    let hashes = |threads: usize, index: throng_engine::IndexKind| {
        let settings = RunSettings { threads, index: Some(index), ..RunSettings::default() };
        let mut sim = Simulation::new(&s, settings).expect("simulation");
        (0..300)
            .map(|_| {
                sim.step().expect("steps");
                sim.hash().to_hex()
            })
            .collect::<Vec<_>>()
    };
    let reference = hashes(1, throng_engine::IndexKind::Kd);
    for (threads, index) in [
        (3, throng_engine::IndexKind::Kd),
        (8, throng_engine::IndexKind::Grid),
        (2, throng_engine::IndexKind::Brute),
    ] {
        assert_eq!(hashes(threads, index), reference, "{threads} threads, {index:?}");
    }
}

#[test]
fn routed_path_following_leaves_the_trap_node_by_node() {
    // The same trap, followed as a path: a node at the goal and one back west of the U, looped.
    // Straight path following pushes into the U's closed side; routed, everyone reaches the
    // goal (the exit there takes them).
    let as_path = |route: &str| {
        let seek = format!("kind = \"seek\"\ntarget = \"goal\"\nroute = \"{route}\"");
        let follow = format!("kind = \"follow_path\"\npath = \"round\"\nroute = \"{route}\"");
        let text = trap_text(route).replace(&seek, &follow)
            + "\n[paths.round]\nnodes = [[32, 15], [5, 25]]\nradius = 1.0\n";
        Scenario::parse(&text, "trap_path.toml").expect("a valid trap")
    };
    assert_eq!(exited(&as_path("straight")), 0);
    assert_eq!(exited(&as_path("field")), 10);
}

/// When the last agent of `s` has arrived (seconds): its stop event's tick.
fn emptied_at(s: &Scenario) -> f32 {
    let mut sim =
        Simulation::new(s, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation");
    while !sim.stopped() && sim.tick() < s.ticks {
        sim.step().expect("steps");
    }
    assert!(sim.stopped(), "everyone arrives within the run");
    sim.tick() as f32 * s.dt
}

#[test]
fn the_field_takes_a_crowd_round_an_l_bend_in_half_the_time_of_straight_seeking() {
    let text = std::fs::read_to_string(crate::common::root().join("scenarios/walls/l_corridor.toml"))
        .expect("the L corridor");
    let routed = emptied_at(&Scenario::parse(&text, "l_corridor.toml").expect("valid"));
    let straight = text.replace("route = \"field\"", "route = \"straight\"");
    let straight = emptied_at(&Scenario::parse(&straight, "l_corridor.toml").expect("valid"));
    // The path is about 36 long, 28 s at 1.3; twenty walkers two or three abreast add a few.
    assert!(routed < 40.0, "routed: everyone in by {routed} s");
    assert!(straight > 1.5 * routed, "straight seeking jams at the corner: {straight} s against {routed} s");
}

/// A 10 × 10 room drawn as one closed wall (its last point its first), with twelve walkers
/// inside seeking a point east of it, under `model`.
fn closed_room(model: &str) -> Scenario {
    Scenario::parse(
        &format!(
            r#"version = 1
name = "closed room"
seed = 2
dt = 0.05
ticks = 400
obstacles = [
  {{ kind = "wall", points = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], thickness = 0.2 }},
]

[bounds]
min = [-5, -5]
max = [25, 15]

[targets.out]
kind = "point"
position = [20, 5]

[[groups]]
name = "crowd"
count = 12
spawn = {{ kind = "rect", min = [2, 2], max = [5, 8], min_distance = 0.7 }}
max_speed = 1.3
max_force = 4.0
radius = 0.25
model = "{model}"

[[groups.behaviours]]
kind = "seek"
target = "out"
"#
        ),
        "closed_room.toml",
    )
    .expect("a closed wall is a valid room outline")
}

#[test]
fn a_room_drawn_as_one_closed_wall_holds_its_crowd_at_every_side_and_corner() {
    for model in ["steering", "orca", "cfsm", "social_force"] {
        let s = closed_room(model);
        let mut sim =
            Simulation::new(&s, RunSettings { threads: 2, ..RunSettings::default() }).expect("simulation");
        let mut east = 0.0f32;
        for _ in 0..s.ticks {
            sim.step().expect("steps");
            let w = sim.world();
            for (p, r) in w.agents.position.iter().zip(&w.agents.radius) {
                assert!(
                    p.x > 0.1 && p.x < 9.9 && p.y > 0.1 && p.y < 9.9,
                    "{model}: a walker left the room at {p}"
                );
                assert!(w.obstacles[0].signed_distance(*p) > r - 0.02, "{model}: a body in the wall at {p}");
                east = east.max(p.x);
            }
        }
        assert!(east > 9.0, "{model}: the crowd pressed against the east wall (reached x = {east})");
    }
}
