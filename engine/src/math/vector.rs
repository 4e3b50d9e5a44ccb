//! `Vector`: what the engine asks of a position, velocity or force, for the plane (`Vec2`) and
//! for space (`Vec3`). Code written against it is compiled once per dimension, so the plane's
//! code is the code written for `Vec2` (it pays nothing for space existing).
//!
//! Every method is glam's own (scalar, in component order: no fused or reordered arithmetic),
//! so a formula gives the same bits whether it is written for `Vec2` or generically.

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

pub use glam::Vec3;

use super::Vec2;

/// A point or displacement of the plane or of space.
pub trait Vector:
    Copy
    + Default
    + PartialEq
    + Debug
    + std::fmt::Display
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Neg<Output = Self>
    + Mul<f32, Output = Self>
    + Mul<Self, Output = Self>
    + Div<f32, Output = Self>
    + Div<Self, Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign<f32>
    + DivAssign<f32>
    + serde::Serialize
    + serde::de::DeserializeOwned
{
    /// 2 for the plane, 3 for space.
    const DIMENSIONS: usize;
    /// The zero vector.
    const ZERO: Self;
    /// The axes' names, in component order (`x`, `y`, and `z` in space).
    const AXES: &'static [&'static str];

    /// Every component `v`.
    fn splat(v: f32) -> Self;
    /// The vector whose component `axis` is `f(axis)`, axes in order.
    fn from_fn(f: impl FnMut(usize) -> f32) -> Self;
    /// Component `axis` (0 = x, 1 = y, 2 = z).
    fn axis(self, axis: usize) -> f32;
    /// Sets component `axis`.
    fn set_axis(&mut self, axis: usize, value: f32);
    /// The dot product.
    fn dot(self, other: Self) -> f32;
    /// `|self|²`.
    fn length_squared(self) -> f32;
    /// `|self|` (a correctly rounded square root: the same bits everywhere).
    fn length(self) -> f32;
    /// Whether every component is finite.
    fn is_finite(self) -> bool;
    /// Componentwise absolute value.
    fn abs(self) -> Self;
    /// The largest component.
    fn max_element(self) -> f32;
    /// The smallest component.
    fn min_element(self) -> f32;
    /// Componentwise minimum.
    fn min(self, other: Self) -> Self;
    /// Componentwise maximum.
    fn max(self, other: Self) -> Self;

    /// `self` turned by `angle` radians away from its own direction, its length kept; `spin` in
    /// [0, 1) says towards which side. In the plane: counter-clockwise (left) for `spin < 0.5`,
    /// clockwise otherwise. In space: towards azimuth `2π · spin` about `self`, measured from
    /// the first vector of glam's `any_orthonormal_pair` of its direction (a fixed function of
    /// the direction, so the same draw turns the same way on every platform).
    fn cone_turn(self, angle: f32, spin: f32) -> Self;

    /// A unit vector in a uniformly random direction, from `draw`'s values in [0, 1): in the
    /// plane one draw, the angle `2π · u`; in space two, `z = 2u₁ − 1` and the azimuth
    /// `2π · u₂` (uniform on the sphere, Archimedes).
    fn direction_from(draw: impl FnMut() -> f32) -> Self;

    /// A uniform point of the disc (the ball, in space) of `radius` about the origin, from
    /// `draw`'s values in [0, 1): the distance `radius · u^(1/d)` first, then the direction
    /// ([`Vector::direction_from`]).
    fn in_ball(radius: f32, draw: impl FnMut() -> f32) -> Self;

    /// The point itself when it is a point of the plane; `None` in space. Planar machinery
    /// (walls, routing fields, velocity models) reads the plane through it and does nothing
    /// in space.
    fn to_plane(self) -> Option<Vec2>;

    /// A point of the plane as this type: itself, or `(x, y, 0)` in space.
    fn from_plane(v: Vec2) -> Self;

    /// The point itself when it is a point of space; `None` in the plane. Space's solids are
    /// read through it.
    fn to_space(self) -> Option<Vec3>;

    /// A point of space as this type: itself, or `(x, y)` in the plane.
    fn from_space(v: Vec3) -> Self;

    /// Appends the components' little-endian bytes, x first (the state hash's form).
    fn write_le(self, out: &mut Vec<u8>);

    /// `|self − other|²`.
    #[inline]
    fn distance_squared(self, other: Self) -> f32 {
        (self - other).length_squared()
    }
}

