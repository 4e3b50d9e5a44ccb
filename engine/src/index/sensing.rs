//! Sensing: each agent's neighbours within its sensing radius, sorted by (distance², id) and
//! capped, from the index (clustered queries) or from reused candidates.

use super::candidate::{Candidate, SortedList, sort_key, write_sorted};
use super::grid::BlockOffsets;
use super::kd::query_tree;
use super::neighbours::SENSE_CHUNK;
use super::reach::FirstReach;
use super::scan::{Columns, Run, scan_runs};
use super::skin::CandidateChunk;
use super::{CandidateLists, IndexKind, Neighbours, Point, SpatialIndex};
use crate::math::Vector;
use crate::world::{Bounds, BoundsKind, Group};

/// Per-worker scratch of `sense_neighbours`, reused across agents and ticks (one per
/// dimension, [`Point::with_sense_scratch`]).
pub struct SenseScratch<V> {
    /// One agent's candidates while its list is sorted.
    cands: Vec<Candidate<V>>,
    /// The clustered path's pool indices of one row's hits, written for every pooled point
    /// and kept as a prefix: only ever grown, never cleared.
    hits: Vec<u32>,
    /// Beside `hits` on the grid's plain blocks, each hit's squared distance (same rules).
    dists: Vec<f32>,
    /// One row's list in order, from a grid's plain block (see `Grid::block_nearest`).
    sorted: SortedList<V>,
    /// The shared candidates of a cluster of rows: row, x, y (z) and id of each (columns, so
    /// the distance loop vectorises); `pool_axes[a]` is axis `a`, the third empty in the plane.
    pool_row: Vec<u32>,
    pool_axes: [Vec<f32>; 3],
    pool_id: Vec<u32>,
    /// The grid's runs of entries that a cluster of rows shares (see `Grid::block_runs`).
    pool_runs: Vec<Run<V>>,
    /// The part of those runs one row's short reach overlaps (see `Grid::plain_runs_around`).
    row_runs: Vec<Run<V>>,
}

impl<V: Vector> Default for SenseScratch<V> {
    fn default() -> Self {
        SenseScratch {
            cands: Vec::new(),
            hits: Vec::new(),
            dists: Vec::new(),
            sorted: SortedList::default(),
            pool_row: Vec::new(),
            pool_axes: Default::default(),
            pool_id: Vec::new(),
            pool_runs: Vec::new(),
            row_runs: Vec::new(),
        }
    }
}

/// Most rows in one k-d query cluster (see [`sense_neighbours`]).
const CLUSTER_MAX: usize = 32;

/// Largest side of a cluster's bounding box, in sensing radii. Wider clusters share one query
/// among more rows but test more candidates each; 2 measured best on the standard crowd
/// (docs/benchmarks.md, "Sensing in clusters").
const CLUSTER_EXTENT: f32 = 2.0;

/// [`CLUSTER_EXTENT`] in space, where a cluster's shared ball grows faster with its box (a
/// cube's half-diagonal is √3/2 of its side, and the candidates go as the cube of the reach):
/// 1 measured about 10 % faster than 2 on a uniform flock in space (docs/benchmarks.md).
const CLUSTER_EXTENT_SPACE: f32 = 1.0;

/// The cluster extent for points of `dimensions` coordinates.
fn cluster_extent(dimensions: usize) -> f32 {
    if dimensions == 2 { CLUSTER_EXTENT } else { CLUSTER_EXTENT_SPACE }
}

