//! Non-finite state is caught and reported with tick, pass and agent, on both sides of the
//! size at which the finite checks scan in parallel, with rows in spatial order; and the pass
//! named is the one that made the value (`steer` or `queue_brake` for steering).

use glam::Vec2;
use throng_engine::{IndexKind, Pipeline};

use crate::common::{load, root};

/// Warms a scaled standard crowd on `threads` workers (rows reordered every tick, so row ≠ id),
/// lets `poison` change the world, and returns the error of the next tick, its tick number and
/// the pipeline.
fn tick_after(
    agents: u64,
    threads: usize,
    poison: impl FnOnce(&mut throng_engine::World),
) -> (throng_engine::NonFinite, u64, Pipeline) {
    let scenario = load(&root().join("scenarios/bench/crowd.toml")).scaled(agents).expect("scaled crowd");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(threads, IndexKind::Kd).expect("thread pool");
    pipeline.set_reorder_every(1);
    for _ in 0..2 {
        pipeline.step(&mut world).expect("finite warm-up");
    }
    assert!(!world.agents.is_id_ordered(), "rows should be in spatial order");
    poison(&mut world);
    let tick = world.tick;
    (pipeline.step(&mut world).expect_err("non-finite state must be reported"), tick, pipeline)
}

/// Sets field `column` of the agents `ids` (a row each) to the values given.
fn set_by_id<T: Copy>(ids_of_rows: &[u32], column: &mut [T], values: &[(u32, T)]) {
    for &(id, value) in values {
        let row = ids_of_rows.iter().position(|&x| x == id).expect("row of id");
        column[row] = value;
    }
}

/// The error of a tick after the positions of three agents were poisoned.
fn poisoned_tick(agents: u64, threads: usize) -> (throng_engine::NonFinite, u64) {
    let n = agents as u32;
    // The lowest poisoned id sits in a later row than a higher one.
    let values =
        [(n - 5, Vec2::new(f32::NAN, 0.0)), (n / 3, Vec2::new(0.0, f32::INFINITY)), (n / 2, Vec2::NAN)];
    let (err, tick, _) = tick_after(agents, threads, |world| {
        set_by_id(&world.agents.id, &mut world.agents.position, &values);
    });
    (err, tick)
}

fn assert_reported(agents: u64, threads: usize) {
    let (err, tick) = poisoned_tick(agents, threads);
    assert_eq!(err.tick, tick);
    // Positions are checked before the index is built from them.
    assert_eq!(err.pass, "build_index");
    assert_eq!(err.field, "position");
    assert_eq!(err.agent, agents as u32 / 3, "{err}");
    let text = err.to_string();
    assert!(text.contains(&format!("tick {tick}")) && text.contains("`build_index`"), "{text}");
}

#[test]
fn non_finite_position_is_reported_with_tick_pass_and_lowest_agent() {
    assert_reported(2_000, 2);
}

#[test]
fn non_finite_position_is_reported_by_the_parallel_scan() {
    // Above the 65,536 rows from which the checks scan in parallel.
    assert_reported(70_000, 2);
}

#[test]
fn non_finite_steering_is_reported_as_steers_with_the_lowest_agent() {
    // A NaN top speed makes that agent's arrive force NaN and no one else's: the report names
    // `steer`, the pass that made it, and the lowest such id.
    let (err, _, _) = tick_after(2_000, 2, |world| {
        let nan = [(1_700u32, f32::NAN), (250, f32::NAN), (900, f32::NAN)];
        set_by_id(&world.agents.id, &mut world.agents.max_speed, &nan);
    });
    assert_eq!((err.pass, err.field, err.agent), ("steer", "steering", 250), "{err}");
}

#[test]
fn non_finite_braking_is_reported_as_queue_brakes_with_the_lowest_blocked_agent() {
    // An infinite brake factor leaves every sum finite but every braked one not.
    let (err, _, pipeline) = tick_after(2_000, 2, |world| {
        for g in &mut world.groups {
            for wb in &mut g.behaviours {
                if let throng_engine::behaviours::Behaviour::Queue { brake_factor, .. } = &mut wb.behaviour {
                    *brake_factor = f32::INFINITY;
                }
            }
        }
    });
    let lowest_blocked = pipeline
        .sensed_ids()
        .iter()
        .zip(pipeline.blocked())
        .filter(|(_, b)| **b)
        .map(|(id, _)| *id)
        .min()
        .expect("a crowd at this density has blocked agents");
    assert_eq!((err.pass, err.field, err.agent), ("queue_brake", "steering", lowest_blocked), "{err}");
}

#[test]
fn non_finite_model_velocity_is_reported_as_models_with_the_agent() {
    // Social force with a repulsion range of 1e-6 overflows `exp` for two bodies spawned
    // overlapping: the chosen velocity is infinite, and the report names `models`, the pass
    // that made it, at the first tick, with the lowest such agent.
    let text = "version = 1\nname = \"blow-up\"\nseed = 1\ndt = 0.01\nticks = 5\n[bounds]\nmin = [0, 0]\nmax = [10, 10]\n\
        [targets.goal]\nkind = \"point\"\nposition = [9, 5]\n[[groups]]\nname = \"g\"\n\
        spawn = { kind = \"points\", points = [[5, 5], [5.1, 5], [1, 1]] }\nmax_speed = 1e7\nmax_force = 1\nradius = 0.3\n\
        model = { kind = \"social_force\", range = 1e-6, body = 0 }\n[[groups.behaviours]]\nkind = \"seek\"\ntarget = \"goal\"\n";
    let scenario = throng_engine::Scenario::parse(text, "blow-up.toml").expect("valid, with a dt warning");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("thread pool");
    let err = pipeline.step(&mut world).expect_err("non-finite state must be reported");
    assert_eq!((err.tick, err.pass, err.agent, err.field), (0, "models", 0, "velocity"), "{err}");
}
