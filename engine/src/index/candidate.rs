//! A candidate neighbour while a list is made, and ordering a list of them by (distance², id)
//! and keeping the first `cap`: the one order every backend and every path of sensing shares.

use super::rank::{RANK_MAX, RankColumns};
use crate::math::Vector;

/// One candidate neighbour while a list is being sorted.
#[derive(Clone, Copy, Default)]
pub(super) struct Candidate<V> {
    /// (distance², id), see [`sort_key`].
    pub(super) key: u64,
    pub(super) row: u32,
    pub(super) offset: V,
}

/// One neighbour list already in order and capped at [`RANK_MAX`] (rows, squared distances,
/// offsets), as a path of sensing that orders its hits itself hands it over.
pub(super) struct SortedList<V> {
    rows: [u32; RANK_MAX],
    dist_sq: [f32; RANK_MAX],
    offset: [V; RANK_MAX],
    len: usize,
}

impl<V: Vector> Default for SortedList<V> {
    fn default() -> Self {
        SortedList { rows: [0; RANK_MAX], dist_sq: [0.0; RANK_MAX], offset: [V::ZERO; RANK_MAX], len: 0 }
    }
}

impl<V: Vector> SortedList<V> {
    /// Fills the list from `slot = 0..len`, each slot's row, squared distance and offset by
    /// `at(slot)`; `len` is at most [`RANK_MAX`].
    #[inline]
    pub(super) fn fill(&mut self, len: usize, mut at: impl FnMut(usize) -> (u32, f32, V)) {
        let len = len.min(RANK_MAX);
        for slot in 0..len {
            (self.rows[slot], self.dist_sq[slot], self.offset[slot]) = at(slot);
        }
        self.len = len;
    }

    /// Writes the list into one list's slots; returns its length.
    #[inline]
    pub(super) fn write(&self, rows: &mut [u32], dists: &mut [f32], offsets: &mut [V]) -> usize {
        let n = self.len;
        rows[..n].copy_from_slice(&self.rows[..n]);
        dists[..n].copy_from_slice(&self.dist_sq[..n]);
        offsets[..n].copy_from_slice(&self.offset[..n]);
        n
    }
}

/// A key that orders candidates by (distance², id) with one integer comparison: for finite
/// non-negative floats the bit patterns order exactly as the values do.
#[inline]
pub(super) fn sort_key(d_sq: f32, id: u32) -> u64 {
    debug_assert!(d_sq >= 0.0 && d_sq.is_finite());
    ((d_sq.to_bits() as u64) << 32) | id as u64
}

/// Sorts a short list by key with insertion sort: lists hold about a dozen candidates, where
/// this beats the standard library's general sort, and a list nearly in order (last tick's)
/// costs a comparison per candidate. Keys are unique (they contain the id) except for the
/// repeats `sense_neighbours` removes.
#[inline]
pub(super) fn insertion_sort<V: Copy>(c: &mut [Candidate<V>]) {
    for i in 1..c.len() {
        if c[i - 1].key <= c[i].key {
            continue; // in place already (every candidate of a list nearly in order)
        }
        let x = c[i];
        let mut j = i;
        while j > 0 && c[j - 1].key > x.key {
            c[j] = c[j - 1];
            j -= 1;
        }
        c[j] = x;
    }
}

/// Appends the rows of `cands` to `rows` in (distance², id) order: the order the candidate
/// lists are kept in, so that a tick reusing them finds them nearly sorted already.
/// `may_repeat`: a row may be there twice (ranks then are no permutation; a sort keeps both).
#[inline]
pub(super) fn push_rows_in_order<V: Copy>(cands: &mut [Candidate<V>], may_repeat: bool, rows: &mut Vec<u32>) {
    if cands.len() <= RANK_MAX && !may_repeat {
        let columns = RankColumns::new(cands.iter().map(|c| ((c.key >> 32) as u32, c.key as u32)));
        let mut order = [0u8; RANK_MAX];
        columns.order(&mut order);
        rows.extend(order[..cands.len()].iter().map(|&k| cands[k as usize].row));
    } else {
        cands.sort_unstable_by_key(|c| c.key);
        rows.extend(cands.iter().map(|c| c.row));
    }
}

/// Orders `cands` by (distance², id) and writes the first `cap` into `rows`, `dists` and
/// `offsets` (one list's slots). With `dedup`, a candidate proposed twice (the same key twice)
/// counts once. Returns how many were written.
#[inline]
pub(super) fn write_sorted<V: Copy>(
    cands: &mut [Candidate<V>],
    cap: usize,
    dedup: bool,
    rows: &mut [u32],
    dists: &mut [f32],
    offsets: &mut [V],
) -> usize {
    let mut put = |s: usize, c: &Candidate<V>| {
        rows[s] = c.row;
        dists[s] = f32::from_bits((c.key >> 32) as u32);
        offsets[s] = c.offset;
    };
    if dedup {
        // A point proposed twice has the same key twice: sort all, keep one.
        cands.sort_unstable_by_key(|c| c.key);
        let mut kept = 0;
        for k in 0..cands.len() {
            if kept == 0 || cands[k].key != cands[kept - 1].key {
                cands[kept] = cands[k];
                kept += 1;
            }
        }
        let count = kept.min(cap);
        cands[..count].iter().enumerate().for_each(|(s, c)| put(s, c));
        count
    } else if cands.len() <= RANK_MAX {
        // Lists this short are ordered by counting ranks rather than by sorting.
        // Keys are distinct (each holds its id): a candidate's rank is how many keys are
        // smaller, and the first `cap` of the order are written without a branch apiece.
        let columns = RankColumns::new(cands.iter().map(|c| ((c.key >> 32) as u32, c.key as u32)));
        let mut order = [0u8; RANK_MAX];
        columns.order(&mut order);
        let count = cands.len().min(cap);
        order[..count].iter().enumerate().for_each(|(s, &k)| put(s, &cands[k as usize]));
        count
    } else {
        // The `cap` smallest keys, then only those sorted.
        let keep = cands.len().min(cap);
        if cands.len() > cap {
            cands.select_nth_unstable_by_key(cap, |c| c.key);
        }
        insertion_sort(&mut cands[..keep]);
        cands[..keep].iter().enumerate().for_each(|(s, c)| put(s, c));
        keep
    }
}
