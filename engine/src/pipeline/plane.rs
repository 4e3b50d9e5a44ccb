//! The plane's passes (`Passes for Vec2`): walls with their index and routing fields, velocity
//! models, gates, exits, spawn sources, waiting areas and events.

use crate::index::{Neighbours, ObstacleIndex};
use crate::math::Vec2;
use crate::passes::{self, ModelObstacles, StepContext};
use crate::routing::Router;
use crate::world::{Bounds, Model, Obstacle, World};

use super::dimension::{Passes, SteerScene};
use super::finite::{NonFinite, check_finite};
use super::{Pass, TickEvents};

/// What only the plane's passes keep between ticks.
#[derive(Default)]
pub struct PlaneScratch {
    /// The walls' index, rebuilt when the walls or bounds change; `None` without walls.
    obstacle_index: Option<ObstacleIndex>,
    /// The distance fields of routed targets, rebuilt when the walls or a target move.
    router: Router,
    /// The walls as velocity models see them, rebuilt when they change.
    model_obstacles: ModelObstacles,
    /// The velocities velocity models chose (rows of model agents only).
    chosen: Vec<Vec2>,
}

impl Passes for Vec2 {
    type Scratch = PlaneScratch;

    fn obstacle_index(scratch: &PlaneScratch) -> Option<&ObstacleIndex> {
        scratch.obstacle_index.as_ref()
    }

    fn events(world: &mut World) {
        if !world.events.is_empty() {
            passes::events(world);
        }
    }

    fn refresh_obstacle_index(world: &World, scratch: &mut PlaneScratch) {
        passes::refresh_obstacle_index(&world.obstacles, &world.bounds, &mut scratch.obstacle_index);
    }

    fn find_threats(world: &World, scratch: &PlaneScratch, threat: &mut Vec<u32>) {
        let index = scratch.obstacle_index.as_ref();
        passes::find_threats(index, &world.obstacles, &world.groups, &world.agents, threat);
    }

    fn route(world: &World, scratch: &mut PlaneScratch) {
        scratch.router.refresh(world, scratch.obstacle_index.as_ref());
    }

    fn steer_scene<'a>(walls: &'a [Obstacle], _: &'a Bounds, scratch: &'a PlaneScratch) -> SteerScene<'a> {
        SteerScene {
            walls,
            solids: &[],
            space_bounds: None,
            obstacle_index: scratch.obstacle_index.as_ref(),
            router: Some(&scratch.router),
        }
    }

    fn models(
        world: &mut World,
        scratch: &mut PlaneScratch,
        steering: &mut [Vec2],
        neighbours: &Neighbours,
    ) -> Result<(), NonFinite> {
        if world.groups.iter().all(|g| g.model == Model::Steering) {
            return Ok(());
        }
        let PlaneScratch { obstacle_index, model_obstacles, chosen, .. } = scratch;
        model_obstacles.refresh(&world.obstacles);
        let inputs = passes::ModelInputs {
            ctx: &StepContext::of(world),
            obstacles: &world.obstacles,
            obstacle_index: obstacle_index.as_ref(),
            geometry: model_obstacles,
            agents: &world.agents,
            steering,
            neighbours,
        };
        passes::velocity_models(&inputs, chosen);
        check_finite(world.tick, Pass::Models, "velocity", &world.agents.id, chosen)?;
        let a = &mut world.agents;
        passes::adopt_chosen(&world.groups, &a.group, chosen, &mut a.velocity, steering);
        Ok(())
    }

    fn hold(world: &mut World, steering: &mut [Vec2]) {
        if !world.scene.waiting.is_empty() {
            let a = &mut world.agents;
            passes::hold(&world.scene.waiting, &a.id, steering, &mut a.velocity);
        }
        let mut velocity = std::mem::take(&mut world.agents.velocity);
        passes::hold_queued(world, steering, &mut velocity);
        let (scene, a) = (&world.scene, &world.agents);
        passes::hold_at_exits(
            &scene.exits,
            &scene.stages,
            &world.groups,
            a,
            &world.bounds,
            steering,
            &mut velocity,
        );
        world.agents.velocity = velocity;
    }

    fn reads_step_start(world: &World) -> bool {
        !world.scene.gates.is_empty() || world.solid_obstacles
    }

    fn collide(world: &mut World, scratch: &PlaneScratch, before: &[Vec2], events: &mut TickEvents) {
        if let (true, Some(index)) = (world.solid_obstacles, scratch.obstacle_index.as_ref()) {
            let a = &mut world.agents;
            let seen = passes::collide(
                index,
                &world.obstacles,
                &world.bounds,
                &a.radius,
                Some(before),
                &mut a.position,
                &mut a.velocity,
            );
            (events.wall_depth, events.wall_crossings) = (seen.depth, seen.crossings);
        }
    }

    fn gates(world: &World, before: &[Vec2], events: &mut TickEvents) {
        if !world.scene.gates.is_empty() {
            let crossings = &mut events.gate_crossings;
            crossings.resize(world.scene.gates.len(), 0);
            passes::gates(&world.bounds, &world.scene.gates, before, &world.agents.position, crossings);
        }
    }

    fn journeys(world: &mut World, scratch: &PlaneScratch) {
        passes::journeys(world, Some(&scratch.router));
    }

    fn exits(world: &mut World, keep: &mut Vec<bool>, events: &mut TickEvents) {
        let scene = &world.scene;
        let gone =
            passes::exits(&scene.exits, &scene.stages, &world.groups, &mut world.agents, &world.bounds, keep);
        world.exited += gone as u64;
        events.exited = gone;
    }

    fn spawns(world: &mut World, events: &mut TickEvents) {
        events.spawned += passes::spawns(world);
    }

    fn wait(world: &mut World) {
        if !world.scene.waiting.is_empty() {
            passes::wait(world);
        }
    }

    fn end_tick(world: &mut World, events: &TickEvents) {
        for (total, c) in world.scene.gate_totals.iter_mut().zip(&events.gate_crossings) {
            *total += *c as u64;
        }
    }
}
