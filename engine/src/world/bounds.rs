//! `Bounds`: the simulated region (a rectangle, or a box in space), open or wrapped (toroidal),
//! with minimum-image offsets.

use serde::{Deserialize, Serialize};

use crate::math::{Vec2, Vector};

/// The simulated region: a rectangle in the plane (`V = Vec2`), a box in space (`Vec3`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub struct Bounds<V = Vec2> {
    /// Open or wrapped (default, in a scenario, [`BoundsKind::Open`]).
    pub kind: BoundsKind,
    /// Lower-left corner (world units; each coordinate within ±1e7,
    /// [`MAX_MAGNITUDE`](crate::scenario::MAX_MAGNITUDE)).
    pub min: V,
    /// Upper-right corner (world units; every `max` coordinate above `min`'s). A wrapped world
    /// is the half-open `[min, max)`.
    pub max: V,
}

/// Whether the bounds constrain agents: the scenario's `[bounds] kind`, `"open"` or `"wrap"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundsKind {
    /// Agents may leave the rectangle; it only frames spawn regions and output.
    Open,
    /// Toroidal: positions wrap, and every offset uses the minimum image across the seam.
    Wrap,
}

impl<V: Vector> Bounds<V> {
    /// Width and height (and depth), `max - min` (world units).
    #[inline]
    pub fn size(&self) -> V {
        self.max - self.min
    }

    /// The offset from `from` to `to`: `to - from`, or its minimum image when wrapped.
    #[inline]
    pub fn offset(&self, from: V, to: V) -> V {
        let d = to - from;
        match self.kind {
            BoundsKind::Open => d,
            BoundsKind::Wrap => {
                let size = self.max - self.min;
                V::from_fn(|axis| min_image(d.axis(axis), size.axis(axis)))
            }
        }
    }

    /// Brings a position back inside `[min, max)` on a wrapped world; identity when open.
    #[inline]
    pub fn wrap(&self, p: V) -> V {
        match self.kind {
            BoundsKind::Open => p,
            BoundsKind::Wrap => {
                V::from_fn(|axis| wrap_axis(p.axis(axis), self.min.axis(axis), self.max.axis(axis)))
            }
        }
    }
}

#[inline]
fn min_image(d: f32, size: f32) -> f32 {
    if d > 0.5 * size {
        d - size
    } else if d < -0.5 * size {
        d + size
    } else {
        d
    }
}

#[inline]
fn wrap_axis(x: f32, lo: f32, hi: f32) -> f32 {
    if x >= lo && x < hi {
        return x;
    }
    let size = hi - lo;
    let w = lo + (x - lo).rem_euclid(size);
    // rem_euclid can round up to exactly `size` for tiny negative inputs.
    if w >= hi { lo } else { w }
}
