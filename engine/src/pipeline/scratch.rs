//! `Scratch`: everything the passes rebuild every tick, and `Scratch::run`, the one place that
//! hands each pass its columns from the world. Never hashed, never saved.

use std::any::Any;
use std::time::Duration;

use crate::behaviours::{self, ResolvedTarget};
use crate::index::{IndexKind, Neighbours, ObstacleIndex, Point, SensingCache, SpatialIndex};
use crate::math::{Vec2, Vec3};
use crate::passes::{self, ReorderScratch, SteerInputs, SteerState, StepContext};
use crate::world::{Bounds, Dimension, Group, Model, Obstacle, Solid, World};

use super::finite::{NonFinite, check_finite};
use super::timers::timed;
use super::{Pass, TickEvents};

/// Everything the passes rebuild every tick. The obstacle index, the routing fields, the
/// threats and the velocity models' obstacles are planar: in space they stay empty.
pub(super) struct Scratch<V: Point = Vec2> {
    pub(super) reorder: ReorderScratch<V>,
    pub(super) index: SpatialIndex<V>,
    pub(super) neighbours: Neighbours<V>,
    /// The id of each row of `neighbours` and `blocked` (rows before exits).
    pub(super) sensed_id: Vec<u32>,
    /// Candidate lists reused across ticks (see `Pipeline::set_sensing_skin`).
    pub(super) sensing: SensingCache<V>,
    pub(super) obstacle_index: Option<ObstacleIndex>,
    /// The distance fields of routed targets, rebuilt when the obstacles or a target move.
    router: crate::routing::Router,
    threat: Vec<u32>,
    /// The obstacles as velocity models see them, rebuilt when they change.
    model_obstacles: passes::ModelObstacles,
    /// The velocities velocity models chose (rows of model agents only).
    chosen: Vec<V>,
    steering: Vec<V>,
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

/// The tick's context, borrowed from the world.
fn context<V: Dimension>(world: &World<V>) -> StepContext<'_, V> {
    StepContext { tick: world.tick, dt: world.dt, bounds: &world.bounds, groups: &world.groups }
}

/// A column of the plane's points as what it is; `None` for a column of space's points. The
/// planar passes (walls, velocity models, gates, exits, spawns, waiting areas) reach their
/// columns through it, and in space (where a scenario cannot have what they act on) are
/// skipped.
#[allow(clippy::ptr_arg)] // a `Vec` (sized) is what `Any` can tell apart; a slice is not
fn plane<V: Dimension>(column: &Vec<V>) -> Option<&Vec<Vec2>> {
    (column as &dyn Any).downcast_ref()
}

/// A column of space's points as what it is; `None` for a column of the plane's points.
#[allow(clippy::ptr_arg)] // as `plane`
fn space<V: Dimension>(column: &Vec<V>) -> Option<&Vec<Vec3>> {
    (column as &dyn Any).downcast_ref()
}

/// [`plane`], to write.
#[allow(clippy::ptr_arg)] // as `plane`
fn plane_mut<V: Dimension>(column: &mut Vec<V>) -> Option<&mut Vec<Vec2>> {
    (column as &mut dyn Any).downcast_mut()
}

/// The world as a planar world; `None` in space.
pub(super) fn plane_world<V: Dimension>(world: &mut World<V>) -> Option<&mut World<Vec2>> {
    world.as_plane_mut()
}

/// The bounds as planar bounds; `None` in space.
fn plane_bounds<V: Dimension>(bounds: &Bounds<V>) -> Option<&Bounds<Vec2>> {
    (bounds as &dyn Any).downcast_ref()
}

/// The bounds as space's bounds; `None` in the plane.
fn space_bounds<V: Dimension>(bounds: &Bounds<V>) -> Option<&Bounds<Vec3>> {
    (bounds as &dyn Any).downcast_ref()
}

