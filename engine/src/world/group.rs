//! `Group`: agents sharing a behaviour list, sensing parameters and per-agent parameters.

use serde::{Deserialize, Serialize};

use crate::behaviours::Behaviour;
use crate::behaviours::WeightedBehaviour;
use crate::rng::AgentRng;

/// A group: agents sharing a behaviour list and sensing parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
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
}

impl Group {
    /// The `see_ahead` of the group's obstacle avoidance, if it avoids obstacles.
    pub fn see_ahead(&self) -> Option<f32> {
        self.behaviours.iter().find_map(|b| match b.behaviour {
            Behaviour::AvoidObstacles { see_ahead, .. } => Some(see_ahead),
            _ => None,
        })
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
    Value(f32),
    Range { min: f32, max: f32 },
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
    pub max_speed: Param,
    pub max_force: Param,
    pub mass: Param,
    pub radius: Param,
    pub initial_speed: Param,
}
