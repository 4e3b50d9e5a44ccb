//! `Group`: agents sharing a behaviour list, sensing parameters and per-agent parameters.

use serde::{Deserialize, Serialize};

use super::{Behaviour, Model, WeightedBehaviour};
use crate::rng::AgentRng;

/// A group: agents sharing a behaviour list and sensing parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// The group's `name` in the scenario: unique among groups, and the key of its agents'
    /// random draws (renaming a group changes where its agents spawn).
    pub name: String,
    /// Steering is `Σ weight · force` over this list, in this order.
    pub behaviours: Vec<WeightedBehaviour>,
    /// Radius of the neighbour query (world units); at least every behaviour's radius.
    pub sensing_radius: f32,
    /// Neighbours kept per agent, nearest first (ties by id).
    pub max_neighbours: u32,
    /// Flocking forces are recomputed every this many ticks (1 = every tick), staggered by id.
    pub flocking_interval_ticks: u32,
    /// How new agents of this group are made (initial population and spawn sources).
    pub params: AgentParams,
    /// How its agents choose their velocity (default: steering).
    #[serde(default)]
    pub model: Model,
}

impl Group {
    /// The `see_ahead` of the group's obstacle avoidance, if it avoids obstacles.
    pub fn see_ahead(&self) -> Option<f32> {
        self.behaviours.iter().find_map(|b| match b.behaviour {
            Behaviour::AvoidObstacles { see_ahead, .. } => Some(see_ahead),
            _ => None,
        })
    }

    /// Whether the group follows a leader with `behind_when_stopped = "last_heading"`: then
    /// `integrate` keeps every agent's `last_heading`.
    pub fn tracks_leader_heading(&self) -> bool {
        self.behaviours
            .iter()
            .any(|b| matches!(b.behaviour, Behaviour::FollowLeader { keep_heading: true, .. }))
    }

    /// The group's queue parameters, if it queues.
    pub fn queue(&self) -> Option<&Behaviour> {
        self.behaviours.iter().map(|b| &b.behaviour).find(|b| matches!(b, Behaviour::Queue { .. }))
    }

    /// The radius of the group's first wander circle (0 without wander).
    pub fn wander_radius(&self) -> f32 {
        self.behaviours
            .iter()
            .find_map(|b| match b.behaviour {
                Behaviour::Wander { radius, .. } => Some(radius),
                _ => None,
            })
            .unwrap_or(0.0)
    }
}

/// A per-agent parameter: one value for every agent, or a uniform range drawn per agent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Param {
    /// Every agent gets this value (a plain number in the scenario).
    Value(f32),
    /// Each agent draws its value uniformly in `[min, max)` (`{ min = .., max = .. }` in the
    /// scenario; both must satisfy the parameter's range, and `min <= max`).
    Range {
        /// The lowest value an agent may get.
        min: f32,
        /// The upper end of the range; with `min == max` every agent gets it.
        max: f32,
    },
}

impl Param {
    /// The agent's value; always consumes exactly one draw, so switching a parameter between a
    /// value and a range never shifts the other parameters' draws.
    pub fn draw(&self, rng: &mut AgentRng) -> f32 {
        let u = crate::rng::unit(rng);
        match *self {
            Param::Value(v) => v,
            Param::Range { min, max } => min + (max - min) * u,
        }
    }

    /// The largest value any agent may get: the value itself, or the range's `max`.
    pub fn max(&self) -> f32 {
        match *self {
            Param::Value(v) => v,
            Param::Range { max, .. } => max,
        }
    }
}

/// Per-agent parameters of a group, each a value or a range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentParams {
    /// Speed limit (world units per second, > 0 and ≤ 1e7; required): velocities are
    /// truncated to it, and seek-like behaviours aim for it.
    pub max_speed: Param,
    /// Limit on the length of the summed steering force (force = mass · units / s², > 0 and
    /// ≤ 1e9; required).
    pub max_force: Param,
    /// The steering force is divided by it: `accel = trunc(steering, max_force) / mass`
    /// (≥ 1e-6 and ≤ 1e9; default 1).
    pub mass: Param,
    /// Body radius: obstacles are inflated by it, and overlaps compare it (world units, > 0
    /// and ≤ 1e7; default 0.5).
    pub radius: Param,
    /// Speed at spawn, in a random direction, capped at the agent's `max_speed` (world units
    /// per second, ≥ 0 and ≤ 1e7; default 0).
    pub initial_speed: Param,
}
