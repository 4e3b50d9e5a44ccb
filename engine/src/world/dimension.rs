//! `Dimension`: what a world of the plane or of space is made of beyond its points: the kind
//! of obstacle it holds (the plane's walls, [`Obstacle`], or space's balls and boxes,
//! [`Solid`]) and its scene ([`PlaneScene`] or [`SpaceScene`]). A `World<V>` keeps
//! `Vec<V::Obstacle>` and a `V::Scene`, so code that names a door or an exit is planar code.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Bounds, Obstacle, PlaneScene, Scene, Solid, SpaceScene};
use crate::math::{Vec2, Vec3, Vector};

/// A point type a world is built on (`Vec2` or `Vec3`), with the obstacles of its space.
pub trait Dimension: Vector {
    /// The obstacles of a world of this dimension.
    type Obstacle: Clone + std::fmt::Debug + PartialEq + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// What only a world of this dimension has (see [`Scene`]).
    type Scene: Scene;

    /// Distance from `p` to `obstacle`'s surface (negative inside), `p` taken as its image
    /// nearest the obstacle on a wrapped world.
    fn surface_distance(obstacle: &Self::Obstacle, bounds: &Bounds<Self>, p: Self) -> f32;

    /// The obstacles of the closed doors of `scene`, in door order (none in space).
    fn closed_doors(scene: &Self::Scene) -> Vec<Self::Obstacle>;

    /// `obstacle` with every coordinate and length multiplied by `s` (a scaled scenario's).
    fn scaled_obstacle(obstacle: &Self::Obstacle, s: f32) -> Self::Obstacle;

    /// Of a scenario's walls and solids, the kind of this dimension: the validator reads its
    /// `obstacles` as walls in the plane and as solids in space, and leaves the other empty.
    fn own_obstacles(walls: Vec<Obstacle>, solids: Vec<Solid>) -> Vec<Self::Obstacle>;
}

impl Dimension for Vec2 {
    type Obstacle = Obstacle;
    type Scene = PlaneScene;

    fn surface_distance(obstacle: &Obstacle, bounds: &Bounds, p: Vec2) -> f32 {
        let c = obstacle.bounding_circle().0;
        obstacle.signed_distance(c + bounds.offset(c, p))
    }

    fn closed_doors(scene: &PlaneScene) -> Vec<Obstacle> {
        scene.doors.iter().filter(|d| d.closed).map(|d| d.obstacle.clone()).collect()
    }

    fn scaled_obstacle(obstacle: &Obstacle, s: f32) -> Obstacle {
        obstacle.scaled(s)
    }

    fn own_obstacles(walls: Vec<Obstacle>, _: Vec<Solid>) -> Vec<Obstacle> {
        walls
    }
}

impl Dimension for Vec3 {
    type Obstacle = Solid;
    type Scene = SpaceScene;

    fn surface_distance(obstacle: &Solid, bounds: &Bounds<Vec3>, p: Vec3) -> f32 {
        obstacle.signed_distance(obstacle.local(bounds, p))
    }

    fn closed_doors(_: &SpaceScene) -> Vec<Solid> {
        Vec::new()
    }

    fn scaled_obstacle(obstacle: &Solid, s: f32) -> Solid {
        obstacle.scaled(s)
    }

    fn own_obstacles(_: Vec<Obstacle>, solids: Vec<Solid>) -> Vec<Solid> {
        solids
    }
}