/// The `sense_neighbours` pass: for every agent, the other agents within its group's sensing
/// radius, sorted by (distance², id), truncated to the group's `max_neighbours`.
/// Reads: positions, ids, groups, the index. Writes: row `i` of `out` for agent `i` only.
///
/// With the k-d index, consecutive rows that lie close together (as they do once the rows are
/// in spatial order, see `reorder`) share one tree query: a *cluster* of up to `CLUSTER_MAX` (32)
/// rows whose bounding box is at most `CLUSTER_EXTENT` (2) sensing radii wide queries the tree
/// once around the box's centre, with the radius grown by the box's half-diagonal, and each
/// row then tests the shared candidates exactly. Any point within `r` of a row lies within
/// `r + half-diagonal` of the centre, so the candidates are a superset, and the exact test, the
/// sort and the cap make the lists the same bits as one query per row (the oracle tests check
/// this against brute force). A row with no close successor forms a cluster of one.
///
/// `reach` gives rows a shorter first reach than their sensing radius (see [`FirstReach`]): a
/// row that finds at least `max_neighbours` candidates within it keeps the nearest of those,
/// which are the nearest within the whole radius too (every other agent is further than the
/// short reach); a row that finds fewer searches the whole radius. The lists are the same bits
/// either way; the short reach only saves testing candidates that the cap would drop.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn sense_neighbours<V: Point>(
    index: &SpatialIndex<V>,
    bounds: &Bounds<V>,
    groups: &[Group],
    position: &[V],
    id: &[u32],
    group: &[u16],
    reach: FirstReach<'_>,
    out: &mut Neighbours<V>,
) {
    sense_within(index, bounds, groups, position, id, group, 0.0, reach, Sink::Lists(out));
}

/// What sensing found for one row.
enum Found<'a, V> {
    /// Its candidates, in no order and uncapped.
    Candidates(&'a mut [Candidate<V>]),
    /// Its list, in order and capped (from a grid's plain block, `Grid::block_nearest`).
    Sorted(&'a SortedList<V>),
}

/// Where [`sense_within`] puts what it finds.
enum Sink<'a, V> {
    /// Neighbour lists: sorted by (distance², id), capped at each group's `max_neighbours`.
    Lists(&'a mut Neighbours<V>),
    /// Candidate rows in the order found, uncapped, and the neighbour lists taken from them
    /// while they are at hand: those within each group's sensing radius, as
    /// [`neighbours_from_candidates`] would take them.
    Candidates(&'a mut CandidateLists, &'a mut Neighbours<V>),
}

/// For [`neighbours_from_candidates`] on later ticks: each agent's candidate rows, every other
/// agent within its group's sensing radius plus `skin` (for every agent whose group senses at
/// all), in no particular order and with no cap. And this tick's neighbour lists, taken from
/// the candidates as they are found: the same lists as [`sense_neighbours`] and
/// [`neighbours_from_candidates`], bit for bit.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn sense_candidates<V: Point>(
    index: &SpatialIndex<V>,
    bounds: &Bounds<V>,
    groups: &[Group],
    position: &[V],
    id: &[u32],
    group: &[u16],
    skin: f32,
    out: &mut CandidateLists,
    lists: &mut Neighbours<V>,
) {
    let reach = FirstReach::default();
    sense_within(index, bounds, groups, position, id, group, skin, reach, Sink::Candidates(out, lists));
}

