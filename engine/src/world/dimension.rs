//! `Dimension`: what a world of the plane or of space is made of beyond its points: the kind
//! of obstacle it holds (the plane's walls, [`Obstacle`], or space's balls and boxes,
//! [`Solid`]). A `World<V>` keeps `Vec<V::Obstacle>`, so a planar world's state, hash and
//! checkpoint bytes are those of a world that never knew space.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Obstacle, Solid};
use crate::math::{Vec2, Vec3, Vector};

/// A point type a world is built on (`Vec2` or `Vec3`), with the obstacles of its space.
pub trait Dimension: Vector {
    /// The obstacles of a world of this dimension.
    type Obstacle: Clone + std::fmt::Debug + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static;
}

impl Dimension for Vec2 {
    type Obstacle = Obstacle;
}

impl Dimension for Vec3 {
    type Obstacle = Solid;
}
