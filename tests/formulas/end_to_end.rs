//! End to end: scenario text -> world -> pipeline steps, with the state after each tick worked
//! out by hand.

use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};

use throng_engine::math::Vec2;
use throng_engine::world::World;
use throng_engine::{IndexKind, Pipeline, Scenario};

use crate::common::{assert_close, v};

/// One agent at (0, 0), at rest, in an open world, with the given group keys and behaviours.
fn one_agent(dt: f32, group_keys: &str, behaviours: &str) -> World {
    let text = format!(
        r#"
version = 1
name = "one-agent"
seed = 1
dt = {dt:?}
ticks = 10

[bounds]
min = [-10, -10]
max = [10, 10]

[[groups]]
name = "solo"
spawn = {{ kind = "points", points = [[0, 0]] }}
{group_keys}

{behaviours}
"#
    );
    let scenario = Scenario::parse(&text, "one-agent.toml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let world = scenario.build_world();
    assert_eq!(world.agents.position, [Vec2::ZERO]);
    assert_eq!(world.agents.velocity, [Vec2::ZERO]);
    world
}

fn pipeline() -> Pipeline {
    Pipeline::new(1, IndexKind::Kd).expect("pipeline")
}

#[test]
fn seek_of_a_fixed_point_matches_three_ticks_by_hand() {
    let mut world = one_agent(
        0.5,
        "max_speed = 2.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"seek\"\ntarget = [3, 4]",
    );
    let mut pipeline = pipeline();
    // Tick 1: t - p = (3, 4), desired = (0.6, 0.8) * 2 = (1.2, 1.6), force = (1.2, 1.6),
    // mass 1, dt 0.5: v = (0.6, 0.8), p = (0.3, 0.4).
    // Tick 2: t - p = (2.7, 3.6), same direction, force = (1.2, 1.6) - (0.6, 0.8) = (0.6, 0.8),
    // v = (0.9, 1.2), p = (0.3, 0.4) + (0.45, 0.6) = (0.75, 1.0).
    // Tick 3: force = (0.3, 0.4), v = (1.05, 1.4), p = (0.75, 1.0) + (0.525, 0.7) = (1.275, 1.7).
    let expected = [(v(0.6, 0.8), v(0.3, 0.4)), (v(0.9, 1.2), v(0.75, 1.0)), (v(1.05, 1.4), v(1.275, 1.7))];
    for (tick, (vel, pos)) in expected.into_iter().enumerate() {
        pipeline.step(&mut world).expect("finite");
        assert_eq!(world.tick, tick as u64 + 1);
        assert_close(world.agents.velocity[0], vel);
        assert_close(world.agents.position[0], pos);
    }
}

#[test]
fn seek_is_limited_by_max_force_and_mass() {
    let mut world = one_agent(
        1.0,
        "max_speed = 10.0\nmax_force = 1.0\nmass = 4.0",
        "[[groups.behaviours]]\nkind = \"seek\"\ntarget = [-6, 8]",
    );
    let mut pipeline = pipeline();
    // Tick 1: desired = (-0.6, 0.8) * 10 = (-6, 8), force = (-6, 8), |.| = 10, truncated to
    // max_force 1: (-0.6, 0.8); mass 4: accel (-0.15, 0.2); dt 1: v = (-0.15, 0.2) = p.
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(-0.15, 0.2));
    assert_close(world.agents.position[0], v(-0.15, 0.2));
}

#[test]
fn two_behaviours_add_by_their_weights() {
    let mut world = one_agent(
        0.1,
        "max_speed = 1.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"seek\"\nweight = 3.0\ntarget = [0, 10]\n\n\
         [[groups.behaviours]]\nkind = \"flee\"\nweight = 2.0\ntarget = [10, 0]",
    );
    // seek (0, 10): desired (0, 1); flee (10, 0): desired (-1, 0); v = 0.
    // steering = 3 * (0, 1) + 2 * (-1, 0) = (-2, 3); dt 0.1: v = (-0.2, 0.3) (|v| = 0.36 <= 1),
    // p = (-0.02, 0.03).
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(-0.2, 0.3));
    assert_close(world.agents.position[0], v(-0.02, 0.03));
}

