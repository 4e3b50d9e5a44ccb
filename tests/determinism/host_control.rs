//! A program driving the simulation between ticks (spawning, giving goals, removing) keeps the
//! determinism contract: the same calls at the same ticks give the same hashes at 1, 2, 3, 4
//! and 8 threads, with either index and any reorder interval, and a checkpoint taken after such
//! calls resumes to the straight run's hashes.

use throng_engine::math::Vec2;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation, StateHash};

/// The village of the game-loop example: an open square whose one group walks to goals the
/// program gives (`own`), starting empty.
pub const VILLAGE: &str = include_str!("../../engine/examples/village.toml");

/// The village scenario.
pub fn village() -> Scenario {
    Scenario::parse(VILLAGE, "village.toml").expect("the village is valid")
}

/// What the "game" does at each tick: a function of the tick and the state only, so a resumed
/// run makes the same calls. Every 3 ticks two villagers come in at the gate and get errands;
/// those within 0.5 of their errand leave; every 25 ticks the oldest one left is removed.
fn play(sim: &mut Simulation) {
    let t = sim.tick();
    if t.is_multiple_of(3) {
        for k in 0..2u32 {
            let id = sim.spawn(0, Vec2::new(2.0, 18.0 + 2.0 * k as f32)).expect("room");
            let errand = Vec2::new(30.0 + (id % 5) as f32, 5.0 + 7.0 * (id % 4) as f32);
            sim.set_goal(id, errand).expect("a villager takes errands");
        }
    }
    let world = sim.world();
    let a = &world.agents;
    let mut done: Vec<u32> =
        (0..a.len()).filter(|&r| (a.position[r] - a.goal[r]).length() < 0.5).map(|r| a.id[r]).collect();
    if t.is_multiple_of(25)
        && let Some(&oldest) = a.id.iter().filter(|id| !done.contains(id)).min()
    {
        done.push(oldest);
    }
    // Queries change nothing: asked here so every run asks them at the same ticks.
    let near = sim.query_radius(Vec2::new(15.0, 20.0), 6.0).expect("a valid query");
    if let Some(&first) = near.first() {
        sim.neighbours_of(first).expect("alive");
    }
    sim.despawn_all(&done).expect("alive");
}

/// The state hash after each of `ticks` ticks of the village played by `play`.
fn hashes(settings: RunSettings, ticks: u64) -> Vec<StateHash> {
    let mut sim = Simulation::new(&village(), settings).expect("a simulation");
    (0..ticks)
        .map(|_| {
            play(&mut sim);
            sim.step().expect("finite");
            sim.hash()
        })
        .collect()
}

fn settings(threads: usize, index: IndexKind, reorder_every: u64) -> RunSettings {
    RunSettings { index: Some(index), reorder_every, ..RunSettings::embedded(threads) }
}

#[test]
fn host_calls_give_the_same_hashes_at_every_thread_count_index_and_row_order() {
    let reference = hashes(settings(1, IndexKind::Kd, 0), 120);
    let world_grew = reference.windows(2).all(|w| w[0] != w[1]);
    assert!(world_grew, "every tick changes the state");
    for (threads, index, reorder) in [
        (2, IndexKind::Kd, 0),
        (3, IndexKind::Grid, 7),
        (4, IndexKind::Kd, 1),
        (8, IndexKind::Grid, 20),
        (1, IndexKind::Grid, 5),
    ] {
        let run = hashes(settings(threads, index, reorder), 120);
        let first = run.iter().zip(&reference).position(|(a, b)| a != b);
        assert_eq!(
            first, None,
            "{threads} threads, {index:?}, reorder every {reorder}: first differing tick"
        );
    }
}

#[test]
fn a_checkpoint_after_host_calls_resumes_to_the_straight_runs_hashes() {
    let straight = hashes(settings(2, IndexKind::Kd, 7), 100);
    let scenario = village();
    let mut sim = Simulation::new(&scenario, settings(2, IndexKind::Kd, 7)).expect("a simulation");
    for _ in 0..40 {
        play(&mut sim);
        sim.step().expect("finite");
    }
    let dir = crate::common::scratch_dir("host_control_checkpoint");
    let path = dir.join("village.ckpt");
    sim.save_checkpoint(&path).expect("written");
    drop(sim);
    let mut resumed = Simulation::resume(&scenario, &path, settings(3, IndexKind::Grid, 0)).expect("resumed");
    assert_eq!(resumed.tick(), 40);
    let mut after = Vec::new();
    for _ in 40..100 {
        play(&mut resumed);
        resumed.step().expect("finite");
        after.push(resumed.hash());
    }
    assert_eq!(after, straight[40..], "the resumed run's hashes are the straight run's");
}
