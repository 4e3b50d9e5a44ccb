//! `Scratch`: everything the passes rebuild every tick, and `Scratch::run`, the one place that
//! hands each pass its columns from the world. Never hashed, never saved.

use std::time::Duration;

use crate::behaviours::{self, ResolvedTarget};
use crate::index::{IndexKind, Neighbours, SensingCache, SpatialIndex};
use crate::passes::{self, IndexScope, LastHeading, PartyScratch, ReorderScratch, SteerInputs, StepContext};
use crate::world::{Group, World};

use super::dimension::{Passes, SteerScene};
use super::finite::{NonFinite, check_finite};
use super::timers::timed;
use super::{Pass, TickEvents};

/// Everything the passes rebuild every tick: the shared passes' here, and each dimension's own
/// in `own` (see [`Passes`]).
pub(super) struct Scratch<V: Passes> {
    pub(super) reorder: ReorderScratch<V>,
    pub(super) index: SpatialIndex<V>,
    pub(super) neighbours: Neighbours<V>,
    /// The id of each row of `neighbours` and `blocked` (rows before exits).
    pub(super) sensed_id: Vec<u32>,
    /// Candidate lists reused across ticks (see `Pipeline::set_sensing_skin`).
    pub(super) sensing: SensingCache<V>,
    /// What only this dimension's passes keep.
    pub(super) own: V::Scratch,
    /// Each agent's most threatening obstacle (`find_threats`).
    threat: Vec<u32>,
    steering: Vec<V>,
    /// The `parties` pass's buffers.
    parties: PartyScratch<V>,
    /// `norm(velocity)` per row, for alignment (steer).
    heading: Vec<V>,
    pub(super) blocked: Vec<bool>,
    /// Positions before `integrate`, for gate crossings (kept only when there are gates).
    prev_position: Vec<V>,
    keep: Vec<bool>,
    targets: Vec<ResolvedTarget<V>>,
    /// Per group: does some `NearestOf` target name it?
    targeted: Vec<bool>,
    pub(super) events: TickEvents,
    /// The last pass run this tick: `step` must call them in `Pass`'s order, which debug
    /// builds check (as Box2D checks its stages), so the script and the registry cannot drift.
    last_pass: Option<Pass>,
}

impl<V: Passes> Scratch<V> {
    pub(super) fn new(index: IndexKind) -> Scratch<V> {
        Scratch {
            reorder: ReorderScratch::default(),
            index: SpatialIndex::new(index),
            neighbours: Neighbours::default(),
            sensed_id: Vec::new(),
            sensing: SensingCache::default(),
            own: V::Scratch::default(),
            threat: Vec::new(),
            steering: Vec::new(),
            parties: PartyScratch::default(),
            heading: Vec::new(),
            blocked: Vec::new(),
            prev_position: Vec::new(),
            keep: Vec::new(),
            targets: Vec::new(),
            targeted: Vec::new(),
            events: TickEvents::default(),
            last_pass: None,
        }
    }

    /// Before the first pass of a tick (`events`): no pass has run yet.
    pub(super) fn start(&mut self) {
        self.last_pass = None;
    }

    /// After the events, before the tick's movement: positions must be finite (a NaN compares
    /// as equal inside kiddo), and the tick's events start at zero.
    pub(super) fn begin(&mut self, world: &World<V>) -> Result<(), NonFinite> {
        check_finite(world.tick, Pass::BuildIndex, "position", &world.agents.id, &world.agents.position)?;
        self.events.reset();
        Ok(())
    }

    /// Records that `pass` runs now; in debug builds, checks it comes after the last one.
    fn enter_pass(&mut self, pass: Pass) {
        debug_assert!(
            self.last_pass.is_none_or(|last| last < pass),
            "pass `{pass}` runs after `{}`: `Pipeline::step` must follow the order of `Pass`",
            self.last_pass.map_or("", Pass::name)
        );
        self.last_pass = Some(pass);
    }

    /// Forgets the passes run so far (a pass run alone, outside `step`).
    pub(super) fn alone(&mut self) {
        self.last_pass = None;
    }

