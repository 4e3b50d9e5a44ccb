//! The `models` pass, after `queue_brake` (it reads the steering sum) and before `integrate`:
//! agents of a group with a velocity model choose their new velocity. Reads: positions,
//! velocities, radii, max speeds and groups of every agent, the steering sum, the neighbour
//! lists, the obstacles. Writes: row `i` of `chosen`; then (`adopt_chosen`) the chosen
//! velocity becomes row `i`'s velocity and its steering is zeroed, so `integrate` moves it by
//! `v · dt`. Parallel: per agent; every agent reads the velocities of the tick's start.

use rayon::prelude::*;

use crate::index::{Neighbours, ObstacleIndex};
use crate::math::{Vec2, trunc};
use crate::models::orca::{OrcaAgent, OrcaNeighbour, OrcaScratch, new_velocity};
use crate::models::orca_obstacles::OrcaObstacles;
use crate::world::{Group, Model, Obstacle};

use super::StepContext;

/// The obstacles a velocity model sees: the world's, as ORCA's chains.
#[derive(Clone, Debug, Default)]
pub struct ModelObstacles {
    /// The obstacles the chains were built from.
    built_for: Vec<Obstacle>,
    /// ORCA's chains of them.
    pub orca: OrcaObstacles,
}

impl ModelObstacles {
    /// Rebuilds the chains when the standing obstacles changed (a door opened or closed).
    pub fn refresh(&mut self, obstacles: &[Obstacle]) {
        if self.built_for != obstacles {
            self.built_for = obstacles.to_vec();
            self.orca = OrcaObstacles::build(obstacles);
        }
    }
}

/// The `models` pass: for every agent whose group has a velocity model, its new velocity into
/// `chosen[i]` (other rows are left as they are). ORCA: the preferred velocity is
/// `trunc(v + steering, preferred_speed)` (what the weighted behaviours ask for, taken at
/// once; `max_speed` when no preferred speed is set), the neighbours the first
/// `max_neighbours` of the agent's list within `neighbour_dist`, the obstacles those within
/// `time_horizon_obst · max_speed + radius`.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn velocity_models(
    ctx: &StepContext,
    obstacles: &[Obstacle],
    obstacle_index: Option<&ObstacleIndex>,
    geometry: &ModelObstacles,
    group: &[u16],
    position: &[Vec2],
    velocity: &[Vec2],
    radius: &[f32],
    max_speed: &[f32],
    steering: &[Vec2],
    neighbours: &Neighbours,
    chosen: &mut Vec<Vec2>,
) {
    chosen.resize(position.len(), Vec2::ZERO);
    chosen.par_iter_mut().enumerate().with_min_len(64).with_max_len(crate::par::PIECE_ROWS).for_each_init(
        OrcaScratch::default,
        |s, (i, out)| {
            let Model::Orca(orca) = ctx.groups[group[i] as usize].model else {
                return;
            };
            let v = velocity[i];
            let speed = orca.preferred_speed.unwrap_or(max_speed[i]);
            let me = OrcaAgent {
                velocity: v,
                preferred: trunc(v + steering[i], speed),
                radius: radius[i],
                max_speed: max_speed[i],
            };
            s.near.clear();
            if let Some(index) = obstacle_index {
                let range = orca.time_horizon_obst * me.max_speed + me.radius;
                geometry.orca.near(index, obstacles, position[i], range, &mut s.near);
            }
            let (rows, _) = neighbours.of(i);
            let offsets = neighbours.offsets(i);
            let count = neighbours.within(i, orca.neighbour_dist).min(orca.max_neighbours as usize);
            let others = rows[..count].iter().zip(&offsets[..count]).map(|(&j, &offset)| OrcaNeighbour {
                offset,
                velocity: velocity[j as usize],
                radius: radius[j as usize],
            });
            *out = new_velocity(&orca, ctx.dt, &me, &geometry.orca, others, s);
        },
    );
}

/// After [`velocity_models`]: every model agent takes its chosen velocity, and its steering is
/// zeroed, so `integrate` moves it by exactly `v · dt`.
pub fn adopt_chosen(
    groups: &[Group],
    group: &[u16],
    chosen: &[Vec2],
    velocity: &mut [Vec2],
    steering: &mut [Vec2],
) {
    velocity.par_iter_mut().zip(steering.par_iter_mut()).enumerate().with_min_len(1024).for_each(
        |(i, (v, steer))| {
            if groups[group[i] as usize].model != Model::Steering {
                *v = chosen[i];
                *steer = Vec2::ZERO;
            }
        },
    );
}
