//! Sensing: each agent's neighbours within its sensing radius, sorted by (distance², id) and
//! capped, from the index (clustered queries) or from reused candidates.

use super::candidate::{Candidate, insertion_sort, push_rows_in_order, sort_key, write_sorted};
use super::neighbours::SENSE_CHUNK;
use super::reach::FirstReach;
use super::sense_input::SenseInput;
use super::sense_rows::{Found, RowSensor};
use super::skin::CandidateChunk;
use super::{CandidateLists, Neighbours, Point, SpatialIndex};
use crate::world::BoundsKind;

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
pub fn sense_neighbours<V: Point>(
    index: &SpatialIndex<V>,
    input: &SenseInput<'_, V>,
    reach: FirstReach<'_>,
    out: &mut Neighbours<V>,
) {
    sense_within(index, input, 0.0, reach, Sink::Lists(out));
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
pub fn sense_candidates<V: Point>(
    index: &SpatialIndex<V>,
    input: &SenseInput<'_, V>,
    skin: f32,
    out: &mut CandidateLists,
    lists: &mut Neighbours<V>,
) {
    sense_within(index, input, skin, FirstReach::default(), Sink::Candidates(out, lists));
}

/// The sensing of [`sense_neighbours`] (see [`RowSensor`]), with each radius grown by `skin`,
/// into `sink`.
fn sense_within<V: Point>(
    index: &SpatialIndex<V>,
    input: &SenseInput<'_, V>,
    skin: f32,
    first_reach: FirstReach<'_>,
    sink: Sink<'_, V>,
) {
    let SenseInput { groups, position, group, .. } = *input;
    let sensor = RowSensor::new(index, *input, skin, first_reach, matches!(sink, Sink::Lists(_)));
    let may_repeat = sensor.may_repeat;
    match sink {
        Sink::Lists(out) => {
            out.fill_chunks(position.len(), groups, |chunk| {
                let (base, len) = (chunk.base, chunk.len());
                // Writes agent `i`'s sorted, capped list.
                let mut finish = |i: usize, found: Found<'_, V>| {
                    chunk.put(i, |rows, dists, offsets| match found {
                        Found::Candidates(cands) => {
                            let cap = groups[group[i] as usize].max_neighbours as usize;
                            write_sorted(cands, cap, may_repeat, rows, dists, offsets)
                        }
                        Found::Sorted(list) => list.write(rows, dists, offsets),
                    });
                };
                sensor.sense(base, len, &mut finish);
            });
        }
        Sink::Candidates(out, lists) => {
            let (n, ordered) = (position.len(), out.ordered);
            out.chunks.resize_with(n.div_ceil(SENSE_CHUNK), CandidateChunk::default);
            lists.fill_chunks_for(
                n,
                groups,
                &mut out.chunks,
                |chunk, c| {
                    let (base, len) = (chunk.base, chunk.len());
                    c.rows.clear();
                    c.start.clear();
                    c.start.push(0);
                    // The rows, in (distance², id) order when the lists keep it (where a row
                    // could be found twice, `may_repeat`, the pipeline does not reuse
                    // candidates); then the list, from those within the
                    // sensing radius (the key holds the squared distance).
                    let mut finish = |i: usize, found: Found<'_, V>| {
                        let Found::Candidates(cands) = found else {
                            unreachable!("candidates for reuse are never handed over sorted")
                        };
                        debug_assert_eq!(i, base + c.start.len() - 1, "rows finish in order");
                        if ordered {
                            push_rows_in_order(cands, may_repeat, &mut c.rows);
                        } else {
                            c.rows.extend(cands.iter().map(|x| x.row));
                        }
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
                        chunk.put(i, |rows, dists, offsets| {
                            write_sorted(&mut cands[..kept], g.max_neighbours as usize, may_repeat, rows, dists, offsets)
                        });
                    };
                    sensor.sense(base, len, &mut finish);
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
///
/// `movers` (ascending rows) and `pairs` (sorted `(row, candidate row)`) are what
/// [`mover_pairs`](super::mover_pairs) found for the agents that moved too far: a mover's list
/// comes from its pairs alone, any other row's from its candidates and its pairs.
pub fn neighbours_from_candidates<V: Point>(
    input: &SenseInput<'_, V>,
    candidates: &mut CandidateLists,
    skin: f32,
    (movers, pairs): (&[u32], &[(u32, u32)]),
    out: &mut Neighbours<V>,
) {
    let SenseInput { bounds, groups, position, id, group } = *input;
    // Slack for rounding in the seam test, relative to the world's coordinates.
    let seam_pad = 1e-3 * (1.0 + bounds.min.abs().max(bounds.max.abs()).max_element());
    let ordered = candidates.ordered;
    out.fill_chunks_for(position.len(), groups, &mut candidates.chunks, |lists, chunk| {
        let base = lists.base;
        // Cursors into the movers and their pairs, from this chunk's first row on.
        let mut mover = movers.partition_point(|&r| (r as usize) < base);
        let mut pair = pairs.partition_point(|&(r, _)| (r as usize) < base);
        V::with_sense_scratch(|scratch| {
            for k in 0..lists.len() {
                let i = base + k;
                let moved = movers.get(mover).is_some_and(|&r| r as usize == i);
                mover += usize::from(moved);
                let first_pair = pair;
                while pairs.get(pair).is_some_and(|&(r, _)| r as usize == i) {
                    pair += 1;
                }
                let added = &pairs[first_pair..pair];
                let g = &groups[group[i] as usize];
                if g.max_neighbours == 0 || g.sensing_radius <= 0.0 {
                    lists.put(i, |_, _, _| 0);
                    continue;
                }
                let (p, r_sq, cap) = (position[i], g.sensing_radius * g.sensing_radius, g.max_neighbours as usize);
                // Away from a wrapped world's seams every candidate's offset is the plain
                // `q - p`, which is what `Bounds::offset` computes there.
                let far = g.sensing_radius + 2.0 * skin;
                let plain = bounds.kind == BoundsKind::Open
                    || (p - bounds.min).min_element() >= far * 1.001 + seam_pad
                        && (bounds.max - p).min_element() >= far * 1.001 + seam_pad;
                let offset_of = |q: V| if plain { q - p } else { bounds.offset(p, q) };
                let keyed = |row: u32| {
                    let offset = offset_of(position[row as usize]);
                    Candidate { key: sort_key(offset.length_squared(), id[row as usize]), row, offset }
                };
                let cands = &mut scratch.cands;
                if ordered && !moved && added.is_empty() {
                    let own = chunk.rows_mut(k);
                    lists.put(i, |rows, dists, offsets| from_ordered(own, keyed, cands, (r_sq, cap, i), rows, dists, offsets));
                    continue;
                }
                // A mover's list comes from its pairs alone, any other row's from its
                // candidates and its pairs.
                let own = if moved { &[][..] } else { chunk.rows(k) };
                let len = own.len() + added.len();
                if cands.len() < len {
                    cands.resize(len, Candidate::default());
                }
                // Every slot written, kept by advancing the count: about half the candidates
                // are in range, a branch would mispredict on each.
                let mut n = 0;
                let rows_i = own.iter().copied().chain(added.iter().map(|&(_, c)| c));
                if plain {
                    for row in rows_i {
                        let offset = position[row as usize] - p;
                        let d_sq = offset.length_squared();
                        cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                        n += usize::from(d_sq <= r_sq && row as usize != i);
                    }
                } else {
                    for row in rows_i {
                        let offset = bounds.offset(p, position[row as usize]);
                        let d_sq = offset.length_squared();
                        cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                        n += usize::from(d_sq <= r_sq && row as usize != i);
                    }
                }
                // A row its pairs add may be among its candidates already: keep it once.
                lists.put(i, |rows, dists, offsets| write_sorted(&mut cands[..n], cap, !added.is_empty(), rows, dists, offsets));
            }
        });
    });
}

/// One row's list from its candidates `own`, kept in the order of the tick that last sorted
/// them (see [`CandidateLists::ordered`]): each keyed by `keyed`, and when a few are out of
/// place, put right by insertion and the order kept for the next tick; further out, ranked
/// afresh from those in range. Writes the first `cap` within `r_sq` other than row `i`;
/// returns how many.
#[inline]
fn from_ordered<V: Copy + Default>(
    own: &mut [u32],
    keyed: impl Fn(u32) -> Candidate<V>,
    cands: &mut Vec<Candidate<V>>,
    (r_sq, cap, i): (f32, usize, usize),
    rows: &mut [u32],
    dists: &mut [f32],
    offsets: &mut [V],
) -> usize {
    if cands.len() < own.len() {
        cands.resize(own.len(), Candidate::default());
    }
    let mut out_of_order = 0;
    let mut last = 0;
    for (c, &row) in cands.iter_mut().zip(own.iter()) {
        *c = keyed(row);
        out_of_order += usize::from(c.key < last);
        last = c.key;
    }
    let cands = &mut cands[..own.len()];
    if out_of_order > FEW_OUT_OF_ORDER {
        let mut n = 0;
        for k in 0..cands.len() {
            let c = cands[k];
            cands[n] = c;
            n += usize::from(f32::from_bits((c.key >> 32) as u32) <= r_sq && c.row as usize != i);
        }
        return write_sorted(&mut cands[..n], cap, false, rows, dists, offsets);
    }
    if out_of_order > 0 {
        insertion_sort(cands);
        for (slot, c) in own.iter_mut().zip(cands.iter()) {
            *slot = c.row;
        }
    }
    // Those in range are a prefix of the order (less the row itself).
    let mut n = 0;
    for c in cands.iter() {
        let d_sq = f32::from_bits((c.key >> 32) as u32);
        if d_sq > r_sq || n == cap {
            break;
        }
        if c.row as usize != i {
            (rows[n], dists[n], offsets[n]) = (c.row, d_sq, c.offset);
            n += 1;
        }
    }
    n
}

/// Out-of-order places (a key below the one before it) up to which a kept candidate list is
/// sorted by insertion rather than ranked afresh.
const FEW_OUT_OF_ORDER: usize = 2;
