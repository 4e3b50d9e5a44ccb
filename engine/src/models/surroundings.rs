//! What a velocity model reads of an agent's surroundings: its neighbours' bodies and the walls
//! near it. ORCA, the collision-free speed model and social force all read neighbours this way.

use crate::math::Vec2;

/// A neighbour as a model reads it: its offset from the agent (the minimum image on a wrapped
/// world), velocity and radius.
#[derive(Clone, Copy, Debug)]
pub struct Body {
    /// Position relative to the agent.
    pub offset: Vec2,
    /// Velocity.
    pub velocity: Vec2,
    /// Body radius.
    pub radius: f32,
}

/// A wall near the agent: the outward unit normal of its surface at the point nearest the
/// agent (pointing at the agent) and the signed distance from the agent's centre to that
/// surface (negative inside).
#[derive(Clone, Copy, Debug)]
pub struct WallNear {
    /// Outward normal at the nearest surface point.
    pub normal: Vec2,
    /// Distance from the agent's centre to the surface.
    pub distance: f32,
}

/// The agent a pedestrian model (CFSM, social force) moves, as its lanes take it: velocity,
/// preferred velocity and body radius.
#[derive(Clone, Copy, Debug)]
pub struct Walker {
    /// Velocity at the tick's start.
    pub velocity: Vec2,
    /// Preferred velocity.
    pub preferred: Vec2,
    /// Body radius.
    pub radius: f32,
}
