//! How far sensing searches first: a shorter reach than the sensing radius for rows whose
//! lists are full, per group ([`short_reach`]) and per row ([`row_reach`]), found from the
//! lists just sensed. Speed only: the lists do not depend on them (see `sense_neighbours`).

use rayon::prelude::*;

use super::Neighbours;
use super::neighbours::SENSE_CHUNK;
use crate::math::Vector;
use crate::world::Group;

/// Shorter first reaches for [`sense_neighbours`](super::sense_neighbours); a reach of 0, or
/// one missing or not below the sensing radius, is the whole radius. Speed only: the lists do
/// not depend on them.
#[derive(Clone, Copy, Default)]
pub struct FirstReach<'a> {
    /// Per group (see [`short_reach`]).
    pub group: &'a [f32],
    /// Per row, ahead of its group's (see [`row_reach`]); empty: none.
    pub row: &'a [f32],
}

impl FirstReach<'_> {
    /// Row `i`'s first reach, in group `g`, below the whole radius `r`; else `r`.
    #[inline]
    pub(super) fn of(&self, i: usize, g: usize, r: f32) -> f32 {
        let own = self.row.get(i).copied().filter(|&s| s > 0.0);
        match own.or_else(|| self.group.get(g).copied()) {
            Some(s) if s > 0.0 && s < r => s,
            _ => r,
        }
    }
}

/// For each row whose list is full, a first reach for the next tick that holds its
/// `max_neighbours` nearest unless they spread out by more than a tenth: 1.1 × the distance of
/// its last neighbour; 0 (the group's reach) for other rows. A row's own reach fits it better
/// than its group's average where the density varies, and misses less often.
pub fn row_reach<V: Vector>(groups: &[Group], group: &[u16], lists: &Neighbours<V>, out: &mut Vec<f32>) {
    (0..group.len())
        .into_par_iter()
        .with_min_len(SENSE_CHUNK)
        .map(|i| {
            let cap = groups[group[i] as usize].max_neighbours as usize;
            match lists.of(i).1.last() {
                Some(&last_sq) if lists.count[i] as usize == cap => ROW_REACH_FACTOR * last_sq.sqrt(),
                _ => 0.0,
            }
        })
        .collect_into_vec(out);
}

/// [`row_reach`]'s margin over the last neighbour's distance: 1.1 measured best on RVO2's scene
/// (docs/benchmarks.md).
const ROW_REACH_FACTOR: f32 = 1.1;

/// For each group, a reach that holds its agents' `max_neighbours` nearest in most cases, from
/// the lists just sensed: 1.25 × the root mean square distance of the last (`max_neighbours`-th)
/// neighbour over every eighth row whose list is full, when at least three quarters of those
/// rows are full and it is shorter than the sensing radius; else 0 (none). Serial, in row
/// order; it decides only how the next tick searches, never what it finds.
pub fn short_reach<V: Vector>(groups: &[Group], group: &[u16], lists: &Neighbours<V>, out: &mut Vec<f32>) {
    let mut full = vec![(0.0f64, 0u32, 0u32); groups.len()];
    for i in (0..group.len()).step_by(8) {
        let g = group[i] as usize;
        let cap = groups[g].max_neighbours as usize;
        let entry = &mut full[g];
        entry.2 += 1;
        if let Some(&last_sq) = lists.of(i).1.last().filter(|_| lists.count[i] as usize == cap) {
            entry.0 += f64::from(last_sq);
            entry.1 += 1;
        }
    }
    out.clear();
    out.extend(groups.iter().zip(&full).map(|(g, &(sum, n, rows))| {
        if n == 0 || 4 * n < 3 * rows {
            return 0.0;
        }
        let reach = 1.25 * (sum / f64::from(n)).sqrt() as f32;
        if reach < g.sensing_radius { reach } else { 0.0 }
    }));
}
