//! The queue stages at work, inside the `journeys` pass: each tick a queue forgets who left it
//! (gone, or switched to another journey), releases its head after its service time or when
//! the next stages have room, and after the choices gives every agent in line the slot of its
//! place; and before `integrate`, those standing at their slot are held still (`hold_queued`).
//! Reads: ids, positions, the journey columns. Writes: the queues' lines, the own goals of the
//! agents in line; steering and velocity of the held. Serial per queue (a queue's line is
//! short); `hold_queued` is parallel per agent.

use rayon::prelude::*;

use crate::math::Vec2;
use crate::world::{NO_JOURNEY, Stage, World};

/// The rows of the agents on a journey, by id: (id, row), ascending ids.
pub(super) fn rows_by_id(world: &World) -> Vec<(u32, u32)> {
    let a = &world.agents;
    let mut rows: Vec<(u32, u32)> =
        (0..a.len()).filter(|&i| a.journey[i] != NO_JOURNEY).map(|i| (a.id[i], i as u32)).collect();
    rows.sort_unstable();
    rows
}

/// The row of agent `id` among `rows` ([`rows_by_id`]).
pub(super) fn row_of(rows: &[(u32, u32)], id: u32) -> Option<usize> {
    rows.binary_search_by_key(&id, |&(i, _)| i).ok().map(|k| rows[k].1 as usize)
}

/// Before the choices: every queue drops who left its line, then releases its head when its
/// service time is up or the stages after it have room. `heading` counts the agents heading to
/// each stage; `tick` is the tick being finished (ticks completed at its end).
pub(super) fn tend(world: &mut World, rows: &[(u32, u32)], heading: &[u64], tick: u64) {
    let a = &world.agents;
    let on = |id: u32, s: usize| row_of(rows, id).is_some_and(|row| a.stage[row] as usize == s);
    for (s, stage) in world.scene.stages.iter_mut().enumerate() {
        let Some(q) = stage.queue.as_mut() else { continue };
        q.queued.retain(|&id| on(id, s));
        q.released.retain(|&id| on(id, s));
        let Some(&head) = q.queued.first() else {
            q.head_since = None;
            continue;
        };
        let Some(row) = row_of(rows, head) else { continue };
        let at_head = world.bounds.offset(a.position[row], q.slots[0]).length() <= q.radius;
        if !at_head {
            q.head_since = None;
            continue;
        }
        let since = *q.head_since.get_or_insert(tick);
        let served = q.service_ticks > 0 && tick - since >= q.service_ticks;
        let room = q.room > 0 && {
            let journey = &world.scene.journeys[a.journey[row] as usize];
            let next = journey.after(s as u16).map_or(&[][..], |t| &journey.transitions[t].to[..]);
            next.iter().map(|&n| heading[n as usize]).sum::<u64>() < q.room as u64
        };
        if served || room {
            q.release(Some(1));
        }
    }
}

/// After the choices: every agent in a line walks to the slot of its place.
pub(super) fn place(stages: &[Stage], rows: &[(u32, u32)], goal: &mut [Vec2]) {
    for q in stages.iter().filter_map(|s| s.queue.as_ref()) {
        for (place, &id) in q.queued.iter().enumerate() {
            if let Some(row) = row_of(rows, id) {
                goal[row] = q.slot(place);
            }
        }
    }
}

/// Holds still (zero steering and velocity) every agent in a queue's line standing within the
/// queue's `radius` of its slot (its own goal), so the line stays a line.
pub fn hold_queued(world: &World, steering: &mut [Vec2], velocity: &mut [Vec2]) {
    let stages = &world.scene.stages;
    if !stages.iter().any(|s| s.queue.is_some()) {
        return;
    }
    let a = &world.agents;
    steering.par_iter_mut().zip(velocity.par_iter_mut()).enumerate().with_min_len(1024).for_each(
        |(i, (s, v))| {
            if a.journey[i] == NO_JOURNEY {
                return;
            }
            let Some(q) = &stages[a.stage[i] as usize].queue else { return };
            let in_line = q.queued.contains(&a.id[i]);
            if in_line && world.bounds.offset(a.position[i], a.goal[i]).length() <= q.radius {
                *s = Vec2::ZERO;
                *v = Vec2::ZERO;
            }
        },
    );
}
