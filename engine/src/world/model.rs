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
    /// The collision-free speed model (Tordeux, Chraibi, Seyfried 2016).
    Cfsm(Cfsm),
    /// Social force (Helbing and Molnár 1995; walls and body forces as Helbing, Farkas and
    /// Vicsek 2000).
    SocialForce(SocialForce),
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

/// The collision-free speed model's parameters (`model = { kind = "cfsm", ... }`), as JuPedSim
/// names them; the body radius and the speed limit are the group's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cfsm {
    /// The time gap `T` (s): the speed is the free spacing ahead divided by it.
    pub time_gap: f32,
    /// Strength `a` of the repulsion from neighbours (a pure number beside the unit desired
    /// direction).
    pub strength: f32,
    /// Range `D` of the repulsion from neighbours (world units).
    pub range: f32,
    /// Strength of the repulsion from obstacles.
    pub wall_strength: f32,
    /// Range of the repulsion from obstacles (world units).
    pub wall_range: f32,
    /// Neighbours and obstacles within this distance are considered (world units).
    pub neighbour_dist: f32,
    /// At most this many neighbours, nearest first.
    pub max_neighbours: u32,
    /// The desired speed `v0` is the behaviours' wish cut to this speed; `None`: `max_speed`.
    pub preferred_speed: Option<f32>,
}

/// Social force parameters (`model = { kind = "social_force", ... }`), per unit of mass: the
/// forces of Helbing, Farkas and Vicsek (2000) divided by the body's mass, so the group's
/// `mass` does not enter (their 2000 N, 1.2e5 kg/s² and 2.4e5 kg/(m s) at 80 kg are the
/// defaults 25, 1500 and 3000).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SocialForce {
    /// Relaxation time `τ` (s) of the driving term `(v_pref − v) / τ`.
    pub relaxation_time: f32,
    /// Strength `A/m` of the exponential repulsion (units/s²).
    pub strength: f32,
    /// Its range `B` (world units).
    pub range: f32,
    /// Strength of the exponential repulsion from obstacles (units/s²; JuPedSim's
    /// `obstacle_scale` per unit of mass); by default `strength`.
    pub wall_strength: f32,
    /// Body force `k/m` (1/s²) pushing overlapping bodies apart; 0 leaves it out.
    pub body: f32,
    /// Sliding friction `κ/m` (1/(units·s)) between overlapping bodies; 0 leaves it out.
    pub friction: f32,
    /// Anisotropy `λ` (0 to 1): a neighbour behind counts `λ` times one ahead; 1 is isotropic.
    pub anisotropy: f32,
    /// Neighbours and obstacles within this distance are considered (world units).
    pub neighbour_dist: f32,
    /// At most this many neighbours, nearest first.
    pub max_neighbours: u32,
    /// The behaviours' wish is cut to this speed; `None`: `max_speed`.
    pub preferred_speed: Option<f32>,
}

impl Model {
    /// The speed the behaviours' wish is cut to, if the model sets one.
    pub fn preferred_speed(&self) -> Option<f32> {
        match self {
            Model::Steering => None,
            Model::Orca(m) => m.preferred_speed,
            Model::Cfsm(m) => m.preferred_speed,
            Model::SocialForce(m) => m.preferred_speed,
        }
    }

    /// What the model reads of the group's neighbour list: how far and how many.
    pub fn neighbour_needs(&self) -> (f32, u32) {
        match self {
            Model::Steering => (0.0, 0),
            Model::Orca(m) => (m.neighbour_dist, m.max_neighbours),
            Model::Cfsm(m) => (m.neighbour_dist, m.max_neighbours),
            Model::SocialForce(m) => (m.neighbour_dist, m.max_neighbours),
        }
    }

    /// The model's name as the scenario gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Steering => "steering",
            Model::Orca(_) => "orca",
            Model::Cfsm(_) => "cfsm",
            Model::SocialForce(_) => "social_force",
        }
    }
}
