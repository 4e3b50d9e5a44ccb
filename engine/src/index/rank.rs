//! Ranks in a short list of candidates by (distance², id): for each candidate, how many others
//! come before it. Sensing orders each agent's dozen or so candidates this way (see
//! `candidate::write_sorted`): counting has no data-dependent branch, which beats a sort's
//! mispredictions on lists this short. Eight comparisons at a time with AVX2 where the
//! processor has it (checked at run time: the build targets baseline x86-64), one at a time
//! elsewhere; both give the same ranks, which are exact integers.
//!
//! One of the engine's few files with `unsafe` code (docs/architecture.md): the AVX2
//! intrinsics. Every load is from a fixed-size array whose length the chunk count never
//! exceeds.

/// Most candidates one call ranks.
pub(super) const RANK_MAX: usize = 32;

/// A squared distance's bits that no finite squared distance reaches: it pads the columns to
/// whole chunks, and a padded entry is never before a real one.
const PAD: u32 = 0x7fff_ffff;

/// One list's columns, padded to whole chunks of eight: each candidate's squared distance as
/// its (non-negative, finite) float bits, which order as the values do, and its id.
pub(super) struct RankColumns {
    d_sq: [u32; RANK_MAX],
    id: [u32; RANK_MAX],
    len: usize,
}

impl RankColumns {
    /// The columns of `(d_sq bits, id)` pairs, at most [`RANK_MAX`] of them.
    #[inline]
    pub(super) fn new(pairs: impl ExactSizeIterator<Item = (u32, u32)>) -> Self {
        let len = pairs.len();
        assert!(len <= RANK_MAX, "at most {RANK_MAX} candidates are ranked at once");
        let mut c = RankColumns { d_sq: [PAD; RANK_MAX], id: [0; RANK_MAX], len };
        for (k, (d, id)) in pairs.enumerate() {
            debug_assert!(d < 0x7f80_0000, "a finite, non-negative squared distance");
            c.d_sq[k] = d;
            c.id[k] = id;
        }
        c
    }

    /// The candidates in order: `order[rank] = k` for every candidate `k`, with `rank` the
    /// number of candidates whose (distance², id) is smaller. Ids are distinct, so the ranks
    /// are a permutation of `0..len` and `order[..len]` holds every candidate once (a reader
    /// then takes the first few without a branch per candidate).
    #[inline]
    pub(super) fn order(&self, order: &mut [u8; RANK_MAX]) {
        #[cfg(target_arch = "x86_64")]
        if super::scan::has_avx2_and_popcnt() {
            // SAFETY: the processor has AVX2 and POPCNT (checked just above).
            unsafe { avx2::order(self, order) };
            return;
        }
        self.order_scalar(order);
    }

