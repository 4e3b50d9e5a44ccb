//! The behaviour list of a group, as data: which behaviours, with which parameters and
//! weights. What each computes (formulas, parameter tables) is in `crate::behaviours`.

use serde::{Deserialize, Serialize};

use super::{PathMode, TargetId};

/// One steering behaviour with its parameters, as one `[[groups.behaviours]]` entry of a scenario
/// declares it (the variant is its `kind`). Units: lengths in world units, times in seconds,
/// forces in mass · units / s². Each kind's keys, defaults and ranges are its `KindSpec` in
/// `behaviours::KINDS`; the scenario validator applies them, so a `Behaviour` built by hand is not checked.
/// "≤ `MAX_LENGTH`" below is `behaviours::params::MAX_LENGTH` (1e7); force parameters accept up to 1e9.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Behaviour {
    /// `seek`: towards the target at full speed, `norm(t − p) · max_speed − v`.
    Seek {
        /// Where to go: an index into `World::targets` (required).
        target: TargetId,
    },
    /// `flee`: away from the target at full speed, `norm(p − t) · max_speed − v`.
    Flee {
        /// What to flee from: an index into `World::targets` (required).
        target: TargetId,
    },
    /// `arrive`: seek, slowing linearly to a stop inside `slowing_radius`.
    Arrive {
        /// Where to stop: an index into `World::targets` (required).
        target: TargetId,
        /// Distance from the target at which the agent starts slowing (world units, > 0 and
        /// ≤ `MAX_LENGTH`; default 5).
        slowing_radius: f32,
    },
    /// `wander`: seek a point on a circle ahead of the agent, jittered every tick with the
    /// agent's own generator; the point lives in `Agents::wander`.
    Wander {
        /// Radius `R` of the wander circle (world units, > 0 and ≤ `MAX_LENGTH`; default 1).
        radius: f32,
        /// Distance `D` of the circle's centre ahead of the agent (world units, ≥ 0 and
        /// ≤ `MAX_LENGTH`; default 2).
        distance: f32,
        /// How fast the point moves on the circle: each tick it is nudged by up to
        /// `jitter · dt` per axis, then put back on the circle (world units per second, ≥ 0
        /// and ≤ `MAX_LENGTH`; default 1).
        jitter: f32,
    },
    /// `pursuit`: seek where the quarry will be, `q.p + q.v · T`.
    Pursuit {
        /// The quarry: an index into `World::targets` (required).
        target: TargetId,
        /// A fixed look-ahead `T` (seconds, ≥ 0 and ≤ 3600). `None` (the default) computes
        /// `T = d / max_speed` each tick, `d` the distance to the quarry.
        look_ahead_s: Option<f32>,
    },
    /// `evade`: flee from where the pursuer will be, `q.p + q.v · T`.
    Evade {
        /// The pursuer: an index into `World::targets` (required).
        target: TargetId,
        /// A fixed look-ahead `T` (seconds, ≥ 0 and ≤ 3600). `None` (the default) computes
        /// `T` each tick as `prediction` says.
        look_ahead_s: Option<f32>,
        /// How `T` is computed when `look_ahead_s` is `None` (default
        /// [`EvadePrediction::TargetSpeed`]).
        prediction: EvadePrediction,
    },
    /// `separation`: away from the neighbours within `radius`.
    Separation {
        /// Neighbour radius (world units, > 0 and ≤ `MAX_LENGTH`; required). The group's
        /// `sensing_radius` covers it.
        radius: f32,
        /// Magnitude of the separation force, the scenario key `max_separation` (force, ≥ 0 and
        /// ≤ 1e9; default 1). The `"mean"` force has exactly this length (unless the
        /// neighbours' mean offset is zero); the `"inverse_distance"` force is truncated to it.
        max_force: f32,
        /// How the neighbours are weighed (default [`SeparationVariant::Mean`]).
        variant: SeparationVariant,
    },
    /// `alignment`: towards the neighbours' mean heading, `Σ norm(n.v) / count − norm(v)`.
    Alignment {
        /// Neighbour radius (world units, > 0 and ≤ `MAX_LENGTH`; required).
        radius: f32,
    },
    /// `cohesion`: towards the centre of the neighbours within `radius`.
    Cohesion {
        /// Neighbour radius (world units, > 0 and ≤ `MAX_LENGTH`; required).
        radius: f32,
        /// The force's form (default [`CohesionForm::Seek`]).
        form: CohesionForm,
    },
    /// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
    FlockTarget {
        /// The flock's target: an index into `World::targets` (required).
        target: TargetId,
        /// Scale of the force: despite its name, a force magnitude, not a speed (force, ≥ 0 and
        /// ≤ `MAX_LENGTH`; default 1).
        speed: f32,
    },
    /// Steer away from the most threatening obstacle found by the `find_threats` pass.
    AvoidObstacles {
        /// Look-ahead distance at full speed, scaled by `|v| / max_speed` so slow agents look
        /// less far (world units, > 0 and ≤ `MAX_LENGTH`; default 5).
        see_ahead: f32,
        /// Magnitude of the avoidance force (force, ≥ 0 and ≤ 1e9; default 1).
        max_avoid_force: f32,
    },
    /// Seek the current node of a path; the cursor lives in `Agents::path_node`/`path_dir`.
    FollowPath {
        /// The path to follow: an index into `World::paths` (a `[paths]` entry; required).
        path: u16,
        /// What happens at the last node (default [`PathMode::Loop`]; `Loop` and `Patrol` need
        /// a path of 2 nodes or more).
        mode: PathMode,
        /// Arrive radius at the last node of a [`PathMode::Once`] path; unused by the other
        /// modes (world units, > 0 and ≤ `MAX_LENGTH`; default 3).
        slowing_radius: f32,
    },
    /// Arrive behind the leader, keep apart from the other followers, and evade the leader when
    /// in its sight.
    FollowLeader {
        /// Whom to follow: an index into `World::targets` naming a target of kind `"agent"`
        /// that is not a member of this group (required).
        leader: TargetId,
        /// How far behind the leader, along its heading, the followers arrive (world units,
        /// ≥ 0 and ≤ `MAX_LENGTH`; default 2).
        behind_dist: f32,
        /// Arrive radius around the point behind the leader (world units, > 0 and
        /// ≤ `MAX_LENGTH`; default 5).
        slowing_radius: f32,
        /// The follower evades the leader when the leader, or the point `behind_dist` ahead of
        /// it, is this close (world units, ≥ 0 and ≤ `MAX_LENGTH`; default 3).
        sight_radius: f32,
        /// Followers keep apart from neighbours within this radius (world units, > 0 and
        /// ≤ `MAX_LENGTH`; default 1).
        separation_radius: f32,
        /// Magnitude of that separation force, mean variant (force, ≥ 0 and ≤ 1e9; default 1).
        max_separation: f32,
        /// When the leader has stopped (slower than 10 % of its `max_speed`), keep `behind`
        /// behind the way it last moved instead of on the leader (`behind_when_stopped =
        /// "last_heading"`; default off, the sources' formula).
        keep_heading: bool,
    },
    /// Queue braking. Not part of the weighted sum: the `queue_brake` pass applies it after
    /// the sum, because it reads the summed steering.
    Queue {
        /// How far ahead, along the agent's heading, to look for a blocker (world units, ≥ 0 and
        /// ≤ `MAX_LENGTH`; default 2).
        queue_ahead: f32,
        /// The nearest neighbour within this radius of the look-ahead point is the blocker; a
        /// blocker also within it of the agent itself makes a hard stop (world units, > 0 and
        /// ≤ `MAX_LENGTH`; default 1).
        queue_radius: f32,
        /// Share of the summed steering the brake cancels (a pure number, 0 to 10; default 0.8).
        brake_factor: f32,
        /// On a hard stop the velocity is multiplied by this (a pure number, 0 to 1;
        /// default 0.3).
        hard_stop_factor: f32,
        /// Separation radius inside the brake (world units, > 0 and ≤ `MAX_LENGTH`; default:
        /// `queue_radius`).
        separation_radius: f32,
        /// Separation magnitude inside the brake (force, ≥ 0 and ≤ 1e9; default 1).
        max_separation: f32,
    },
    /// Random walk towards a target through waypoints in a cone that narrows as the agent
    /// closes in; the waypoint lives in `Agents::waypoint`.
    RandomWalk {
        /// Where the walk ends: an index into `World::targets` (required).
        target: TargetId,
        /// Distance from the target at and beyond which the cone is widest, half-angle π/4
        /// (world units, > 0 and ≤ `MAX_LENGTH`; default 30).
        aggro_radius: f32,
        /// Shortest step: a step is `clamp(d / 2, min_step, max_step)`, `d` the distance to
        /// the target (world units, > 0 and ≤ `MAX_LENGTH`; default 1).
        min_step: f32,
        /// Longest step (world units, > 0, ≤ `MAX_LENGTH` and ≥ `min_step`; default 10).
        max_step: f32,
        /// A waypoint this close counts as reached, and the next is drawn (world units, > 0
        /// and ≤ `MAX_LENGTH`; default 0.5).
        reach_radius: f32,
        /// Arrive radius on the last, straight leg to the target (world units, > 0 and
        /// ≤ `MAX_LENGTH`; default 3).
        slowing_radius: f32,
    },
    // New kinds go last: the state hash and checkpoints encode a kind by its position.
    /// The Unity flock's engine force, which keeps a bird flying: `norm(v) · speed` (zero at
    /// rest); `max_speed` caps the speed it builds.
    Cruise {
        /// Scale of the force along the heading (force, ≥ 0 and ≤ `MAX_LENGTH`; default 1).
        speed: f32,
    },
    /// Not a term of the sum: each tick the summed steering is rotated by an angle drawn
    /// uniformly in `[-angle, angle]` from the agent's own generator, which breaks the ties of
    /// a perfectly symmetric scene (a mirror crossing that would deadlock).
    TieBreak {
        /// The largest rotation (radians; the scenario gives degrees, > 0 and ≤ 45°; default 5°).
        angle: f32,
    },
    /// `seek` with `route = "field"`: towards the target along the descending gradient of its
    /// distance field (the routing module) instead of the straight line, at full speed.
    SeekField {
        /// Where to go: a `point` target.
        target: TargetId,
    },
    /// `arrive` with `route = "field"`: as [`Behaviour::SeekField`], slowing inside
    /// `slowing_radius` of walking distance.
    ArriveField {
        /// Where to stop: a `point` target.
        target: TargetId,
        /// Walking distance from the target at which the agent starts slowing (world units).
        slowing_radius: f32,
    },
    /// `follow_path` with `route = "field"`: each node is reached along its distance field.
    FollowPathField {
        /// The path to follow: an index into `World::paths`.
        path: u16,
        /// What happens at the last node.
        mode: PathMode,
        /// Arrive radius at the last node of a [`PathMode::Once`] path (world units).
        slowing_radius: f32,
    },
}

