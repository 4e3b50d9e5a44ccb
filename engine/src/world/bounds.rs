//! `Bounds`: the simulated region, open or wrapped (toroidal), with minimum-image offsets.

use serde::{Deserialize, Serialize};

use crate::math::Vec2;

/// The simulated region.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Open or wrapped (default, in a scenario, [`BoundsKind::Open`]).
    pub kind: BoundsKind,
    /// Lower-left corner (world units; each coordinate within ±1e7,
    /// [`MAX_MAGNITUDE`](crate::scenario::MAX_MAGNITUDE)).
    pub min: Vec2,
    /// Upper-right corner (world units; `max.x > min.x` and `max.y > min.y`). A wrapped world
    /// is the half-open `[min, max)`.
    pub max: Vec2,
}

/// Whether the bounds constrain agents: the scenario's `[bounds] kind`, `"open"` or `"wrap"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundsKind {
    /// Agents may leave the rectangle; it only frames spawn regions and output.
    Open,
    /// Toroidal: positions wrap, and every offset uses the minimum image across the seam.
    Wrap,
}

impl Bounds {
    /// Width and height, `max - min` (world units).
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }

    /// The offset from `from` to `to`: `to - from`, or its minimum image when wrapped.
    #[inline]
    pub fn offset(&self, from: Vec2, to: Vec2) -> Vec2 {
        let d = to - from;
        match self.kind {
            BoundsKind::Open => d,
            BoundsKind::Wrap => {
                let size = self.max - self.min;
                Vec2::new(min_image(d.x, size.x), min_image(d.y, size.y))
            }
        }
    }

    /// Brings a position back inside `[min, max)` on a wrapped world; identity when open.
    #[inline]
    pub fn wrap(&self, p: Vec2) -> Vec2 {
        match self.kind {
            BoundsKind::Open => p,
            BoundsKind::Wrap => {
                Vec2::new(wrap_axis(p.x, self.min.x, self.max.x), wrap_axis(p.y, self.min.y, self.max.y))
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