macro_rules! vector_for {
    ($ty:ty, $dims:literal, [$($axis:ident),+], $cone_turn:expr) => {
        impl Vector for $ty {
            const DIMENSIONS: usize = $dims;
            const ZERO: Self = <$ty>::ZERO;
            const AXES: &'static [&'static str] = &[$(stringify!($axis)),+];

            #[inline]
            fn splat(v: f32) -> Self {
                <$ty>::splat(v)
            }
            #[inline]
            fn from_fn(f: impl FnMut(usize) -> f32) -> Self {
                // `std::array::from_fn` calls `f` for 0, 1, … in order.
                <$ty>::from_array(std::array::from_fn::<f32, $dims, _>(f))
            }
            #[inline]
            fn axis(self, axis: usize) -> f32 {
                self[axis]
            }
            #[inline]
            fn set_axis(&mut self, axis: usize, value: f32) {
                self[axis] = value;
            }
            #[inline]
            fn dot(self, other: Self) -> f32 {
                <$ty>::dot(self, other)
            }
            #[inline]
            fn length_squared(self) -> f32 {
                <$ty>::length_squared(self)
            }
            #[inline]
            fn length(self) -> f32 {
                <$ty>::length(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$ty>::is_finite(self)
            }
            #[inline]
            fn abs(self) -> Self {
                <$ty>::abs(self)
            }
            #[inline]
            fn max_element(self) -> f32 {
                <$ty>::max_element(self)
            }
            #[inline]
            fn min_element(self) -> f32 {
                <$ty>::min_element(self)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                <$ty>::min(self, other)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                <$ty>::max(self, other)
            }
            #[inline]
            fn cone_turn(self, angle: f32, spin: f32) -> Self {
                ($cone_turn)(self, angle, spin)
            }
            #[inline]
            fn direction_from(draw: impl FnMut() -> f32) -> Self {
                <$ty as PerDimension>::direction_from(draw)
            }
            #[inline]
            fn in_ball(radius: f32, draw: impl FnMut() -> f32) -> Self {
                <$ty as PerDimension>::in_ball(radius, draw)
            }
            #[inline]
            fn to_plane(self) -> Option<Vec2> {
                <$ty as PerDimension>::to_plane(self)
            }
            #[inline]
            fn from_plane(v: Vec2) -> Self {
                <$ty as PerDimension>::from_plane(v)
            }
            #[inline]
            fn to_space(self) -> Option<Vec3> {
                <$ty as PerDimension>::to_space(self)
            }
            #[inline]
            fn from_space(v: Vec3) -> Self {
                <$ty as PerDimension>::from_space(v)
            }
            #[inline]
            fn write_le(self, out: &mut Vec<u8>) {
                for v in self.to_array() {
                    out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    };
}

vector_for!(Vec2, 2, [x, y], |v: Vec2, angle: f32, spin: f32| super::rotate(
    v,
    if spin < 0.5 { angle } else { -angle }
));

impl PerDimension for Vec2 {
    fn direction_from(mut draw: impl FnMut() -> f32) -> Vec2 {
        let (s, c) = super::sin_cos(2.0 * super::PI * draw());
        Vec2::new(c, s)
    }

    fn in_ball(radius: f32, mut draw: impl FnMut() -> f32) -> Vec2 {
        let r = radius * draw().sqrt();
        <Vec2 as PerDimension>::direction_from(draw) * r
    }

    fn to_plane(self) -> Option<Vec2> {
        Some(self)
    }

    fn from_plane(v: Vec2) -> Vec2 {
        v
    }

    fn to_space(self) -> Option<Vec3> {
        None
    }

    fn from_space(v: Vec3) -> Vec2 {
        v.truncate()
    }
}

impl PerDimension for Vec3 {
    fn direction_from(mut draw: impl FnMut() -> f32) -> Vec3 {
        let z = 2.0 * draw() - 1.0;
        let across = (1.0 - z * z).max(0.0).sqrt();
        let (s, c) = super::sin_cos(2.0 * super::PI * draw());
        Vec3::new(c * across, s * across, z)
    }

    fn in_ball(radius: f32, mut draw: impl FnMut() -> f32) -> Vec3 {
        let r = radius * libm::cbrtf(draw());
        <Vec3 as PerDimension>::direction_from(draw) * r
    }

    fn to_plane(self) -> Option<Vec2> {
        None
    }

    fn from_plane(v: Vec2) -> Vec3 {
        v.extend(0.0)
    }

    fn to_space(self) -> Option<Vec3> {
        Some(self)
    }

    fn from_space(v: Vec3) -> Vec3 {
        v
    }
}

/// What differs between the dimensions beyond component counts: the draws of
/// [`Vector::direction_from`] and [`Vector::in_ball`], and the way to and from the plane.
trait PerDimension: Sized {
    fn direction_from(draw: impl FnMut() -> f32) -> Self;
    fn in_ball(radius: f32, draw: impl FnMut() -> f32) -> Self;
    fn to_plane(self) -> Option<Vec2>;
    fn from_plane(v: Vec2) -> Self;
    fn to_space(self) -> Option<Vec3>;
    fn from_space(v: Vec3) -> Self;
}
vector_for!(Vec3, 3, [x, y, z], |v: Vec3, angle: f32, spin: f32| {
    let len = v.length();
    if len == 0.0 || !len.is_finite() {
        return v;
    }
    let axis = v / len;
    let (across, beside) = axis.any_orthonormal_pair();
    let (sin_spin, cos_spin) = super::sin_cos(2.0 * super::PI * spin);
    let (sin_turn, cos_turn) = super::sin_cos(angle);
    (axis * cos_turn + (across * cos_spin + beside * sin_spin) * sin_turn) * len
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_fn_fills_axes_in_order() {
        let mut seen = Vec::new();
        let v = Vec3::from_fn(|a| {
            seen.push(a);
            a as f32 + 1.0
        });
        assert_eq!(v, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(seen, [0, 1, 2]);
        assert_eq!(<Vec2 as Vector>::from_fn(|a| a as f32), Vec2::new(0.0, 1.0));
        assert_eq!(<Vec3 as Vector>::AXES, ["x", "y", "z"]);
    }

    #[test]
    fn space_lengths_count_every_axis() {
        let v = Vec3::new(2.0, 3.0, 6.0);
        assert_eq!(Vector::length_squared(v), 49.0);
        assert_eq!(Vector::length(v), 7.0);
        assert_eq!(Vector::distance_squared(v, Vec3::ZERO), 49.0);
    }
}
