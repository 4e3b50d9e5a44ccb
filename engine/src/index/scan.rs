//! The distance scan at the heart of sensing: which entries of runs of coordinate columns lie
//! within a distance of a point. Eight entries at a time with AVX2 (and POPCNT) where the
//! processor has it (checked at run time: the build targets baseline x86-64), one at a time
//! elsewhere; both give the same hits in the same order, bit for bit, because each lane
//! computes the squared distance with the same operations in the same order as the scalar loop
//! (no fused multiply-add, no reordering) and the hits are packed in entry order.
//!
//! One of the engine's few files with `unsafe` code (docs/architecture.md): the AVX2
//! intrinsics. Every load is bounds-checked before it is made (a chunk that would read past a
//! column's end is scanned one entry at a time instead), and every store is into a buffer
//! sized for it first.

/// A run of entries `start..end` whose offsets from the point scanned around are
/// `(q - p) - shift`: `shift` is 0 where the run crosses no seam of a wrapped world, else the
/// world's size along each axis it crosses on (see `Grid::push_block_runs`). Subtracting a zero
/// shift changes no bits (not even a zero's sign), so a plain run gives `q - p` exactly.
#[derive(Clone, Copy)]
pub(super) struct Run<V> {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) shift: V,
}

/// Coordinate columns (`zs` empty in the plane) and each entry's row; the scan reads entries
/// `a..b` of each run.
pub(super) struct Columns<'a> {
    pub(super) xs: &'a [f32],
    pub(super) ys: &'a [f32],
    pub(super) zs: &'a [f32],
    pub(super) rows: &'a [u32],
}

use crate::math::Vector;

/// What one scan looks for: entries within `√r_sq` of `p` (2 or 3 coordinates read, the
/// third 0 in the plane), other than the entry of row `skip`.
#[derive(Clone, Copy)]
struct Probe {
    p: [f32; 3],
    r_sq: f32,
    skip: u32,
}

/// A run of entries `start..end` and its shift, as the kernels read it.
type Span = (usize, usize, [f32; 3]);

/// Entries one SIMD chunk holds; `hits` gets this much room past the last hit.
const LANES: usize = 8;

/// Writes into `hits` (from the start, growing it as needed) the index of every entry `e` of
/// the runs whose squared distance from `p` (the offset `(q - p) - shift` squared and summed in
/// axis order, as `length_squared` sums it) is at most `r_sq` and whose row is not `skip`, in
/// entry order; returns how many.
#[inline]
pub(super) fn scan_runs<V: Vector>(
    cols: &Columns<'_>,
    runs: &[Run<V>],
    p: V,
    r_sq: f32,
    skip: u32,
    hits: &mut Vec<u32>,
) -> usize {
    scan_runs_of::<V, false>(cols, runs, p, r_sq, skip, hits, &mut Vec::new())
}

/// [`scan_runs`], writing beside each hit in `dists` its squared distance (the same bits the
/// test compared, and `length_squared` of its offset gives).
#[inline]
pub(super) fn scan_runs_with_dist<V: Vector>(
    cols: &Columns<'_>,
    runs: &[Run<V>],
    p: V,
    r_sq: f32,
    skip: u32,
    hits: &mut Vec<u32>,
    dists: &mut Vec<f32>,
) -> usize {
    scan_runs_of::<V, true>(cols, runs, p, r_sq, skip, hits, dists)
}

/// [`scan_runs`], and with `DIST` [`scan_runs_with_dist`].
#[inline]
fn scan_runs_of<V: Vector, const DIST: bool>(
    cols: &Columns<'_>,
    runs: &[Run<V>],
    p: V,
    r_sq: f32,
    skip: u32,
    hits: &mut Vec<u32>,
    dists: &mut Vec<f32>,
) -> usize {
    let coords = |v: V| [v.axis(0), v.axis(1), if V::DIMENSIONS == 3 { v.axis(2) } else { 0.0 }];
    let at = coords(p);
    let runs = runs.iter().map(|run| (run.start as usize, run.end as usize, coords(run.shift)));
    let probe = Probe { p: at, r_sq, skip };
    if V::DIMENSIONS == 2 {
        scan_runs_in::<2, DIST>(cols, runs, probe, hits, dists)
    } else {
        scan_runs_in::<3, DIST>(cols, runs, probe, hits, dists)
    }
}