/// The clustered sensing of [`sense_neighbours`], with each radius grown by `skin`, into `sink`.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
fn sense_within<V: Point>(
    index: &SpatialIndex<V>,
    bounds: &Bounds<V>,
    groups: &[Group],
    position: &[V],
    id: &[u32],
    group: &[u16],
    skin: f32,
    first_reach: FirstReach<'_>,
    sink: Sink<'_, V>,
) {
    // Candidates can repeat only when a query (with its padding) reaches across half a
    // wrapped world; the loader forbids that for sensing radii, but stay exact regardless.
    let min_side = bounds.size().min_element();
    let reaches_half = |r: f32| bounds.kind == BoundsKind::Wrap && 2.0 * (r * 1.001 + 1e-3) >= min_side;
    let may_repeat = groups.iter().any(|g| reaches_half(g.sensing_radius + skin));
    let tree = match (index.kind, &index.all.tree) {
        (IndexKind::Kd, Some(tree)) if !may_repeat => Some(tree),
        _ => None,
    };
    // The grid shares a block of cells among the rows of one cell (see `Grid::block_runs`).
    let grid = (index.kind == IndexKind::Grid && !may_repeat).then_some(&index.grid);
    let extent = cluster_extent(V::DIMENSIONS);
    let radius_of = |i: usize| {
        let g = &groups[group[i] as usize];
        if g.max_neighbours == 0 { 0.0 } else { g.sensing_radius.max(0.0) + skin }
    };
    // How far a cluster searches for row `i`: its own or its group's short reach, if any.
    let reach_of = |i: usize| first_reach.of(i, group[i] as usize, radius_of(i));
    // A reach grown by the slack every index search around a point allows (rounding, and the
    // index's own pad), so that no point within the reach is missed.
    let padded = |r: f32| r + r * 1e-4 + index.pad;
    // The rows' whole-radius query, for a row without a tree or whose short reach fell short.
    let whole = |i: usize, r: f32, cands: &mut Vec<Candidate<V>>| {
        let (p, r_sq) = (position[i], r * r);
        cands.clear();
        index.candidates_with(p, r, position, id, |row, q, q_id| {
            let offset = bounds.offset(p, q);
            let d_sq = offset.length_squared();
            if d_sq <= r_sq && row as usize != i {
                cands.push(Candidate { key: sort_key(d_sq, q_id), row, offset });
            }
        });
    };
    // Whether a row may hand over its list already in order and capped (`Found::Sorted`):
    // neighbour lists may; candidates for reuse need every candidate.
    let sorted_ok = matches!(sink, Sink::Lists(_));
    // Senses the rows `base..base + len`, calling `finish(row, found)` once per row, in row
    // order.
    let sense_chunk = |base: usize, len: usize, finish: &mut dyn FnMut(usize, Found<'_, V>)| {
        V::with_sense_scratch(|scratch| {
            let end = base + len;
            let mut i = base;
            while i < end {
                let r = radius_of(i);
                if r <= 0.0 {
                    scratch.cands.clear();
                    finish(i, Found::Candidates(&mut scratch.cands));
                    i += 1;
                    continue;
                }
                let SenseScratch {
                    cands,
                    hits,
                    dists,
                    sorted,
                    pool_row,
                    pool_axes,
                    pool_id,
                    pool_runs,
                    row_runs,
                } = scratch;
                pool_row.clear();
                pool_id.clear();
                pool_axes.iter_mut().for_each(Vec::clear);
                // A cluster of rows `i..last` and their shared candidates, pooled.
                let (last, plain) = if let Some(tree) = tree {
                    // Grow a cluster of consecutive rows while its box stays small.
                    let r = reach_of(i);
                    let (mut lo, mut hi, mut r_max) = (position[i], position[i], r);
                    let mut last = i + 1;
                    while last < end && last - i < CLUSTER_MAX {
                        let q = position[last];
                        let r_q = reach_of(last).max(r_max);
                        let (lo2, hi2) = (lo.min(q), hi.max(q));
                        if (hi2 - lo2).max_element() > extent * r_q {
                            break;
                        }
                        (lo, hi, r_max) = (lo2, hi2, r_q);
                        last += 1;
                    }
                    let centre = (lo + hi) * 0.5;
                    // Half-diagonal, rounded up a little so every row is surely inside.
                    let half_diag =
                        0.5 * (hi - lo).length() * (1.0 + 1e-5) + 1e-6 * centre.abs().max_element();
                    let reach = r_max + half_diag;
                    if reaches_half(reach) {
                        // Too wide to share on this small world: one query per row instead.
                        last = i + 1;
                    }
                    let (reach, centre) = if last == i + 1 { (r, position[i]) } else { (reach, centre) };
                    query_tree(tree, bounds, index.pad, centre, reach, |row| pool_row.push(row));
                    // Gathered after the query, which keeps kiddo's visit loop to one push.
                    for (a, pool) in pool_axes.iter_mut().enumerate().take(V::DIMENSIONS) {
                        pool.extend(pool_row.iter().map(|&row| position[row as usize].axis(a)));
                    }
                    pool_id.extend(pool_row.iter().map(|&row| id[row as usize]));
                    // Away from a wrapped world's seams, every pooled point lies well within
                    // half the world of every row, where `Bounds::offset` is exactly `q - p`.
                    let r_pad = padded(reach);
                    let plain = bounds.kind == BoundsKind::Open
                        || (centre - bounds.min).min_element() >= r_pad
                            && (bounds.max - centre).min_element() >= r_pad;
                    (last, plain)
                } else if let Some((grid, last, offsets)) = grid.and_then(|grid| {
                    // The consecutive rows of one cell share the block of cells around it (rows
                    // of a box of two cells a side sharing a larger block measured slower in
                    // the plane and in space: docs/benchmarks.md). `None` on a world too small
                    // to hold the block.
                    // The block reaches every row's whole radius, so that a row whose short
                    // reach falls short scans it again rather than querying alone (the cells
                    // are as wide as the widest radius, so it is the same 3 × 3 (× 3) block).
                    let at = grid.cell_coords(position[i]);
                    let cell = grid.number_of(at);
                    let mut r_max = radius_of(i);
                    let mut last = i + 1;
                    while last < end && last - i < CLUSTER_MAX && grid.cell_number(position[last]) == cell {
                        r_max = r_max.max(radius_of(last));
                        last += 1;
                    }
                    let reach = padded(r_max);
                    pool_runs.clear();
                    grid.block_runs(at, reach, pool_runs).map(|offsets| (grid, last, offsets))
                }) {
                    // Each row scans the block's runs in place (no pool to gather); a row with
                    // a short reach on a block that crosses no seam only the cells its reach
                    // overlaps (about half the block's in the plane, a third in space).
                    for (j, &p) in position.iter().enumerate().take(last).skip(i) {
                        let (r, whole_r) = (reach_of(j), radius_of(j));
                        let cap = groups[group[j] as usize].max_neighbours as usize;
                        if sorted_ok && offsets == BlockOffsets::Plain && r > 0.0 {
                            // The row's list in order straight from the scan, or, with more
                            // than `RANK_MAX` within reach, its candidates from the same hits.
                            let mut nearest = |runs: &[Run<V>], r: f32| {
                                grid.block_nearest(runs, p, r * r, j as u32, cap, hits, dists, sorted)
                            };
                            let mut found = if r < whole_r {
                                row_runs.clear();
                                grid.plain_runs_around(p, padded(r), row_runs);
                                nearest(row_runs, r)
                            } else {
                                nearest(pool_runs, r)
                            };
                            // Fewer than the cap within the short reach: the whole radius.
                            if r < whole_r && found.unwrap_or_else(|n| n) < cap {
                                found = nearest(pool_runs, whole_r);
                            }
                            match found {
                                Ok(_) => finish(j, Found::Sorted(sorted)),
                                Err(n) => {
                                    cands.clear();
                                    grid.plain_candidates(&hits[..n], &dists[..n], p, cands);
                                    finish(j, Found::Candidates(cands));
                                }
                            }
                            continue;
                        }
                        // A block across a seam (or candidates for reuse, whose reach is the
                        // whole radius): the row's candidates from the whole block.
                        cands.clear();
                        if r > 0.0 {
                            grid.block_candidates(pool_runs, offsets, bounds, p, r, j as u32, hits, cands);
                        }
                        // A short reach that finds fewer than the cap: the whole radius, from
                        // the same block (made for the whole radius).
                        if r < whole_r && cands.len() < cap {
                            cands.clear();
                            grid.block_candidates(
                                pool_runs, offsets, bounds, p, whole_r, j as u32, hits, cands,
                            );
                        }
                        finish(j, Found::Candidates(cands));
                    }
                    i = last;
                    continue;
                } else {
                    // One query per row (no tree, or a world too small for the grid's blocks).
                    whole(i, r, cands);
                    finish(i, Found::Candidates(cands));
                    i += 1;
                    continue;
                };
                for (j, &p) in position.iter().enumerate().take(last).skip(i) {
                    let r = reach_of(j);
                    // A short reach that finds fewer than the cap: the whole radius, alone.
                    let cap = groups[group[j] as usize].max_neighbours as usize;
                    let mut finish_row = |cands: &mut Vec<Candidate<V>>| {
                        if r < radius_of(j) && cands.len() < cap {
                            whole(j, radius_of(j), cands);
                        }
                        finish(j, Found::Candidates(cands));
                    };
                    cands.clear();
                    if r > 0.0 {
                        let r_sq = r * r;
                        if plain {
                            let [xs, ys, zs] = &*pool_axes;
                            let cols = Columns { xs, ys, zs, rows: pool_row };
                            let pool = [Run { start: 0, end: pool_row.len() as u32, shift: V::ZERO }];
                            let n = scan_runs(&cols, &pool, p, r_sq, j as u32, hits);
                            cands.clear();
                            cands.extend(hits[..n].iter().map(|&k| {
                                let k = k as usize;
                                let offset = V::from_fn(|a| pool_axes[a][k] - p.axis(a));
                                Candidate {
                                    key: sort_key(offset.length_squared(), pool_id[k]),
                                    row: pool_row[k],
                                    offset,
                                }
                            }));
                            finish_row(cands);
                            continue;
                        } else {
                            for (k, &row) in pool_row.iter().enumerate() {
                                let offset = bounds.offset(p, V::from_fn(|a| pool_axes[a][k]));
                                let d_sq = offset.length_squared();
                                if d_sq <= r_sq && row as usize != j {
                                    cands.push(Candidate { key: sort_key(d_sq, pool_id[k]), row, offset });
                                }
                            }
                        }
                    }
                    finish_row(cands);
                }
                i = last;
            }
        });
    };
    match sink {
        Sink::Lists(out) => {
            out.fill_chunks(position.len(), groups, |base, stride, rows, dists, offsets, counts| {
                let len = counts.len();
                // Writes agent `i`'s sorted, capped list.
                let mut finish = |i: usize, found: Found<'_, V>| {
                    let at = (i - base) * stride;
                    let (rows, dists, offsets) = (
                        &mut rows[at..at + stride],
                        &mut dists[at..at + stride],
                        &mut offsets[at..at + stride],
                    );
                    let count = match found {
                        Found::Candidates(cands) => {
                            let cap = groups[group[i] as usize].max_neighbours as usize;
                            write_sorted(cands, cap, may_repeat, rows, dists, offsets)
                        }
                        Found::Sorted(list) => list.write(rows, dists, offsets),
                    };
                    counts[i - base] = count as u32;
                };
                sense_chunk(base, len, &mut finish);
            });
        }
        Sink::Candidates(out, lists) => {
            let n = position.len();
            out.chunks.resize_with(n.div_ceil(SENSE_CHUNK), CandidateChunk::default);
            lists.fill_chunks_with(
                n,
                groups,
                &mut out.chunks,
                |base, stride, rows, dists, offsets, counts, c| {
                    let len = counts.len();
                    c.rows.clear();
                    c.start.clear();
                    c.start.push(0);
                    // The rows as found (where a row could be found twice, `may_repeat`, the
                    // pipeline does not reuse candidates); then the list, from those within the
                    // sensing radius (the key holds the squared distance).
                    let mut finish = |i: usize, found: Found<'_, V>| {
                        let Found::Candidates(cands) = found else {
                            unreachable!("candidates for reuse are never handed over sorted")
                        };
                        debug_assert_eq!(i, base + c.start.len() - 1, "rows finish in order");
                        c.rows.extend(cands.iter().map(|x| x.row));
                        c.start.push(c.rows.len() as u32);
                        let g = &groups[group[i] as usize];
                        let mut kept = 0;
                        if g.max_neighbours > 0 && g.sensing_radius > 0.0 {
                            let r_sq = g.sensing_radius * g.sensing_radius;
                            for k in 0..cands.len() {
                                let x = cands[k];
                                cands[kept] = x;
                                kept += usize::from(f32::from_bits((x.key >> 32) as u32) <= r_sq);
                            }
                        }
                        let at = (i - base) * stride;
                        counts[i - base] = write_sorted(
                            &mut cands[..kept],
                            g.max_neighbours as usize,
                            may_repeat,
                            &mut rows[at..at + stride],
                            &mut dists[at..at + stride],
                            &mut offsets[at..at + stride],
                        ) as u32;
                    };
                    sense_chunk(base, len, &mut finish);
                    // Keep a quarter of room spare (growing to half when less is left), so the
                    // ordinary drift of a chunk's count never reallocates after warm-up.
                    let len = c.rows.len();
                    if c.rows.capacity() < len + len / 4 {
                        c.rows.reserve_exact(len / 2);
                    }
                },
            );
        }
    }
}