impl Behaviour {
    /// The kind's name, as the scenario's `kind` key spells it (`"seek"`, `"follow_path"`, ...).
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
            Behaviour::Cruise { .. } => "cruise",
            Behaviour::TieBreak { .. } => "tie_break",
            Behaviour::AvoidObstacles { .. } => "avoid_obstacles",
            Behaviour::FollowPath { .. } | Behaviour::FollowPathField { .. } => "follow_path",
            Behaviour::FollowLeader { .. } => "follow_leader",
            Behaviour::Queue { .. } => "queue",
            Behaviour::RandomWalk { .. } => "random_walk",
            Behaviour::SeekField { .. } => "seek",
            Behaviour::ArriveField { .. } => "arrive",
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

    /// Separation, obstacle avoidance and queueing: the behaviours that keep an agent clear of
    /// others and of walls. A velocity model does that itself, so under one (`Model` other
    /// than steering) they are not used: its preferred velocity is built from the goal
    /// behaviours alone, as its reference implementation builds it (see docs/models.md).
    pub fn avoids_collisions(&self) -> bool {
        matches!(
            self,
            Behaviour::Separation { .. } | Behaviour::AvoidObstacles { .. } | Behaviour::Queue { .. }
        )
    }

    /// The neighbour radius this behaviour reads, if it reads neighbours.
    pub fn neighbour_radius(&self) -> Option<f32> {
        match *self {
            Behaviour::Separation { radius, .. }
            | Behaviour::Alignment { radius }
            | Behaviour::Cohesion { radius, .. } => Some(radius),
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
            | Behaviour::RandomWalk { target, .. }
            | Behaviour::SeekField { target }
            | Behaviour::ArriveField { target, .. } => Some(target),
            Behaviour::FollowLeader { leader, .. } => Some(leader),
            _ => None,
        }
    }

