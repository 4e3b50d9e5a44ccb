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
    /// The journey its new agents start on (an index into the world's journeys), if any;
    /// a `journey` event with this group changes it.
    #[serde(default)]
    pub journey: Option<u16>,
    /// How its agents at spawn are dealt into parties that walk together, if they are.
    #[serde(default)]
    pub parties: Option<super::Parties>,
}

impl Group {
    /// The behaviours that act on the group's agents, in declared order: every one under the
    /// steering model; under a velocity model all but those that avoid collisions
    /// ([`Behaviour::avoids_collisions`]), which the model does itself.
    pub fn acting(&self) -> impl Iterator<Item = &WeightedBehaviour> + '_ {
        let steering = matches!(self.model, Model::Steering);
        self.behaviours.iter().filter(move |b| steering || !b.behaviour.avoids_collisions())
    }

    /// Does the group align (the one behaviour that reads its neighbours' headings)?
    pub fn aligns(&self) -> bool {
        self.behaviours.iter().any(|b| matches!(b.behaviour, Behaviour::Alignment { .. }))
    }

    /// The `see_ahead` of the group's obstacle avoidance, if it avoids obstacles.
    pub fn see_ahead(&self) -> Option<f32> {
        self.acting().find_map(|b| match b.behaviour {
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

    /// The group's queue parameters, if it queues (never under a velocity model).
    pub fn queue(&self) -> Option<&Behaviour> {
        self.acting().map(|b| &b.behaviour).find(|b| matches!(b, Behaviour::Queue { .. }))
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

/// A per-agent parameter: one value for every agent, or a uniform range or a truncated normal
/// distribution drawn per agent.
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
    /// Each agent draws its value from a normal distribution of `mean` and `sd` cut to
    /// `[min, max]` (`{ mean, sd, min, max }`; as Vadere's and JuPedSim's speed distributions):
    /// one uniform draw `u` becomes `mean + sd · Φ⁻¹(Φ(a) + u · (Φ(b) − Φ(a)))`, with `a`, `b` the
    /// ends in standard units, so it too consumes exactly one draw.
    Normal {
        /// The distribution's mean (within `[min, max]`).
        mean: f32,
        /// Its standard deviation (> 0).
        sd: f32,
        /// The lowest value an agent may get.
        min: f32,
        /// The highest value an agent may get.
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
            Param::Normal { mean, sd, min, max } => truncated_normal(mean, sd, min, max, u),
        }
    }

    /// The largest value any agent may get: the value itself, or the range's `max`.
    pub fn max(&self) -> f32 {
        match *self {
            Param::Value(v) => v,
            Param::Range { max, .. } | Param::Normal { max, .. } => max,
        }
    }
}

/// The value at quantile `u` (in `[0, 1)`) of the normal distribution of `mean` and `sd` cut to
/// `[min, max]`, worked in `f64` and kept inside the ends.
fn truncated_normal(mean: f32, sd: f32, min: f32, max: f32, u: f32) -> f32 {
    use crate::math::{normal_cdf, normal_quantile};
    let (mean, sd) = (mean as f64, sd as f64);
    let lo = normal_cdf((min as f64 - mean) / sd);
    let hi = normal_cdf((max as f64 - mean) / sd);
    let x = mean + sd * normal_quantile(lo + u as f64 * (hi - lo));
    (x as f32).clamp(min, max)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, agent_rng};

    /// Mean and standard deviation of `n` draws, one agent each.
    fn moments(p: Param, n: u64) -> (f64, f64, f32, f32) {
        let xs: Vec<f32> = (0..n).map(|id| p.draw(&mut agent_rng(7, id, Purpose::Params))).collect();
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let lo = xs.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        (mean, var.sqrt(), lo, hi)
    }

    #[test]
    fn a_truncated_normal_has_the_moments_worked_by_hand() {
        // RiMEA 7's under-30s: N(1.095, 0.2) cut at ±2.575 sd. Symmetric, so the mean stays;
        // the variance shrinks by 1 − 2·b·φ(b) / (Φ(b) − Φ(−b)) = 1 − 2·2.575·0.014489 / 0.98998
        // = 0.92463, so sd = 0.2 · 0.96158 = 0.19232. 20,000 draws: standard errors 0.0014
        // (mean) and 0.001 (sd).
        let p = Param::Normal { mean: 1.095, sd: 0.2, min: 0.58, max: 1.61 };
        let (mean, sd, lo, hi) = moments(p, 20_000);
        assert!((mean - 1.095).abs() < 0.005, "{mean}");
        assert!((sd - 0.19232).abs() < 0.004, "{sd}");
        assert!(lo >= 0.58 && hi <= 1.61 && lo < 0.6 && hi > 1.59, "{lo} {hi}");
        // Cut at the mean: a half-normal above 1, mean 1 + √(2/π) = 1.79788, sd √(1 − 2/π) =
        // 0.60281 (the upper cut at 10 sd changes neither).
        let p = Param::Normal { mean: 1.0, sd: 1.0, min: 1.0, max: 11.0 };
        let (mean, sd, lo, _) = moments(p, 20_000);
        assert!((mean - 1.79788).abs() < 0.02, "{mean}");
        assert!((sd - 0.60281).abs() < 0.015, "{sd}");
        assert!(lo >= 1.0);
    }

    #[test]
    fn a_truncated_normal_maps_quantiles() {
        // u = ½ is the median; u = 0 the lower end; Φ⁻¹ of the middle of [Φ(a), Φ(b)].
        assert!((truncated_normal(1.095, 0.2, 0.58, 1.61, 0.5) - 1.095).abs() < 1e-6);
        assert_eq!(truncated_normal(1.095, 0.2, 0.58, 1.61, 0.0), 0.58);
        // N(0, 1) cut to [0, 10]: u = ½ gives Φ⁻¹(0.75) = 0.6744898.
        assert!((truncated_normal(0.0, 1.0, 0.0, 10.0, 0.5) - 0.674_489_8).abs() < 1e-6);
        // A range of one value gives it.
        assert_eq!(truncated_normal(2.0, 0.5, 2.0, 2.0, 0.3), 2.0);
    }
}
