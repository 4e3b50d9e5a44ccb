//! `Model`: how a group's agents choose their velocity. The steering model (the sources'
//! weighted sum, integrated by Euler) or one of the field's velocity models, which take the
//! steering behaviours' wish as a preferred velocity and choose the velocity themselves.

use serde::{Deserialize, Serialize};

/// A group's velocity model (the scenario's `model`). New kinds go at the end: checkpoints and
/// golden files store the variant by index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Model {
    /// The weighted sum of the behaviours' forces, truncated to `max_force`, integrated by
    /// Euler: the sources' model and the default.
    #[default]
    Steering,
    /// Optimal reciprocal collision avoidance, as RVO2 2.0 computes it.
    Orca(Orca),
}

/// ORCA's parameters (`model = { kind = "orca", ... }`); the body radius and the speed limit
/// are the group's `radius` and `max_speed`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Orca {
    /// How far ahead (seconds) velocities are kept free of collisions with other agents
    /// (RVO2's `timeHorizon`).
    pub time_horizon: f32,
    /// The same for obstacles (RVO2's `timeHorizonObst`).
    pub time_horizon_obst: f32,
    /// Agents within this distance are considered (world units; RVO2's `neighborDist`).
    pub neighbour_dist: f32,
    /// At most this many of them, nearest first (RVO2's `maxNeighbors`).
    pub max_neighbours: u32,
    /// The preferred velocity (the behaviours' wish) is cut to this speed; `None` leaves it at
    /// the agent's `max_speed`.
    pub preferred_speed: Option<f32>,
}

impl Model {
    /// The model's name as the scenario gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Steering => "steering",
            Model::Orca(_) => "orca",
        }
    }
}