/// The neighbour lists of [`sense_neighbours`], from complete candidate lists (see
/// [`sense_candidates`]) instead of the index: for every agent, each candidate's offset and
/// squared distance from the current positions, the exact radius test, the sort by
/// (distance², id) and the cap. `skin` is the candidates' extra reach: none of them is more
/// than its agent's radius plus twice the skin away. When every point that is within an agent's sensing radius now
/// is among its candidates, the lists are the same bits as sensing afresh: the same offsets
/// (`Bounds::offset`, which the clustered path's plain `q - p` equals away from seams), the
/// same test, the same order.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn neighbours_from_candidates<V: Point>(
    bounds: &Bounds<V>,
    groups: &[Group],
    position: &[V],
    id: &[u32],
    group: &[u16],
    candidates: &CandidateLists,
    skin: f32,
    out: &mut Neighbours<V>,
) {
    // Slack for rounding in the seam test, relative to the world's coordinates.
    let seam_pad = 1e-3 * (1.0 + bounds.min.abs().max(bounds.max.abs()).max_element());
    out.fill_chunks(position.len(), groups, |base, stride, rows, dists, offsets, counts| {
        V::with_sense_scratch(|scratch| {
            for (k, count) in counts.iter_mut().enumerate() {
                let i = base + k;
                let g = &groups[group[i] as usize];
                let cands = &mut scratch.cands;
                let mut n = 0;
                if g.max_neighbours > 0 && g.sensing_radius > 0.0 {
                    let (p, r_sq) = (position[i], g.sensing_radius * g.sensing_radius);
                    let rows_i = candidates.of(i);
                    if cands.len() < rows_i.len() {
                        cands.resize(rows_i.len(), Candidate::default());
                    }
                    // Every slot written, kept by advancing the count: about half the
                    // candidates are in range, a branch would mispredict on each. Away
                    // from a wrapped world's seams every candidate's offset is the plain
                    // `q - p`, which is what `Bounds::offset` computes there.
                    let far = g.sensing_radius + 2.0 * skin;
                    let plain = bounds.kind == BoundsKind::Open
                        || (p - bounds.min).min_element() >= far * 1.001 + seam_pad
                            && (bounds.max - p).min_element() >= far * 1.001 + seam_pad;
                    if plain {
                        for &row in rows_i {
                            let offset = position[row as usize] - p;
                            let d_sq = offset.length_squared();
                            cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                            n += usize::from(d_sq <= r_sq && row as usize != i);
                        }
                    } else {
                        for &row in rows_i {
                            let offset = bounds.offset(p, position[row as usize]);
                            let d_sq = offset.length_squared();
                            cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                            n += usize::from(d_sq <= r_sq && row as usize != i);
                        }
                    }
                }
                let at = k * stride;
                let n = write_sorted(
                    &mut cands[..n],
                    g.max_neighbours as usize,
                    false,
                    &mut rows[at..at + stride],
                    &mut dists[at..at + stride],
                    &mut offsets[at..at + stride],
                );
                *count = n as u32;
            }
        });
    });
}
