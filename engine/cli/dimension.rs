//! `CliDimension`: the commands' view of a dimension. A planar world has what the plane's
//! outputs need (SQLite and text trajectories, the walkable area, the planar picture); a world
//! in space has its projection. The commands are written once against this trait, and each
//! reaches the world of its own dimension by type, never by a run-time check of the engine.

use throng_engine::World;
use throng_engine::math::{Vec2, Vec3};
use throng_engine::pipeline::Passes;

/// A dimension the commands run (`Vec2` or `Vec3`).
pub trait CliDimension: Passes {
    /// `world` as a planar world; `None` in space.
    fn plane(world: &World<Self>) -> Option<&World<Vec2>>;
    /// `world` as a world in space; `None` in the plane.
    fn space(world: &World<Self>) -> Option<&World<Vec3>>;
}

impl CliDimension for Vec2 {
    fn plane(world: &World) -> Option<&World> {
        Some(world)
    }
    fn space(_: &World) -> Option<&World<Vec3>> {
        None
    }
}

impl CliDimension for Vec3 {
    fn plane(_: &World<Vec3>) -> Option<&World> {
        None
    }
    fn space(world: &World<Vec3>) -> Option<&World<Vec3>> {
        Some(world)
    }
}
