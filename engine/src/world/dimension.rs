//! `Dimension`: what a world of the plane or of space is made of beyond its points: the kind
//! of obstacle it holds (the plane's walls, [`Obstacle`], or space's balls and boxes,
//! [`Solid`]), and the world as the one it is (`plane`, `space`), typed without a downcast. A
//! `World<V>` keeps `Vec<V::Obstacle>`, so a planar world's state, hash and checkpoint bytes
//! are those of a world that never knew space.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Bounds, Obstacle, Solid, World};
use crate::math::{Vec2, Vec3, Vector};

/// A point type a world is built on (`Vec2` or `Vec3`), with the obstacles of its space.
pub trait Dimension: Vector {
    /// The obstacles of a world of this dimension.
    type Obstacle: Clone + std::fmt::Debug + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// Distance from `p` to `obstacle`'s surface (negative inside), `p` taken as its image
    /// nearest the obstacle on a wrapped world.
    fn surface_distance(obstacle: &Self::Obstacle, bounds: &Bounds<Self>, p: Self) -> f32;

    /// `world` as a planar world; `None` in space (see [`World::as_plane`]).
    fn plane(world: &World<Self>) -> Option<&World<Vec2>>;

    /// [`Dimension::plane`], to change.
    fn plane_mut(world: &mut World<Self>) -> Option<&mut World<Vec2>>;

    /// `world` as a world in space; `None` in the plane (see [`World::as_space`]).
    fn space(world: &World<Self>) -> Option<&World<Vec3>>;

    /// [`Dimension::space`], to change.
    fn space_mut(world: &mut World<Self>) -> Option<&mut World<Vec3>>;
}

impl Dimension for Vec2 {
    type Obstacle = Obstacle;

    fn surface_distance(obstacle: &Obstacle, bounds: &Bounds, p: Vec2) -> f32 {
        let c = obstacle.bounding_circle().0;
        obstacle.signed_distance(c + bounds.offset(c, p))
    }

    fn plane(world: &World) -> Option<&World> {
        Some(world)
    }

    fn plane_mut(world: &mut World) -> Option<&mut World> {
        Some(world)
    }

    fn space(_: &World) -> Option<&World<Vec3>> {
        None
    }

    fn space_mut(_: &mut World) -> Option<&mut World<Vec3>> {
        None
    }
}

impl Dimension for Vec3 {
    type Obstacle = Solid;

    fn surface_distance(obstacle: &Solid, bounds: &Bounds<Vec3>, p: Vec3) -> f32 {
        obstacle.signed_distance(obstacle.local(bounds, p))
    }

    fn plane(_: &World<Vec3>) -> Option<&World> {
        None
    }

    fn plane_mut(_: &mut World<Vec3>) -> Option<&mut World> {
        None
    }

    fn space(world: &World<Vec3>) -> Option<&World<Vec3>> {
        Some(world)
    }

    fn space_mut(world: &mut World<Vec3>) -> Option<&mut World<Vec3>> {
        Some(world)
    }
}
