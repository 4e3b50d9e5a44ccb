//! Neighbour search: the per-tick spatial index over agents, the neighbour lists it fills, the
//! candidate lists reused across ticks (the sensing skin), and the static obstacle index.
//!
//! Every backend shares one contract, so a run gives the same bits with any: the index only
//! proposes *candidates* (a superset), and the exact test `|offset(p, q)|² <= r²` with the
//! world's own offset function decides membership. Candidates are sorted by (distance², id)
//! and only then truncated to the group's cap.

mod candidate;
mod clearance;
mod grid;
mod kd;
mod movers;
mod neighbours;
mod obstacles;
mod point;
mod rank;
mod reach;
mod row_changes;
mod scan;
mod sense_input;
mod sense_rows;
mod sensing;
mod skin;
mod spatial;

pub(crate) use kd::{BUCKET as PLANE_BUCKET, build_tree};
pub use movers::{mover_pairs, movers_cap};
pub use neighbours::{MAX_NEIGHBOURS, Neighbours};
pub use obstacles::{ObstacleIndex, penetration};
pub use point::Point;
pub use reach::{FirstReach, row_reach, short_reach};
pub use sense_input::SenseInput;
pub use sensing::{neighbours_from_candidates, sense_candidates, sense_neighbours};
pub use skin::{CandidateLists, SensingCache, auto_skin};
pub use spatial::SpatialIndex;

use crate::math::Vector;
use crate::world::{Bounds, BoundsKind};

/// Which neighbour-search backend a run uses. Every backend gives the same lists, bit for bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexKind {
    /// kiddo's `ImmutableKdTree`, rebuilt every tick.
    Kd,
    /// Every pair tested, O(N²): the oracle the k-d tree is checked against.
    Brute,
    /// An exact uniform grid with cells as wide as the widest sensing reach, rebuilt every
    /// tick by a counting sort into reused buffers.
    Grid,
    /// The grid where it wins, else the k-d tree (the default), chosen afresh at every
    /// build: the grid unless its cells would have to be widened past the sensing reach to keep
    /// within four cells per agent (agents spread far wider than they are dense, as when one
    /// wanders far from a crowd on an open world), where the k-d tree reads far fewer
    /// candidates.
    #[default]
    Auto,
}

impl IndexKind {
    /// Every backend's name, in variant order: the values the scenario's `index` key and
    /// [`IndexKind::parse`] accept.
    pub const NAMES: [&'static str; 4] = ["kd", "brute", "grid", "auto"];

    /// The backend's name as a scenario writes it (`"kd"`, `"brute"`, `"grid"`); also its
    /// `Display`.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Kd => "kd",
            IndexKind::Brute => "brute",
            IndexKind::Grid => "grid",
            IndexKind::Auto => "auto",
        }
    }

    /// The backend named `s`, one of [`IndexKind::NAMES`] (exact, lower case); `None` for any
    /// other string.
    pub fn parse(s: &str) -> Option<IndexKind> {
        match s {
            "kd" => Some(IndexKind::Kd),
            "brute" => Some(IndexKind::Brute),
            "grid" => Some(IndexKind::Grid),
            "auto" => Some(IndexKind::Auto),
            _ => None,
        }
    }
}

impl std::fmt::Display for IndexKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Calls `f` with `p` and, on a wrapped world, each image of `p` across a seam closer than
/// `r`. Minimum images lie within half the world of `p`, so one shift per axis suffices: towards
/// the far side for a point in the near half; the images are every combination of the axes
/// that shift (x, y, xy in the plane; seven at most in space). A point can be proposed twice
/// only when `r` exceeds half the world; callers deduplicate.
pub(crate) fn for_each_image<V: Vector>(bounds: &Bounds<V>, p: V, r: f32, mut f: impl FnMut(V)) {
    f(p);
    if bounds.kind != BoundsKind::Wrap {
        return;
    }
    let size = bounds.size();
    let centre = (bounds.min + bounds.max) * 0.5;
    let shift = |x: f32, lo: f32, hi: f32, c: f32, size: f32| {
        if x < c {
            if x - lo < r { size } else { 0.0 }
        } else if hi - x < r {
            -size
        } else {
            0.0
        }
    };
    let s = V::from_fn(|a| {
        shift(p.axis(a), bounds.min.axis(a), bounds.max.axis(a), centre.axis(a), size.axis(a))
    });
    // Bit `a` of `mask` set: shift along axis `a`. Masks in increasing order: x, y, xy, z, …
    for mask in 1u32..(1 << V::DIMENSIONS) {
        if (0..V::DIMENSIONS).all(|a| mask & (1 << a) == 0 || s.axis(a) != 0.0) {
            f(p + V::from_fn(|a| if mask & (1 << a) != 0 { s.axis(a) } else { 0.0 }));
        }
    }
}
