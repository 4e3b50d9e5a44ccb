//! How per-agent passes split their rows across the pool: piece sizes and the parallel helpers
//! every pass shares. Which thread runs which piece never changes a result: every pass writes
//! only its own rows, and every parallel reduction here is over integers or booleans.

use rayon::prelude::*;

use crate::math::Vector;

/// The most rows one rayon work piece takes in a per-agent pass (cheap passes take four times
/// as many). Left to itself, rayon splits a 10k-row pass into about two pieces per thread; when
/// one thread starts late or runs slower (its rows were last written on the other core), the
/// other soon has nothing left to steal and waits at the join. Pieces of at most this many rows
/// (some 10-30 µs of work) keep both busy to the end.
pub(crate) const PIECE_ROWS: usize = 256;

/// Rows from which whole-column scans (finiteness checks, counts, the sensing skin's moves)
/// run across the pool: below it, waking the pool costs more than it saves.
pub(crate) const PARALLEL_SCAN: usize = 1 << 16;

/// Rows per task of a parallel scan. rayon's per-item `position_first` costs tens of
/// nanoseconds per item (an atomic check each), so scans go by chunks of plain loops.
pub(crate) const SCAN_CHUNK: usize = 4_096;

/// Runs `f(row, position, velocity)` for every agent row across the pool, for a pass as cheap
/// per row as `integrate` or `collide` (pieces of 256 to `4 * PIECE_ROWS` rows).
pub(crate) fn for_each_position_velocity<V: Vector>(
    position: &mut [V],
    velocity: &mut [V],
    f: impl Fn(usize, &mut V, &mut V) + Sync + Send,
) {
    position
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .enumerate()
        .with_min_len(256)
        .with_max_len(4 * PIECE_ROWS)
        .for_each(|(i, (p, v))| f(i, p, v));
}

/// [`for_each_position_velocity`] with `f` returning two whole numbers for its row: the
/// largest of the first and the sum of the second (integer reductions, the same whatever the
/// split; 0 and 0 without rows).
pub(crate) fn reduce_position_velocity<V: Vector>(
    position: &mut [V],
    velocity: &mut [V],
    f: impl Fn(usize, &mut V, &mut V) -> (u32, u32) + Sync + Send,
) -> (u32, u32) {
    position
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .enumerate()
        .with_min_len(256)
        .with_max_len(4 * PIECE_ROWS)
        .map(|(i, (p, v))| f(i, p, v))
        .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1 + b.1))
}

/// How many of `flags` are set: an integer sum, the same whatever the split.
pub(crate) fn count_true(flags: &[bool]) -> u32 {
    let count = |b: &[bool]| b.iter().filter(|b| **b).count();
    (if flags.len() >= PARALLEL_SCAN { flags.par_chunks(SCAN_CHUNK).map(count).sum() } else { count(flags) })
        as u32
}