/// [`scan_runs_of`] for points of `D` coordinates.
#[inline]
fn scan_runs_in<const D: usize, const DIST: bool>(
    cols: &Columns<'_>,
    runs: impl Iterator<Item = Span> + Clone,
    probe: Probe,
    hits: &mut Vec<u32>,
    dists: &mut Vec<f32>,
) -> usize {
    let total: usize = runs.clone().map(|(a, b, _)| b - a).sum();
    if hits.len() < total + LANES {
        hits.resize(total + LANES, 0);
    }
    if DIST && dists.len() < total + LANES {
        dists.resize(total + LANES, 0.0);
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2_and_popcnt() {
        // SAFETY: the processor has AVX2 and POPCNT (checked just above).
        return unsafe { avx2::scan_runs::<D, DIST>(cols, runs, probe, hits, dists) };
    }
    scan_runs_scalar::<D, DIST>(cols, runs, probe, hits, dists)
}

/// Whether the processor has what the AVX2 kernels (the scan's and `rank.rs`'s) ask for:
/// AVX2, and POPCNT for their counts of kept lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) fn has_avx2_and_popcnt() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
}

/// [`scan_runs_of`] one entry at a time (`hits`, and with `DIST` `dists`, already sized for
/// every entry).
#[inline]
fn scan_runs_scalar<const D: usize, const DIST: bool>(
    cols: &Columns<'_>,
    runs: impl Iterator<Item = Span>,
    probe: Probe,
    hits: &mut [u32],
    dists: &mut [f32],
) -> usize {
    let mut n = 0;
    for span in runs {
        n = scan_entries::<D, DIST>(cols, span, probe, hits, dists, n);
    }
    n
}

