//! The passes of a tick, one file each. A pass is a free function whose signature is its
//! contract: the columns it reads as `&[T]`, the ones it writes as `&mut [T]`, plus a
//! [`StepContext`] where it needs the tick's settings. `Pipeline::step` calls them in the order
//! `pipeline::Pass` gives; each file's header says what the pass reads and writes and whether
//! it runs in parallel, as docs/pipeline.md does.

mod build_index;
mod collide;
mod event_set;
pub(crate) mod events;
mod exits;
mod find_threats;
mod gates;
mod integrate;
mod journey_queues;
mod journeys;
mod parties;
mod queue_brake;
mod reorder;
mod sense_neighbours;
mod spawns;
mod steer;
mod velocity_models;
mod waiting;

pub use build_index::{IndexScope, build_agent_index, refresh_obstacle_index};
pub use collide::{WallMeasures, collide, collide_solids};
pub use event_set::set;
pub use events::{divert, events};
pub use exits::{exits, hold_at_exits};
pub use find_threats::{find_solid_threats, find_threats};
pub use gates::{gates, segments_cross};
pub use integrate::{LastHeading, MOVING_SHARE, integrate};
pub use journey_queues::hold_queued;
pub use journeys::journeys;
pub use parties::{PartyScratch, parties};
pub use queue_brake::queue_brake;
pub use reorder::{ReorderScratch, reorder};
pub use sense_neighbours::sense_neighbours;
pub use spawns::{place_spaced, spawns};
pub use steer::{SteerInputs, headings, steer};
pub use velocity_models::{ModelInputs, ModelObstacles, adopt_chosen, velocity_models};
pub use waiting::{hold, wait};

use crate::math::Vec2;
use crate::world::{Bounds, Dimension, Group, World};

/// What a tick is, for the passes that need more than their columns: the tick number, the
/// time step, the bounds (every offset goes through them) and the groups (behaviours and
/// sensing parameters).
#[derive(Clone, Copy)]
pub struct StepContext<'a, V = Vec2> {
    /// The tick being computed (ticks completed before it).
    pub tick: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// The world's bounds: every offset between two points goes through
    /// [`Bounds::offset`], and positions through [`Bounds::wrap`].
    pub bounds: &'a Bounds<V>,
    /// The world's groups, indexed by the agents' `group` column: behaviours, sensing radius
    /// and neighbour cap.
    pub groups: &'a [Group],
}

impl<'a, V: Dimension> StepContext<'a, V> {
    /// The context of `world`'s next tick.
    pub fn of(world: &'a World<V>) -> StepContext<'a, V> {
        StepContext { tick: world.tick, dt: world.dt, bounds: &world.bounds, groups: &world.groups }
    }
}
