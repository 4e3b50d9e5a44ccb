//! The `queue_brake` pass, after `steer` because it reads the summed steering. Reads:
//! positions of every agent, ids, groups, the neighbour lists. Writes: row `i` of steering,
//! velocity and `blocked`. Parallel: per agent.

use rayon::prelude::*;

use crate::behaviours::{hard_stop_per_tick, look_along, queue_brake_force, separation};
use crate::index::Neighbours;
use crate::math::{Vector, norm};
use crate::world::{Agents, Behaviour, BoundsKind, SeparationVariant};

use super::StepContext;

/// The `queue_brake` pass, after `steer` because it reads the summed steering. For an agent
/// of a queueing group: `ahead = p + norm(v + steering · τ) · queue_ahead` (see
/// [`look_along`]); the blocker is the neighbour
/// nearest to `ahead` within `queue_radius` of it (ties by id). With a blocker,
/// `steering += -steering · brake_factor - v + separation`, and if the blocker is within
/// `queue_radius` of the agent itself, `v *= hard_stop_factor^(dt / 0.1 s)` before
/// integration (see [`hard_stop_per_tick`]).
/// Reads positions (all agents) and the neighbour lists; writes row `i` of steering,
/// velocity and `blocked`.
pub fn queue_brake<V: Vector>(
    ctx: &StepContext<V>,
    agents: &mut Agents<V>,
    neighbours: &Neighbours<V>,
    steering: &mut [V],
    blocked: &mut [bool],
) {
    let StepContext { dt, bounds, groups, .. } = *ctx;
    let Agents { group, id, position, velocity, .. } = agents;
    let (group, id, position) = (&group[..], &id[..], &position[..]);
    // On a wrapped world the coordinates and the sizes are rounded at the world's scale; the
    // first test below needs the world wider than three times a queue's reach, so that the
    // list's offset and the exact one are the same image of the neighbour.
    let (world_scale, min_side) = match bounds.kind {
        BoundsKind::Open => (0.0, f32::INFINITY),
        BoundsKind::Wrap => {
            let size = bounds.max - bounds.min;
            (bounds.min.abs().max(bounds.max.abs()).max_element() + size.max_element(), size.min_element())
        }
    };
    steering
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .zip(blocked.par_iter_mut())
        .enumerate()
        .with_min_len(128)
        .with_max_len(crate::par::PIECE_ROWS)
        .for_each(|(i, ((steer, v), blocked))| {
            *blocked = false;
            let Some(&Behaviour::Queue {
                queue_ahead,
                queue_radius,
                brake_factor,
                hard_stop_factor,
                separation_radius,
                max_separation,
            }) = groups[group[i] as usize].queue()
            else {
                return;
            };
            let p = position[i];
            let look = norm(look_along(*v, *steer)) * queue_ahead;
            let ahead = p + look;
            // A blocker lies within `queue_radius` of `ahead`, so within `queue_ahead +
            // queue_radius` of the agent (plus slack for rounding): the nearer prefix of the
            // list holds every possible one, and the exact test below decides.
            let (rows, _) = neighbours.of(i);
            let reach = (queue_ahead.abs() + queue_radius) * 1.001 + 1e-6;
            let near = neighbours.within(i, reach);
            let (rows, offsets) = (&rows[..near], &neighbours.offsets(i)[..near]);
            // A first test from the list's offsets, `offset − look`: it differs from the exact
            // `offset(ahead, q)` by a few roundings of the coordinates (under `slack`), and by
            // a whole world never where `filter` holds, so a neighbour it puts further than
            // `queue_radius + slack` from `ahead` is no blocker; the rest take the exact test.
            let filter = min_side > 3.0 * (queue_ahead.abs() + queue_radius) + 1.0;
            let slack = 4e-6 * (1.0 + p.abs().max_element() + reach + queue_ahead.abs() + world_scale);
            let filter_sq = if filter { (queue_radius + slack) * (queue_radius + slack) } else { f32::INFINITY };
            let mut blocker: Option<(f32, u32, usize)> = None;
            for (&row, &offset) in rows.iter().zip(offsets) {
                if (offset - look).length_squared() > filter_sq {
                    continue;
                }
                let row = row as usize;
                let d_sq = bounds.offset(ahead, position[row]).length_squared();
                if d_sq <= queue_radius * queue_radius
                    && blocker.is_none_or(|(bd, bid, _)| d_sq < bd || (d_sq == bd && id[row] < bid))
                {
                    blocker = Some((d_sq, id[row], row));
                }
            }
            let Some((_, _, b)) = blocker else { return };
            *blocked = true;
            let near = neighbours.within(i, separation_radius);
            let offsets = neighbours.offsets(i)[..near].iter().copied();
            let sep = separation(offsets, max_separation, SeparationVariant::Mean);
            let brake = queue_brake_force(*steer, *v, brake_factor, sep);
            if bounds.offset(p, position[b]).length_squared() <= queue_radius * queue_radius {
                *v *= hard_stop_per_tick(hard_stop_factor, dt);
            }
            *steer += brake;
        });
}
