//! `World`: the simulation state. Everything here is hashed, compared and checkpointed;
//! scratch that is rebuilt every tick lives in [`crate::Pipeline`] instead.
//!
//! Agents are stored as structure-of-arrays columns ([`Agents`]), one row per live agent. Rows
//! are created in agent-id order; the pipeline's `reorder` pass may put them in spatial order,
//! which changes no result. Everything that leaves the engine (hashes, digests, snapshots,
//! checkpoints, traces) reads rows in id order ([`World::id_ordered`]).

mod agents;
mod behaviour;
mod bounds;
mod dimension;
mod event;
mod group;
mod journey;
mod layout;
mod model;
mod obstacle;
pub(crate) mod outline;
mod party;
mod scene;
mod scenes;
mod solid;
mod spacing;
mod waiting;

pub use agents::{
    AgentMut, AgentRow, Agents, ColumnValue, ColumnVisitor, PermuteScratch, SteerReads, SteerState,
};
pub use behaviour::{Behaviour, CohesionForm, EvadePrediction, SeparationVariant, WeightedBehaviour};
pub use bounds::{Bounds, BoundsKind};
pub use dimension::Dimension;
pub use event::{
    Action, AgentParam, BehaviourPatch, Diversion, Door, Event, Quantity, StageCount, Switch, Trigger,
};
pub use group::{AgentParams, Group, Param};
pub use journey::{Candidates, Choice, Journey, NO_JOURNEY, NO_STAGE, Queue, Stage, StageKind, Transition};
pub use model::{Cfsm, Model, Orca, SocialForce};
pub use obstacle::Obstacle;
pub(crate) use obstacle::nearest_face;
pub use party::{MAX_PARTY_SIZE, NO_PARTY, Parties, PartyForce, any_parties, form_parties, party_counts};
pub use scene::{DIRECTION_REACH, Exit, Gate, MeasureArea, Path, PathMode, Region, Source, Target, TargetId};
pub use scenes::{PlaneScene, Scene, SceneParts, ScenePartsMut, SpaceScene};
pub use solid::Solid;
pub(crate) use spacing::Placed;
pub use spacing::{Spacing, SpawnSpacing};
pub use waiting::WaitingArea;

use std::borrow::Cow;

use crate::math::Vec2;

/// The whole simulation state, in the plane (`V = Vec2`) or in space (`Vec3`). What only one
/// dimension has (the plane's doors, exits, gates, measurement areas, sources and waiting
/// areas) is in its [`scene`](World::scene). Its bytes (checkpoints, golden files) are laid out
/// field by field in a fixed order (see `layout.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct World<V: Dimension = Vec2> {
    /// The scenario's name (a scaled scenario's carries its factor, e.g. `"crowd x4.000"`).
    pub name: String,
    /// The run's seed: every random draw is keyed by it (with the drawer's key and purpose).
    pub seed: u64,
    /// Seconds per tick.
    pub dt: f32,
    /// Ticks completed so far.
    pub tick: u64,
    /// The world rectangle, open or wrapped; every offset and wrap goes through it.
    pub bounds: Bounds<V>,
    /// The groups, indexed by the agents' `group` column (at most 65,535).
    pub groups: Vec<Group>,
    /// What behaviours steer towards, indexed by [`TargetId`].
    pub targets: Vec<Target<V>>,
    /// The obstacles standing: the unnamed ones (the first `fixed_obstacles`), then the closed
    /// doors in door order; threats and collisions name them by index. Walls in the plane;
    /// balls and boxes in space, which has no doors.
    pub obstacles: Vec<V::Obstacle>,
    /// How many of `obstacles` are unnamed, never opened.
    pub fixed_obstacles: u32,
    /// Agents are pushed out of obstacles after integration (on by default).
    pub solid_obstacles: bool,
    /// Paths for `follow_path`, indexed by its `path`.
    pub paths: Vec<Path<V>>,
    /// What only this dimension has: the plane's [`PlaneScene`], space's [`SpaceScene`].
    pub scene: V::Scene,
    /// The live agents, one row each.
    pub agents: Agents<V>,
    /// The id the next spawned agent gets.
    pub next_id: u32,
    /// Agents removed by exits so far.
    pub exited: u64,
    /// Agents removed by `remove` events and by the program running the simulation
    /// (`Simulation::despawn`) so far.
    pub removed: u64,
    /// Agents that braked behind a blocker in the last tick (what events' `queue_length`
    /// conditions read).
    pub queue_length: u32,
    /// The `[[events]]` entries with their records, in file order.
    pub events: Vec<Event<V>>,
    /// Set by a `stop` event: no further tick runs.
    pub stopped: bool,
}

impl<V: Dimension> World<V> {
    /// A world at tick 0 with these groups and targets, no agents, no paths and none of the
    /// planar scene items (walls, doors, exits, gates, measurement areas, sources, waiting
    /// areas, events): what a program builds a world in space from, agent by agent with
    /// [`World::push_agent`], until scenario files declare `dimensions = 3`.
    pub fn empty(
        name: impl Into<String>,
        seed: u64,
        dt: f32,
        bounds: Bounds<V>,
        groups: Vec<Group>,
        targets: Vec<Target<V>>,
    ) -> World<V> {
        World {
            name: name.into(),
            seed,
            dt,
            tick: 0,
            bounds,
            groups,
            targets,
            obstacles: Vec::new(),
            fixed_obstacles: 0,
            solid_obstacles: false,
            paths: Vec::new(),
            scene: V::Scene::default(),
            agents: Agents::default(),
            next_id: 0,
            exited: 0,
            removed: 0,
            queue_length: 0,
            events: Vec::new(),
            stopped: false,
        }
    }

