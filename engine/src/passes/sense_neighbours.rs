//! The `sense_neighbours` pass: each agent's neighbours within its group's sensing radius,
//! nearest first (ties by id), capped at the group's `max_neighbours`. Reads: positions, ids,
//! groups, the spatial index, the sensing cache. Writes: row `i` of the neighbour lists, and
//! on a sensing tick with a skin, the cache's candidates. Parallel: chunks of 128 rows.
//!
//! Three ways to the same lists, bit for bit: a sensing tick with a skin finds candidates
//! within radius + skin and takes the lists from them; a later tick whose candidates still
//! hold takes the lists from those; otherwise (no skin) the index is queried afresh.

use crate::index::{self, Neighbours, Point, SenseInput, SensingCache, SpatialIndex};
use crate::world::Agents;

use super::StepContext;

/// Fills `neighbours` for every row and counts the tick as sensed or reused in `cache`.
pub fn sense_neighbours<V: Point>(
    ctx: &StepContext<V>,
    agents: &Agents<V>,
    index: &SpatialIndex<V>,
    cache: &mut SensingCache<V>,
    neighbours: &mut Neighbours<V>,
) {
    let (bounds, groups) = (ctx.bounds, ctx.groups);
    let (position, id, group) = (&agents.position[..], &agents.id[..], &agents.group[..]);
    let input = SenseInput::of(bounds, groups, agents);
    let sensing_with_skin = cache.due && cache.skin > 0.0;
    if sensing_with_skin {
        cache.candidates.ordered = cache.last_long();
        index::sense_candidates(index, &input, cache.skin, &mut cache.candidates, neighbours);
        cache.remember(bounds, groups, id, group, position);
        cache.drop_auto_skin_if_capped(&neighbours.count);
    }
    if cache.due || cache.skin <= 0.0 {
        cache.sensed += 1;
    } else {
        cache.reused += 1;
    }
    if sensing_with_skin {
        return; // its lists are written
    }
    if cache.valid && cache.skin > 0.0 {
        // The few agents that moved too far, and the pairs they add (see `index::mover_pairs`).
        cache.find_mover_pairs(index, &input);
        let movers = (&cache.movers[..], &cache.mover_pairs[..]);
        index::neighbours_from_candidates(&input, &mut cache.candidates, cache.skin, movers, neighbours);
    } else {
        // Each row's own reach holds while the rows are those it was found for.
        let row_reach: &[f32] = if cache.row_reach_id == id { &cache.row_reach } else { &[] };
        let reach = index::FirstReach { group: &cache.short_reach, row: row_reach };
        index::sense_neighbours(index, &input, reach, neighbours);
        // How far the next tick's searches need to reach (speed only: the lists are exact).
        index::short_reach(groups, group, neighbours, &mut cache.short_reach);
        // Rows' own reaches where some group's lists are mostly full (none: no pass over rows).
        cache.row_reach_id.clear();
        if cache.short_reach.iter().any(|&s| s > 0.0) {
            index::row_reach(groups, group, neighbours, &mut cache.row_reach);
            cache.row_reach_id.extend_from_slice(id);
        } else {
            cache.row_reach.clear();
        }
    }
}
