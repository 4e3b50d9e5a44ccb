//! `World`: the simulation state. Everything here is hashed, compared and (later) checkpointed;
//! scratch that is rebuilt every tick lives in [`crate::Pipeline`] instead.
//!
//! Agents are stored as structure-of-arrays columns, one row per live agent, rows in agent-id
//! order. A pass reads whole columns as slices and writes only its own agent's rows.

use crate::math::Vec2;
use crate::rng::AgentRng;

/// The simulated region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub kind: BoundsKind,
    pub min: Vec2,
    pub max: Vec2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsKind {
    /// Agents may leave the rectangle; it only frames spawn regions and output.
    Open,
    /// Toroidal: positions wrap, and every offset uses the minimum image across the seam.
    Wrap,
}

impl Bounds {
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// The offset from `from` to `to`: `to - from`, or its minimum image when wrapped.
    #[inline]
    pub fn offset(&self, from: Vec2, to: Vec2) -> Vec2 {
        let d = to - from;
        match self.kind {
            BoundsKind::Open => d,
            BoundsKind::Wrap => {
                let size = self.max - self.min;
                Vec2::new(min_image(d.x, size.x), min_image(d.y, size.y))
            }
        }
    }

    /// Brings a position back inside `[min, max)` on a wrapped world; identity when open.
    #[inline]
    pub fn wrap(&self, p: Vec2) -> Vec2 {
        match self.kind {
            BoundsKind::Open => p,
            BoundsKind::Wrap => {
                Vec2::new(wrap_axis(p.x, self.min.x, self.max.x), wrap_axis(p.y, self.min.y, self.max.y))
            }
        }
    }
}

#[inline]
fn min_image(d: f32, size: f32) -> f32 {
    if d > 0.5 * size {
        d - size
    } else if d < -0.5 * size {
        d + size
    } else {
        d
    }
}

#[inline]
fn wrap_axis(x: f32, lo: f32, hi: f32) -> f32 {
    if x >= lo && x < hi {
        return x;
    }
    let size = hi - lo;
    let w = lo + (x - lo).rem_euclid(size);
    // rem_euclid can round up to exactly `size` for tiny negative inputs.
    if w >= hi { lo } else { w }
}

/// Something a behaviour steers towards or away from.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A fixed point.
    Point(Vec2),
    /// A scripted point moving at `speed` along `waypoints` (looping back to the first): the
    /// headless stand-in for the tutorials' "seek the mouse".
    Moving { waypoints: Vec<Vec2>, speed: f32 },
    /// A specific agent, by id.
    Agent(u32),
    /// The nearest live agent of a group (never the seeker itself).
    NearestOf(u16),
}

/// Where a behaviour's target comes from: an index into `World::targets`.
pub type TargetId = u16;

/// How evade predicts the pursuer's future position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvadePrediction {
    /// `T = d / (max_speed + |q.v|)` (the default).
    TargetSpeed,
    /// `T = d / max_speed`.
    OwnSpeed,
}

/// How separation weighs its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeparationVariant {
    /// `force = norm(-Σ(n.p - p) / count) · max_force` (the default).
    Mean,
    /// `force = trunc(Σ norm(p - n.p) / |p - n.p|, max_force)`; coincident neighbours are skipped.
    InverseDistance,
}

/// One steering behaviour with its parameters. Units: lengths in world units, times in seconds.
#[derive(Clone, Debug, PartialEq)]
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
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct WeightedBehaviour {
    pub weight: f32,
    pub behaviour: Behaviour,
}

/// A group: agents sharing a behaviour list and sensing parameters.
#[derive(Clone, Debug, PartialEq)]
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
}

/// Agent columns. Row `i` of every column describes the same agent; rows are in id order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agents {
    /// Stable id: never reused, assigned in spawn order.
    pub id: Vec<u32>,
    /// Index into `World::groups`.
    pub group: Vec<u16>,
    pub position: Vec<Vec2>,
    pub velocity: Vec<Vec2>,
    /// World units per second.
    pub max_speed: Vec<f32>,
    /// Steering force limit (mass · units / s²).
    pub max_force: Vec<f32>,
    pub mass: Vec<f32>,
    /// Body radius (world units).
    pub radius: Vec<f32>,
    /// Wander circle offset `c` (spec: wander).
    pub wander: Vec<Vec2>,
    /// The weighted sum of flocking forces, reused between recomputations.
    pub flock_force: Vec<Vec2>,
    /// The agent's own generator, drawn from only inside its own update.
    pub rng: Vec<AgentRng>,
}

impl Agents {
    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

/// The whole simulation state.
#[derive(Clone, Debug, PartialEq)]
pub struct World {
    pub name: String,
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// Ticks completed so far.
    pub tick: u64,
    pub bounds: Bounds,
    pub groups: Vec<Group>,
    pub targets: Vec<Target>,
    pub agents: Agents,
    /// The id the next spawned agent gets.
    pub next_id: u32,
}

impl World {
    /// Simulated time at the start of the next tick, in seconds.
    pub fn time_s(&self) -> f64 {
        self.tick as f64 * self.dt as f64
    }

    /// The row of agent `id`, if it is alive. Rows are sorted by id.
    pub fn row_of(&self, id: u32) -> Option<usize> {
        self.agents.id.binary_search(&id).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_image_crosses_the_seam() {
        let b = Bounds { kind: BoundsKind::Wrap, min: Vec2::ZERO, max: Vec2::new(10.0, 10.0) };
        assert_eq!(b.offset(Vec2::new(9.5, 5.0), Vec2::new(0.5, 5.0)), Vec2::new(1.0, 0.0));
        assert_eq!(b.offset(Vec2::new(0.5, 0.5), Vec2::new(9.5, 9.5)), Vec2::new(-1.0, -1.0));
        assert_eq!(b.wrap(Vec2::new(10.0, -0.5)), Vec2::new(0.0, 9.5));
        assert_eq!(b.wrap(Vec2::new(-1e-9, 3.0)).x, 0.0);
    }
}
