//! Waiting areas at work: `hold` keeps the held agents still during a tick (before
//! `integrate`: zero steering and velocity), and `wait`, after a tick's spawns, takes in the
//! agents that arrived and forgets those that left the world; an agent on a journey is held
//! only by the area its current stage names. Reads: ids, groups, positions, journey stages.
//! Writes: steering and velocity of held rows; the areas' held lists. `hold` is parallel per
//! agent; `wait` decides per agent in parallel and records serially, in id order.

use rayon::prelude::*;

use crate::world::{NO_JOURNEY, StageKind, WaitingArea, World};

/// Zeroes the steering and velocity of every held agent, so `integrate` leaves it where it is.
pub fn hold<V: crate::math::Vector>(
    areas: &[WaitingArea],
    id: &[u32],
    steering: &mut [V],
    velocity: &mut [V],
) {
    let mut held: Vec<u32> = areas.iter().flat_map(|a| a.held.iter().map(|&(_, id)| id)).collect();
    if held.is_empty() {
        return;
    }
    held.sort_unstable();
    steering.par_iter_mut().zip(velocity.par_iter_mut()).enumerate().with_min_len(1024).for_each(
        |(i, (s, v))| {
            if held.binary_search(&id[i]).is_ok() {
                *s = V::ZERO;
                *v = V::ZERO;
            }
        },
    );
}

/// After a tick: drops held agents that are gone (exits, removals) and holds, in each area,
/// the agents of its groups now inside it that it neither holds nor has released, nor another
/// area holds; arrivals of one tick are recorded in id order with the tick's number.
pub fn wait(world: &mut World) {
    let tick = world.tick + 1;
    let a = &world.agents;
    let mut held: Vec<u32> =
        world.scene.waiting.iter().flat_map(|w| w.held.iter().map(|&(_, id)| id)).collect();
    held.sort_unstable();
    // Per row: is it held (alive), and which area takes it in (the first in file order).
    let decided: Vec<(bool, Option<u16>)> = (0..a.len())
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            if held.binary_search(&a.id[i]).is_ok() {
                return (true, None);
            }
            let takes = |w: &WaitingArea| {
                w.region.contains(a.position[i]) && w.released.binary_search(&a.id[i]).is_err()
            };
            let area = if a.journey[i] == NO_JOURNEY {
                world.scene.waiting.iter().position(|w| w.holds_group(a.group[i]) && takes(w))
            } else {
                match world.scene.stages[a.stage[i] as usize].kind {
                    StageKind::Waiting(k) if takes(&world.scene.waiting[k as usize]) => Some(k as usize),
                    _ => None,
                }
            };
            (false, area.map(|k| k as u16))
        })
        .collect();
    let mut alive: Vec<u32> = Vec::new();
    let mut arrived: Vec<(u16, u32)> = Vec::new();
    for (i, (is_held, area)) in decided.into_iter().enumerate() {
        if is_held {
            alive.push(a.id[i]);
        }
        if let Some(k) = area {
            arrived.push((k, a.id[i]));
        }
    }
    alive.sort_unstable();
    arrived.sort_unstable();
    for (k, w) in world.scene.waiting.iter_mut().enumerate() {
        w.held.retain(|(_, id)| alive.binary_search(id).is_ok());
        let new = arrived.iter().filter(|(area, _)| *area as usize == k);
        w.held.extend(new.map(|&(_, id)| (tick, id)));
    }
}