    /// [`RankColumns::order`] one comparison at a time.
    fn order_scalar(&self, order: &mut [u8; RANK_MAX]) {
        let key = |k: usize| (u64::from(self.d_sq[k]) << 32) | u64::from(self.id[k]);
        for k in 0..self.len {
            let mine = key(k);
            order[(0..self.len).filter(|&o| key(o) < mine).count()] = k as u8;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{RANK_MAX, RankColumns};

    /// Chunks of eight in a list of `RANK_MAX`.
    const CHUNKS: usize = RANK_MAX / 8;

    /// [`RankColumns::order`]: every candidate `k` into `order[its rank]`.
    ///
    /// First by squared distance alone, which is the whole order when no two distances are
    /// equal: each chunk of eight candidates `k` counts, lane by lane, the candidates `j` whose
    /// distance is smaller (one compare and one subtract per `j` and chunk, no mask to move out
    /// and count). Equal distances give equal counts, so the ranks are a permutation exactly
    /// when there is no tie; otherwise [`order_by_key`] ranks by (distance², id).
    ///
    /// # Safety
    /// The processor must support AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn order(c: &RankColumns, order: &mut [u8; RANK_MAX]) {
        // SAFETY (each arm): the processor has AVX2, as the caller promised.
        let distinct = match c.len.div_ceil(8) {
            0 => true,
            1 => unsafe { order_by_distance::<1>(c, order) },
            2 => unsafe { order_by_distance::<2>(c, order) },
            3 => unsafe { order_by_distance::<3>(c, order) },
            _ => unsafe { order_by_distance::<CHUNKS>(c, order) },
        };
        if !distinct {
            // SAFETY: the processor has AVX2 and POPCNT, as the caller promised.
            unsafe { order_by_key(c, order) };
        }
    }

    /// Writes `order[rank] = k` with each candidate's rank by squared distance alone (the
    /// number of candidates strictly nearer), over `N` chunks of eight; returns whether those
    /// ranks are a permutation of `0..len` (no two distances equal). When they are not, some
    /// slots of `order` hold stale values and the caller ranks again.
    ///
    /// # Safety
    /// The processor must support AVX2; `N` chunks must hold the list (`8 · N ≥ len`, `N ≤
    /// CHUNKS`).
    #[target_feature(enable = "avx2")]
    unsafe fn order_by_distance<const N: usize>(c: &RankColumns, order: &mut [u8; RANK_MAX]) -> bool {
        debug_assert!(8 * N >= c.len && N <= CHUNKS);
        let mut d = [_mm256_setzero_si256(); N];
        let mut before = [_mm256_setzero_si256(); N];
        for (k, d) in d.iter_mut().enumerate() {
            // SAFETY: `8 · k + 8 <= 8 · N <= RANK_MAX`, within the array; an unaligned load.
            *d = unsafe { _mm256_loadu_si256(c.d_sq.as_ptr().add(8 * k).cast()) };
        }
        // Squared distances are below 2³¹ as bits: they compare signed as they are.
        for &d_j in &c.d_sq[..c.len] {
            let d_j = _mm256_set1_epi32(d_j as i32);
            for (before, &d) in before.iter_mut().zip(&d) {
                // A true lane is -1: subtracting it counts one more candidate before.
                *before = _mm256_sub_epi32(*before, _mm256_cmpgt_epi32(d, d_j));
            }
        }
        let mut ranks = [0u32; RANK_MAX];
        for (k, before) in before.iter().enumerate() {
            // SAFETY: `8 · k + 8 <= RANK_MAX`, within `ranks`; an unaligned store.
            unsafe { _mm256_storeu_si256(ranks.as_mut_ptr().add(8 * k).cast(), *before) };
        }
        let mut seen = 0u64;
        for (k, &rank) in ranks[..c.len].iter().enumerate() {
            // A rank is below `c.len` ≤ RANK_MAX (it counts other candidates).
            order[rank as usize % RANK_MAX] = k as u8;
            seen |= 1 << (rank % RANK_MAX as u32);
        }
        seen == (1u64 << c.len) - 1
    }

    /// [`RankColumns::order`] by the whole (distance², id) key, for lists with equal
    /// distances. Ids compare as unsigned by flipping their top bit and comparing signed.
    ///
    /// # Safety
    /// The processor must support AVX2 and POPCNT.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn order_by_key(c: &RankColumns, order: &mut [u8; RANK_MAX]) {
        let chunks = c.len.div_ceil(8);
        let flip = _mm256_set1_epi32(i32::MIN);
        let mut d = [_mm256_setzero_si256(); CHUNKS];
        let mut id = [_mm256_setzero_si256(); CHUNKS];
        for k in 0..chunks {
            let at = 8 * k;
            // SAFETY: `at + 8 <= RANK_MAX` (chunks ≤ CHUNKS), within both arrays; unaligned
            // loads.
            unsafe {
                d[k] = _mm256_loadu_si256(c.d_sq.as_ptr().add(at).cast());
                id[k] = _mm256_xor_si256(_mm256_loadu_si256(c.id.as_ptr().add(at).cast()), flip);
            }
        }
        for k in 0..c.len {
            let my_d = _mm256_set1_epi32(c.d_sq[k] as i32);
            let my_id = _mm256_set1_epi32((c.id[k] ^ 0x8000_0000) as i32);
            let mut before = 0;
            for j in 0..chunks {
                let nearer = _mm256_cmpgt_epi32(my_d, d[j]);
                let tied = _mm256_cmpeq_epi32(my_d, d[j]);
                let lower_id = _mm256_cmpgt_epi32(my_id, id[j]);
                let m = _mm256_or_si256(nearer, _mm256_and_si256(tied, lower_id));
                before += _mm256_movemask_ps(_mm256_castsi256_ps(m)).count_ones();
            }
            // A rank is below `c.len` ≤ RANK_MAX (it counts other candidates).
            order[before as usize % RANK_MAX] = k as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each candidate's rank, from the order one path gives.
    fn ranks_of(c: &RankColumns, scalar: bool) -> Vec<usize> {
        let mut order = [u8::MAX; RANK_MAX];
        if scalar {
            c.order_scalar(&mut order);
        } else {
            c.order(&mut order);
        }
        let mut ranks = vec![usize::MAX; c.len];
        order[..c.len].iter().enumerate().for_each(|(rank, &k)| ranks[k as usize] = rank);
        ranks
    }

    #[test]
    fn ranks_order_by_distance_then_id_on_every_path() {
        // Hand-made: distances 4, 1, 4, 0, 9 with ids 7, 3, 2, 9, 1 → order 3, 1, 2, 0, 4.
        let bits = |d: f32| d.to_bits();
        let pairs = [(bits(4.0), 7), (bits(1.0), 3), (bits(4.0), 2), (bits(0.0), 9), (bits(9.0), 1)];
        let c = RankColumns::new(pairs.into_iter());
        assert_eq!(ranks_of(&c, true), vec![3, 1, 2, 0, 4]);
        assert_eq!(ranks_of(&c, false), vec![3, 1, 2, 0, 4]);
        // Every length up to the most, with ties, ids past 2³¹ and the largest finite value.
        let mut state = 12345u64;
        for len in 0..=RANK_MAX {
            let pairs: Vec<(u32, u32)> = (0..len)
                .map(|k| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let d = match (state >> 40) % 5 {
                        0 => 1.0f32,
                        1 => f32::MAX,
                        _ => ((state >> 33) % 1000) as f32 * 0.25,
                    };
                    let id = if k % 3 == 0 { 0x8000_0000 + k as u32 } else { (len - k) as u32 };
                    (d.to_bits(), id)
                })
                .collect();
            let c = RankColumns::new(pairs.iter().copied());
            let scalar = ranks_of(&c, true);
            let mut sorted = scalar.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..len).collect::<Vec<_>>(), "a permutation at length {len}");
            for (k, &r) in scalar.iter().enumerate() {
                let before = pairs.iter().filter(|o| (o.0, o.1) < pairs[k]).count();
                assert_eq!(r, before, "rank of {k} at length {len}");
            }
            assert_eq!(ranks_of(&c, false), scalar, "the fast path at length {len}");
        }
        // Distinct distances at every length (ranked by distance alone on the fast path),
        // shuffled; then the same lists with the two nearest tied (ranked by the whole key).
        for len in 0..=RANK_MAX {
            for tie in [false, true] {
                let pairs: Vec<(u32, u32)> = (0..len)
                    .map(|k| {
                        let d = ((k * 7 + 3) % len.max(1)) as f32 * 0.5 + 0.25;
                        let d = if tie && d == 0.75 { 0.25 } else { d };
                        (d.to_bits(), (31 * k as u32) ^ 0x8000_0005)
                    })
                    .collect();
                let c = RankColumns::new(pairs.iter().copied());
                let expected: Vec<usize> =
                    pairs.iter().map(|&mine| pairs.iter().filter(|&&o| o < mine).count()).collect();
                assert_eq!(ranks_of(&c, true), expected, "scalar, length {len}, tie {tie}");
                assert_eq!(ranks_of(&c, false), expected, "fast path, length {len}, tie {tie}");
            }
        }
    }
}
