//! Eight `f32` lanes for the velocity models and the seeks that run eight agents at once:
//! `Lanes` (an aligned column of eight values), and on x86-64 `F8` and `M8`, whose every
//! operator is the one AVX instruction of the same IEEE operation, plus [`F8::exp`], libm's
//! `expf` lane by lane. Lane code computes exactly what the one-agent code computes (same
//! operations, same order, nothing fused), so its bits are the one-agent bits; processors
//! without AVX2 run the one-agent code. With `index/scan.rs`, `index/rank.rs` and the lanes
//! that call it (the models' and `behaviours/seek_lanes.rs`), the engine's `unsafe` code: the
//! AVX2 intrinsics, on aligned lane arrays.

/// Agents per lane call.
pub const LANES: usize = 8;

/// One value per lane, aligned for AVX loads.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub struct Lanes(pub [f32; LANES]);

/// Whether this processor runs lanes (AVX2); without it, every agent takes the one-agent path.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
pub use avx2::{F8, M8};

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The lanes' arithmetic. Every function here is `#[inline(always)]` and reached only from
    //! a `#[target_feature(enable = "avx2")]` function that [`super::available`] guarded, which
    //! is what makes each `unsafe` intrinsic call sound.
    use std::arch::x86_64::*;
    use std::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

    use super::Lanes;

    /// Eight `f32`.
    #[derive(Clone, Copy)]
    pub struct F8(pub __m256);

    /// Eight lane masks (all bits set where true).
    #[derive(Clone, Copy)]
    pub struct M8(pub __m256);

    macro_rules! binary {
        ($trait:ident, $method:ident, $intrinsic:ident) => {
            impl $trait for F8 {
                type Output = F8;
                #[inline(always)]
                fn $method(self, other: F8) -> F8 {
                    // SAFETY: reached only with AVX2 (see the module's header).
                    F8(unsafe { $intrinsic(self.0, other.0) })
                }
            }
        };
    }
    binary!(Add, add, _mm256_add_ps);
    binary!(Sub, sub, _mm256_sub_ps);
    binary!(Mul, mul, _mm256_mul_ps);
    binary!(Div, div, _mm256_div_ps);

    impl Neg for F8 {
        type Output = F8;
        #[inline(always)]
        fn neg(self) -> F8 {
            // SAFETY: as in `binary!`. Negation flips the sign bit, as scalar negation does.
            F8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
    }

    impl BitAnd for M8 {
        type Output = M8;
        #[inline(always)]
        fn bitand(self, other: M8) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_and_ps(self.0, other.0) })
        }
    }

    impl BitOr for M8 {
        type Output = M8;
        #[inline(always)]
        fn bitor(self, other: M8) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_or_ps(self.0, other.0) })
        }
    }

    impl Not for M8 {
        type Output = M8;
        #[inline(always)]
        fn not(self) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_xor_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(-1))) })
        }
    }

    impl F8 {
        /// `x` in every lane.
        #[inline(always)]
        pub fn splat(x: f32) -> F8 {
            // SAFETY: as in `binary!`.
            F8(unsafe { _mm256_set1_ps(x) })
        }

        /// The eight values of `lanes`.
        #[inline(always)]
        pub fn load(lanes: &Lanes) -> F8 {
            // SAFETY: as in `binary!`; `Lanes` is 32-byte aligned.
            F8(unsafe { _mm256_load_ps(lanes.0.as_ptr()) })
        }

        /// Into `lanes`.
        #[inline(always)]
        pub fn store(self, lanes: &mut Lanes) {
            // SAFETY: as in `load`.
            unsafe { _mm256_store_ps(lanes.0.as_mut_ptr(), self.0) }
        }

        /// The eight values as an array.
        #[inline(always)]
        pub fn to_array(self) -> [f32; 8] {
            let mut lanes = Lanes::default();
            self.store(&mut lanes);
            lanes.0
        }

        /// Correctly rounded square root, as `f32::sqrt`.
        #[inline(always)]
        pub fn sqrt(self) -> F8 {
            // SAFETY: as in `binary!`.
            F8(unsafe { _mm256_sqrt_ps(self.0) })
        }

        /// Clears the sign bit, as `f32::abs` does.
        #[inline(always)]
        pub fn abs(self) -> F8 {
            // SAFETY: as in `binary!`.
            F8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
        }

        /// `self < other`, false where either is NaN (as the scalar comparison).
        #[inline(always)]
        pub fn lt(self, other: F8) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, other.0) })
        }

        /// `self <= other`, false where either is NaN.
        #[inline(always)]
        pub fn le(self, other: F8) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(self.0, other.0) })
        }

        /// `self > other`, false where either is NaN.
        #[inline(always)]
        pub fn gt(self, other: F8) -> M8 {
            other.lt(self)
        }

        /// `self >= other`, false where either is NaN.
        #[inline(always)]
        pub fn ge(self, other: F8) -> M8 {
            other.le(self)
        }

        /// `libm::expf` in every lane, operation for operation (FreeBSD's `e_expf.c` with its
        /// `scalbnf`, as libm 0.2.16 has them): its branches become lane selects, its
        /// arithmetic is the same IEEE operations in the same order, so every lane holds the
        /// bits the scalar function returns, for every `f32` (NaN, infinities and subnormal
        /// results included; the tests compare them all).
        #[inline(always)]
        pub fn exp(self) -> F8 {
            // libm's constants, by their bits (its source gives them so in comments).
            const LN2_HI: u32 = 0x3f31_7200;
            const LN2_LO: u32 = 0x35bf_be8e;
            const INV_LN2: u32 = 0x3fb8_aa3b;
            const P1: u32 = 0x3e2a_aa8f; // 0xaaaa8f.0p-26
            const P2: u32 = 0xbb35_5215; // -0xb55215.0p-32
            let (x, one) = (self, F8::splat(1.0));
            let hx = and(bits(x), int(0x7fff_ffff));
            let negative = sign_mask(x);
            // Argument reduction: k = round(x / ln 2) beyond 1.5 ln 2, ±1 beyond 0.5 ln 2, 0
            // below (where hi = x and lo = 0, which the same formulas give for k = 0).
            let half = mask(negative).select(F8::splat(-0.5), F8::splat(0.5));
            let k_far = truncate(constant(INV_LN2) * x + half);
            let k_near = or(negative, int(1));
            let k =
                and(blend(mask(greater(hx, int(0x3f85_1592))), k_far, k_near), greater(hx, int(0x3eb1_7218)));
            let kf = to_float(k);
            let hi = x - kf * constant(LN2_HI);
            let lo = kf * constant(LN2_LO);
            let r = hi - lo;
            let rr = r * r;
            let c = r - rr * (constant(P1) + rr * constant(P2));
            let y = one + (r * c / (F8::splat(2.0) - c) - lo + hi);
            // scalbnf(y, k): k above 127 (only 128 here) prescales by 2^127, k below −126 by
            // 2^−102, then 2^n for what is left.
            let (big, small) = (greater(k, int(127)), greater(int(-126), k));
            let n = add(k, or(and(big, int(-127)), and(small, int(102))));
            let two_127 = F8::splat(f32::from_bits(0x7f00_0000));
            let pre =
                mask(big).select(two_127, mask(small).select(F8::splat(f32::from_bits(0x0c80_0000)), one));
            let mut e = y * pre * power_of_two(n);
            // |x| ≤ 2^−14: 1 + x.
            e = mask(greater(int(0x3900_0001), hx)).select(one + x, e);
            // x ≥ 88.722839: overflow, x · 2^127 (+∞).
            e = mask(and_not(negative, greater(hx, int(0x42b1_7217)))).select(x * two_127, e);
            // x ≤ −103.972084: 0.
            e = mask(and(negative, greater(hx, int(0x42cf_f1b4)))).select(F8::splat(0.0), e);
            // NaN: itself.
            mask(greater(hx, int(0x7f80_0000))).select(x, e)
        }
    }

    // The integer lane operations `F8::exp` takes apart its values with.

    /// The `f32` with these bits in every lane.
    #[inline(always)]
    fn constant(bits: u32) -> F8 {
        F8::splat(f32::from_bits(bits))
    }

    /// `v` in every lane.
    #[inline(always)]
    fn int(v: i32) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_set1_epi32(v) }
    }

    /// The bits of every lane.
    #[inline(always)]
    fn bits(x: F8) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_castps_si256(x.0) }
    }

    /// All bits set in the lanes whose sign bit is set.
    #[inline(always)]
    fn sign_mask(x: F8) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_srai_epi32::<31>(bits(x)) }
    }

    /// Integer lanes as a mask.
    #[inline(always)]
    fn mask(m: __m256i) -> M8 {
        // SAFETY: as in `binary!`.
        M8(unsafe { _mm256_castsi256_ps(m) })
    }

    /// `a > b` as signed integers.
    #[inline(always)]
    fn greater(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_cmpgt_epi32(a, b) }
    }

    #[inline(always)]
    fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_and_si256(a, b) }
    }

    /// `b` where `a` is clear.
    #[inline(always)]
    fn and_not(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_andnot_si256(a, b) }
    }

    #[inline(always)]
    fn or(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_or_si256(a, b) }
    }

    #[inline(always)]
    fn add(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_add_epi32(a, b) }
    }

    /// `if m { yes } else { no }` on integer lanes.
    #[inline(always)]
    fn blend(m: M8, yes: __m256i, no: __m256i) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe {
            _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(no), _mm256_castsi256_ps(yes), m.0))
        }
    }

    /// Towards zero, as `f32 as i32` within range (out of range: `i32::MIN`; `F8::exp`
    /// discards such lanes).
    #[inline(always)]
    fn truncate(x: F8) -> __m256i {
        // SAFETY: as in `binary!`.
        unsafe { _mm256_cvttps_epi32(x.0) }
    }

    /// `k as f32`.
    #[inline(always)]
    fn to_float(k: __m256i) -> F8 {
        // SAFETY: as in `binary!`.
        F8(unsafe { _mm256_cvtepi32_ps(k) })
    }

    /// 2^n for n in −126..=127 (a normal number's exponent field).
    #[inline(always)]
    fn power_of_two(n: __m256i) -> F8 {
        // SAFETY: as in `binary!`.
        F8(unsafe {
            _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(n, _mm256_set1_epi32(127))))
        })
    }

    impl M8 {
        /// Every lane true.
        #[inline(always)]
        pub fn every() -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_castsi256_ps(_mm256_set1_epi32(-1)) })
        }

        /// `if self { yes } else { no }`, lane by lane.
        #[inline(always)]
        pub fn select(self, yes: F8, no: F8) -> F8 {
            // SAFETY: as in `binary!`.
            F8(unsafe { _mm256_blendv_ps(no.0, yes.0, self.0) })
        }

        /// Is any lane true?
        #[inline(always)]
        pub fn any(self) -> bool {
            // SAFETY: as in `binary!`.
            unsafe { _mm256_movemask_ps(self.0) != 0 }
        }

        /// Each lane, true or false.
        #[inline(always)]
        pub fn to_bools(self) -> [bool; 8] {
            // SAFETY: as in `binary!`.
            let bits = unsafe { _mm256_movemask_ps(self.0) };
            std::array::from_fn(|l| bits >> l & 1 == 1)
        }

        /// Lanes whose `count` is above `k`.
        #[inline(always)]
        pub fn above(count: __m256i, k: usize) -> M8 {
            // SAFETY: as in `binary!`.
            M8(unsafe { _mm256_castsi256_ps(_mm256_cmpgt_epi32(count, _mm256_set1_epi32(k as i32))) })
        }

        /// Lanes whose `counts` entry is above `k`.
        #[inline(always)]
        pub fn count_above(counts: &[u32; 8], k: usize) -> M8 {
            // SAFETY: as in `binary!`; `counts` is eight `u32`, an unaligned load of 32 bytes.
            M8::above(unsafe { _mm256_loadu_si256(counts.as_ptr().cast()) }, k)
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// `F8::exp` of the eight `f32` with bits `first..first + 8`, against `libm::expf`.
    #[target_feature(enable = "avx2")]
    fn mismatch_in(first: u32) -> Option<(u32, u32, u32)> {
        let mut lanes = Lanes::default();
        for (l, x) in lanes.0.iter_mut().enumerate() {
            *x = f32::from_bits(first.wrapping_add(l as u32));
        }
        let got = F8::load(&lanes).exp().to_array();
        (0..LANES).find_map(|l| {
            let want = libm::expf(lanes.0[l]).to_bits();
            (got[l].to_bits() != want).then_some((lanes.0[l].to_bits(), got[l].to_bits(), want))
        })
    }

    /// Checks `F8::exp` on the eight-value blocks starting at `starts`.
    fn check(starts: impl Iterator<Item = u32>) -> usize {
        let mut checked = 0;
        for first in starts {
            // SAFETY: the callers checked AVX2.
            if let Some((x, got, want)) = unsafe { mismatch_in(first) } {
                panic!(
                    "exp({}) (bits {x:#010x}): lanes give {got:#010x} = {}, libm {want:#010x} = {}",
                    f32::from_bits(x),
                    f32::from_bits(got),
                    f32::from_bits(want)
                );
            }
            checked += LANES;
        }
        checked
    }

    #[test]
    fn exp_in_lanes_is_libm_bit_for_bit_near_every_branch_and_on_a_sample() {
        if !available() {
            eprintln!("skipped: this processor has no AVX2, so lanes never run here");
            return;
        }
        // Around every threshold of the scalar code, both signs (the bits of |x|): 2^−14,
        // 0.5 ln 2, 1.5 ln 2, the overflow and underflow limits, where subnormal results begin,
        // and the infinities and NaNs.
        let edges =
            [0x3900_0000u32, 0x3eb1_7218, 0x3f85_1592, 0x42ae_ac50, 0x42b1_7218, 0x42cf_f1b5, 0x7f80_0000];
        let near = edges
            .iter()
            .flat_map(|&e| [e, e | 0x8000_0000])
            .flat_map(|e| (0..1024u32).map(move |k| e - 4096 + 8 * k));
        let mut checked = check(near);
        // Every value the models meet most (|x| < 128, where the exponent bits are below
        // 0x43), on a stride of 8 · 31 patterns, and a stride over all the rest.
        checked += check((0..0x4300_0000u32 / 248).flat_map(|k| [248 * k, (248 * k) | 0x8000_0000]));
        checked += check((0..u32::MAX / 7919).map(|k| k * 7919));
        assert!(checked > 70_000_000, "{checked}");
    }

    /// Every `f32`: about 4·10⁹ values, a minute or two in release; run with
    /// `cargo test --release -p throng-engine exp_in_lanes_is_libm_for_every_f32 -- --ignored`.
    #[test]
    #[ignore = "every f32: run by hand (see its doc)"]
    fn exp_in_lanes_is_libm_for_every_f32() {
        if !available() {
            eprintln!("skipped: this processor has no AVX2");
            return;
        }
        assert_eq!(check((0..(1u64 << 32) / LANES as u64).map(|k| (k * LANES as u64) as u32)), 1 << 32);
    }
}