#[test]
fn the_weighted_sum_runs_in_declared_order() {
    // Float addition is not associative, so the order of the sum is observable:
    // seek (1, 0) weight 1e6, max_speed 100: (1e8, 0); flee (1, 0) weight 1e6: (-1e8, 0);
    // seek (1, 0) weight 0.25: (25, 0). In declared order, (1e8 - 1e8) + 25 = 25 exactly.
    // Any other order rounds 25 against 1e8 (f32 spacing 8 there) and gives 24.
    // dt 0.1, mass 1, max_force 1e9: v = (2.5, 0), p = (0.25, 0); with 24 it would be (2.4, 0).
    let mut world = one_agent(
        0.1,
        "max_speed = 100.0\nmax_force = 1e9",
        "[[groups.behaviours]]\nkind = \"seek\"\nweight = 1e6\ntarget = [1, 0]\n\n\
         [[groups.behaviours]]\nkind = \"flee\"\nweight = 1e6\ntarget = [1, 0]\n\n\
         [[groups.behaviours]]\nkind = \"seek\"\nweight = 0.25\ntarget = [1, 0]",
    );
    pipeline().step(&mut world).expect("finite");
    assert_eq!(world.agents.velocity[0], v(2.5, 0.0));
    assert_close(world.agents.position[0], v(0.25, 0.0));
}

#[test]
fn wander_without_jitter_keeps_its_heading() {
    // R = 2, D = 3, jitter 0, so no random draw matters. c0 = (2 * 0.707, 2 * 0.707).
    // Tick 1: c = norm(c0) * 2 = (1.4142136, 1.4142136); v = 0, so w - p = c:
    // desired = (0.7071068, 0.7071068) * 1 = force; dt 1: v = p = (0.7071068, 0.7071068).
    // Tick 2: c unchanged; w - p = norm(v) * 3 + c points the same way, desired = v, force = 0:
    // v unchanged, p = (1.4142136, 1.4142136).
    let mut world = one_agent(
        1.0,
        "max_speed = 1.0\nmax_force = 100.0",
        "[[groups.behaviours]]\nkind = \"wander\"\nradius = 2.0\ndistance = 3.0\njitter = 0.0",
    );
    assert_close(world.agents.wander[0], v(1.414, 1.414));
    let mut pipeline = pipeline();
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.wander[0], v(SQRT_2, SQRT_2));
    assert_close(world.agents.velocity[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    assert_close(world.agents.position[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    pipeline.step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(FRAC_1_SQRT_2, FRAC_1_SQRT_2));
    assert_close(world.agents.position[0], v(SQRT_2, SQRT_2));
}

#[test]
fn seek_across_a_wrapped_seam_takes_the_minimum_image() {
    // World [0, 10) wrapped; agent at (9, 5) seeks (1, 5): the minimum image of t - p is (2, 0),
    // not (-8, 0). desired = (1, 0) * 4 = (4, 0); dt 0.5: v = (2, 0), p = (10, 5) -> (0, 5).
    let text = r#"
version = 1
name = "seam"
seed = 3
dt = 0.5
ticks = 1

[bounds]
kind = "wrap"
min = [0, 0]
max = [10, 10]

[[groups]]
name = "solo"
spawn = { kind = "points", points = [[9, 5]] }
max_speed = 4.0
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = [1, 5]
"#;
    let mut world = Scenario::parse(text, "seam.toml").unwrap_or_else(|e| panic!("{e}")).build_world();
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(2.0, 0.0));
    assert_close(world.agents.position[0], v(0.0, 5.0));
}

#[test]
fn pursuit_of_an_agent_target_steers_towards_it() {
    // Agent 0 (group "hunter", at (0, 0), at rest) pursues agent 1 (group "prey", at (8, 0),
    // initial velocity ignored: it has no behaviours and initial_speed 0, so it stays put).
    // Tick 1: T = 8 / 4 = 2, q.v = 0, future = (8, 0): desired (4, 0), dt 0.25: v = (1, 0),
    // p = (0.25, 0).
    let text = r#"
version = 1
name = "chase"
seed = 5
dt = 0.25
ticks = 1

[bounds]
min = [-20, -20]
max = [20, 20]

[targets.prey]
kind = "agent"
agent = 1

[[groups]]
name = "hunter"
spawn = { kind = "points", points = [[0, 0]] }
max_speed = 4.0
max_force = 100.0

[[groups.behaviours]]
kind = "pursuit"
target = "prey"

[[groups]]
name = "prey"
spawn = { kind = "points", points = [[8, 0]] }
max_speed = 1.0
max_force = 1.0
"#;
    let mut world = Scenario::parse(text, "chase.toml").unwrap_or_else(|e| panic!("{e}")).build_world();
    pipeline().step(&mut world).expect("finite");
    assert_close(world.agents.velocity[0], v(1.0, 0.0));
    assert_close(world.agents.position[0], v(0.25, 0.0));
    assert_eq!(world.agents.position[1], v(8.0, 0.0));
}
