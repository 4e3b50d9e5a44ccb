//! The bytes of a [`World`]: one field after another in the order checkpoints, golden files
//! and snapshots have always used, whatever the struct's shape. The dimension's scene is
//! written in place as its parts (empty lists in space), so a planar world's bytes are those
//! of the flat world of earlier versions and a world in space reads back only empty ones.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::scenes::{PlaneScene, Scene};
use super::{Agents, Bounds, Diversion, Door, Event, Exit, Gate, Group, MeasureArea, Path, Source, Target};
use super::{Dimension, Journey, Stage, WaitingArea, World};

/// A world's fields, borrowed, in the order of its bytes.
#[derive(Serialize)]
#[serde(rename = "World", bound = "V: Dimension")]
struct WorldFields<'a, V: Dimension> {
    name: &'a str,
    seed: u64,
    dt: f32,
    tick: u64,
    bounds: &'a Bounds<V>,
    groups: &'a [Group],
    targets: &'a [Target<V>],
    obstacles: &'a [V::Obstacle],
    fixed_obstacles: u32,
    doors: &'a [Door],
    solid_obstacles: bool,
    paths: &'a [Path<V>],
    exits: &'a [Exit],
    gates: &'a [Gate],
    measures: &'a [MeasureArea],
    sources: &'a [Source],
    waiting: &'a [WaitingArea],
    agents: &'a Agents<V>,
    next_id: u32,
    exited: u64,
    removed: u64,
    queue_length: u32,
    gate_totals: &'a [u64],
    events: &'a [Event<V>],
    diversions: &'a [Diversion],
    stopped: bool,
    stages: &'a [Stage],
    journeys: &'a [Journey],
}

/// [`WorldFields`], owned: what reading bytes back yields.
#[derive(Deserialize)]
#[serde(rename = "World", bound = "V: Dimension")]
struct OwnedWorldFields<V: Dimension> {
    name: String,
    seed: u64,
    dt: f32,
    tick: u64,
    bounds: Bounds<V>,
    groups: Vec<Group>,
    targets: Vec<Target<V>>,
    obstacles: Vec<V::Obstacle>,
    fixed_obstacles: u32,
    doors: Vec<Door>,
    solid_obstacles: bool,
    paths: Vec<Path<V>>,
    exits: Vec<Exit>,
    gates: Vec<Gate>,
    measures: Vec<MeasureArea>,
    sources: Vec<Source>,
    waiting: Vec<WaitingArea>,
    agents: Agents<V>,
    next_id: u32,
    exited: u64,
    removed: u64,
    queue_length: u32,
    gate_totals: Vec<u64>,
    events: Vec<Event<V>>,
    diversions: Vec<Diversion>,
    stopped: bool,
    stages: Vec<Stage>,
    journeys: Vec<Journey>,
}

impl<V: Dimension> Serialize for World<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let scene = self.scene.parts();
        WorldFields {
            name: &self.name,
            seed: self.seed,
            dt: self.dt,
            tick: self.tick,
            bounds: &self.bounds,
            groups: &self.groups,
            targets: &self.targets,
            obstacles: &self.obstacles,
            fixed_obstacles: self.fixed_obstacles,
            doors: scene.doors,
            solid_obstacles: self.solid_obstacles,
            paths: &self.paths,
            exits: scene.exits,
            gates: scene.gates,
            measures: scene.measures,
            sources: scene.sources,
            waiting: scene.waiting,
            agents: &self.agents,
            next_id: self.next_id,
            exited: self.exited,
            removed: self.removed,
            queue_length: self.queue_length,
            gate_totals: scene.gate_totals,
            events: &self.events,
            diversions: scene.diversions,
            stopped: self.stopped,
            stages: scene.stages,
            journeys: scene.journeys,
        }
        .serialize(serializer)
    }
}

impl<'de, V: Dimension> Deserialize<'de> for World<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let f = OwnedWorldFields::<V>::deserialize(deserializer)?;
        let parts = PlaneScene {
            doors: f.doors,
            exits: f.exits,
            gates: f.gates,
            measures: f.measures,
            sources: f.sources,
            waiting: f.waiting,
            gate_totals: f.gate_totals,
            diversions: f.diversions,
            stages: f.stages,
            journeys: f.journeys,
        };
        let scene = V::Scene::from_parts(parts)
            .map_err(|part| D::Error::custom(format!("a world of this dimension has no {part}")))?;
        Ok(World {
            name: f.name,
            seed: f.seed,
            dt: f.dt,
            tick: f.tick,
            bounds: f.bounds,
            groups: f.groups,
            targets: f.targets,
            obstacles: f.obstacles,
            fixed_obstacles: f.fixed_obstacles,
            solid_obstacles: f.solid_obstacles,
            paths: f.paths,
            scene,
            agents: f.agents,
            next_id: f.next_id,
            exited: f.exited,
            removed: f.removed,
            queue_length: f.queue_length,
            events: f.events,
            stopped: f.stopped,
        })
    }
}
