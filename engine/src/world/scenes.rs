//! What a world has by dimension beyond agents, groups, targets, paths and obstacles: the
//! plane's doors, exits, gates, measurement areas, sources and waiting areas
//! ([`PlaneScene`]); space has none of them ([`SpaceScene`]). A world holds its dimension's
//! scene (`World::scene`), so code that reaches a door or an exit is planar code and does not
//! compile for space.

use serde::{Deserialize, Serialize};

use super::{Diversion, Door, Exit, Gate, MeasureArea, Source, WaitingArea};

/// The scene of one dimension: what `Dimension::Scene` names.
pub trait Scene: Clone + std::fmt::Debug + Default + PartialEq + Send + Sync + 'static {
    /// The scene's parts as the state's bytes lay them out: the plane's, or empty lists.
    fn parts(&self) -> SceneParts<'_>;

    /// The same parts, to change: what code shared by both dimensions (events, spawn spacing)
    /// writes. In space every list is empty, and a scenario in space cannot name an item of
    /// one (validation refuses it), so shared code never indexes them there.
    fn parts_mut(&mut self) -> ScenePartsMut<'_>;

    /// The scene from parts read back from bytes; `Err` names a part this dimension cannot
    /// hold that was not empty.
    fn from_parts(parts: OwnedSceneParts) -> Result<Self, &'static str>;
}

/// The scene's parts, borrowed: what hashes and checkpoints write, in the plane and (all empty)
/// in space.
#[derive(Clone, Copy, Debug)]
pub struct SceneParts<'a> {
    /// Named obstacles that events open and close.
    pub doors: &'a [Door],
    /// Regions that remove the agents inside them.
    pub exits: &'a [Exit],
    /// Lines whose crossings are counted.
    pub gates: &'a [Gate],
    /// Measurement areas.
    pub measures: &'a [MeasureArea],
    /// Spawn sources.
    pub sources: &'a [Source],
    /// Waiting areas.
    pub waiting: &'a [WaitingArea],
    /// Crossings of each gate since tick 0.
    pub gate_totals: &'a [u64],
    /// The groups' `on_closed` entries.
    pub diversions: &'a [Diversion],
}

/// [`SceneParts`], to change.
#[derive(Debug)]
pub struct ScenePartsMut<'a> {
    /// See [`SceneParts::doors`].
    pub doors: &'a mut [Door],
    /// See [`SceneParts::exits`].
    pub exits: &'a mut [Exit],
    /// See [`SceneParts::gates`].
    pub gates: &'a mut [Gate],
    /// See [`SceneParts::measures`].
    pub measures: &'a mut [MeasureArea],
    /// See [`SceneParts::sources`].
    pub sources: &'a mut [Source],
    /// See [`SceneParts::waiting`].
    pub waiting: &'a mut [WaitingArea],
    /// See [`SceneParts::gate_totals`].
    pub gate_totals: &'a mut [u64],
    /// See [`SceneParts::diversions`].
    pub diversions: &'a mut [Diversion],
}

/// [`SceneParts`], owned: what a checkpoint reads back.
#[derive(Clone, Debug, Default)]
pub struct OwnedSceneParts {
    /// See [`SceneParts::doors`].
    pub doors: Vec<Door>,
    /// See [`SceneParts::exits`].
    pub exits: Vec<Exit>,
    /// See [`SceneParts::gates`].
    pub gates: Vec<Gate>,
    /// See [`SceneParts::measures`].
    pub measures: Vec<MeasureArea>,
    /// See [`SceneParts::sources`].
    pub sources: Vec<Source>,
    /// See [`SceneParts::waiting`].
    pub waiting: Vec<WaitingArea>,
    /// See [`SceneParts::gate_totals`].
    pub gate_totals: Vec<u64>,
    /// See [`SceneParts::diversions`].
    pub diversions: Vec<Diversion>,
}

