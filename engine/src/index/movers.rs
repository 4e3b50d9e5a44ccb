//! Movers: the few agents that moved further than the sensing skin allows since the candidates
//! were found, and the candidates they add on a tick that otherwise reuses the lists.
//!
//! Reused candidates hold while every agent has moved at most `SKIN_MOVE × skin` since they
//! were found: two agents then close in by at most `2 · SKIN_MOVE × skin`, less than the skin.
//! In a large crowd a handful of agents (pushed out of an obstacle or another body, or moved by
//! an event) break that long before the rest do; at 1M agents 1–14 of them on the tick after
//! each sensing tick. Rather than sensing every row afresh for them, the tick keeps each other
//! agent's candidates and adds, for each mover `j`:
//!
//! - to `j`'s own list, every agent whose position when the candidates were found lies within
//!   `reach` (the widest sensing radius plus the skin) of where `j` is now, and every other
//!   mover within `reach` of it now; `j`'s old candidates are dropped;
//! - to the list of each agent so found, `j`.
//!
//! A non-mover `i` within radius `r` of `j` now was within `r + SKIN_MOVE × skin` of `j`'s
//! position now when the candidates were found, inside `reach` with `(1 − SKIN_MOVE) × skin`
//! to spare for rounding (the same spare the skin keeps, `SensingCache::remember`). Two
//! non-movers are each other's candidates as before. So every list holds every agent within
//! its radius, and the exact test, the sort by (distance², id) and the cap give the lists of
//! sensing afresh, bit for bit.

use super::row_changes::NO_ROW;
use super::{Point, SenseInput, SpatialIndex};

/// Rows a tick may have moved too far and still reuse the others' candidates: `16 +
/// rows / 16384` (77 at 1M agents, 626 at 10M). Each costs one query of the index and a test
/// against every other mover; beyond it, sensing afresh is cheaper.
pub fn movers_cap(rows: usize) -> usize {
    16 + rows / 16_384
}

/// The candidate pairs the movers add, `(row, candidate row)`, sorted and without repeats,
/// into `pairs`. `index` is the index the candidates were found with, and `index_rows` each of
/// its rows' row today (`NO_ROW` for one removed since; empty: the same rows); `then` are
/// today's rows' positions then (an added row's is NaN, and it is a mover); `movers` are
/// ascending rows; `reach` is the widest sensing radius plus the skin.
pub fn mover_pairs<V: Point>(
    index: &SpatialIndex<V>,
    index_rows: &[u32],
    input: &SenseInput<'_, V>,
    then: &[V],
    movers: &[u32],
    reach: f32,
    pairs: &mut Vec<(u32, u32)>,
) {
    let SenseInput { bounds, position, .. } = *input;
    let reach_sq = reach * reach;
    pairs.clear();
    for &j in movers {
        let p = position[j as usize];
        index.candidates(p, reach, |row| {
            let row = if index_rows.is_empty() { row } else { index_rows[row as usize] };
            let near = |row: u32| bounds.offset(p, then[row as usize]).length_squared() <= reach_sq;
            if row != NO_ROW && row != j && near(row) {
                pairs.push((j, row));
                pairs.push((row, j));
            }
        });
        for &k in movers {
            if k != j && bounds.offset(p, position[k as usize]).length_squared() <= reach_sq {
                pairs.push((j, k));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
}
