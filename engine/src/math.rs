//! The one math module: every transcendental function the engine calls goes through here,
//! implemented by `libm`, so results do not depend on the platform's C library or the Rust
//! version. `clippy.toml` bans the std versions everywhere else.
//!
//! `sqrt` is not on that list: IEEE 754 requires it to be correctly rounded, so `f32::sqrt` is
//! already bit-identical everywhere.

pub use glam::Vec2;

/// `norm(x)` of the spec: `x / |x|`, and the zero vector when `|x|` is 0 (never NaN).
#[inline]
pub fn norm(v: Vec2) -> Vec2 {
    let len_sq = v.length_squared();
    if len_sq > 0.0 && len_sq.is_finite() {
        v / len_sq.sqrt()
    } else if v.is_finite() && v != Vec2::ZERO {
        // |v|² overflowed (or underflowed to 0) although v is finite and non-zero: scale by the
        // largest component first, so such vectors keep their direction instead of vanishing.
        let s = v / v.abs().max_element();
        s / s.length()
    } else {
        Vec2::ZERO
    }
}

/// `trunc(x, L)` of the spec: scale `x` down to length `max_len` when it is longer.
#[inline]
pub fn trunc(v: Vec2, max_len: f32) -> Vec2 {
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
    fn rotate_quarter_turn() {
        let r = rotate(Vec2::X, PI / 2.0);
        assert!((r - Vec2::Y).length() < 1e-6, "{r}");
    }
}
