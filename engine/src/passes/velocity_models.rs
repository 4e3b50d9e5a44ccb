//! The `models` pass, after `queue_brake` (it reads the steering sum) and before `integrate`:
//! agents of a group with a velocity model (ORCA, CFSM, social force) choose their new
//! velocity. Reads: positions,
//! velocities, radii, max speeds and groups of every agent, the steering sum, the neighbour
//! lists, the obstacles. Writes: row `i` of `chosen`; then (`adopt_chosen`) the chosen
//! velocity becomes row `i`'s velocity and its steering is zeroed, so `integrate` moves it by
//! `v · dt`. Parallel: per agent; every agent reads the velocities of the tick's start.

use rayon::prelude::*;

use crate::index::{Neighbours, ObstacleIndex};
use crate::math::{Vec2, trunc};
use crate::models::orca::{OrcaAgent, OrcaNeighbour, OrcaScratch, new_velocity};
use crate::models::orca_obstacles::OrcaObstacles;
use crate::models::social_force::{Body, WallNear};
use crate::models::{cfsm, social_force};
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

/// One worker's buffers, reused from agent to agent.
#[derive(Default)]
struct ModelScratch {
    orca: OrcaScratch,
    /// The obstacles near an agent (by index, as social force and CFSM read them).
    walls: Vec<(u32, WallNear)>,
}

/// The `models` pass: for every agent whose group has a velocity model, its new velocity into
/// `chosen[i]` (other rows are left as they are). The preferred velocity is
/// `trunc(v + steering, preferred_speed)` (what the weighted behaviours ask for, taken at
/// once; `max_speed` when no preferred speed is set); the neighbours are the first
/// `max_neighbours` of the agent's list within the model's `neighbour_dist`. ORCA reads the
/// obstacle edges within `time_horizon_obst · max_speed + radius`; social force and CFSM the
/// obstacles whose surface lies within `neighbour_dist`, in obstacle order. Social force
/// steps the velocity by its acceleration (`trunc(v + a · dt, max_speed)`); ORCA and CFSM give
/// the velocity itself.
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
        ModelScratch::default,
        |s, (i, out)| {
            let model = ctx.groups[group[i] as usize].model;
            let (reach, cap) = model.neighbour_needs();
            if cap == 0 {
                return;
            }
            let (v, r) = (velocity[i], radius[i]);
            let preferred = trunc(v + steering[i], model.preferred_speed().unwrap_or(max_speed[i]));
            let (rows, _) = neighbours.of(i);
            let offsets = neighbours.offsets(i);
            let count = neighbours.within(i, reach).min(cap as usize);
            let near = rows[..count].iter().zip(&offsets[..count]);
            let bodies = near.clone().map(|(&j, &offset)| Body {
                offset,
                velocity: velocity[j as usize],
                radius: radius[j as usize],
            });
            if let Model::Orca(orca) = model {
                s.orca.near.clear();
                if let Some(index) = obstacle_index {
                    let range = orca.time_horizon_obst * max_speed[i] + r;
                    geometry.orca.near(index, obstacles, position[i], range, &mut s.orca.near);
                }
                let me = OrcaAgent { velocity: v, preferred, radius: r, max_speed: max_speed[i] };
                let others = bodies.map(|b| OrcaNeighbour {
                    offset: b.offset,
                    velocity: b.velocity,
                    radius: b.radius,
                });
                *out = new_velocity(&orca, ctx.dt, &me, &geometry.orca, others, &mut s.orca);
                return;
            }
            s.walls.clear();
            if let Some(index) = obstacle_index {
                let p = position[i];
                index.candidates(p, reach, |o| {
                    let obstacle = &obstacles[o as usize];
                    let local = index.local(obstacle, p);
                    let distance = obstacle.signed_distance(local);
                    if distance < reach {
                        s.walls.push((o, WallNear { normal: obstacle.boundary(local).1, distance }));
                    }
                });
                s.walls.sort_unstable_by_key(|w| w.0);
            }
            let walls = s.walls.iter().map(|w| w.1);
            *out = match model {
                Model::Cfsm(m) => cfsm::new_velocity(&m, v, preferred, r, bodies, walls),
                Model::SocialForce(m) => {
                    let a = social_force::acceleration(&m, v, preferred, r, bodies, walls);
                    trunc(v + a * ctx.dt, max_speed[i])
                }
                Model::Orca(_) | Model::Steering => unreachable!("handled above"),
            };
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
