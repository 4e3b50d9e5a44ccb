//! Space's passes (`Passes for Vec3`): its balls and boxes, and its events. Space has no
//! walls, velocity models, gates, exits, spawn sources or waiting areas (its scenarios cannot
//! declare them), so those passes do nothing here.

use crate::index::{Neighbours, ObstacleIndex};
use crate::math::Vec3;
use crate::passes;
use crate::world::{Bounds, Solid, World};

use super::TickEvents;
use super::dimension::{Passes, SteerScene};
use super::finite::NonFinite;

/// Space's passes keep nothing of their own between ticks.
#[derive(Default)]
pub struct SpaceScratch;

impl Passes for Vec3 {
    type Scratch = SpaceScratch;

    fn obstacle_index(_: &SpaceScratch) -> Option<&ObstacleIndex> {
        None
    }

    fn events(world: &mut World<Vec3>) {
        if !world.events.is_empty() {
            passes::events(world);
        }
    }

    fn refresh_obstacle_index(_: &World<Vec3>, _: &mut SpaceScratch) {}

    fn find_threats(world: &World<Vec3>, _: &SpaceScratch, threat: &mut Vec<u32>) {
        passes::find_solid_threats(&world.obstacles, &world.bounds, &world.groups, &world.agents, threat);
    }

    fn route(_: &World<Vec3>, _: &mut SpaceScratch) {}

    fn steer_scene<'a>(solids: &'a [Solid], bounds: &'a Bounds<Vec3>, _: &'a SpaceScratch) -> SteerScene<'a> {
        SteerScene { walls: &[], solids, space_bounds: Some(bounds), obstacle_index: None, router: None }
    }

    fn models(
        _: &mut World<Vec3>,
        _: &mut SpaceScratch,
        _: &mut [Vec3],
        _: &Neighbours<Vec3>,
    ) -> Result<(), NonFinite> {
        Ok(())
    }

    fn hold(_: &mut World<Vec3>, _: &mut [Vec3]) {}

    fn reads_step_start(world: &World<Vec3>) -> bool {
        world.solid_obstacles
    }

    fn collide(world: &mut World<Vec3>, _: &SpaceScratch, before: &[Vec3], events: &mut TickEvents) {
        if world.solid_obstacles {
            let a = &mut world.agents;
            let seen = passes::collide_solids(
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

    fn gates(_: &World<Vec3>, _: &[Vec3], _: &mut TickEvents) {}

    fn exits(_: &mut World<Vec3>, _: &mut Vec<bool>, _: &mut TickEvents) {}

    fn spawns(_: &mut World<Vec3>, _: &mut TickEvents) {}

    fn journeys(_: &mut World<Vec3>, _: &Self::Scratch) {}

    fn wait(_: &mut World<Vec3>) {}

    fn end_tick(_: &mut World<Vec3>, _: &TickEvents) {}
}
