//! `Passes`: what a tick does differently in the plane and in space. The plane has walls with
//! their index and routing fields, velocity models, gates, exits, spawn sources and waiting
//! areas; space has balls and boxes; both have events. Each dimension implements every method (the plane in
//! `plane.rs`, space in `space.rs`), so a pass written for one and forgotten for the other
//! does not compile; the passes both share are written once, in `scratch.rs`.

use crate::index::{Neighbours, ObstacleIndex, Point};
use crate::math::Vec3;
use crate::routing::Router;
use crate::world::{Bounds, Obstacle, Solid, World};

use super::TickEvents;
use super::finite::NonFinite;

/// What `steer` sees of the scene: walls in the plane, solids in space.
pub struct SteerScene<'a> {
    /// The plane's walls, indexed by the threats (empty in space).
    pub walls: &'a [Obstacle],
    /// Space's solids, indexed by the threats (empty in the plane).
    pub solids: &'a [Solid],
    /// The bounds as space's, the solids' frame; `None` in the plane.
    pub space_bounds: Option<&'a Bounds<Vec3>>,
    /// The walls' index; `None` without walls, and always in space.
    pub obstacle_index: Option<&'a ObstacleIndex>,
    /// The distance fields of routed targets; `None` in space, which has no routing.
    pub router: Option<&'a Router>,
}

/// A point type whose worlds the pipeline steps (`Vec2` or `Vec3`): the passes that differ
/// between the plane and space.
pub trait Passes: Point {
    /// Scratch only this dimension's passes keep (the plane's obstacle index, routing fields
    /// and velocity-model buffers; nothing in space).
    #[doc(hidden)]
    type Scratch: Default + Send + Sync;

    /// The walls' index the last tick used; `None` without walls, and always in space.
    #[doc(hidden)]
    fn obstacle_index(scratch: &Self::Scratch) -> Option<&ObstacleIndex>;

    /// The scenario's events due now (`passes::events`).
    #[doc(hidden)]
    fn events(world: &mut World<Self>);

    /// Keeps the obstacle index fitting the obstacles standing (part of `build_index`).
    #[doc(hidden)]
    fn refresh_obstacle_index(world: &World<Self>, scratch: &mut Self::Scratch);

    /// Each avoiding agent's most threatening obstacle (`find_threats`).
    #[doc(hidden)]
    fn find_threats(world: &World<Self>, scratch: &Self::Scratch, threat: &mut Vec<u32>);

    /// Readies the routing fields of routed targets for `steer`.
    #[doc(hidden)]
    fn route(world: &World<Self>, scratch: &mut Self::Scratch);

    /// What `steer` sees of the scene: the world's obstacles, in its bounds.
    #[doc(hidden)]
    fn steer_scene<'a>(
        obstacles: &'a [Self::Obstacle],
        bounds: &'a Bounds<Self>,
        scratch: &'a Self::Scratch,
    ) -> SteerScene<'a>;

    /// Velocity models choose their agents' velocities (`models`).
    #[doc(hidden)]
    fn models(
        world: &mut World<Self>,
        scratch: &mut Self::Scratch,
        steering: &mut [Self],
        neighbours: &Neighbours<Self>,
    ) -> Result<(), NonFinite>;

    /// Waiting areas hold their agents still (before `integrate`).
    #[doc(hidden)]
    fn hold(world: &mut World<Self>, steering: &mut [Self]);

    /// Whether this tick's passes after `integrate` read where each step started.
    #[doc(hidden)]
    fn reads_step_start(world: &World<Self>) -> bool;

    /// Bodies pushed out of obstacles (`collide`); `before` holds where each step started.
    #[doc(hidden)]
    fn collide(world: &mut World<Self>, scratch: &Self::Scratch, before: &[Self], events: &mut TickEvents);

    /// Gate crossings counted (`gates`); `before` holds where each step started.
    #[doc(hidden)]
    fn gates(world: &World<Self>, before: &[Self], events: &mut TickEvents);

    /// Agents inside an exit leave (`exits`).
    #[doc(hidden)]
    fn exits(world: &mut World<Self>, keep: &mut Vec<bool>, events: &mut TickEvents);

    /// Agents done with their journey's stage choose the next (`journeys`).
    #[doc(hidden)]
    fn journeys(world: &mut World<Self>, scratch: &Self::Scratch);

    /// Spawn sources add agents (`spawns`).
    #[doc(hidden)]
    fn spawns(world: &mut World<Self>, events: &mut TickEvents);

    /// Waiting areas take in the agents that arrived (`wait`).
    #[doc(hidden)]
    fn wait(world: &mut World<Self>);

    /// After the tick: what the next tick's events read of it (the gates' totals).
    #[doc(hidden)]
    fn end_tick(world: &mut World<Self>, events: &TickEvents);
}
