//! `SpatialIndex`: the agents' index for one tick (k-d trees, grid or brute force) and its queries.

use super::grid::{Grid, GridPlan};
use super::kd::{PointSet, query_tree};
use super::{IndexKind, Point};
use crate::math::Vec2;
use crate::world::{Bounds, BoundsKind};

/// The spatial index over live agents, rebuilt every tick by `build_index`; in the plane
/// (`V = Vec2`) or in space (`Vec3`).
pub struct SpatialIndex<V: Point = Vec2> {
    /// The backend asked for ([`IndexKind::Auto`] included).
    asked: IndexKind,
    /// The backend of the last whole build: `asked`, or for [`IndexKind::Auto`] the grid or
    /// the k-d tree it chose (never `Auto`).
    pub(super) built: IndexKind,
    bounds: Option<Bounds<V>>,
    /// Absolute slack added to k-d query radii, covering the rounding of shifted images.
    pub(super) pad: f32,
    pub(super) all: PointSet<V>,
    pub(super) grid: Grid<V>,
    /// One set per group; filled only for groups some `NearestOf` target names.
    groups: Vec<PointSet<V>>,
}

impl<V: Point> Default for SpatialIndex<V> {
    fn default() -> Self {
        SpatialIndex {
            asked: IndexKind::default(),
            built: IndexKind::Kd,
            bounds: None,
            pad: 0.0,
            all: PointSet::default(),
            grid: Grid::default(),
            groups: Vec::new(),
        }
    }
}

impl<V: Point> SpatialIndex<V> {
    /// An empty index of backend `kind`; it must be built before it is queried.
    pub fn new(kind: IndexKind) -> SpatialIndex<V> {
        let built = if kind == IndexKind::Auto { IndexKind::Kd } else { kind };
        SpatialIndex { asked: kind, built, ..SpatialIndex::default() }
    }

    /// The backend this index was made with ([`IndexKind::Auto`] stays `Auto`).
    pub fn kind(&self) -> IndexKind {
        self.asked
    }

    /// The backend of the last whole build: for [`IndexKind::Auto`], the one it chose.
    pub fn built_kind(&self) -> IndexKind {
        self.built
    }

    /// Packs positions (reusing the buffers) and rebuilds the trees or the grid. `targeted[g]`
    /// says whether group `g` needs its own set for nearest-of-group queries; `cell_size` is the
    /// grid's cell (the largest query radius the grid should answer from 3 × 3 cells).
    pub fn build_with_cell(
        &mut self,
        bounds: &Bounds<V>,
        positions: &[V],
        ids: &[u32],
        group: &[u16],
        targeted: &[bool],
        cell_size: f32,
    ) {
        if matches!(self.asked, IndexKind::Grid | IndexKind::Auto) {
            // Sensing pads each reach (by 1e-4 of it and the pad for rounding); cells padded
            // more still keep a query of the widest reach within one cell of its own, on a
            // world whose side is a whole number of reaches too (else its block is 5 × 5).
            let pad = pad_for(bounds);
            let plan = GridPlan::new(bounds, positions, cell_size + cell_size * 2e-4 + 2.0 * pad);
            self.built = if self.asked == IndexKind::Auto && plan.widened { IndexKind::Kd } else { IndexKind::Grid };
            if self.built == IndexKind::Grid {
                self.grid.build(&plan, positions, ids);
            }
        }
        self.build_sets(bounds, positions, group, targeted, true);
    }

    /// Rebuilds only the nearest-of-group sets, for a tick whose neighbour lists come from
    /// reused candidates: the all-agents tree or grid keeps its last state and must not be
    /// queried until rebuilt.
    pub fn build_groups_only(
        &mut self,
        bounds: &Bounds<V>,
        positions: &[V],
        group: &[u16],
        targeted: &[bool],
    ) {
        self.build_sets(bounds, positions, group, targeted, false);
    }

    /// Packs positions and rebuilds the all-agents set and the nearest-of-group sets, as
    /// [`SpatialIndex::build_with_cell`] does, but without a cell size: the grid of a
    /// [`IndexKind::Grid`] index is left as it was, so use `build_with_cell` for that backend;
    /// an [`IndexKind::Auto`] index builds its k-d tree.
    pub fn build(&mut self, bounds: &Bounds<V>, positions: &[V], group: &[u16], targeted: &[bool]) {
        if self.asked == IndexKind::Auto {
            self.built = IndexKind::Kd;
        }
        self.build_sets(bounds, positions, group, targeted, true);
    }

