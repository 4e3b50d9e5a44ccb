//! Scenario-level checks of emergent behaviour, one file per subject: doorway queueing, leader
//! following, path following, pursuit, the random walk's cone, flocking, dense obstacles, walls,
//! spawns and exits. Each bound is stated with the value measured on the current engine next to
//! it, so a regression in the behaviour makes the test fail. Every test prints what it measured
//! (`cargo test -- --nocapture` shows it). Also the property tests over random small scenarios.

mod crossing;
mod doorway;
mod flocking;
mod host_actions;
mod host_program;
mod in_space;
mod leader_following;
mod models;
mod obstacles;
mod parties;
mod path_following;
mod properties;
mod pursuit_evade;
mod random_walk;
mod shipped_claims;
mod spawns_and_exits;
mod time_step;
mod walls;

use throng_engine::metrics::{MetricsCollector, TickMetrics};
use throng_engine::{Pipeline, Scenario, World};

use crate::common::{load, root};

fn shipped(name: &str) -> Scenario {
    load(&root().join("scenarios").join(format!("{name}.toml")))
}

fn parse(text: &str, name: &str) -> Scenario {
    Scenario::parse(text, name).unwrap_or_else(|e| panic!("{e}"))
}

/// Steps `world` once and observes the tick.
fn step(world: &mut World, pipeline: &mut Pipeline, metrics: &mut MetricsCollector) -> TickMetrics {
    pipeline.step(world).unwrap_or_else(|e| panic!("{}: {e}", world.name));
    metrics.observe(world, pipeline.events(), pipeline.obstacle_index()).clone()
}
