//! `Neighbours`: per-agent neighbour lists with a fixed stride, filled in parallel chunks.

use rayon::prelude::*;

use crate::math::{Vec2, Vector};
use crate::world::Group;

/// Rows per parallel task in `sense_neighbours`, and per chunk of the neighbour and candidate
/// lists: enough that the per-task overhead (and the borrow of the thread's scratch) is paid
/// rarely, small enough to balance two to eight workers.
pub(super) const SENSE_CHUNK: usize = 128;

/// Most neighbours any group may keep per agent (a scenario's `max_neighbours`, and a velocity
/// model's).
pub const MAX_NEIGHBOURS: u32 = 256;

/// Per-agent neighbour lists with a fixed stride (the largest cap of any group): row `i`'s
/// neighbours are `rows[i*stride .. i*stride + count[i]]`, nearest first, ties by id. A fixed
/// stride lets every agent write its own slice in parallel with no prefix sum and no
/// allocation after the first tick.
///
/// Beside each neighbour's row the list keeps what sensing computed anyway: its squared
/// distance and its offset `bounds.offset(p_i, p_neighbour)` (the minimum image on a wrapped
/// world), so the behaviours that need offsets read them here instead of gathering neighbour
/// positions again. They are the same bits the behaviours would compute.
#[derive(Default, Debug)]
pub struct Neighbours<V = Vec2> {
    /// Slots per agent in `rows`, `dist_sq` and `offset`: the largest `max_neighbours` of any
    /// group (at most [`MAX_NEIGHBOURS`]).
    pub stride: usize,
    /// Neighbours found per agent row (≤ its group's `max_neighbours`): how many of the row's
    /// `stride` slots are in use.
    pub count: Vec<u32>,
    /// Neighbour agent rows (row numbers in the agent columns, not ids), `stride` slots per
    /// agent, nearest first, ties by id; slots past `count[i]` hold stale values.
    pub rows: Vec<u32>,
    /// Squared distance to each neighbour in `rows` (world units²), same slots.
    pub dist_sq: Vec<f32>,
    /// Offset `bounds.offset(p_i, p_neighbour)` to each neighbour in `rows` (world units), same
    /// slots.
    pub offset: Vec<V>,
}

impl<V: Vector> Neighbours<V> {
    /// Neighbour rows of agent row `i` and their squared distances.
    #[inline]
    pub fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let start = i * self.stride;
        let end = start + self.count[i] as usize;
        (&self.rows[start..end], &self.dist_sq[start..end])
    }

    /// Offsets from agent row `i` to its neighbours, in list order.
    #[inline]
    pub fn offsets(&self, i: usize) -> &[V] {
        let start = i * self.stride;
        &self.offset[start..start + self.count[i] as usize]
    }

    /// How many of agent `i`'s neighbours lie within `radius` (a prefix of its list).
    #[inline]
    pub fn within(&self, i: usize, radius: f32) -> usize {
        let r_sq = radius * radius;
        let (_, dist_sq) = self.of(i);
        // The list is in ascending distance: when its last lies within, all do (the common
        // case of a behaviour radius as large as the sensing radius).
        match dist_sq.last() {
            Some(&last) if last <= r_sq => dist_sq.len(),
            _ => dist_sq.iter().take_while(|&&d| d <= r_sq).count(),
        }
    }

    /// Sizes the lists for `agents` rows, each with room for the largest cap in `groups`, and
    /// runs `fill(first_row, stride, rows, dists, offsets, counts)` on every chunk of
    /// [`SENSE_CHUNK`] rows in parallel.
    pub(super) fn fill_chunks(
        &mut self,
        agents: usize,
        groups: &[Group],
        fill: impl Fn(usize, usize, &mut [u32], &mut [f32], &mut [V], &mut [u32]) + Sync + Send,
    ) {
        let mut none = vec![(); agents.div_ceil(SENSE_CHUNK)];
        self.fill_chunks_with(agents, groups, &mut none, |base, stride, rows, dists, offsets, counts, ()| {
            fill(base, stride, rows, dists, offsets, counts)
        });
    }

    /// As [`Neighbours::fill_chunks`], with `extra[k]` (one per chunk) beside chunk `k`'s lists.
    /// With no room for any neighbour (every cap 0), `fill` gets lists of no room and counts
    /// of 0.
    #[allow(clippy::type_complexity)] // a chunk of each list column and the extra
    pub(super) fn fill_chunks_with<T: Send>(
        &mut self,
        agents: usize,
        groups: &[Group],
        extra: &mut [T],
        fill: impl Fn(usize, usize, &mut [u32], &mut [f32], &mut [V], &mut [u32], &mut T) + Sync + Send,
    ) {
        debug_assert_eq!(extra.len(), agents.div_ceil(SENSE_CHUNK));
        let stride = groups.iter().map(|g| g.max_neighbours as usize).max().unwrap_or(0);
        self.resize(agents, stride);
        if stride == 0 {
            self.count.fill(0);
            self.count.par_chunks_mut(SENSE_CHUNK).zip(extra.par_iter_mut()).enumerate().for_each(
                |(chunk, (counts, x))| fill(chunk * SENSE_CHUNK, 0, &mut [], &mut [], &mut [], counts, x),
            );
            return;
        }
        self.rows
            .par_chunks_mut(stride * SENSE_CHUNK)
            .zip(self.dist_sq.par_chunks_mut(stride * SENSE_CHUNK))
            .zip(self.offset.par_chunks_mut(stride * SENSE_CHUNK))
            .zip(self.count.par_chunks_mut(SENSE_CHUNK))
            .zip(extra.par_iter_mut())
            .enumerate()
            .with_max_len(crate::par::PIECE_ROWS / SENSE_CHUNK)
            .for_each(|(chunk, ((((rows, dists), offsets), counts), x))| {
                fill(chunk * SENSE_CHUNK, stride, rows, dists, offsets, counts, x)
            });
    }

    pub(super) fn resize(&mut self, agents: usize, stride: usize) {
        self.stride = stride;
        self.count.resize(agents, 0);
        self.rows.resize(agents * stride, 0);
        self.dist_sq.resize(agents * stride, 0.0);
        self.offset.resize(agents * stride, V::ZERO);
    }
}
