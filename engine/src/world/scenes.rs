//! What a world has by dimension beyond agents, groups, targets, paths and obstacles: the
//! plane's doors, exits, gates, measurement areas, sources and waiting areas
//! ([`PlaneScene`]); space has none of them ([`SpaceScene`]). A world holds its dimension's
//! scene (`World::scene`), so code that reaches a door or an exit is planar code and does not
//! compile for space. The plane's parts are declared once, in `plane_scene!` below, which
//! also makes their borrowed views.

use serde::{Deserialize, Serialize};

use super::{Diversion, Door, Exit, Gate, Journey, MeasureArea, Source, Stage, WaitingArea};

/// The scene of one dimension: what `Dimension::Scene` names.
pub trait Scene: Clone + std::fmt::Debug + Default + PartialEq + Send + Sync + 'static {
    /// The scene's parts as the state's bytes lay them out: the plane's, or empty lists.
    fn parts(&self) -> SceneParts<'_>;

    /// The same parts, to change: what code shared by both dimensions (events, spawn spacing)
    /// writes. In space every list is empty, and a scenario in space cannot name an item of
    /// one (validation refuses it), so shared code never indexes them there.
    fn parts_mut(&mut self) -> ScenePartsMut<'_>;

    /// The scene from a plane's parts (read back from bytes, or built from a scenario); `Err`
    /// names a part this dimension cannot hold that was not empty.
    fn from_parts(parts: PlaneScene) -> Result<Self, &'static str>;
}

/// Declares the plane's scene parts once: `PlaneScene` holds them, `SceneParts` and
/// `ScenePartsMut` borrow them, and `first_held` names the first part that is not empty.
macro_rules! plane_scene {
    ($($(#[$doc:meta])* $part:ident: $item:ty, $shown:literal;)*) => {
        /// What a planar world has beyond its walls: the parts events switch and metrics count.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        pub struct PlaneScene {
            $($(#[$doc])* pub $part: Vec<$item>,)*
        }

        /// The scene's parts, borrowed: what hashes and checkpoints write, in the plane and (all
        /// empty) in space.
        #[derive(Clone, Copy, Debug)]
        pub struct SceneParts<'a> {
            $(#[doc = concat!("See [`PlaneScene::", stringify!($part), "`].")] pub $part: &'a [$item],)*
        }

        /// [`SceneParts`], to change.
        #[derive(Debug)]
        pub struct ScenePartsMut<'a> {
            $(#[doc = concat!("See [`PlaneScene::", stringify!($part), "`].")] pub $part: &'a mut [$item],)*
        }

        impl PlaneScene {
            /// The first part that holds anything, in words; `None` when all are empty.
            fn first_held(&self) -> Option<&'static str> {
                $(if !self.$part.is_empty() {
                    return Some($shown);
                })*
                None
            }
        }

        impl Scene for PlaneScene {
            fn parts(&self) -> SceneParts<'_> {
                SceneParts { $($part: &self.$part,)* }
            }

            fn parts_mut(&mut self) -> ScenePartsMut<'_> {
                ScenePartsMut { $($part: &mut self.$part,)* }
            }

            fn from_parts(parts: PlaneScene) -> Result<Self, &'static str> {
                Ok(parts)
            }
        }

        impl Scene for SpaceScene {
            fn parts(&self) -> SceneParts<'_> {
                SceneParts { $($part: &[],)* }
            }

            fn parts_mut(&mut self) -> ScenePartsMut<'_> {
                ScenePartsMut { $($part: &mut [],)* }
            }

            fn from_parts(parts: PlaneScene) -> Result<Self, &'static str> {
                match parts.first_held() {
                    Some(part) => Err(part),
                    None => Ok(SpaceScene),
                }
            }
        }
    };
}

plane_scene! {
    /// Named obstacles that events open and close; the closed ones stand among the world's
    /// obstacles after the unnamed ones.
    doors: Door, "doors";
    /// Regions that remove the agents inside them, after each tick's movement.
    exits: Exit, "exits";
    /// Lines whose crossings each tick counts, in the order of the metrics' gate columns.
    gates: Gate, "gates";
    /// Measurement areas, in the order of the metrics' area columns.
    measures: MeasureArea, "measurement areas";
    /// Spawn sources, with how many each has spawned so far (part of the state).
    sources: Source, "sources";
    /// Waiting areas, with the agents each holds.
    waiting: WaitingArea, "waiting areas";
    /// Crossings of each gate since tick 0, in gate order (what events' gate conditions read).
    gate_totals: u64, "gate totals";
    /// The groups' `on_closed` entries, in group order, with whom each has diverted.
    diversions: Diversion, "diversions";
    /// The stages of journeys, with what their visits took.
    stages: Stage, "stages";
    /// The journeys, with their transitions' turns.
    journeys: Journey, "journeys";
}

/// What a world in space has beyond its solids: nothing yet. Doors, exits, gates, measurement
/// areas, sources and waiting areas are planar; a scenario in space cannot declare them, and
/// code that reaches one is planar code. This compiles:
///
/// ```
/// fn doors(world: &throng_engine::World) -> usize {
///     world.scene.doors.len()
/// }
/// ```
///
/// and this does not:
///
/// ```compile_fail,E0609
/// fn doors(world: &throng_engine::World<throng_engine::math::Vec3>) -> usize {
///     world.scene.doors.len()
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpaceScene;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_reads_back_only_empty_planar_parts() {
        assert_eq!(SpaceScene::from_parts(PlaneScene::default()), Ok(SpaceScene));
        let parts = PlaneScene { gate_totals: vec![3], ..PlaneScene::default() };
        assert_eq!(SpaceScene::from_parts(parts), Err("gate totals"));
        assert!(SpaceScene.parts().doors.is_empty() && SpaceScene.parts_mut().sources.is_empty());
    }

    #[test]
    fn the_plane_keeps_every_part_it_reads_back() {
        let parts = PlaneScene { gate_totals: vec![3, 4], ..PlaneScene::default() };
        let scene = PlaneScene::from_parts(parts).expect("the plane holds every part");
        assert_eq!(scene.gate_totals, [3, 4]);
        assert_eq!(scene.parts().gate_totals, [3, 4]);
    }
}