    /// Whether it goes to its target (`seek`, `arrive`, `random_walk`, `flock_target`), so a
    /// group's `on_closed` entry diverts it; not those that chase, flee or follow.
    pub fn goes_to_target(&self) -> bool {
        matches!(
            self,
            Behaviour::Seek { .. }
                | Behaviour::Arrive { .. }
                | Behaviour::RandomWalk { .. }
                | Behaviour::FlockTarget { .. }
                | Behaviour::SeekField { .. }
                | Behaviour::ArriveField { .. }
        )
    }

    /// Gives the behaviour the target `t`, if it takes one (see [`Behaviour::target`]);
    /// false, changing nothing, if it takes none.
    pub fn set_target(&mut self, t: TargetId) -> bool {
        match self {
            Behaviour::Seek { target }
            | Behaviour::Flee { target }
            | Behaviour::Arrive { target, .. }
            | Behaviour::Pursuit { target, .. }
            | Behaviour::Evade { target, .. }
            | Behaviour::FlockTarget { target, .. }
            | Behaviour::RandomWalk { target, .. }
            | Behaviour::SeekField { target }
            | Behaviour::ArriveField { target, .. } => *target = t,
            Behaviour::FollowLeader { leader, .. } => *leader = t,
            _ => return false,
        }
        true
    }
}

