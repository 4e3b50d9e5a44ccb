//! The steering behaviours, as in `docs/behaviours.md`: the [`Behaviour`] registry (one variant
//! per kind, with its parameters) and one module per family with its formulas.
//!
//! Each formula is a small pure function of offsets and velocities, so it can be tested against
//! values computed by hand. Offsets (`to_target = t - p`) come from `Bounds::offset`, which is
//! the minimum image on a wrapped world; on an open world it is exactly `t - p`. The `steer`
//! pass (`passes::steer`) sums them per agent.

mod flocking;
mod leader_following;
mod obstacle_avoidance;
pub mod params;
mod path_following;
mod pursuit;
mod queue;
mod random_walk;
mod seek;
mod targets;
mod wander;

pub use flocking::{SeparationVariant, alignment, alignment_of_headings, cohesion, flock_target, separation};
pub use leader_following::follow_leader;
pub use obstacle_avoidance::{NO_THREAT, avoid_direction, avoid_force, look_ahead, most_threatening};
pub use path_following::{follow_path, path_advance};
pub use pursuit::{EvadePrediction, evade, pursuit};
pub use queue::queue_brake_force;
pub use random_walk::{WALK_FINAL, WALK_NONE, WALK_WAYPOINT, random_walk_step};
pub use seek::{arrive, flee, seek};
pub use targets::{ResolvedTarget, moving_point, resolve_targets};
pub use wander::{wander, wander_jitter};

use serde::{Deserialize, Serialize};

use crate::world::{PathMode, TargetId};
use params::KindSpec;

/// Every behaviour kind, in the order the docs list them: the registry the scenario validator
/// and the docs table read. A new kind is one line here.
pub const KINDS: &[&KindSpec] = &[
    &seek::SEEK,
    &seek::FLEE,
    &seek::ARRIVE,
    &wander::WANDER,
    &pursuit::PURSUIT,
    &pursuit::EVADE,
    &flocking::SEPARATION,
    &flocking::ALIGNMENT,
    &flocking::COHESION,
    &flocking::FLOCK_TARGET,
    &obstacle_avoidance::AVOID_OBSTACLES,
    &path_following::FOLLOW_PATH,
    &leader_following::FOLLOW_LEADER,
    &queue::QUEUE,
    &random_walk::RANDOM_WALK,
];

/// The docs' behaviour table, from [`KINDS`] (see [`params::docs_table`]).
pub fn docs_table() -> String {
    params::docs_table(KINDS)
}

/// One steering behaviour with its parameters. Units: lengths in world units, times in seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Behaviour {
    Seek {
        target: TargetId,
    },
    Flee {
        target: TargetId,
    },
    Arrive {
        target: TargetId,
        slowing_radius: f32,
    },
    Wander {
        radius: f32,
        distance: f32,
        jitter: f32,
    },
    Pursuit {
        target: TargetId,
        look_ahead_s: Option<f32>,
    },
    Evade {
        target: TargetId,
        look_ahead_s: Option<f32>,
        prediction: EvadePrediction,
    },
    Separation {
        radius: f32,
        max_force: f32,
        variant: SeparationVariant,
    },
    Alignment {
        radius: f32,
    },
    Cohesion {
        radius: f32,
    },
    /// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
    FlockTarget {
        target: TargetId,
        speed: f32,
    },
    /// Steer away from the most threatening obstacle found by the `find_threats` pass.
    AvoidObstacles {
        see_ahead: f32,
        max_avoid_force: f32,
    },
    /// Seek the current node of a path; the cursor lives in `Agents::path_node`/`path_dir`.
    FollowPath {
        path: u16,
        mode: PathMode,
        slowing_radius: f32,
    },
    /// Arrive behind the leader, keep apart from the other followers, and evade the leader when
    /// in its sight.
    FollowLeader {
        leader: TargetId,
        behind_dist: f32,
        slowing_radius: f32,
        sight_radius: f32,
        separation_radius: f32,
        max_separation: f32,
    },
    /// Queue braking. Not part of the weighted sum: the `queue_brake` pass applies it after
    /// the sum, because it reads the summed steering.
    Queue {
        queue_ahead: f32,
        queue_radius: f32,
        brake_factor: f32,
        hard_stop_factor: f32,
        separation_radius: f32,
        max_separation: f32,
    },
    /// Random walk towards a target through waypoints in a cone that narrows as the agent
    /// closes in; the waypoint lives in `Agents::waypoint`.
    RandomWalk {
        target: TargetId,
        aggro_radius: f32,
        min_step: f32,
        max_step: f32,
        reach_radius: f32,
        slowing_radius: f32,
    },
}

impl Behaviour {
    pub fn name(&self) -> &'static str {
        match self {
            Behaviour::Seek { .. } => "seek",
            Behaviour::Flee { .. } => "flee",
            Behaviour::Arrive { .. } => "arrive",
            Behaviour::Wander { .. } => "wander",
            Behaviour::Pursuit { .. } => "pursuit",
            Behaviour::Evade { .. } => "evade",
            Behaviour::Separation { .. } => "separation",
            Behaviour::Alignment { .. } => "alignment",
            Behaviour::Cohesion { .. } => "cohesion",
            Behaviour::FlockTarget { .. } => "flock_target",
            Behaviour::AvoidObstacles { .. } => "avoid_obstacles",
            Behaviour::FollowPath { .. } => "follow_path",
            Behaviour::FollowLeader { .. } => "follow_leader",
            Behaviour::Queue { .. } => "queue",
            Behaviour::RandomWalk { .. } => "random_walk",
        }
    }

    /// Separation, alignment and cohesion: the behaviours whose forces a group may cache for
    /// `flocking_interval` ticks.
    pub fn is_flocking(&self) -> bool {
        matches!(
            self,
            Behaviour::Separation { .. } | Behaviour::Alignment { .. } | Behaviour::Cohesion { .. }
        )
    }

    /// The neighbour radius this behaviour reads, if it reads neighbours.
    pub fn neighbour_radius(&self) -> Option<f32> {
        match *self {
            Behaviour::Separation { radius, .. }
            | Behaviour::Alignment { radius }
            | Behaviour::Cohesion { radius } => Some(radius),
            Behaviour::FollowLeader { separation_radius, .. } => Some(separation_radius),
            // The blocker search looks `queue_ahead` ahead, then `queue_radius` around that.
            Behaviour::Queue { queue_ahead, queue_radius, separation_radius, .. } => {
                Some((queue_ahead + queue_radius).max(separation_radius))
            }
            _ => None,
        }
    }

    /// The target this behaviour reads, if any.
    pub fn target(&self) -> Option<TargetId> {
        match *self {
            Behaviour::Seek { target }
            | Behaviour::Flee { target }
            | Behaviour::Arrive { target, .. }
            | Behaviour::Pursuit { target, .. }
            | Behaviour::Evade { target, .. }
            | Behaviour::FlockTarget { target, .. }
            | Behaviour::RandomWalk { target, .. } => Some(target),
            Behaviour::FollowLeader { leader, .. } => Some(leader),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeightedBehaviour {
    pub weight: f32,
    pub behaviour: Behaviour,
}
