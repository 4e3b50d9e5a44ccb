//! `Neighbours`: per-agent neighbour lists, packed by chunk of rows and filled in parallel.

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

/// Per-agent neighbour lists, nearest first, ties by id. Row `i`'s neighbours are
/// `rows[start[i] .. start[i] + count[i]]`, and the same slots of `dist_sq` and `offset`.
///
/// The lists are packed by chunk: each chunk of [`SENSE_CHUNK`] rows owns `SENSE_CHUNK ×
/// stride` slots (the stride is the largest cap of any group) and lays its rows' lists one
/// after the other from its first slot. Chunks fill in parallel with no prefix sum and no
/// allocation after the first tick, and the lists take the room they hold, not the cap's:
/// readers touch fewer cache lines (a CFSM list of 13 in a stride of 24 measured about 5 %
/// of the tick, docs/benchmarks.md).
///
/// Beside each neighbour's row the list keeps what sensing computed anyway: its squared
/// distance and its offset `bounds.offset(p_i, p_neighbour)` (the minimum image on a wrapped
/// world), so the behaviours that need offsets read them here instead of gathering neighbour
/// positions again. They are the same bits the behaviours would compute.
#[derive(Default, Debug)]
pub struct Neighbours<V = Vec2> {
    /// Most neighbours a row may hold: the largest `max_neighbours` of any group (at most
    /// [`MAX_NEIGHBOURS`]); each chunk of rows owns `SENSE_CHUNK × stride` slots.
    pub stride: usize,
    /// Neighbours found per agent row (≤ its group's `max_neighbours`).
    pub count: Vec<u32>,
    /// Where each agent row's list starts in `rows`, `dist_sq` and `offset`.
    pub start: Vec<u32>,
    /// Neighbour agent rows (row numbers in the agent columns, not ids), each agent's list
    /// nearest first, ties by id; slots in no list hold stale values.
    pub rows: Vec<u32>,
    /// Squared distance to each neighbour in `rows` (world units²), same slots.
    pub dist_sq: Vec<f32>,
    /// Offset `bounds.offset(p_i, p_neighbour)` to each neighbour in `rows` (world units), same
    /// slots.
    pub offset: Vec<V>,
}

/// One chunk's share of [`Neighbours`] while sensing fills it: its rows' lists are written in
/// row order, each into the room after the one before.
pub(super) struct ChunkLists<'a, V> {
    /// The chunk's first agent row.
    pub(super) base: usize,
    /// The chunk's first slot in the whole lists.
    first_slot: usize,
    stride: usize,
    rows: &'a mut [u32],
    dists: &'a mut [f32],
    offsets: &'a mut [V],
    counts: &'a mut [u32],
    starts: &'a mut [u32],
    /// Rows put so far, and the slots they hold.
    done: usize,
    used: usize,
}

impl<V> ChunkLists<'_, V> {
    /// Rows in the chunk.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.counts.len()
    }

    /// Writes agent row `i`'s list, the chunk's next row: `write(rows, dists, offsets)` gets
    /// room for `stride` neighbours and returns how many it wrote.
    #[inline]
    pub(super) fn put(&mut self, i: usize, write: impl FnOnce(&mut [u32], &mut [f32], &mut [V]) -> usize) {
        debug_assert_eq!(i, self.base + self.done, "rows are put in order");
        let (at, end) = (self.used, self.used + self.stride);
        let count = write(&mut self.rows[at..end], &mut self.dists[at..end], &mut self.offsets[at..end]);
        debug_assert!(count <= self.stride);
        self.counts[self.done] = count as u32;
        self.starts[self.done] = (self.first_slot + at) as u32;
        self.done += 1;
        self.used += count;
    }
}