    /// `build_index` and `find_threats` at once, on both sides of a `rayon::join`, and the
    /// headings `steer` reads after the threats, with the wall time of each. None reads what
    /// another writes.
    pub(super) fn build_index_and_find_threats(
        &mut self,
        world: &World<V>,
    ) -> (Duration, Duration, Duration) {
        self.enter_pass(Pass::BuildIndex);
        self.enter_pass(Pass::FindThreats);
        self.enter_pass(Pass::Headings);
        let ((), obstacles) = timed(|| V::refresh_obstacle_index(world, &mut self.own));
        let Scratch { index, targeted, own, threat, heading, sensing, .. } = self;
        let scope =
            if sensing.due || sensing.skin <= 0.0 { IndexScope::Whole } else { IndexScope::NearestOfGroups };
        let (((), build), (((), threats), ((), headings))) = rayon::join(
            || timed(|| build_agent_index(world, sensing, scope, index, targeted)),
            || {
                (
                    timed(|| V::find_threats(world, own, threat)),
                    timed(|| passes::headings(&world.groups, &world.agents.velocity, heading)),
                )
            },
        );
        (obstacles + build, threats, headings)
    }

    /// Runs one pass on `world`: the one place each pass gets its columns. `build_index` and
    /// `find_threats` run side by side in `step` instead (`build_index_and_find_threats`).
    pub(super) fn run(&mut self, pass: Pass, world: &mut World<V>) -> Result<(), NonFinite> {
        self.enter_pass(pass);
        match pass {
            Pass::Events => V::events(world),
            Pass::SensingDue => {
                let a = &world.agents;
                self.sensing.due =
                    self.sensing.is_due(&world.bounds, &world.groups, &a.id, &a.group, &a.position);
            }
            Pass::Reorder => passes::reorder(&world.bounds, &mut world.agents, &mut self.reorder),
            Pass::BuildIndex => {
                V::refresh_obstacle_index(world, &mut self.own);
                build_agent_index(
                    world,
                    &self.sensing,
                    IndexScope::Whole,
                    &mut self.index,
                    &mut self.targeted,
                );
            }
            Pass::FindThreats => V::find_threats(world, &self.own, &mut self.threat),
            Pass::Headings => passes::headings(&world.groups, &world.agents.velocity, &mut self.heading),
            Pass::SenseNeighbours => {
                let a = &world.agents;
                self.sensed_id.clear();
                self.sensed_id.extend_from_slice(&a.id);
                passes::sense_neighbours(
                    &StepContext::of(world),
                    a,
                    &self.index,
                    &mut self.sensing,
                    &mut self.neighbours,
                );
            }
            Pass::Steer => return self.steer(world),
            Pass::QueueBrake => {
                let a = &mut world.agents;
                self.blocked.clear();
                self.blocked.resize(a.len(), false);
                if world.groups.iter().any(|g| g.queue().is_some()) {
                    let ctx = StepContext {
                        tick: world.tick,
                        dt: world.dt,
                        bounds: &world.bounds,
                        groups: &world.groups,
                    };
                    passes::queue_brake(&ctx, a, &self.neighbours, &mut self.steering, &mut self.blocked);
                    self.events.queue_length = crate::par::count_true(&self.blocked);
                }
                return check_finite(world.tick, Pass::QueueBrake, "steering", &a.id, &self.steering);
            }
            Pass::Parties => {
                if crate::world::any_parties(&world.groups) {
                    let a = &world.agents;
                    passes::parties(&world.groups, a, &mut self.parties, &mut self.steering);
                    return check_finite(world.tick, Pass::Parties, "steering", &a.id, &self.steering);
                }
            }
            Pass::Models => return V::models(world, &mut self.own, &mut self.steering, &self.neighbours),
            Pass::Integrate => {
                V::hold(world, &mut self.steering);
                // Gates and wall crossings read each step from where it started.
                if V::reads_step_start(world) {
                    self.prev_position.clear();
                    self.prev_position.extend_from_slice(&world.agents.position);
                }
                let a = &mut world.agents;
                let last_heading = if world.groups.iter().any(Group::tracks_leader_heading) {
                    LastHeading::Track
                } else {
                    LastHeading::Leave
                };
                passes::integrate(world.dt, &world.bounds, &self.steering, a, last_heading);
                check_finite(world.tick, Pass::Integrate, "velocity", &a.id, &a.velocity)?;
                return check_finite(world.tick, Pass::Integrate, "position", &a.id, &a.position);
            }
            Pass::Collide => V::collide(world, &self.own, &self.prev_position, &mut self.events),
            Pass::Gates => V::gates(world, &self.prev_position, &mut self.events),
            Pass::Journeys => V::journeys(world, &self.own),
            Pass::Exits => V::exits(world, &mut self.keep, &mut self.events),
            Pass::Spawns => V::spawns(world, &mut self.events),
            Pass::Wait => V::wait(world),
        }
        Ok(())
    }