/// What a planar world has beyond its walls: the parts events switch and metrics count.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlaneScene {
    /// Named obstacles that events open and close; the closed ones stand among the world's
    /// obstacles after the unnamed ones.
    pub doors: Vec<Door>,
    /// Regions that remove the agents inside them, after each tick's movement.
    pub exits: Vec<Exit>,
    /// Lines whose crossings each tick counts, in the order of the metrics' gate columns.
    pub gates: Vec<Gate>,
    /// Measurement areas, in the order of the metrics' area columns.
    pub measures: Vec<MeasureArea>,
    /// Spawn sources, with how many each has spawned so far (part of the state).
    pub sources: Vec<Source>,
    /// Waiting areas, with the agents each holds.
    pub waiting: Vec<WaitingArea>,
    /// Crossings of each gate since tick 0, in gate order (what events' gate conditions read).
    pub gate_totals: Vec<u64>,
    /// The groups' `on_closed` entries, in group order, with whom each has diverted.
    pub diversions: Vec<Diversion>,
}

impl Scene for PlaneScene {
    fn parts(&self) -> SceneParts<'_> {
        SceneParts {
            doors: &self.doors,
            exits: &self.exits,
            gates: &self.gates,
            measures: &self.measures,
            sources: &self.sources,
            waiting: &self.waiting,
            gate_totals: &self.gate_totals,
            diversions: &self.diversions,
        }
    }

    fn parts_mut(&mut self) -> ScenePartsMut<'_> {
        ScenePartsMut {
            doors: &mut self.doors,
            exits: &mut self.exits,
            gates: &mut self.gates,
            measures: &mut self.measures,
            sources: &mut self.sources,
            waiting: &mut self.waiting,
            gate_totals: &mut self.gate_totals,
            diversions: &mut self.diversions,
        }
    }

    fn from_parts(p: OwnedSceneParts) -> Result<Self, &'static str> {
        let OwnedSceneParts { doors, exits, gates, measures, sources, waiting, gate_totals, diversions } = p;
        Ok(PlaneScene { doors, exits, gates, measures, sources, waiting, gate_totals, diversions })
    }
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

impl Scene for SpaceScene {
    fn parts(&self) -> SceneParts<'_> {
        SceneParts {
            doors: &[],
            exits: &[],
            gates: &[],
            measures: &[],
            sources: &[],
            waiting: &[],
            gate_totals: &[],
            diversions: &[],
        }
    }

    fn parts_mut(&mut self) -> ScenePartsMut<'_> {
        ScenePartsMut {
            doors: &mut [],
            exits: &mut [],
            gates: &mut [],
            measures: &mut [],
            sources: &mut [],
            waiting: &mut [],
            gate_totals: &mut [],
            diversions: &mut [],
        }
    }

    fn from_parts(p: OwnedSceneParts) -> Result<Self, &'static str> {
        let planar = [
            (p.doors.is_empty(), "doors"),
            (p.exits.is_empty(), "exits"),
            (p.gates.is_empty(), "gates"),
            (p.measures.is_empty(), "measurement areas"),
            (p.sources.is_empty(), "sources"),
            (p.waiting.is_empty(), "waiting areas"),
            (p.gate_totals.is_empty(), "gate totals"),
            (p.diversions.is_empty(), "diversions"),
        ];
        match planar.iter().find(|(empty, _)| !empty) {
            Some((_, name)) => Err(*name),
            None => Ok(SpaceScene),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn space_reads_back_only_empty_planar_parts() {
        assert_eq!(SpaceScene::from_parts(OwnedSceneParts::default()), Ok(SpaceScene));
        let parts = OwnedSceneParts { gate_totals: vec![3], ..OwnedSceneParts::default() };
        assert_eq!(SpaceScene::from_parts(parts), Err("gate totals"));
        assert!(SpaceScene.parts().doors.is_empty() && SpaceScene.parts_mut().sources.is_empty());
    }

    #[test]
    fn the_plane_keeps_every_part_it_reads_back() {
        let parts = OwnedSceneParts { gate_totals: vec![3, 4], ..OwnedSceneParts::default() };
        let scene = PlaneScene::from_parts(parts).expect("the plane holds every part");
        assert_eq!(scene.gate_totals, [3, 4]);
        assert_eq!(scene.parts().gate_totals, [3, 4]);
    }
}
