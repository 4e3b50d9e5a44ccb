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
mod party_force;
mod path_following;
mod pursuit;
mod queue;
mod random_walk;
mod seek;
pub mod seek_lanes;
mod targets;
mod tie_break;
mod wander;

pub use flocking::{alignment, alignment_of_headings, cohesion, cruise, flock_target, separation};
pub use leader_following::{Following, Leader, follow_leader};
pub use obstacle_avoidance::{
    NO_THREAT, avoid_direction, avoid_force, avoid_solid_force, look_ahead, most_threatening,
    most_threatening_solid,
};
pub use party_force::party_force;
pub use path_following::{follow_path, path_advance};
pub use pursuit::{evade, pursuit};
pub use queue::{hard_stop_per_tick, look_along, queue_brake_force};
pub use random_walk::{WALK_FINAL, WALK_NONE, WALK_WAYPOINT, random_walk_step};
pub use seek::{arrive, flee, seek};
pub use targets::{ResolvedTarget, moving_point, resolve_targets};
pub use wander::{jitter_scale, wander, wander_jitter};

pub use crate::world::{Behaviour, CohesionForm, EvadePrediction, SeparationVariant, WeightedBehaviour};
use params::KindSpec;

/// The step (seconds) at which the sources' per-frame rules are taken to act: a rule the
/// sources apply once per frame (the queue's hard stop, the wander jitter) acts at this step as
/// the sources wrote it and is rescaled at any other `dt` so that results converge as `dt`
/// shrinks (see docs/behaviours.md, "Time step"). Every shipped scenario runs at this step.
pub const REFERENCE_STEP_S: f32 = 0.1;

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
    &flocking::CRUISE,
    &tie_break::TIE_BREAK,
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
