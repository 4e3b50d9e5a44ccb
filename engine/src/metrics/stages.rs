//! The journeys' stages as metrics: per stage, the agents heading to it now, the agents its
//! waiting area holds (its queue), the visits it has finished and their mean time. Counts are
//! integers and the mean comes from the stage's own totals, so readings are the same at any
//! thread count and row order.

use serde::{Deserialize, Serialize};

use crate::world::{Dimension, NO_JOURNEY, Scene, Stage, StageKind, World};

/// One stage after a tick (metrics file columns `stage_NAME_agents`, `_queue`, `_finished`,
/// `_mean_s`; expectations' `stages.NAME.agents` and the rest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageReading {
    /// Agents whose current stage it is: heading to it, or held there.
    pub agents: u64,
    /// Agents its waiting area holds, or in its queue's line (0 for a waypoint or an exit).
    pub queue: u64,
    /// Visits finished since tick 0: agents that reached the waypoint, were released by the
    /// waiting area, or left by the exit.
    pub finished: u64,
    /// Mean time of those visits, from choosing the stage to finishing it (seconds; 0 before
    /// the first).
    pub mean_s: f64,
}

/// One stage over the run (`metrics.stages` in `throng run --json`, `stages.NAME.*` in a
/// batch's results).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageSummary {
    /// The stage's `name`.
    pub name: String,
    /// Agents heading to it at the end.
    pub agents: u64,
    /// Most agents its waiting area held, or in its queue's line, on any observed tick.
    pub queue_max: u64,
    /// Visits finished by the end.
    pub finished: u64,
    /// Mean time of those visits (seconds).
    pub mean_s: f64,
}

/// Every stage's reading now, in `[[stages]]` order (stages are planar: none in space).
pub fn read<V: Dimension>(world: &World<V>) -> Vec<StageReading> {
    let parts = world.scene.parts();
    if parts.stages.is_empty() {
        return Vec::new();
    }
    let mut heading = vec![0u64; parts.stages.len()];
    for (j, s) in world.agents.journey.iter().zip(&world.agents.stage) {
        if *j != NO_JOURNEY {
            heading[*s as usize] += 1;
        }
    }
    parts.stages.iter().zip(heading).map(|(s, agents)| of_stage(world, s, agents)).collect()
}

/// Stage `s`'s reading now (what an event's `stages.NAME.*` condition reads).
pub fn reading<V: Dimension>(world: &World<V>, s: usize) -> StageReading {
    let a = &world.agents;
    let agents =
        a.journey.iter().zip(&a.stage).filter(|&(&j, &st)| j != NO_JOURNEY && st as usize == s).count();
    of_stage(world, &world.scene.parts().stages[s], agents as u64)
}

/// A stage's reading, `agents` heading to it.
fn of_stage<V: Dimension>(world: &World<V>, s: &Stage, agents: u64) -> StageReading {
    StageReading {
        agents,
        queue: match s.kind {
            StageKind::Waiting(k) => world.scene.parts().waiting[k as usize].held.len() as u64,
            StageKind::Queue => s.queue.as_ref().map_or(0, |q| q.queued.len() as u64),
            _ => 0,
        },
        finished: s.finished,
        mean_s: match s.finished {
            0 => 0.0,
            n => s.finished_ticks as f64 * world.dt as f64 / n as f64,
        },
    }
}

/// The stages' summary: `last`, the readings of the last observed tick, with `queue_max`.
pub fn summary<V: Dimension>(
    world: &World<V>,
    last: &[StageReading],
    queue_max: &[u64],
) -> Vec<StageSummary> {
    world
        .scene
        .parts()
        .stages
        .iter()
        .zip(last)
        .zip(queue_max)
        .map(|((s, r), &q)| StageSummary {
            name: s.name.clone(),
            agents: r.agents,
            queue_max: q,
            finished: r.finished,
            mean_s: r.mean_s,
        })
        .collect()
}
