//! `Dimension`: what a world of the plane or of space is made of beyond its points: the kind
//! of obstacle it holds (the plane's walls, [`Obstacle`], or space's balls and boxes,
//! [`Solid`]). A `World<V>` keeps `Vec<V::Obstacle>`, so a planar world's state, hash and
//! checkpoint bytes are those of a world that never knew space.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Bounds, Obstacle, Solid};
use crate::math::{Vec2, Vec3, Vector};

/// A point type a world is built on (`Vec2` or `Vec3`), with the obstacles of its space.
pub trait Dimension: Vector {
    /// The obstacles of a world of this dimension.
    type Obstacle: Clone + std::fmt::Debug + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// Distance from `p` to `obstacle`'s surface (negative inside), `p` taken as its image
    /// nearest the obstacle on a wrapped world.
    fn surface_distance(obstacle: &Self::Obstacle, bounds: &Bounds<Self>, p: Self) -> f32;
}

impl Dimension for Vec2 {
    type Obstacle = Obstacle;

    fn surface_distance(obstacle: &Obstacle, bounds: &Bounds, p: Vec2) -> f32 {
        let c = obstacle.bounding_circle().0;
        obstacle.signed_distance(c + bounds.offset(c, p))
    }
}

impl Dimension for Vec3 {
    type Obstacle = Solid;

    fn surface_distance(obstacle: &Solid, bounds: &Bounds<Vec3>, p: Vec3) -> f32 {
        obstacle.signed_distance(obstacle.local(bounds, p))
    }
}