    fn build_sets(
        &mut self,
        bounds: &Bounds<V>,
        positions: &[V],
        group: &[u16],
        targeted: &[bool],
        all: bool,
    ) {
        self.bounds = Some(*bounds);
        self.pad = pad_for(bounds);
        if all {
            let all = &mut self.all;
            all.rows.clear();
            all.rows.extend(0..positions.len() as u32);
            all.points.clear();
            if self.built == IndexKind::Kd {
                all.points.extend(positions.iter().map(|&p| p.coords()));
            }
            all.rebuild(self.built);
        }

        self.groups.resize_with(targeted.len(), PointSet::default);
        for (g, set) in self.groups.iter_mut().enumerate() {
            set.rows.clear();
            set.points.clear();
            if targeted[g] {
                for (row, (&p, &pg)) in positions.iter().zip(group).enumerate() {
                    if pg as usize == g {
                        set.rows.push(row as u32);
                        set.points.push(p.coords());
                    }
                }
            }
            set.rebuild(self.built);
        }
    }

    fn bounds(&self) -> &Bounds<V> {
        self.bounds.as_ref().expect("index built before use")
    }

    /// Calls `visit(row)` for every agent that may lie within `radius` of `p`: a superset that
    /// the caller filters with the exact test.
    pub fn candidates(&self, p: V, radius: f32, mut visit: impl FnMut(u32)) {
        match self.built {
            IndexKind::Grid => {
                self.grid.candidates(p, radius + radius * 1e-4 + self.pad, |row, _, _| visit(row))
            }
            _ => self.all.candidates(self.bounds(), self.pad, p, radius, visit),
        }
    }

    /// Like [`SpatialIndex::candidates`], but also hands over each candidate's position and
    /// id (`positions[row]`, `ids[row]`), read from the grid's cell-ordered copies when there
    /// are some.
    #[inline]
    pub fn candidates_with(
        &self,
        p: V,
        radius: f32,
        positions: &[V],
        ids: &[u32],
        mut visit: impl FnMut(u32, V, u32),
    ) {
        match (self.built, &self.all.tree) {
            (IndexKind::Grid, _) => self.grid.candidates(p, radius + radius * 1e-4 + self.pad, visit),
            // The all-agents tree is built over the rows in order: items are rows.
            (_, Some(tree)) => query_tree(tree, self.bounds(), self.pad, p, radius, |row| {
                visit(row, positions[row as usize], ids[row as usize])
            }),
            (_, None) => {
                self.all.rows.iter().for_each(|&row| visit(row, positions[row as usize], ids[row as usize]))
            }
        }
    }

    /// The row of the live agent of group `g` nearest to `p` by the world's offset, ties by id;
    /// `None` when the group is empty. `ids` is the id column.
    pub fn nearest_of_group(&self, g: u16, p: V, positions: &[V], ids: &[u32]) -> Option<usize> {
        let set = &self.groups[g as usize];
        let bounds = self.bounds();
        let exact = |row: u32| bounds.offset(p, positions[row as usize]).length_squared();
        let better =
            |a: (f32, u32), b: (f32, u32)| a.0 < b.0 || (a.0 == b.0 && ids[a.1 as usize] < ids[b.1 as usize]);
        let mut best: Option<(f32, u32)> = None;
        let mut consider = |row: u32| {
            let cand = (exact(row), row);
            if best.is_none_or(|b| better(cand, b)) {
                best = Some(cand);
            }
        };
        match &set.tree {
            None => set.rows.iter().for_each(|&row| consider(row)),
            Some(tree) => {
                // A first guess from kiddo's nearest over the images that can hold the nearest
                // point, then every candidate within that distance (plus slack) tested exactly.
                let mut guess_sq = f32::INFINITY;
                let mut consider_image = |q: V| {
                    guess_sq = guess_sq.min(exact(set.rows[V::tree_nearest(tree, q) as usize]));
                };
                match bounds.kind {
                    BoundsKind::Open => consider_image(p),
                    // Every image the nearest point's minimum image can come from: each axis
                    // unshifted or shifted towards the far side.
                    BoundsKind::Wrap => {
                        let size = bounds.size();
                        let c = (bounds.min + bounds.max) * 0.5;
                        let s =
                            V::from_fn(|a| if p.axis(a) < c.axis(a) { size.axis(a) } else { -size.axis(a) });
                        for mask in 0u32..(1 << V::DIMENSIONS) {
                            consider_image(
                                p + V::from_fn(|a| if mask & (1 << a) != 0 { s.axis(a) } else { 0.0 }),
                            );
                        }
                    }
                }
                let r = guess_sq.sqrt();
                set.candidates(bounds, self.pad, p, r + r * 1e-4 + self.pad, &mut consider);
            }
        }
        best.map(|(_, row)| row as usize)
    }
}

