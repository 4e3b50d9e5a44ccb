//! The agents' k-d trees (kiddo's immutable tree), rebuilt every tick, and point sets per group.

use kiddo::{Eytzinger, KdTree, VecOfArenas};

use super::{IndexKind, Point, for_each_image};
use crate::world::Bounds;

/// Leaf size of the agents' k-d tree. 64 rather than kiddo's default 32: a sensing query
/// touches one to four leaves either way, and fewer, larger leaves measured about 10% faster
/// to query and 25% faster to build (docs/benchmarks.md, "k-d tree shape").
pub(crate) const BUCKET: usize = 64;

/// kiddo's immutable tree over `K` coordinates with `B`-point leaves ([`BUCKET`] in the plane);
/// items are slice indices (rows).
pub type Tree<const K: usize, const B: usize> =
    KdTree<f32, u32, Eytzinger, VecOfArenas<f32, u32, K, B>, K, B>;

/// Builds the tree over `points`, in parallel when the pool has more than one worker and
/// there are at least [`PARALLEL_BUILD_POINTS`] points (kiddo's own threshold is 262,144).
/// The tree's shape never affects results: membership is decided by the exact test and order
/// by (distance², id).
pub(crate) fn build_tree<const K: usize, const B: usize>(points: &[[f32; K]]) -> Tree<K, B> {
    let tree = if rayon::current_num_threads() > 1 {
        Tree::builder().with_parallel_construction_threshold(PARALLEL_BUILD_POINTS).build_from_slice(points)
    } else {
        Tree::new_from_slice(points)
    };
    // Finite points never fail to build; positions are checked before every build.
    tree.expect("k-d tree over finite points")
}

/// Trees over at least this many points are built in parallel when the pool has more than
/// one thread (a round number that no measurement has tested yet).
const PARALLEL_BUILD_POINTS: usize = 4_096;

/// Points of one set (all agents, or one group's) and, for the k-d backend, their tree.
pub(super) struct PointSet<V: Point> {
    /// Row in the world of each point.
    pub(super) rows: Vec<u32>,
    pub(super) points: Vec<V::Coords>,
    pub(super) tree: Option<V::Tree>,
}

impl<V: Point> Default for PointSet<V> {
    fn default() -> Self {
        PointSet { rows: Vec::new(), points: Vec::new(), tree: None }
    }
}

impl<V: Point> PointSet<V> {
    pub(super) fn rebuild(&mut self, kind: IndexKind) {
        self.tree = match kind {
            // Nearest-of-group sets use a k-d tree with the grid backend too.
            IndexKind::Kd | IndexKind::Grid if !self.points.is_empty() => Some(V::build_tree(&self.points)),
            _ => None,
        };
    }

    /// Calls `visit(row)` for every point that may lie within `radius` of `p` (a superset).
    pub(super) fn candidates(
        &self,
        bounds: &Bounds<V>,
        pad: f32,
        p: V,
        radius: f32,
        mut visit: impl FnMut(u32),
    ) {
        match &self.tree {
            None => self.rows.iter().for_each(|&row| visit(row)),
            Some(tree) => query_tree(tree, bounds, pad, p, radius, |item| visit(self.rows[item as usize])),
        }
    }
}

/// Calls `visit(item)` for every tree item that may lie within `radius` of `p` or of one of its
/// images across a wrapped seam: one kiddo radius query per image.
#[inline]
pub(super) fn query_tree<V: Point>(
    tree: &V::Tree,
    bounds: &Bounds<V>,
    pad: f32,
    p: V,
    radius: f32,
    mut visit: impl FnMut(u32),
) {
    let r = radius + radius * 1e-4 + pad;
    let r_sq = r * r;
    for_each_image(bounds, p, r, |q| {
        V::tree_within(tree, q, r_sq, &mut visit);
    });
}
