//! The one math module: every transcendental function the engine calls goes through here,
//! implemented by `libm`, so results do not depend on the platform's C library or the Rust
//! version. `clippy.toml` bans the std versions everywhere else.
//!
//! `sqrt` is not on that list: IEEE 754 requires it to be correctly rounded, so `f32::sqrt` is
//! already bit-identical everywhere.

pub(crate) mod lanes;
mod vector;

pub use glam::Vec2;
pub use vector::{Vec3, Vector};

/// `norm(x)` of the spec: `x / |x|`, and the zero vector when `|x|` is 0 (never NaN).
#[inline]
pub fn norm<V: Vector>(v: V) -> V {
    let len_sq = v.length_squared();
    if len_sq > 0.0 && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else if v.is_finite() && v != V::ZERO {
        // |v|² overflowed (or underflowed to 0) although v is finite and non-zero: scale by the
        // largest component first, so such vectors keep their direction instead of vanishing.
        let s = v / v.abs().max_element();
        s / s.length()
    } else {
        V::ZERO
    }
}

/// `trunc(x, L)` of the spec: scale `x` down to length `max_len` when it is longer.
#[inline]
pub fn trunc<V: Vector>(v: V, max_len: f32) -> V {
    let len_sq = v.length_squared();
    if len_sq > max_len * max_len { v * (max_len / len_sq.sqrt()) } else { v }
}

/// Sine and cosine of `angle` (radians).
#[inline]
pub fn sin_cos(angle: f32) -> (f32, f32) {
    (libm::sinf(angle), libm::cosf(angle))
}

/// `v` rotated counter-clockwise by `angle` radians.
#[inline]
pub fn rotate(v: Vec2, angle: f32) -> Vec2 {
    let (s, c) = sin_cos(angle);
    Vec2::new(v.x * c - v.y * s, v.x * s + v.y * c)
}

/// Angle of `v` from the +x axis, in (-π, π].
#[inline]
pub fn angle_of(v: Vec2) -> f32 {
    libm::atan2f(v.y, v.x)
}

/// The angle in radians, from 0 to π, whose cosine is `x` (clamped to [-1, 1] first, so a
/// cosine rounded just past 1 gives 0, not NaN).
#[inline]
pub fn acos(x: f32) -> f32 {
    libm::acosf(x.clamp(-1.0, 1.0))
}

/// `e` to the power `x` (libm's, so the same on every platform).
#[inline]
pub fn exp(x: f32) -> f32 {
    libm::expf(x)
}

/// `base` to the power `exponent` (libm's, so the same on every platform).
#[inline]
pub fn powf(base: f32, exponent: f32) -> f32 {
    libm::powf(base, exponent)
}

/// `a + (b - a) * t`.
#[inline]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// The standard normal distribution function Φ(x) = ½·erfc(−x/√2) (libm's `erfc`, so the
/// same on every platform; accurate to the last bits in both tails).
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x * core::f64::consts::FRAC_1_SQRT_2)
}

/// The standard normal quantile Φ⁻¹(p) for `0 < p < 1` (±∞ at 0 and 1): Acklam's rational
/// approximation (relative error below 1.2e-9), then one Halley step on [`normal_cdf`], which
/// brings it to about double precision.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < 0.02425 {
        tail(libm::sqrt(-2.0 * libm::log(p)))
    } else if p > 1.0 - 0.02425 {
        -tail(libm::sqrt(-2.0 * libm::log(1.0 - p)))
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Halley: e = Φ(x) − p, u = e·√(2π)·exp(x²/2), x ← x − u / (1 + x·u/2).
    let e = normal_cdf(x) - p;
    let u = e * libm::sqrt(2.0 * core::f64::consts::PI) * libm::exp(x * x / 2.0);
    x - u / (1.0 + x * u / 2.0)
}

/// π in `f32` (`core::f32::consts::PI`), for the engine's angles: spawn and heading draws,
/// wander, random-walk cones.
pub const PI: f32 = core::f32::consts::PI;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_of_zero_is_zero_not_nan() {
        assert_eq!(norm(Vec2::ZERO), Vec2::ZERO);
        assert_eq!(norm(Vec2::new(3.0, 4.0)), Vec2::new(0.6, 0.8));
    }

    #[test]
    fn trunc_only_shortens() {
        assert_eq!(trunc(Vec2::new(3.0, 4.0), 10.0), Vec2::new(3.0, 4.0));
        assert_eq!(trunc(Vec2::new(3.0, 4.0), 1.0), Vec2::new(0.6, 0.8));
        assert_eq!(trunc(Vec2::new(3.0, 4.0), 0.0), Vec2::ZERO);
    }

    #[test]
    fn normal_distribution_by_the_table() {
        // Values from the standard normal table (to the digits printed there).
        assert_eq!(normal_cdf(0.0), 0.5);
        assert!((normal_cdf(1.0) - 0.841_344_746_068_543).abs() < 1e-15);
        assert!((normal_cdf(-1.959_963_984_540_054) - 0.025).abs() < 1e-15);
        assert!((normal_cdf(-6.0) - 9.865_876_450_377e-10).abs() < 1e-21);
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-13);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_813).abs() < 1e-12);
        assert!((normal_quantile(1e-9) + 5.997_807_015_007_686).abs() < 1e-10);
        for k in 1..1000 {
            let p = k as f64 / 1000.0;
            assert!((normal_cdf(normal_quantile(p)) - p).abs() < 1e-15, "{p}");
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
    }

    #[test]
    fn rotate_quarter_turn() {
        let r = rotate(Vec2::X, PI / 2.0);
        assert!((r - Vec2::Y).length() < 1e-6, "{r}");
    }
}
