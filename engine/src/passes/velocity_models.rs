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
use crate::models::cfsm_lanes::CfsmLanes;
use crate::models::social_force_lanes::SocialForceLanes;
use crate::models::orca::{OrcaAgent, OrcaScratch, new_velocity};
use crate::math::lanes::{self, LANES};
use crate::models::orca_lanes::OrcaLanes;
use crate::models::orca_obstacles::OrcaObstacles;
use crate::models::surroundings::{Body, Walker};
use crate::models::walls_near::WallsNear;
use crate::models::{cfsm, social_force};
use crate::world::{Agents, Group, Model, Obstacle, Orca};

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
    /// Eight ORCA agents at once (see `models::orca_lanes`).
    orca_lanes: OrcaLanes,
    /// Eight CFSM agents at once (see `models::cfsm_lanes`).
    cfsm_lanes: CfsmLanes,
    /// Eight social force agents at once (see `models::social_force_lanes`).
    social_force_lanes: SocialForceLanes,
    /// The obstacles near an agent, by index in obstacle order.
    near: Vec<u32>,
    /// Their edges as social force and CFSM read them.
    walls: WallsNear,
}

/// What the `models` pass reads.
pub struct ModelInputs<'a> {
    /// The tick's time step, bounds and groups (each agent's model).
    pub ctx: &'a StepContext<'a>,
    /// The obstacles standing, as the index numbers them.
    pub obstacles: &'a [Obstacle],
    /// The obstacle index; `None` when the world has no obstacles.
    pub obstacle_index: Option<&'a ObstacleIndex>,
    /// The obstacles as ORCA's chains.
    pub geometry: &'a ModelObstacles,
    /// The agents at the tick's start: groups, positions, velocities, radii, max speeds.
    pub agents: &'a Agents,
    /// The summed steering of every agent (`steer`, `queue_brake`).
    pub steering: &'a [Vec2],
    /// This tick's neighbour lists.
    pub neighbours: &'a Neighbours,
}

/// The `models` pass: for every agent whose group has a velocity model, its new velocity into
/// `chosen[i]` (other rows are left as they are). The preferred velocity is
/// `trunc(v + steering, preferred_speed)` (what the weighted behaviours ask for, taken at
/// once; `max_speed` when no preferred speed is set); the neighbours are the first
/// `max_neighbours` of the agent's list within the model's `neighbour_dist`. ORCA reads the
/// obstacle edges within `time_horizon_obst · max_speed + radius`; social force and CFSM each
/// edge or wall segment within `neighbour_dist` (`models::walls_near`, as JuPedSim reads
/// walls), and CFSM leaves out a neighbour a wall hides. Social force
/// steps the velocity by its acceleration (`trunc(v + a · dt, max_speed)`); ORCA and CFSM give
/// the velocity itself.
///
/// Rows go in blocks of eight: with AVX2, the ORCA agents of a block with no obstacle edge near
/// take their velocities together (`models::orca_lanes`), and so do its CFSM agents
/// (`models::cfsm_lanes`) and its social force agents (`models::social_force_lanes`), each the
/// same bits as one at a time.
pub fn velocity_models(inputs: &ModelInputs, chosen: &mut Vec<Vec2>) {
    let lanes = lanes::available();
    chosen.resize(inputs.agents.len(), Vec2::ZERO);
    chosen
        .par_chunks_mut(LANES)
        .enumerate()
        .with_min_len(64 / LANES)
        .with_max_len(crate::par::PIECE_ROWS / LANES)
        .for_each_init(ModelScratch::default, |s, (block, out)| {
            let base = block * LANES;
            if lanes && out.len() == LANES {
                inputs.block(base, s, out.try_into().expect("a block of eight"));
            } else {
                for (l, out) in out.iter_mut().enumerate() {
                    inputs.agent(base + l, s, out);
                }
            }
        });
}