/// The slack queries add to their reach for rounding: relative to the world's coordinates
/// where it wraps (the seam's images are computed there).
fn pad_for<V: Point>(bounds: &Bounds<V>) -> f32 {
    match bounds.kind {
        BoundsKind::Open => 1e-6,
        BoundsKind::Wrap => {
            let extent = bounds.min.abs().max(bounds.max.abs()).max_element();
            1e-6 * (1.0 + extent)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Bounds;

    /// On a wrapped world 50 sensing radii wide (a whole number), the grid's cells still hold
    /// a query of one radius with sensing's padding within one cell: a 3 × 3 block, three
    /// runs, not the 5 × 5 (five runs) that cells exactly one radius wide would give.
    #[test]
    fn a_world_a_whole_number_of_radii_wide_keeps_blocks_of_three_cells() {
        let bounds = Bounds { kind: BoundsKind::Wrap, min: Vec2::ZERO, max: Vec2::splat(100.0) };
        let positions: Vec<Vec2> =
            (0..2500).map(|k| Vec2::new((k % 50) as f32 * 2.0, (k / 50) as f32 * 2.0)).collect();
        let ids: Vec<u32> = (0..2500).collect();
        let mut index = SpatialIndex::<Vec2>::new(IndexKind::Grid);
        let radius = 2.0;
        index.build_with_cell(&bounds, &positions, &ids, &vec![0; 2500], &[false], radius);
        let mut runs = Vec::new();
        let reach = radius + radius * 1e-4 + index.pad;
        let block = index.grid.block([10, 10, 0], reach).expect("a block on a world 50 cells wide");
        index.grid.push_block_runs(&block, &mut runs);
        assert_eq!(runs.len(), 3, "one run per row of cells, three rows");
        let entries: u32 = runs.iter().map(|run| run.end - run.start).sum();
        assert!(entries < 25, "a 3 × 3 block of cells of under 4 agents each: {entries}");
    }

    /// `Auto` builds the grid over a compact crowd and the k-d tree once one agent wanders
    /// so far that the grid's cells would have to widen, switching back when it returns; the
    /// agents within a radius of each are those brute force finds, whichever it chose.
    #[test]
    fn auto_chooses_the_grid_unless_its_cells_would_widen() {
        let bounds = Bounds { kind: BoundsKind::Open, min: Vec2::ZERO, max: Vec2::splat(1e6) };
        let crowd = |far: Option<Vec2>| -> Vec<Vec2> {
            let mut p: Vec<Vec2> =
                (0..900).map(|k| Vec2::new((k % 30) as f32 * 1.3 + 0.01 * k as f32, (k / 30) as f32 * 1.1)).collect();
            p.extend(far);
            p
        };
        let radius = 2.0;
        let mut index = SpatialIndex::<Vec2>::new(IndexKind::Auto);
        for (far, built) in [
            (None, IndexKind::Grid),
            (Some(Vec2::new(5e4, 5e4)), IndexKind::Kd),
            (Some(Vec2::new(40.0, 40.0)), IndexKind::Grid),
        ] {
            let positions = crowd(far);
            let ids: Vec<u32> = (0..positions.len() as u32).collect();
            let groups = vec![0u16; positions.len()];
            index.build_with_cell(&bounds, &positions, &ids, &groups, &[false], radius);
            assert_eq!(index.kind(), IndexKind::Auto);
            assert_eq!(index.built_kind(), built, "far agent at {far:?}");
            for (i, &p) in positions.iter().enumerate() {
                let mut found = Vec::new();
                index.candidates(p, radius, |row| {
                    if row as usize != i && (positions[row as usize] - p).length() <= radius {
                        found.push(row);
                    }
                });
                found.sort_unstable();
                let brute: Vec<u32> = (0..positions.len() as u32)
                    .filter(|&j| j as usize != i && (positions[j as usize] - p).length() <= radius)
                    .collect();
                assert_eq!(found, brute, "row {i}, far agent at {far:?}");
            }
        }
    }
}