    /// Simulated time at the start of the next tick, in seconds.
    pub fn time_s(&self) -> f64 {
        self.tick as f64 * self.dt as f64
    }

    /// Live agents (of `group`, when given) inside `region`: an integer count, whatever the
    /// row order (events' conditions and expectations read it).
    pub fn count_in(&self, region: &Region<V>, group: Option<u16>) -> u64 {
        let a = &self.agents;
        a.position
            .iter()
            .zip(&a.group)
            .filter(|(p, g)| group.is_none_or(|want| **g == want) && region.contains(**p))
            .count() as u64
    }

    /// The row of agent `id`, if it is alive (see [`Agents::row_of`]).
    pub fn row_of(&self, id: u32) -> Option<usize> {
        self.agents.row_of(id)
    }

    /// This world with its rows in id order: itself when they already are (no copy), else a
    /// copy with the rows permuted. Everything that leaves the engine in row form (column
    /// digests, snapshots, checkpoints, field-by-field differences) goes through it, so no
    /// output depends on the pipeline's spatial reordering.
    pub fn id_ordered(&self) -> Cow<'_, World<V>> {
        match self.agents.id_order() {
            None => Cow::Borrowed(self),
            Some(order) => {
                let mut w = self.clone();
                w.agents.permute_rows(&order);
                Cow::Owned(w)
            }
        }
    }

    /// Appends a new agent of group `g` at `position` with the next id. Every random draw is
    /// keyed by (seed, `key`, purpose), so an agent's values depend only on who made it and
    /// its ordinal there (see `rng::agent_key`), never on other groups or thread counts.
    pub fn push_agent(&mut self, g: u16, key: u64, position: V) -> u32 {
        use crate::rng::{Purpose, agent_rng, unit};
        let group = &self.groups[g as usize];
        let mut params = agent_rng(self.seed, key, Purpose::Params);
        let max_speed = group.params.max_speed.draw(&mut params);
        let max_force = group.params.max_force.draw(&mut params);
        let mass = group.params.mass.draw(&mut params);
        let radius = group.params.radius.draw(&mut params);
        let initial_speed = group.params.initial_speed.draw(&mut params);
        let mut heading = agent_rng(self.seed, key, Purpose::Heading);
        let velocity =
            crate::math::trunc(V::direction_from(|| unit(&mut heading)) * initial_speed, max_speed);
        let w = group.wander_radius() * 0.707;
        // A goal of its own fixed at spawn: the point opposite across an `opposite` target.
        let opposite = group.behaviours.iter().filter_map(|b| b.behaviour.target()).find_map(|t| match self
            .targets[t as usize]
        {
            Target::Opposite { centre } => Some(self.bounds.wrap(centre * 2.0 - position)),
            _ => None,
        });

        let id = self.next_id;
        self.next_id += 1;
        self.agents.push(AgentRow {
            id,
            group: g,
            position: self.bounds.wrap(position),
            velocity,
            max_speed,
            max_force,
            mass,
            radius,
            // The sources' (0.707 R, 0, 0.707 R) with their vertical axis (y) dropped: in
            // space z is up, and the offset lies in the ground plane.
            wander: V::from_fn(|a| if a < 2 { w } else { 0.0 }),
            flock_force: V::ZERO,
            rng: agent_rng(self.seed, key, Purpose::Behaviour),
            path_node: 0,
            path_dir: 1,
            waypoint: position,
            walk_state: 0,
            goal: opposite.unwrap_or(position),
            last_heading: crate::math::norm(velocity),
            journey: NO_JOURNEY,
            stage: 0,
            stage_since: self.tick,
            stage_from: NO_STAGE,
            party: NO_PARTY,
        });
        if let Some(j) = group.journey {
            self.start_journey(self.agents.len() - 1, j, None);
        }
        id
    }

    /// Puts the agent in `row` on journey `journey` (a planar world's; none in space) at
    /// `stage`, or at the journey's `start`: that stage becomes its current one, chosen now,
    /// and its point the agent's own goal.
    pub fn start_journey(&mut self, row: usize, journey: u16, stage: Option<u16>) {
        let parts = self.scene.parts_mut();
        let Some(start) = parts.journeys.get(journey as usize).map(|j| stage.unwrap_or(j.start)) else {
            return;
        };
        let stage = &mut parts.stages[start as usize];
        // A queue takes the agent at its tail (an agent already in its line keeps its place).
        let id = self.agents.id[row];
        let place = stage.queue.as_mut().map_or(0, |q| {
            q.queued.iter().position(|&k| k == id).unwrap_or_else(|| {
                q.queued.push(id);
                q.queued.len() - 1
            })
        });
        let point = stage.goal(place);
        let a = &mut self.agents;
        a.journey[row] = journey;
        a.stage[row] = start;
        a.stage_since[row] = self.tick;
        a.stage_from[row] = NO_STAGE;
        a.goal[row] = V::from_plane(point);
    }

    /// Rebuilds `obstacles` after a door opened or closed: the unnamed ones, then the closed
    /// doors in door order (space has no doors).
    pub fn refresh_obstacles(&mut self) {
        self.obstacles.truncate(self.fixed_obstacles as usize);
        let closed = V::closed_doors(&self.scene);
        self.obstacles.extend(closed);
    }
}
