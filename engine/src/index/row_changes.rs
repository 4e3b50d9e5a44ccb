//! Reused sensing candidates through removed and added rows: the rows of today as a subsequence
//! of the rows the candidates were found for, followed by rows added since; each kept row's
//! candidates renumbered, the removed ones dropped.
//!
//! Removing an agent moves no other, so every other agent's candidates still hold every agent
//! within its sensing radius, less the removed one. An added agent (a spawn) is a *mover* with
//! no candidates of its own until sensing is next due (see `movers.rs`): its list comes from
//! the index the candidates were found with, and it joins the lists of the agents near it. So
//! exits and spawns no longer make every tick sense afresh.

use rayon::prelude::*;

use super::neighbours::SENSE_CHUNK;
use super::skin::{CandidateChunk, CandidateLists};

/// No row: a row removed since, or an added row that was not there before.
pub(super) const NO_ROW: u32 = u32::MAX;

/// How today's rows descend from the rows of before (buffers reused from tick to tick).
#[derive(Default, Debug)]
pub(super) struct RowChanges {
    /// For each of today's rows that was there before, in order, its row then (ascending).
    pub(super) then_of_now: Vec<u32>,
    /// For each row of before, its row today, or [`NO_ROW`] if removed.
    pub(super) now_of_then: Vec<u32>,
}

impl RowChanges {
    /// Finds the rows of before (ids `then`) that today's ids `now` keep, in the same order,
    /// with any rows whose ids come after the last such as added rows; false when today's rows
    /// are not that (a reorder, say). Ids are unique within each list. An id that is not found
    /// ends the kept rows: every row from it on counts as added, which is always safe (added
    /// rows are sensed as movers), only slower.
    pub(super) fn find(&mut self, then: &[u32], now: &[u32]) -> bool {
        let RowChanges { then_of_now, now_of_then } = self;
        then_of_now.clear();
        let mut k = 0;
        for &id in now {
            while k < then.len() && then[k] != id {
                k += 1;
            }
            if k == then.len() {
                break;
            }
            then_of_now.push(k as u32);
            k += 1;
        }
        if then_of_now.is_empty() && !then.is_empty() && !now.is_empty() {
            return false;
        }
        now_of_then.clear();
        now_of_then.resize(then.len(), NO_ROW);
        for (i, &k) in then_of_now.iter().enumerate() {
            now_of_then[k as usize] = i as u32;
        }
        true
    }

    /// Today's rows that were there before; the rest, from this row on, were added.
    pub(super) fn kept(&self) -> usize {
        self.then_of_now.len()
    }

    /// `lists` renumbered into `out` for `rows` rows of today: each kept row's candidates that
    /// are still there, in the same order, and none for an added row.
    pub(super) fn follow(&self, lists: &CandidateLists, rows: usize, out: &mut CandidateLists) {
        out.ordered = lists.ordered;
        out.chunks.resize_with(rows.div_ceil(SENSE_CHUNK), CandidateChunk::default);
        out.chunks.truncate(rows.div_ceil(SENSE_CHUNK));
        out.chunks.par_iter_mut().enumerate().for_each(|(c, chunk)| {
            chunk.rows.clear();
            chunk.start.clear();
            chunk.start.push(0);
            let first = c * SENSE_CHUNK;
            for i in first..(first + SENSE_CHUNK).min(rows) {
                if let Some(&then) = self.then_of_now.get(i) {
                    let renumbered = lists.of(then as usize).iter().map(|&r| self.now_of_then[r as usize]);
                    chunk.rows.extend(renumbered.filter(|&r| r != NO_ROW));
                }
                chunk.start.push(chunk.rows.len() as u32);
            }
        });
    }

    /// `values` (one per row of before) for today's `rows` rows: each kept row's own, and
    /// `added` for each added row.
    pub(super) fn carry<T: Copy>(&self, values: &mut Vec<T>, rows: usize, added: impl Fn(usize) -> T) {
        // In place, forwards: a kept row's row before is never below its row today.
        for (i, &k) in self.then_of_now.iter().enumerate() {
            values[i] = values[k as usize];
        }
        values.truncate(self.kept());
        values.extend((self.kept()..rows).map(added));
    }

    /// A map from the rows of an index built before (`index_rows`: each of its rows' row
    /// before, or empty where they were the same) to today's rows.
    pub(super) fn renumber(&self, index_rows: &mut Vec<u32>) {
        if index_rows.is_empty() {
            index_rows.extend_from_slice(&self.now_of_then);
        } else {
            for r in index_rows.iter_mut() {
                if *r != NO_ROW {
                    *r = self.now_of_then[*r as usize];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{NO_ROW, RowChanges};
    use crate::index::skin::{CandidateChunk, CandidateLists};

    #[test]
    fn removed_rows_drop_out_and_added_rows_follow() {
        let mut changes = RowChanges::default();
        assert!(changes.find(&[10, 11, 12, 13, 14], &[10, 12, 14, 20, 21]), "a subsequence");
        assert_eq!(changes.then_of_now, [0, 2, 4]);
        assert_eq!(changes.now_of_then, [0, NO_ROW, 1, NO_ROW, 2]);
        assert_eq!(changes.kept(), 3);
        // An id out of order ends the kept rows: the rest count as added.
        assert!(changes.find(&[1, 2, 3, 4], &[1, 3, 2, 4]), "a prefix kept");
        assert_eq!(changes.then_of_now, [0, 2]);
        // Nothing kept at all: not a change of rows this follows.
        assert!(!changes.find(&[1, 2], &[3, 4]));
    }

    #[test]
    fn candidate_lists_are_renumbered_without_the_removed_rows() {
        // Rows 0..4 before; row 1 removed and one row added.
        let lists = CandidateLists {
            chunks: vec![CandidateChunk { rows: vec![1, 2, 0, 3, 0, 1, 2, 1], start: vec![0, 2, 4, 6, 8] }],
            ordered: true,
        };
        let mut changes = RowChanges::default();
        assert!(changes.find(&[5, 6, 7, 8], &[5, 7, 8, 9]), "a subsequence");
        let mut out = CandidateLists::default();
        changes.follow(&lists, 4, &mut out);
        assert!(out.ordered);
        let read: Vec<&[u32]> = (0..4).map(|i| out.of(i)).collect();
        assert_eq!(read, [&[1u32][..], &[0][..], &[1][..], &[][..]]);
        let mut index_rows = Vec::new();
        changes.renumber(&mut index_rows);
        assert_eq!(index_rows, [0, NO_ROW, 1, 2]);
        let mut values = vec![1.0f32, 2.0, 3.0, 4.0];
        changes.carry(&mut values, 4, |_| f32::NAN);
        assert_eq!(&values[..3], [1.0, 3.0, 4.0]);
        assert!(values[3].is_nan());
    }
}