/// A world's obstacles as the plane's walls; empty in space.
#[allow(clippy::ptr_arg)] // as `plane`
fn plane_obstacles<O: Any>(obstacles: &Vec<O>) -> &[Obstacle] {
    (obstacles as &dyn Any).downcast_ref::<Vec<Obstacle>>().map_or(&[], Vec::as_slice)
}

/// A world's obstacles as space's solids; empty in the plane.
#[allow(clippy::ptr_arg)] // as `plane`
fn space_solids<O: Any>(obstacles: &Vec<O>) -> &[Solid] {
    (obstacles as &dyn Any).downcast_ref::<Vec<Solid>>().map_or(&[], Vec::as_slice)
}

impl<V: Point> Scratch<V> {
    pub(super) fn new(index: IndexKind) -> Scratch<V> {
        Scratch {
            reorder: ReorderScratch::default(),
            index: SpatialIndex::new(index),
            neighbours: Neighbours::default(),
            sensed_id: Vec::new(),
            sensing: SensingCache::default(),
            obstacle_index: None,
            router: crate::routing::Router::default(),
            threat: Vec::new(),
            model_obstacles: passes::ModelObstacles::default(),
            chosen: Vec::new(),
            steering: Vec::new(),
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

    /// Before the first pass: positions must be finite (a NaN compares as equal inside kiddo),
    /// and the tick's events start at zero.
    pub(super) fn begin(&mut self, world: &World<V>) -> Result<(), NonFinite> {
        check_finite(world.tick, Pass::BuildIndex, "position", &world.agents.id, &world.agents.position)?;
        self.events.reset(world.gates.len());
        self.last_pass = None;
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

    /// Decides whether this tick senses afresh or the last candidates still hold.
    pub(super) fn decide_sensing(&mut self, world: &World<V>) {
        let a = &world.agents;
        self.sensing.due = self.sensing.is_due(&world.bounds, &world.groups, &a.id, &a.group, &a.position);
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
        let ((), obstacles) = timed(|| {
            if let Some(bounds) = plane_bounds(&world.bounds) {
                passes::refresh_obstacle_index(
                    plane_obstacles(&world.obstacles),
                    bounds,
                    &mut self.obstacle_index,
                )
            }
        });
        let Scratch { index, targeted, obstacle_index, threat, heading, sensing, .. } = self;
        let all = sensing.due || sensing.skin <= 0.0;
        let cell = sensing.widest_reach(&world.groups);
        let a = &world.agents;
        let ctx = context(world);
        let (((), build), (((), threats), ((), headings))) = rayon::join(
            || {
                timed(|| {
                    passes::build_agent_index(
                        &ctx,
                        &world.targets,
                        &a.position,
                        &a.id,
                        &a.group,
                        all,
                        cell,
                        index,
                        targeted,
                    )
                })
            },
            || {
                (
                    timed(|| find_threats(obstacle_index.as_ref(), threat, world)),
                    timed(|| passes::headings(&a.velocity, heading)),
                )
            },
        );
        (obstacles + build, threats, headings)
    }

    /// Steer's headings, for running `steer` alone.
    pub(super) fn headings(&mut self, world: &World<V>) {
        passes::headings(&world.agents.velocity, &mut self.heading);
    }

    /// Runs one pass on `world`: the one place each pass gets its columns. `build_index` and
    /// `find_threats` run side by side in `step` instead (`build_index_and_find_threats`).
    pub(super) fn run(&mut self, pass: Pass, world: &mut World<V>) -> Result<(), NonFinite> {
        self.enter_pass(pass);
        match pass {
            Pass::Reorder => passes::reorder(&world.bounds, &mut world.agents, &mut self.reorder),
            Pass::BuildIndex => {
                if let Some(bounds) = plane_bounds(&world.bounds) {
                    passes::refresh_obstacle_index(
                        plane_obstacles(&world.obstacles),
                        bounds,
                        &mut self.obstacle_index,
                    );
                }
                let a = &world.agents;
                let ctx = context(world);
                passes::build_agent_index(
                    &ctx,
                    &world.targets,
                    &a.position,
                    &a.id,
                    &a.group,
                    true,
                    self.sensing.widest_reach(&world.groups),
                    &mut self.index,
                    &mut self.targeted,
                );
            }
            Pass::FindThreats => find_threats(self.obstacle_index.as_ref(), &mut self.threat, world),
            Pass::SenseNeighbours => {
                let a = &world.agents;
                self.sensed_id.clear();
                self.sensed_id.extend_from_slice(&a.id);
                passes::sense_neighbours(
                    &context(world),
                    &a.position,
                    &a.id,
                    &a.group,
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
                    passes::queue_brake(
                        world.dt,
                        &world.bounds,
                        &world.groups,
                        &a.group,
                        &a.id,
                        &a.position,
                        &self.neighbours,
                        &mut self.steering,
                        &mut a.velocity,
                        &mut self.blocked,
                    );
                    self.events.queue_length = crate::par::count_true(&self.blocked);
                }
                return check_finite(world.tick, Pass::QueueBrake, "steering", &a.id, &self.steering);
            }
            Pass::Models => {
                if world.groups.iter().all(|g| g.model == Model::Steering) {
                    return Ok(());
                }
                // The velocity models are planar (ORCA's half-planes and the rest).
                let Some(world) = plane_world(world) else { return Ok(()) };
                let (Some(steering), Some(neighbours), Some(chosen)) = (
                    plane(&self.steering),
                    (&self.neighbours as &dyn Any).downcast_ref::<Neighbours<Vec2>>(),
                    plane_mut(&mut self.chosen),
                ) else {
                    return Ok(());
                };
                self.model_obstacles.refresh(&world.obstacles);
                let ctx = context(world);
                let a = &world.agents;
                passes::velocity_models(
                    &ctx,
                    &world.obstacles,
                    self.obstacle_index.as_ref(),
                    &self.model_obstacles,
                    &a.group,
                    &a.position,
                    &a.velocity,
                    &a.radius,
                    &a.max_speed,
                    steering,
                    neighbours,
                    chosen,
                );
                check_finite(world.tick, Pass::Models, "velocity", &a.id, chosen)?;
                let a = &mut world.agents;
                let steering = plane_mut(&mut self.steering).expect("planar like the world");
                passes::adopt_chosen(&world.groups, &a.group, chosen, &mut a.velocity, steering);
            }
            Pass::Integrate => {
                let a = &mut world.agents;
                if !world.waiting.is_empty() {
                    passes::hold(&world.waiting, &a.id, &mut self.steering, &mut a.velocity);
                }
                // Gates and wall crossings read each step from where it started.
                if !world.gates.is_empty() || world.solid_obstacles {
                    self.prev_position.clear();
                    self.prev_position.extend_from_slice(&a.position);
                }
                passes::integrate(
                    world.dt,
                    &world.bounds,
                    &self.steering,
                    &a.max_speed,
                    &a.max_force,
                    &a.mass,
                    &mut a.position,
                    &mut a.velocity,
                    &mut a.last_heading,
                    world.groups.iter().any(Group::tracks_leader_heading),
                );
                check_finite(world.tick, Pass::Integrate, "velocity", &a.id, &a.velocity)?;
                return check_finite(world.tick, Pass::Integrate, "position", &a.id, &a.position);
            }
            Pass::Collide => {
                if let (true, Some(world)) = (world.solid_obstacles, world.as_space_mut()) {
                    let a = &mut world.agents;
                    let seen = passes::collide_solids(
                        &world.obstacles,
                        &world.bounds,
                        &a.radius,
                        space(&self.prev_position).map(Vec::as_slice),
                        &mut a.position,
                        &mut a.velocity,
                    );
                    (self.events.wall_depth, self.events.wall_crossings) = (seen.depth, seen.crossings);
                } else if let (true, Some(oi), Some(world)) =
                    (world.solid_obstacles, self.obstacle_index.as_ref(), plane_world(world))
                {
                    let a = &mut world.agents;
                    let seen = passes::collide(
                        oi,
                        &world.obstacles,
                        &world.bounds,
                        &a.radius,
                        plane(&self.prev_position).map(Vec::as_slice),
                        &mut a.position,
                        &mut a.velocity,
                    );
                    (self.events.wall_depth, self.events.wall_crossings) = (seen.depth, seen.crossings);
                }
            }
            Pass::Gates => {
                if let (false, Some(world), Some(before)) =
                    (world.gates.is_empty(), plane_world(world), plane(&self.prev_position))
                {
                    let crossings = &mut self.events.gate_crossings;
                    crossings.resize(world.gates.len(), 0);
                    passes::gates(&world.bounds, &world.gates, before, &world.agents.position, crossings);
                }
            }
            Pass::Exits => {
                if let Some(world) = plane_world(world) {
                    let gone = passes::exits(&world.exits, &mut world.agents, &world.bounds, &mut self.keep);
                    world.exited += gone as u64;
                    self.events.exited = gone;
                }
            }
            Pass::Spawns => {
                if let Some(world) = plane_world(world) {
                    self.events.spawned += passes::spawns(world);
                }
            }
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
        if let Some(world) = plane_world(world) {
            self.router.refresh(world, self.obstacle_index.as_ref());
        }
        let a = &mut world.agents;
        let inputs = SteerInputs {
            tick: world.tick,
            dt: world.dt,
            bounds: &world.bounds,
            groups: &world.groups,
            target_defs: &world.targets,
            targets: &self.targets,
            paths: &world.paths,
            obstacles: plane_obstacles(&world.obstacles),
            solids: space_solids(&world.obstacles),
            space_bounds: space_bounds(&world.bounds),
            obstacle_index: self.obstacle_index.as_ref(),
            threat: &self.threat,
            id: &a.id,
            group: &a.group,
            position: &a.position,
            velocity: &a.velocity,
            heading: &self.heading,
            last_heading: &a.last_heading,
            max_speed: &a.max_speed,
            neighbours: &self.neighbours,
            index: &self.index,
            router: &self.router,
        };
        let state = SteerState {
            wander: &mut a.wander,
            flock_force: &mut a.flock_force,
            rng: &mut a.rng,
            path_node: &mut a.path_node,
            path_dir: &mut a.path_dir,
            waypoint: &mut a.waypoint,
            walk_state: &mut a.walk_state,
            goal: &mut a.goal,
        };
        passes::steer(&inputs, state, &mut self.steering);
        check_finite(world.tick, Pass::Steer, "steering", &a.id, &self.steering)
    }
}

/// `find_threats` with the world's columns: walls in the plane, solids in space.
fn find_threats<V: Dimension>(
    obstacle_index: Option<&ObstacleIndex>,
    threat: &mut Vec<u32>,
    world: &World<V>,
) {
    let Some(world) = world.as_plane() else {
        if let Some(world) = world.as_space() {
            let a = &world.agents;
            passes::find_solid_threats(
                &world.obstacles,
                &world.bounds,
                &world.groups,
                &a.group,
                &a.position,
                &a.velocity,
                &a.max_speed,
                &a.radius,
                threat,
            );
        }
        return;
    };
    let a = &world.agents;
    passes::find_threats(
        obstacle_index,
        &world.obstacles,
        &world.groups,
        &a.group,
        &a.position,
        &a.velocity,
        &a.max_speed,
        &a.radius,
        threat,
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
        let mut s = Scratch::<Vec2>::new(IndexKind::Brute);
        s.begin(&w).expect("finite");
        s.run(Pass::Gates, &mut w).expect("finite");
        s.run(Pass::Collide, &mut w).expect("finite");
    }

    #[test]
    fn passes_in_order_run_without_complaint() {
        let mut w = world();
        let mut s = Scratch::<Vec2>::new(IndexKind::Brute);
        s.begin(&w).expect("finite");
        for &pass in Pass::ALL {
            s.run(pass, &mut w).expect("finite");
        }
    }
}
