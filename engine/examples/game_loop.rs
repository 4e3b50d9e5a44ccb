//! throng inside a game loop: the "game" spawns villagers at a gate, sends each to a goal of
//! its own, asks who stands near the player, and removes the villagers that arrived, every
//! frame, while the simulation keeps its own fixed time step.
//!
//! ```text
//! cargo run --release -p throng-engine --example game_loop
//! ```
//!
//! `cargo test` builds it; `tests/determinism/host_control.rs` checks what it relies on.

use throng_engine::math::Vec2;
use throng_engine::{RunSettings, Scenario, Simulation};

/// The village: an open square, one group that walks to goals the game gives (`own`), in
/// `village.toml` beside this file.
const VILLAGE: &str = include_str!("village.toml");

/// The frame time of a 60 Hz game.
const FRAME_S: f64 = 1.0 / 60.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scenario = Scenario::parse(VILLAGE, "village.toml")?;
    // One worker that sleeps between ticks: the game keeps the other cores.
    let mut sim = Simulation::new(&scenario, RunSettings::embedded(1))?;
    let villagers = sim.group_named("villagers")?;
    let gate = Vec2::new(5.0, 30.0);
    let errands = [Vec2::new(50.0, 10.0), Vec2::new(50.0, 50.0), Vec2::new(30.0, 55.0)];
    let mut arrived = 0;
    let mut busiest = 0;

    for frame in 0..3600u32 {
        // Every half second a villager comes through the gate and gets an errand.
        if frame % 30 == 0 {
            let id = sim.spawn(villagers, gate + Vec2::new(0.0, (frame % 90) as f32 / 30.0))?;
            sim.set_goal(id, errands[id as usize % errands.len()])?;
        }
        // The simulation runs whole ticks of its own dt; the rest waits for the next frame.
        let step = sim.advance(FRAME_S, 4)?;
        if step.ticks == 0 {
            continue;
        }
        // Who stands within 8 m of the player, nearest first.
        let player = Vec2::new(20.0, 30.0);
        busiest = busiest.max(sim.query_radius(player, 8.0)?.len());
        // Villagers within half a metre of their errand are done.
        let world = sim.world();
        let done: Vec<u32> = (0..world.agents.len())
            .filter(|&row| (world.agents.position[row] - world.agents.goal[row]).length() < 0.5)
            .map(|row| world.agents.id[row])
            .collect();
        arrived += done.len();
        sim.despawn_all(&done)?;
    }

    let world = sim.world();
    println!(
        "{} ticks ({:.1} s): {} villagers walking, {arrived} arrived, at most {busiest} near the player, hash {}",
        sim.tick(),
        world.time_s(),
        world.agents.len(),
        sim.hash()
    );
    Ok(())
}