impl ModelInputs<'_> {
    /// The block of eight rows from `base`: its ORCA agents with no obstacle edge near, and its
    /// CFSM and social force agents, in lanes (one call per model), every other agent alone.
    fn block(&self, base: usize, s: &mut ModelScratch, out: &mut [Vec2; LANES]) {
        let mut in_lanes = [LaneModel::None; LANES];
        s.orca_lanes.clear();
        s.cfsm_lanes.clear();
        s.social_force_lanes.clear();
        for (l, taken) in in_lanes.iter_mut().enumerate() {
            let i = base + l;
            let model = self.ctx.groups[self.agents.group[i] as usize].model;
            match model {
                Model::Orca(orca) if orca.max_neighbours > 0 => {
                    let me = self.orca_agent(&orca, i, s);
                    if !s.orca.near.is_empty() {
                        out[l] = self.orca_alone(&orca, i, &me, s);
                        continue;
                    }
                    s.orca_lanes.set(l, &me, 1.0 / orca.time_horizon, self.bodies(model, i));
                    *taken = LaneModel::Orca;
                }
                Model::Cfsm(m) if m.max_neighbours > 0 => {
                    self.walls_near(i, model.neighbour_needs().0, s);
                    let me = self.walker(&model, i);
                    let walls = &s.walls;
                    let terms = walls.terms.iter().copied();
                    if walls.blocks.is_empty() {
                        // Nothing near can hide a neighbour (most agents): no test per neighbour.
                        s.cfsm_lanes.set(l, &m, &me, self.placed(model, i), terms);
                    } else {
                        let seen = self.placed(model, i).filter(|&(offset, _)| walls.in_sight(offset));
                        s.cfsm_lanes.set(l, &m, &me, seen, terms);
                    }
                    *taken = LaneModel::Cfsm;
                }
                Model::SocialForce(m) if m.max_neighbours > 0 => {
                    self.walls_near(i, model.neighbour_needs().0, s);
                    let me = self.walker(&model, i);
                    s.social_force_lanes.set(l, &m, &me, self.bodies(model, i), s.walls.terms.iter().copied());
                    *taken = LaneModel::SocialForce;
                }
                _ => self.agent(i, s, &mut out[l]),
            }
        }
        for kind in [LaneModel::Orca, LaneModel::Cfsm, LaneModel::SocialForce] {
            if !in_lanes.contains(&kind) {
                continue;
            }
            let mut lanes_out = [Vec2::ZERO; LANES];
            match kind {
                LaneModel::Orca => _ = s.orca_lanes.new_velocities(self.ctx.dt, &mut lanes_out),
                LaneModel::Cfsm => s.cfsm_lanes.new_velocities(&mut lanes_out),
                LaneModel::SocialForce => s.social_force_lanes.accelerations(&mut lanes_out),
                LaneModel::None => {}
            }
            for (l, v) in lanes_out.into_iter().enumerate().filter(|&(l, _)| in_lanes[l] == kind) {
                out[l] = match kind {
                    LaneModel::SocialForce => self.social_force_step(base + l, v),
                    _ => v,
                };
            }
        }
    }

    /// The walls near agent `i` within `reach` into `s.walls`, as social force and CFSM read
    /// them (`models::walls_near`).
    fn walls_near(&self, i: usize, reach: f32, s: &mut ModelScratch) {
        s.walls.clear();
        if let Some(index) = self.obstacle_index {
            let p = self.agents.position[i];
            s.near.clear();
            index.candidates(p, reach, |o| s.near.push(o));
            s.near.sort_unstable();
            s.near.dedup();
            for &o in &s.near {
                let obstacle = &self.obstacles[o as usize];
                s.walls.add(obstacle, index.local(o, p), reach);
            }
        }
    }

    /// Agent `i`'s preferred velocity under `model`.
    fn preferred(&self, model: &Model, i: usize) -> Vec2 {
        trunc(
            self.agents.velocity[i] + self.steering[i],
            model.preferred_speed().unwrap_or(self.agents.max_speed[i]),
        )
    }

    /// Social force's new velocity for agent `i` with acceleration `a`: `trunc(v + a · dt,
    /// max_speed)`.
    fn social_force_step(&self, i: usize, a: Vec2) -> Vec2 {
        trunc(self.agents.velocity[i] + a * self.ctx.dt, self.agents.max_speed[i])
    }

    /// Agent `i` as CFSM and social force read it.
    fn walker(&self, model: &Model, i: usize) -> Walker {
        Walker {
            velocity: self.agents.velocity[i],
            preferred: self.preferred(model, i),
            radius: self.agents.radius[i],
        }
    }

    /// Agent `i` as ORCA reads it, with the obstacle edges near it into `s.orca.near`.
    fn orca_agent(&self, orca: &Orca, i: usize, s: &mut ModelScratch) -> OrcaAgent {
        s.orca.near.clear();
        if let Some(index) = self.obstacle_index {
            let range = orca.time_horizon_obst * self.agents.max_speed[i] + self.agents.radius[i];
            self.geometry.orca.near(index, self.obstacles, self.agents.position[i], range, &mut s.orca.near);
        }
        OrcaAgent {
            velocity: self.agents.velocity[i],
            preferred: self.preferred(&Model::Orca(*orca), i),
            radius: self.agents.radius[i],
            max_speed: self.agents.max_speed[i],
        }
    }

    /// The neighbours agent `i`'s model reads: the first `max_neighbours` of its list within
    /// `neighbour_dist`.
    fn bodies(&self, model: Model, i: usize) -> impl Iterator<Item = Body> + Clone + '_ {
        let (rows, offsets) = self.neighbours_taken(model, i);
        rows.iter().zip(offsets).map(|(&j, &offset)| Body {
            offset,
            velocity: self.agents.velocity[j as usize],
            radius: self.agents.radius[j as usize],
        })
    }

    /// [`ModelInputs::bodies`] as offsets and radii, for a model that reads no neighbour's
    /// velocity (CFSM): no velocity is gathered.
    fn placed(&self, model: Model, i: usize) -> impl Iterator<Item = (Vec2, f32)> + Clone + '_ {
        let (rows, offsets) = self.neighbours_taken(model, i);
        rows.iter().zip(offsets).map(|(&j, &offset)| (offset, self.agents.radius[j as usize]))
    }

    /// The rows and offsets of the neighbours agent `i`'s model reads: the first
    /// `max_neighbours` of its list within `neighbour_dist`.
    fn neighbours_taken(&self, model: Model, i: usize) -> (&[u32], &[Vec2]) {
        let (reach, cap) = model.neighbour_needs();
        let count = self.neighbours.within(i, reach).min(cap as usize);
        (&self.neighbours.of(i).0[..count], &self.neighbours.offsets(i)[..count])
    }

    /// ORCA's velocity for agent `i` alone, with `s.orca.near` already filled.
    fn orca_alone(&self, orca: &Orca, i: usize, me: &OrcaAgent, s: &mut ModelScratch) -> Vec2 {
        new_velocity(
            orca,
            self.ctx.dt,
            me,
            &self.geometry.orca,
            self.bodies(Model::Orca(*orca), i),
            &mut s.orca,
        )
    }

    /// Agent `i`'s new velocity into `out`, alone; `out` is left as it is for an agent without
    /// a velocity model.
    fn agent(&self, i: usize, s: &mut ModelScratch, out: &mut Vec2) {
        let model = self.ctx.groups[self.agents.group[i] as usize].model;
        let (reach, cap) = model.neighbour_needs();
        if cap == 0 {
            return;
        }
        if let Model::Orca(orca) = model {
            let me = self.orca_agent(&orca, i, s);
            *out = self.orca_alone(&orca, i, &me, s);
            return;
        }
        let (v, r) = (self.agents.velocity[i], self.agents.radius[i]);
        let preferred = self.preferred(&model, i);
        self.walls_near(i, reach, s);
        let walls = &s.walls;
        let bodies = self.bodies(model, i);
        *out = match model {
            Model::Cfsm(m) => {
                // JuPedSim's CFSM leaves out a neighbour hidden behind a wall.
                let seen = bodies.filter(|b| walls.in_sight(b.offset));
                cfsm::new_velocity(&m, v, preferred, r, seen, walls.terms.iter().copied())
            }
            Model::SocialForce(m) => {
                let a = social_force::acceleration(&m, v, preferred, r, bodies, walls.terms.iter().copied());
                self.social_force_step(i, a)
            }
            Model::Orca(_) | Model::Steering => unreachable!("handled above"),
        };
    }
}

/// Which lanes an agent of a block takes.
#[derive(Clone, Copy, PartialEq)]
enum LaneModel {
    /// None: its velocity is chosen alone (or it has no model).
    None,
    /// ORCA's (`models::orca_lanes`).
    Orca,
    /// CFSM's (`models::cfsm_lanes`).
    Cfsm,
    /// Social force's (`models::social_force_lanes`).
    SocialForce,
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
