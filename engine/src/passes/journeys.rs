//! The `journeys` pass, after `gates` and before `exits`: agents on a journey that have done
//! with their stage (reached its waypoint, were released by its waiting area or at its queue's
//! head, or are inside its open exit) finish it, and all but those leaving by the exit move on
//! to the stage their journey's transition chooses (a queue takes them at its tail); agents
//! heading to a waypoint or exit stage that closed choose again by the transition that chose
//! it, when it has another stage open. Reads:
//! ids, groups, positions, the journey columns, the stages, exits and waiting areas, the
//! stages' distance fields (`nearest`). Writes: the journey columns and own goal of the agents
//! that moved on (and of those in a queue's line); the stages' visits and lines, the
//! transitions' counts and the waiting areas' released lists. Parallel: which rows are done;
//! the choices are made serially in id order, so counts and turns are the same at any thread
//! count and row order.

use rayon::prelude::*;

use super::journey_queues::{place, rows_by_id, tend};
use crate::math::Vec2;
use crate::rng::{Purpose, agent_key, agent_rng, unit};
use crate::routing::{Goal, Router};
use crate::world::{Candidates, Choice, NO_JOURNEY, NO_STAGE, StageKind, World};

/// Moves on every agent done with its stage; returns how many finished a stage.
pub fn journeys(world: &mut World, router: Option<&Router>) -> u32 {
    if world.scene.journeys.is_empty() {
        return 0;
    }
    // The tick being finished, as the ticks completed at its end.
    let tick = world.tick + 1;
    let queues = world.scene.stages.iter().any(|s| s.queue.is_some());
    // Agents heading to each stage, kept up as agents move on (`least_targeted` and the
    // queues' `room` read it).
    let counts_needed = queues
        || world.scene.journeys.iter().flat_map(|j| &j.transitions).any(|t| t.choice == Choice::LeastTargeted);
    let mut heading = vec![0u64; world.scene.stages.len()];
    if counts_needed {
        for (j, s) in world.agents.journey.iter().zip(&world.agents.stage) {
            if *j != NO_JOURNEY {
                heading[*s as usize] += 1;
            }
        }
    }
    let rows = if queues { rows_by_id(world) } else { Vec::new() };
    if queues {
        tend(world, &rows, &heading, tick);
    }
    let (seed, bounds) = (world.seed, world.bounds);
    let scene = &mut world.scene;
    let a = &mut world.agents;
    let (stages, exits, waiting) = (&scene.stages, &scene.exits, &scene.waiting);
    let done_with = |i: usize| {
        if a.journey[i] == NO_JOURNEY {
            return false;
        }
        let stage = &stages[a.stage[i] as usize];
        match stage.kind {
            StageKind::Waypoint { position, radius } => {
                bounds.offset(a.position[i], position).length_squared() <= radius * radius
            }
            StageKind::Exit(e) => exits[e as usize].takes(a.group[i], a.position[i], a.goal[i], &bounds),
            StageKind::Waiting(k) => waiting[k as usize].released.binary_search(&a.id[i]).is_ok(),
            StageKind::Queue => stage.queue.as_ref().is_some_and(|q| q.released.contains(&a.id[i])),
        }
    };
    // Open: an exit stage while its exit is open, any stage while no event closed it.
    let open: Vec<bool> = stages
        .iter()
        .map(|s| {
            !s.closed
                && match s.kind {
                    StageKind::Exit(e) => exits[e as usize].open,
                    _ => true,
                }
        })
        .collect();
    // Those heading to a waypoint or an exit that closed choose again (by the transition that
    // chose it), when the transition has another stage open.
    let closed_on = |i: usize| {
        let (journey, stage, from) = (a.journey[i], a.stage[i], a.stage_from[i]);
        if journey == NO_JOURNEY || from == NO_STAGE || open[stage as usize] {
            return false;
        }
        let waypoint_or_exit = matches!(stages[stage as usize].kind, StageKind::Waypoint { .. } | StageKind::Exit(_));
        let journey = &scene.journeys[journey as usize];
        waypoint_or_exit
            && journey
                .after(from)
                .is_some_and(|t| journey.transitions[t].to.iter().any(|&s| s != stage && open[s as usize]))
    };
    let mut moving: Vec<(u32, bool)> = (0..a.len())
        .into_par_iter()
        .with_min_len(1024)
        .filter_map(|i| {
            if done_with(i) {
                Some((i as u32, true))
            } else {
                closed_on(i).then_some((i as u32, false))
            }
        })
        .collect();
    moving.sort_unstable_by_key(|&(row, _)| a.id[row as usize]);
    let finished = moving.iter().filter(|(_, done)| *done).count();
    let points: Vec<Vec2> = scene.stages.iter().map(|s| s.point).collect();
    for &(row, done) in &moving {
        let row = row as usize;
        let (id, current) = (a.id[row], a.stage[row]);
        // A stage done is finished (an exit's agents leave); a closed one is left for another
        // chosen by the same transition.
        let from = if done { current } else { a.stage_from[row] };
        if done {
            let stage = &mut scene.stages[current as usize];
            stage.finished += 1;
            stage.finished_ticks += tick - a.stage_since[row];
            match stage.kind {
                StageKind::Exit(_) => continue,
                StageKind::Waiting(k) => {
                    let released = &mut scene.waiting[k as usize].released;
                    if let Ok(at) = released.binary_search(&id) {
                        released.remove(at);
                    }
                }
                StageKind::Queue => {
                    if let Some(q) = stage.queue.as_mut() {
                        q.released.retain(|&r| r != id);
                    }
                }
                StageKind::Waypoint { .. } => {}
            }
        }
        let journey = &mut scene.journeys[a.journey[row] as usize];
        let Some(t) = journey.after(from) else { continue };
        let p = a.position[row];
        let walk = |s: u16| {
            router
                .and_then(|r| r.walk(Goal::Stage(s), p))
                .unwrap_or_else(|| bounds.offset(p, points[s as usize]).length())
        };
        let mut rng = agent_rng(seed, agent_key(id as u64, tick), Purpose::Journey);
        let mut draw = || unit(&mut rng);
        let next = journey.transitions[t].choose(Candidates {
            open: &|s| open[s as usize],
            heading: &heading,
            walk: &walk,
            draw: &mut draw,
        });
        if counts_needed {
            heading[current as usize] -= 1;
            heading[next as usize] += 1;
        }
        // A queue takes the agent at its tail.
        let next_stage = &mut scene.stages[next as usize];
        let place = next_stage.queue.as_mut().map_or(0, |q| {
            q.queued.push(id);
            q.queued.len() - 1
        });
        a.stage[row] = next;
        a.stage_since[row] = tick;
        a.stage_from[row] = from;
        a.goal[row] = next_stage.goal(place);
    }
    if queues {
        place(&scene.stages, &rows, &mut a.goal);
    }
    finished as u32
}
