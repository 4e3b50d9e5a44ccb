//! SteerBench's measures, per agent (S. Singh, M. Kapadia, P. Faloutsos, G. Reinman,
//! "SteerBench: a benchmark suite for evaluating steering behaviors", Computer Animation and
//! Virtual Worlds 20, 2009; SteerSuite's first composite technique), kept when `[metrics]
//! steerbench = true`:
//!
//! - **collisions**: how many times the agent began to touch another agent or an obstacle
//!   (reaching more than `PENETRATION_TOLERANCE`, 1 mm, into it, as SteerSuite counts a
//!   penetration past its epsilon); a contact that lasts counts once, a new one after letting go counts again, as
//!   SteerSuite counts "unique collisions". Obstacles count as one: an agent leaving every
//!   obstacle and touching one again is a new collision.
//! - **time**: the seconds the agent was alive (SteerSuite's time enabled: until it reaches
//!   its goal and is removed, here by an exit).
//! - **energy**: `Σ ½ |v|²` over SteerSuite's frames of 1/20 s, here `Σ ½ |v|² · dt · 20` over
//!   the ticks, which is SteerSuite's sum at its default 20 frames per second and does not
//!   depend on `dt`.
//!
//! The composite score is the mean over every agent that lived of `50 · collisions + time +
//! energy`. Per-agent values are integers or per-id sums; the means are summed serially in
//! id order, so the numbers depend neither on threads nor on row order.

use serde::{Deserialize, Serialize};

use crate::world::{Dimension, World};

/// SteerSuite's frames per second, the unit its energy is summed over.
pub const FRAMES_PER_S: f64 = 20.0;
/// The weight of a collision in the composite score.
pub const COLLISION_WEIGHT: f64 = 50.0;

/// What the measures carry from tick to tick, by agent id (checkpoints hold it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteerBenchState {
    collisions: Vec<u32>,
    ticks: Vec<u64>,
    energy: Vec<f64>,
    /// Pairs (lower id, higher id) touching after the last observed tick, sorted.
    touching: Vec<(u32, u32)>,
    /// Whether each agent was in an obstacle after the last observed tick.
    in_obstacle: Vec<bool>,
}

/// The measures over the run (`steerbench` in the summary): means over every agent that lived.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteerBenchSummary {
    /// Agents that lived at some observed tick.
    pub agents: u64,
    /// Mean collisions per agent.
    pub collisions: f64,
    /// Mean seconds alive.
    pub time_s: f64,
    /// Mean energy, `Σ ½ |v|²` per 1/20 s.
    pub energy: f64,
    /// `50 · collisions + time_s + energy`.
    pub score: f64,
}

impl SteerBenchState {
    /// Observes a tick of `world`: `touching` the pairs of ids whose bodies overlap (lower id
    /// first, any order), `inside` the ids of agents in an obstacle.
    pub fn observe<V: Dimension>(&mut self, world: &World<V>, mut touching: Vec<(u32, u32)>, inside: &[u32]) {
        let ids = world.next_id as usize;
        self.collisions.resize(ids, 0);
        self.ticks.resize(ids, 0);
        self.energy.resize(ids, 0.0);
        self.in_obstacle.resize(ids, false);
        let a = &world.agents;
        let per_tick = world.dt as f64 * FRAMES_PER_S;
        for (id, v) in a.id.iter().zip(&a.velocity) {
            let id = *id as usize;
            self.ticks[id] += 1;
            self.energy[id] += 0.5 * (v.length_squared() as f64) * per_tick;
        }
        touching.sort_unstable();
        touching.dedup();
        // New contacts: in `touching` now, not before (both sorted).
        let mut before = self.touching.iter().peekable();
        for pair in &touching {
            while before.next_if(|p| *p < pair).is_some() {}
            if before.peek() != Some(&pair) {
                self.collisions[pair.0 as usize] += 1;
                self.collisions[pair.1 as usize] += 1;
            }
        }
        self.touching = touching;
        let mut now = vec![false; ids];
        for &id in inside {
            now[id as usize] = true;
            if !self.in_obstacle[id as usize] {
                self.collisions[id as usize] += 1;
            }
        }
        self.in_obstacle = now;
    }

    /// The means over every agent that lived.
    pub fn summary(&self, dt: f32) -> SteerBenchSummary {
        let (mut agents, mut collisions, mut ticks, mut energy) = (0u64, 0u64, 0u64, 0.0f64);
        for id in 0..self.ticks.len() {
            if self.ticks[id] == 0 {
                continue;
            }
            agents += 1;
            collisions += self.collisions[id] as u64;
            ticks += self.ticks[id];
            energy += self.energy[id];
        }
        let n = agents.max(1) as f64;
        let (collisions, time_s, energy) = (collisions as f64 / n, ticks as f64 * dt as f64 / n, energy / n);
        SteerBenchSummary {
            agents,
            collisions,
            time_s,
            energy,
            score: COLLISION_WEIGHT * collisions + time_s + energy,
        }
    }
}