    /// The `steer` pass: targets resolved for the tick, then every agent's weighted sum.
    fn steer(&mut self, world: &mut World<V>) -> Result<(), NonFinite> {
        let a = &mut world.agents;
        let ids = &a.id;
        behaviours::resolve_targets(
            &world.targets,
            world.tick as f64 * world.dt as f64,
            |id| {
                ids.binary_search(&id)
                    .ok()
                    .filter(|&r| ids[r] == id)
                    .or_else(|| ids.iter().position(|&x| x == id))
            },
            &mut self.targets,
        );
        self.steering.resize(a.len(), V::ZERO);
        V::route(world, &mut self.own);
        let SteerScene { walls, solids, space_bounds, obstacle_index, router } =
            V::steer_scene(&world.obstacles, &world.bounds, &self.own);
        let (read, state) = world.agents.split_for_steer();
        let inputs = SteerInputs {
            tick: world.tick,
            dt: world.dt,
            bounds: &world.bounds,
            groups: &world.groups,
            target_defs: &world.targets,
            targets: &self.targets,
            paths: &world.paths,
            obstacles: walls,
            solids,
            space_bounds,
            obstacle_index,
            threat: &self.threat,
            id: read.id,
            group: read.group,
            position: read.position,
            velocity: read.velocity,
            heading: &self.heading,
            journey: read.journey,
            stage: read.stage,
            last_heading: read.last_heading,
            max_speed: read.max_speed,
            neighbours: &self.neighbours,
            index: &self.index,
            router,
        };
        passes::steer(&inputs, state, &mut self.steering);
        check_finite(world.tick, Pass::Steer, "steering", &world.agents.id, &self.steering)
    }
}

/// `build_agent_index` with the world's columns, its cells as wide as sensing's widest reach.
fn build_agent_index<V: Passes>(
    world: &World<V>,
    sensing: &SensingCache<V>,
    scope: IndexScope,
    index: &mut SpatialIndex<V>,
    targeted: &mut Vec<bool>,
) {
    let cell = sensing.widest_reach(&world.groups);
    passes::build_agent_index(
        &StepContext::of(world),
        &world.targets,
        &world.agents,
        scope,
        cell,
        index,
        targeted,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> World {
        let text = r#"
version = 1
name = "order"
seed = 1
dt = 0.1
ticks = 1
[bounds]
min = [0, 0]
max = [10, 10]
[[groups]]
name = "a"
count = 3
spawn = { kind = "rect", min = [0, 0], max = [5, 5] }
max_speed = 1.0
max_force = 1.0
"#;
        crate::Scenario::parse(text, "order.toml").expect("a valid scenario").build_world()
    }

    /// A pass run after a later one is caught.
    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "must follow the order of `Pass`"))]
    fn a_pass_out_of_order_is_caught_in_debug_builds() {
        let mut w = world();
        let mut s = Scratch::<crate::math::Vec2>::new(IndexKind::Brute);
        s.start();
        s.begin(&w).expect("finite");
        s.run(Pass::Gates, &mut w).expect("finite");
        s.run(Pass::Collide, &mut w).expect("finite");
    }

    #[test]
    fn passes_in_order_run_without_complaint() {
        let mut w = world();
        let mut s = Scratch::<crate::math::Vec2>::new(IndexKind::Brute);
        s.start();
        s.begin(&w).expect("finite");
        for &pass in Pass::ALL {
            s.run(pass, &mut w).expect("finite");
        }
    }
}