/// A behaviour with its weight, one entry of [`Group::behaviours`](crate::world::Group::behaviours):
/// the agent's steering is `Σ weight · force` over the group's entries, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeightedBehaviour {
    /// The factor on this behaviour's force (a pure number, −1e6 to 1e6; default 1; zero and
    /// negative weights are allowed). A [`Behaviour::Queue`] takes none: it is always 1 and
    /// unused, since the brake is added after the sum.
    pub weight: f32,
    /// The kind and its parameters: what computes the force that `weight` scales.
    pub behaviour: Behaviour,
}

/// How evade predicts the pursuer's future position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EvadePrediction {
    /// `T = d / (max_speed + |q.v|)` (the default).
    TargetSpeed,
    /// `T = d / max_speed`.
    OwnSpeed,
}

/// The form of the cohesion force towards the neighbours' centre `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CohesionForm {
    /// `seek(c) = norm(c - p) · max_speed - v` (the default; the spec's form).
    Seek,
    /// `norm(c - p) · |v|`: the Unity flock's form, with no `-v` damping term.
    Unity,
}

/// How separation weighs its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeparationVariant {
    /// `force = norm(-Σ(n.p - p) / count) · max_force` (the default).
    Mean,
    /// `force = trunc(Σ norm(p - n.p) / |p - n.p|, max_force)`; coincident neighbours are skipped.
    InverseDistance,
}