/// The entries `a..b` of a run (shifted by its `shift`) one at a time, appending to
/// `hits[n..]` (and with `DIST` their squared distances to `dists[n..]`); returns the new
/// count. Each index is written unconditionally and kept by advancing the count: no branch to
/// mispredict on the one in four or so in range.
#[inline]
fn scan_entries<const D: usize, const DIST: bool>(
    cols: &Columns<'_>,
    (a, b, shift): Span,
    Probe { p, r_sq, skip }: Probe,
    hits: &mut [u32],
    dists: &mut [f32],
    mut n: usize,
) -> usize {
    let (xs, ys, rows) = (&cols.xs[a..b], &cols.ys[a..b], &cols.rows[a..b]);
    let mut keep = |n: &mut usize, e: usize, d_sq: f32, row: u32| {
        hits[*n] = e as u32;
        if DIST {
            dists[*n] = d_sq;
        }
        *n += usize::from(d_sq <= r_sq && row != skip);
    };
    if D == 2 {
        for (k, ((&x, &y), &row)) in xs.iter().zip(ys).zip(rows).enumerate() {
            let (dx, dy) = ((x - p[0]) - shift[0], (y - p[1]) - shift[1]);
            keep(&mut n, a + k, dx * dx + dy * dy, row);
        }
    } else {
        let zs = &cols.zs[a..b];
        for (k, (((&x, &y), &z), &row)) in xs.iter().zip(ys).zip(zs).zip(rows).enumerate() {
            let (dx, dy, dz) = ((x - p[0]) - shift[0], (y - p[1]) - shift[1], (z - p[2]) - shift[2]);
            keep(&mut n, a + k, dx * dx + dy * dy + dz * dz, row);
        }
    }
    n
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Columns, LANES, Probe, Span, scan_entries};
    use std::arch::x86_64::*;

    /// For each 8-bit mask of kept lanes, the lanes in order, packed to the front: the
    /// permutation that moves a chunk's kept indices together.
    static PACK: [[u32; LANES]; 256] = {
        let mut table = [[0u32; LANES]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut lane, mut at) = (0, 0);
            while lane < LANES {
                if mask & (1 << lane) != 0 {
                    table[mask][at] = lane as u32;
                    at += 1;
                }
                lane += 1;
            }
            mask += 1;
        }
        table
    };

    /// [`super::scan_runs_of`] eight entries at a time; `hits` (and with `DIST` `dists`) holds
    /// every entry plus `LANES`.
    ///
    /// The count of kept lanes, which the next chunk's store waits on, is one POPCNT (without
    /// it, the count is a chain of multiplies and shifts).
    ///
    /// # Safety
    /// The processor must have AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_runs<const D: usize, const DIST: bool>(
        cols: &Columns<'_>,
        runs: impl Iterator<Item = Span>,
        probe: Probe,
        hits: &mut [u32],
        dists: &mut [f32],
    ) -> usize {
        let Probe { p, r_sq, skip } = probe;
        let len = cols.xs.len().min(cols.ys.len()).min(cols.rows.len());
        let len = if D == 3 { len.min(cols.zs.len()) } else { len };
        let (px, py, pz) = (_mm256_set1_ps(p[0]), _mm256_set1_ps(p[1]), _mm256_set1_ps(p[2]));
        let r_sq_v = _mm256_set1_ps(r_sq);
        let skip_v = _mm256_set1_epi32(skip as i32);
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mut n = 0;
        for (a, b, shift) in runs {
            let (sx, sy, sz) = (_mm256_set1_ps(shift[0]), _mm256_set1_ps(shift[1]), _mm256_set1_ps(shift[2]));
            let mut e = a;
            while e < b {
                if e + LANES > len || n + LANES > hits.len() || DIST && n + LANES > dists.len() {
                    // Too near a column's end to load a whole chunk: the rest one at a time.
                    n = scan_entries::<D, DIST>(cols, (e, b, shift), probe, hits, dists, n);
                    break;
                }
                let left = b - e;
                let valid: u32 = if left >= LANES { 0xff } else { (1 << left) - 1 };
                // SAFETY: `e + LANES <= len`, so each load reads inside its column, and
                // `n + LANES <= hits.len()` (and `dists.len()` with `DIST`), so the stores
                // write inside them.
                unsafe {
                    let dx = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(cols.xs.as_ptr().add(e)), px), sx);
                    let dy = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(cols.ys.as_ptr().add(e)), py), sy);
                    // dx² + dy² (+ dz²), in that order, each product rounded: the scalar sum.
                    let mut d_sq = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
                    if D == 3 {
                        let dz =
                            _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(cols.zs.as_ptr().add(e)), pz), sz);
                        d_sq = _mm256_add_ps(d_sq, _mm256_mul_ps(dz, dz));
                    }
                    // `<=`, false for NaN as the scalar comparison is.
                    let near = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d_sq, r_sq_v)) as u32;
                    let rows = _mm256_loadu_si256(cols.rows.as_ptr().add(e).cast());
                    let same =
                        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(rows, skip_v))) as u32;
                    let keep = near & !same & valid;
                    let index = _mm256_add_epi32(_mm256_set1_epi32(e as i32), lane);
                    let order = _mm256_loadu_si256(PACK[keep as usize].as_ptr().cast());
                    let packed = _mm256_permutevar8x32_epi32(index, order);
                    _mm256_storeu_si256(hits.as_mut_ptr().add(n).cast(), packed);
                    if DIST {
                        let d_packed = _mm256_permutevar8x32_ps(d_sq, order);
                        _mm256_storeu_ps(dists.as_mut_ptr().add(n), d_packed);
                    }
                    n += keep.count_ones() as usize;
                }
                e += LANES;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the test's coordinates.
    fn lcg(state: &mut u64) -> f32 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*state >> 40) as f32) / (1u64 << 24) as f32
    }

    /// Every path of the scan against the scalar one, on runs of every length from 0 to 20
    /// (whole chunks, tails, runs ending at the columns' end), shifted and not, points on the
    /// radius, repeats of the skipped row, a NaN coordinate, in the plane and in space.
    #[test]
    fn every_path_finds_the_scalar_hits_in_the_same_order() {
        let mut state = 7u64;
        let count = 300;
        let mut xs: Vec<f32> = (0..count).map(|_| 4.0 * lcg(&mut state)).collect();
        let mut ys: Vec<f32> = (0..count).map(|_| 4.0 * lcg(&mut state)).collect();
        let mut zs: Vec<f32> = (0..count).map(|_| 4.0 * lcg(&mut state)).collect();
        let rows: Vec<u32> = (0..count).map(|k| (k % 37) as u32).collect();
        // Exactly on the radius (1.5 from (2, 2, 2) along x), and a NaN.
        (xs[10], ys[10], zs[10]) = (3.5, 2.0, 2.0);
        xs[11] = f32::NAN;
        let cols = Columns { xs: &xs, ys: &ys, zs: &zs, rows: &rows };
        let (mut expected, mut found, mut plain) = (Vec::new(), Vec::new(), Vec::new());
        let mut checked = 0;
        for start in [0usize, 3, 8, 9, 270, 280, 290] {
            for len in 0..=20usize {
                let end = (start + len).min(count);
                let next = end.min(count - 11);
                for shift in [[0.0f32, 0.0, 0.0], [4.0, -4.0, 0.0], [0.0, 0.0, -4.0]] {
                    // Three runs: this one, an empty one, and the next eleven entries, shifted
                    // (as a run across a seam of a world 4 wide is).
                    let runs = [(start, end, [0.0; 3]), (end, end, shift), (next, next + 11, shift)];
                    for p in [[2.0f32, 2.0, 2.0], [0.1, 3.9, 1.0], [3.9, 0.1, 3.9]] {
                        for skip in [0u32, 5, u32::MAX] {
                            for r_sq in [0.0f32, 1.0, 2.25, 100.0] {
                                for d3 in [false, true] {
                                    // Each hit with its squared distance's bits (0 without them).
                                    let scan = |out: &mut Vec<(u32, u32)>, scalar: bool, dist: bool| {
                                        let total: usize = runs.iter().map(|&(a, b, _)| b - a).sum();
                                        let mut hits = vec![0; total + LANES];
                                        let mut dists = vec![0.0; if dist { total + LANES } else { 0 }];
                                        let (h, d) = (&mut hits, &mut dists);
                                        let runs = runs.into_iter();
                                        let probe = Probe { p, r_sq, skip };
                                        let n = match (scalar, d3, dist) {
                                            (true, false, _) => {
                                                scan_runs_scalar::<2, true>(&cols, runs, probe, h, d)
                                            }
                                            (true, true, _) => {
                                                scan_runs_scalar::<3, true>(&cols, runs, probe, h, d)
                                            }
                                            (false, false, true) => {
                                                scan_runs_in::<2, true>(&cols, runs, probe, h, d)
                                            }
                                            (false, true, true) => {
                                                scan_runs_in::<3, true>(&cols, runs, probe, h, d)
                                            }
                                            (false, false, false) => {
                                                scan_runs_in::<2, false>(&cols, runs, probe, h, d)
                                            }
                                            (false, true, false) => {
                                                scan_runs_in::<3, false>(&cols, runs, probe, h, d)
                                            }
                                        };
                                        let bits = |k: usize| if dist { dists[k].to_bits() } else { 0 };
                                        out.clear();
                                        out.extend((0..n).map(|k| (hits[k], bits(k))));
                                    };
                                    scan(&mut expected, true, true);
                                    scan(&mut found, false, true);
                                    scan(&mut plain, false, false);
                                    let case = format!(
                                        "start {start} len {len} shift {shift:?} p {p:?} skip {skip}"
                                    );
                                    assert_eq!(found, expected, "{case} r² {r_sq} 3D {d3}");
                                    let hits_of =
                                        |v: &[(u32, u32)]| v.iter().map(|x| x.0).collect::<Vec<_>>();
                                    assert_eq!(
                                        hits_of(&plain),
                                        hits_of(&expected),
                                        "{case} without distances"
                                    );
                                    // Written out: every entry of every run in order, its shifted
                                    // offset squared and summed in axis order, kept within reach.
                                    let axes = if d3 { 3 } else { 2 };
                                    let mut by_hand = Vec::new();
                                    for &(a, b, shift) in &runs {
                                        for e in a..b {
                                            let at = [xs[e], ys[e], zs[e]];
                                            let d: Vec<f32> =
                                                (0..axes).map(|k| (at[k] - p[k]) - shift[k]).collect();
                                            let d_sq = d.iter().skip(1).fold(d[0] * d[0], |s, &x| s + x * x);
                                            if d_sq <= r_sq && rows[e] != skip {
                                                by_hand.push((e as u32, d_sq.to_bits()));
                                            }
                                        }
                                    }
                                    assert_eq!(expected, by_hand, "{case} r² {r_sq} 3D {d3}, by hand");
                                    checked += usize::from(!expected.is_empty());
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "the cases find hits: {checked}");
        // The hand-checked case: the entry exactly on the radius is in, the NaN is not.
        let mut hits = Vec::new();
        let n = scan_runs(
            &cols,
            &[Run { start: 10, end: 12, shift: crate::math::Vec2::ZERO }],
            crate::math::Vec2::new(2.0, 2.0),
            2.25,
            u32::MAX,
            &mut hits,
        );
        assert_eq!(&hits[..n], &[10]);
        // Shifted by the world's size, the same entry from the far side of a seam 5.5 wide.
        let n = scan_runs(
            &cols,
            &[Run { start: 10, end: 12, shift: crate::math::Vec2::new(5.5, 0.0) }],
            crate::math::Vec2::new(-3.5, 2.0),
            2.25,
            u32::MAX,
            &mut hits,
        );
        assert_eq!(&hits[..n], &[10]);
        #[cfg(target_arch = "x86_64")]
        if !has_avx2_and_popcnt() {
            eprintln!("note: this processor has no AVX2 or no POPCNT; only the scalar scan was compared");
        }
    }
}