impl<V: Vector> Neighbours<V> {
    /// Neighbour rows of agent row `i` and their squared distances.
    #[inline]
    pub fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let start = self.start[i] as usize;
        let end = start + self.count[i] as usize;
        (&self.rows[start..end], &self.dist_sq[start..end])
    }

    /// Offsets from agent row `i` to its neighbours, in list order.
    #[inline]
    pub fn offsets(&self, i: usize) -> &[V] {
        let start = self.start[i] as usize;
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

    /// Lists given whole: `lists[i]` is agent row `i`'s neighbours as (row, squared distance,
    /// offset), in the order they are to be read (for hosts and tests that make lists
    /// themselves).
    pub fn from_lists(lists: &[Vec<(u32, f32, V)>]) -> Neighbours<V> {
        let stride = lists.iter().map(Vec::len).max().unwrap_or(0);
        let mut out = Neighbours::default();
        out.resize(lists.len(), stride);
        out.fill_chunks_with(lists.len(), stride, &mut vec![(); lists.len().div_ceil(SENSE_CHUNK)], |chunk, ()| {
            for k in 0..chunk.len() {
                let i = chunk.base + k;
                chunk.put(i, |rows, dists, offsets| {
                    for (s, &(row, d, o)) in lists[i].iter().enumerate() {
                        (rows[s], dists[s], offsets[s]) = (row, d, o);
                    }
                    lists[i].len()
                });
            }
        });
        out
    }

    /// Sizes the lists for `agents` rows, each with room for the largest cap in `groups`, and
    /// runs `fill(chunk)` on every chunk of [`SENSE_CHUNK`] rows in parallel; `fill` puts each
    /// of the chunk's rows, in order.
    pub(super) fn fill_chunks(
        &mut self,
        agents: usize,
        groups: &[Group],
        fill: impl Fn(&mut ChunkLists<'_, V>) + Sync + Send,
    ) {
        let mut none = vec![(); agents.div_ceil(SENSE_CHUNK)];
        let stride = Self::stride_for(groups);
        self.resize(agents, stride);
        self.fill_chunks_with(agents, stride, &mut none, |chunk, ()| fill(chunk));
    }

    /// As [`Neighbours::fill_chunks`], with `extra[k]` (one per chunk) beside chunk `k`'s lists.
    pub(super) fn fill_chunks_for<T: Send>(
        &mut self,
        agents: usize,
        groups: &[Group],
        extra: &mut [T],
        fill: impl Fn(&mut ChunkLists<'_, V>, &mut T) + Sync + Send,
    ) {
        let stride = Self::stride_for(groups);
        self.resize(agents, stride);
        self.fill_chunks_with(agents, stride, extra, fill);
    }

    /// The most neighbours any of `groups` keeps.
    fn stride_for(groups: &[Group]) -> usize {
        groups.iter().map(|g| g.max_neighbours as usize).max().unwrap_or(0)
    }

    /// Runs `fill` on every chunk of lists already sized for `agents` rows of `stride`, with
    /// `extra[k]` beside chunk `k`. With no room for any neighbour (stride 0), `fill` gets
    /// chunks of no room.
    fn fill_chunks_with<T: Send>(
        &mut self,
        agents: usize,
        stride: usize,
        extra: &mut [T],
        fill: impl Fn(&mut ChunkLists<'_, V>, &mut T) + Sync + Send,
    ) {
        debug_assert_eq!(extra.len(), agents.div_ceil(SENSE_CHUNK));
        let chunk_of = |chunk: usize, rows, dists, offsets, counts, starts| ChunkLists {
            base: chunk * SENSE_CHUNK,
            first_slot: chunk * stride * SENSE_CHUNK,
            stride,
            rows,
            dists,
            offsets,
            counts,
            starts,
            done: 0,
            used: 0,
        };
        // Every row of the chunk must be put: its count and start are written nowhere else.
        let fill_chunk = |mut lists: ChunkLists<'_, V>, x: &mut T| {
            fill(&mut lists, x);
            debug_assert_eq!(lists.done, lists.len(), "every row of the chunk is put");
        };
        if stride == 0 {
            self.count.par_chunks_mut(SENSE_CHUNK).zip(self.start.par_chunks_mut(SENSE_CHUNK)).zip(extra.par_iter_mut()).enumerate().for_each(
                |(chunk, ((counts, starts), x))| fill_chunk(chunk_of(chunk, &mut [], &mut [], &mut [], counts, starts), x),
            );
            return;
        }
        let slots = stride * SENSE_CHUNK;
        self.rows
            .par_chunks_mut(slots)
            .zip(self.dist_sq.par_chunks_mut(slots))
            .zip(self.offset.par_chunks_mut(slots))
            .zip(self.count.par_chunks_mut(SENSE_CHUNK))
            .zip(self.start.par_chunks_mut(SENSE_CHUNK))
            .zip(extra.par_iter_mut())
            .enumerate()
            .with_max_len(crate::par::PIECE_ROWS / SENSE_CHUNK)
            .for_each(|(chunk, (((((rows, dists), offsets), counts), starts), x))| {
                fill_chunk(chunk_of(chunk, rows, dists, offsets, counts, starts), x)
            });
    }

    /// Room for `agents` rows of up to `stride` neighbours each. Slots are numbered in `u32`:
    /// 2³² slots would take 64 GB of lists, far past any machine this runs on.
    fn resize(&mut self, agents: usize, stride: usize) {
        self.stride = stride;
        self.count.resize(agents, 0);
        self.start.resize(agents, 0);
        self.rows.resize(agents * stride, 0);
        self.dist_sq.resize(agents * stride, 0.0);
        self.offset.resize(agents * stride, V::ZERO);
    }
}

#[cfg(test)]
mod tests {
    use super::{Neighbours, SENSE_CHUNK};
    use crate::math::Vec2;

    #[test]
    fn lists_are_packed_within_each_chunk_and_read_back_whole() {
        // Rows of 0 to 5 neighbours over three chunks, the last one short.
        let agents = 2 * SENSE_CHUNK + 7;
        let lists: Vec<Vec<(u32, f32, Vec2)>> = (0..agents)
            .map(|i| (0..i % 6).map(|k| (k as u32, (i * 10 + k) as f32, Vec2::new(i as f32, k as f32))).collect())
            .collect();
        let nb = Neighbours::from_lists(&lists);
        assert_eq!(nb.stride, 5);
        for (i, list) in lists.iter().enumerate() {
            let (rows, dists) = nb.of(i);
            let read: Vec<(u32, f32, Vec2)> =
                rows.iter().zip(dists).zip(nb.offsets(i)).map(|((&r, &d), &o)| (r, d, o)).collect();
            assert_eq!(&read, list, "row {i}");
            // Each list starts where the one before it in its chunk ends; each chunk at its
            // own room of SENSE_CHUNK × stride slots.
            let expected = if i % SENSE_CHUNK == 0 {
                i / SENSE_CHUNK * SENSE_CHUNK * nb.stride
            } else {
                (nb.start[i - 1] + nb.count[i - 1]) as usize
            };
            assert_eq!(nb.start[i] as usize, expected, "row {i}");
        }
        // 0 + 1 + … + 5 over every six rows: the chunk's lists fill about half its room.
        let used: usize = nb.count[..SENSE_CHUNK].iter().map(|&c| c as usize).sum();
        assert!(used < SENSE_CHUNK * nb.stride / 2 + nb.stride, "{used}");
    }

    #[test]
    fn lists_with_no_room_read_empty() {
        let nb = Neighbours::<Vec2>::from_lists(&vec![Vec::new(); SENSE_CHUNK + 1]);
        assert_eq!(nb.stride, 0);
        assert!((0..=SENSE_CHUNK).all(|i| nb.of(i).0.is_empty() && nb.offsets(i).is_empty()));
    }
}
