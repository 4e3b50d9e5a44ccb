//! `RowSensor`: senses a run of consecutive rows for sensing's two sinks, by one of three
//! strategies: k-d clusters sharing one tree query, the rows of one grid cell sharing the
//! block of cells around it, or one query per row. Every strategy hands each row what it found
//! (`Found`), in row order; the sinks sort, cap and store.

use super::candidate::{Candidate, SortedList, sort_key};
use super::grid::{Block, BlockOffsets, BlockQuery, Grid};
use super::kd::query_tree;
use super::reach::FirstReach;
use super::scan::{Columns, Run, scan_runs};
use super::sense_input::SenseInput;
use super::{IndexKind, Point, SpatialIndex};
use crate::math::Vector;
use crate::world::BoundsKind;

/// Most rows in one k-d query cluster (see [`super::sense_neighbours`]).
const CLUSTER_MAX: usize = 32;

/// Largest side of a cluster's bounding box, in sensing radii. Wider clusters share one query
/// among more rows but test more candidates each; 2 measured best on the standard crowd
/// (docs/benchmarks.md, "Sensing in clusters").
const CLUSTER_EXTENT: f32 = 2.0;

/// [`CLUSTER_EXTENT`] in space, where a cluster's shared ball grows faster with its box (a
/// cube's half-diagonal is √3/2 of its side, and the candidates go as the cube of the reach):
/// 1 measured about 10 % faster than 2 on a uniform flock in space (docs/benchmarks.md).
const CLUSTER_EXTENT_SPACE: f32 = 1.0;

/// Per-worker scratch of `sense_neighbours`, reused across agents and ticks (one per
/// dimension, [`Point::with_sense_scratch`]).
pub struct SenseScratch<V> {
    /// One agent's candidates while its list is sorted.
    pub(super) cands: Vec<Candidate<V>>,
    /// The clustered path's pool indices of one row's hits, written for every pooled point
    /// and kept as a prefix: only ever grown, never cleared.
    pub(super) hits: Vec<u32>,
    /// Beside `hits` on the grid's plain blocks, each hit's squared distance (same rules).
    pub(super) dists: Vec<f32>,
    /// One row's list in order, from a grid's plain block (see `Grid::block_nearest`).
    pub(super) sorted: SortedList<V>,
    /// The shared candidates of a cluster of rows: row, x, y (z) and id of each (columns, so
    /// the distance loop vectorises); `pool_axes[a]` is axis `a`, the third empty in the plane.
    pub(super) pool_row: Vec<u32>,
    pub(super) pool_axes: [Vec<f32>; 3],
    pub(super) pool_id: Vec<u32>,
    /// The grid's runs of entries that a cluster of rows shares (see `Grid::push_block_runs`).
    pub(super) pool_runs: Vec<Run<V>>,
    /// The part of those runs one row's short reach overlaps (see `Grid::plain_runs_around`).
    pub(super) row_runs: Vec<Run<V>>,
}

impl<V: Vector> Default for SenseScratch<V> {
    fn default() -> Self {
        SenseScratch {
            cands: Vec::new(),
            hits: Vec::new(),
            dists: Vec::new(),
            sorted: SortedList::default(),
            pool_row: Vec::new(),
            pool_axes: Default::default(),
            pool_id: Vec::new(),
            pool_runs: Vec::new(),
            row_runs: Vec::new(),
        }
    }
}

/// What sensing found for one row.
pub(super) enum Found<'a, V> {
    /// Its candidates, in no order and uncapped.
    Candidates(&'a mut [Candidate<V>]),
    /// Its list, in order and capped (from a grid's plain block, `Grid::block_nearest`).
    Sorted(&'a SortedList<V>),
}

/// Called once per row, in row order, with what sensing found for it.
pub(super) type Finish<'f, V> = dyn FnMut(usize, Found<'_, V>) + 'f;

/// Senses rows for one tick: the index, what it reads, and the strategy its index allows.
pub(super) struct RowSensor<'a, V: Point> {
    index: &'a SpatialIndex<V>,
    input: SenseInput<'a, V>,
    /// Added to every sensing radius (candidates for reuse).
    skin: f32,
    first_reach: FirstReach<'a>,
    /// A query (with its padding) may reach across half a wrapped world, so a row's candidates
    /// may repeat: the loader forbids that for sensing radii, but sensing stays exact anyway.
    pub(super) may_repeat: bool,
    /// The k-d tree of every agent, when clusters may share its queries.
    tree: Option<&'a V::Tree>,
    /// The grid, when the rows of a cell may share its block of cells.
    grid: Option<&'a Grid<V>>,
    /// The widest a k-d cluster's box grows, in sensing radii.
    extent: f32,
    /// A row may hand over its list already in order and capped (`Found::Sorted`): neighbour
    /// lists may; candidates for reuse need every candidate.
    sorted_ok: bool,
}

impl<'a, V: Point> RowSensor<'a, V> {
    pub(super) fn new(
        index: &'a SpatialIndex<V>,
        input: SenseInput<'a, V>,
        skin: f32,
        first_reach: FirstReach<'a>,
        sorted_ok: bool,
    ) -> RowSensor<'a, V> {
        let mut sensor = RowSensor {
            index,
            input,
            skin,
            first_reach,
            may_repeat: false,
            tree: None,
            grid: None,
            extent: if V::DIMENSIONS == 2 { CLUSTER_EXTENT } else { CLUSTER_EXTENT_SPACE },
            sorted_ok,
        };
        sensor.may_repeat = input.groups.iter().any(|g| sensor.reaches_half(g.sensing_radius + skin));
        if !sensor.may_repeat {
            sensor.tree = match (index.built, &index.all.tree) {
                (IndexKind::Kd, Some(tree)) => Some(tree),
                _ => None,
            };
            sensor.grid = (index.built == IndexKind::Grid).then_some(&index.grid);
        }
        sensor
    }

    /// Whether a search of reach `r` (with its padding) spans half a wrapped world.
    fn reaches_half(&self, r: f32) -> bool {
        let bounds = self.input.bounds;
        bounds.kind == BoundsKind::Wrap && 2.0 * (r * 1.001 + 1e-3) >= bounds.size().min_element()
    }

    /// Row `i`'s whole sensing radius (with the skin); 0 for a group that does not sense.
    #[inline]
    pub(super) fn radius_of(&self, i: usize) -> f32 {
        let g = &self.input.groups[self.input.group[i] as usize];
        if g.max_neighbours == 0 { 0.0 } else { g.sensing_radius.max(0.0) + self.skin }
    }

    /// How far a search goes for row `i` first: its own or its group's short reach, if any.
    #[inline]
    fn reach_of(&self, i: usize) -> f32 {
        self.first_reach.of(i, self.input.group[i] as usize, self.radius_of(i))
    }

    /// A reach grown by the slack every index search around a point allows (rounding, and the
    /// index's own pad), so that no point within the reach is missed.
    #[inline]
    fn padded(&self, r: f32) -> f32 {
        r + r * 1e-4 + self.index.pad
    }

    /// Row `i`'s candidates within `r` from a query of its own.
    fn whole(&self, i: usize, r: f32, cands: &mut Vec<Candidate<V>>) {
        let SenseInput { bounds, position, id, .. } = self.input;
        let (p, r_sq) = (position[i], r * r);
        cands.clear();
        self.index.candidates_with(p, r, position, id, |row, q, q_id| {
            let offset = bounds.offset(p, q);
            let d_sq = offset.length_squared();
            if d_sq <= r_sq && row as usize != i {
                cands.push(Candidate { key: sort_key(d_sq, q_id), row, offset });
            }
        });
    }

    /// Senses the rows `base..base + len`, calling `finish(row, found)` once per row, in row
    /// order.
    pub(super) fn sense(&self, base: usize, len: usize, finish: &mut Finish<'_, V>) {
        V::with_sense_scratch(|scratch| {
            let end = base + len;
            let mut i = base;
            while i < end {
                let r = self.radius_of(i);
                i = if r <= 0.0 {
                    scratch.cands.clear();
                    finish(i, Found::Candidates(&mut scratch.cands));
                    i + 1
                } else if let Some(tree) = self.tree {
                    self.tree_cluster(tree, i, end, scratch, finish)
                } else if let Some(last) =
                    self.grid.and_then(|grid| self.grid_cell(grid, i, end, scratch, finish))
                {
                    last
                } else {
                    // One query per row (no tree, or a world too small for the grid's blocks).
                    self.whole(i, r, &mut scratch.cands);
                    finish(i, Found::Candidates(&mut scratch.cands));
                    i + 1
                };
            }
        });
    }

    /// Grows a cluster of consecutive rows from `i` while its box stays small, queries the tree
    /// once around it into the scratch's pool, and senses its rows from the pool. Returns the
    /// row after the cluster.
    fn tree_cluster(
        &self,
        tree: &V::Tree,
        i: usize,
        end: usize,
        scratch: &mut SenseScratch<V>,
        finish: &mut Finish<'_, V>,
    ) -> usize {
        let SenseInput { bounds, position, id, .. } = self.input;
        let r = self.reach_of(i);
        let (mut lo, mut hi, mut r_max) = (position[i], position[i], r);
        let mut last = i + 1;
        while last < end && last - i < CLUSTER_MAX {
            let q = position[last];
            let r_q = self.reach_of(last).max(r_max);
            let (lo2, hi2) = (lo.min(q), hi.max(q));
            if (hi2 - lo2).max_element() > self.extent * r_q {
                break;
            }
            (lo, hi, r_max) = (lo2, hi2, r_q);
            last += 1;
        }
        let centre = (lo + hi) * 0.5;
        // Half-diagonal, rounded up a little so every row is surely inside.
        let half_diag = 0.5 * (hi - lo).length() * (1.0 + 1e-5) + 1e-6 * centre.abs().max_element();
        let reach = r_max + half_diag;
        if self.reaches_half(reach) {
            // Too wide to share on this small world: one query per row instead.
            last = i + 1;
        }
        let (reach, centre) = if last == i + 1 { (r, position[i]) } else { (reach, centre) };
        let SenseScratch { pool_row, pool_axes, pool_id, .. } = scratch;
        pool_row.clear();
        pool_id.clear();
        pool_axes.iter_mut().for_each(Vec::clear);
        query_tree(tree, bounds, self.index.pad, centre, reach, |row| pool_row.push(row));
        // Gathered after the query, which keeps kiddo's visit loop to one push.
        for (a, pool) in pool_axes.iter_mut().enumerate().take(V::DIMENSIONS) {
            pool.extend(pool_row.iter().map(|&row| position[row as usize].axis(a)));
        }
        pool_id.extend(pool_row.iter().map(|&row| id[row as usize]));
        // Away from a wrapped world's seams, every pooled point lies well within half the
        // world of every row, where `Bounds::offset` is exactly `q - p`.
        let r_pad = self.padded(reach);
        let plain = bounds.kind == BoundsKind::Open
            || (centre - bounds.min).min_element() >= r_pad && (bounds.max - centre).min_element() >= r_pad;
        for j in i..last {
            self.row_from_pool(j, plain, scratch, finish);
        }
        last
    }

    /// Row `j`'s candidates from its cluster's pool (exact test within its reach; with a short
    /// reach that finds fewer than the cap, a query of its own for the whole radius).
    fn row_from_pool(
        &self,
        j: usize,
        plain: bool,
        scratch: &mut SenseScratch<V>,
        finish: &mut Finish<'_, V>,
    ) {
        let SenseInput { bounds, groups, position, group, .. } = self.input;
        let SenseScratch { cands, hits, pool_row, pool_axes, pool_id, .. } = scratch;
        let (p, r) = (position[j], self.reach_of(j));
        cands.clear();
        if r > 0.0 {
            let r_sq = r * r;
            if plain {
                let [xs, ys, zs] = &*pool_axes;
                let cols = Columns { xs, ys, zs, rows: pool_row };
                let pool = [Run { start: 0, end: pool_row.len() as u32, shift: V::ZERO }];
                let n = scan_runs(&cols, &pool, p, r_sq, j as u32, hits);
                cands.extend(hits[..n].iter().map(|&k| {
                    let k = k as usize;
                    let offset = V::from_fn(|a| pool_axes[a][k] - p.axis(a));
                    Candidate { key: sort_key(offset.length_squared(), pool_id[k]), row: pool_row[k], offset }
                }));
            } else {
                for (k, &row) in pool_row.iter().enumerate() {
                    let offset = bounds.offset(p, V::from_fn(|a| pool_axes[a][k]));
                    let d_sq = offset.length_squared();
                    if d_sq <= r_sq && row as usize != j {
                        cands.push(Candidate { key: sort_key(d_sq, pool_id[k]), row, offset });
                    }
                }
            }
        }
        // A short reach that finds fewer than the cap: the whole radius, alone.
        let cap = groups[group[j] as usize].max_neighbours as usize;
        if r < self.radius_of(j) && cands.len() < cap {
            self.whole(j, self.radius_of(j), cands);
        }
        finish(j, Found::Candidates(cands));
    }

    /// The consecutive rows from `i` in `i`'s cell share the block of cells around it (rows of
    /// a box of two cells a side sharing a larger block measured slower in the plane and in
    /// space: docs/benchmarks.md). Returns the row after them; `None`, having sensed nothing,
    /// on a world too small to hold the block. The block reaches every row's whole radius, so
    /// that a row whose short reach falls short scans it again rather than querying alone (the
    /// cells are as wide as the widest radius, so it is the same 3 × 3 (× 3) block).
    fn grid_cell(
        &self,
        grid: &Grid<V>,
        i: usize,
        end: usize,
        scratch: &mut SenseScratch<V>,
        finish: &mut Finish<'_, V>,
    ) -> Option<usize> {
        let position = self.input.position;
        let at = grid.cell_coords(position[i]);
        let cell = grid.number_of(at);
        let mut r_max = self.radius_of(i);
        let mut last = i + 1;
        while last < end && last - i < CLUSTER_MAX && grid.cell_number(position[last]) == cell {
            r_max = r_max.max(self.radius_of(last));
            last += 1;
        }
        let block = grid.block(at, self.padded(r_max))?;
        // Its runs are listed when a row first needs them: rows with a short reach mostly
        // scan only the cells around themselves.
        scratch.pool_runs.clear();
        for j in i..last {
            self.row_from_block(grid, j, &block, scratch, finish);
        }
        Some(last)
    }

    /// Row `j` scans its cell's block of runs in place (no pool to gather); with a short reach
    /// on a block that crosses no seam, only the cells its reach overlaps (about half the
    /// block's in the plane, a third in space).
    fn row_from_block(
        &self,
        grid: &Grid<V>,
        j: usize,
        block: &Block,
        scratch: &mut SenseScratch<V>,
        finish: &mut Finish<'_, V>,
    ) {
        let SenseInput { bounds, groups, position, group, .. } = self.input;
        let SenseScratch { cands, hits, dists, sorted, pool_runs, row_runs, .. } = scratch;
        let offsets = block.offsets;
        // The block's runs, listed on first use (a block has at least one).
        let whole_block = |runs: &mut Vec<Run<V>>| {
            if runs.is_empty() {
                grid.push_block_runs(block, runs);
            }
        };
        let p = position[j];
        let (r, whole_r) = (self.reach_of(j), self.radius_of(j));
        let cap = groups[group[j] as usize].max_neighbours as usize;
        if self.sorted_ok && offsets == BlockOffsets::Plain && r > 0.0 {
            // The row's list in order straight from the scan, or, with more than `RANK_MAX`
            // within reach, its candidates from the same hits.
            let mut nearest = |runs: &[Run<V>], r: f32| {
                grid.block_nearest(BlockQuery { runs, p, r, skip: j as u32 }, cap, hits, dists, sorted)
            };
            let mut found = if r < whole_r {
                row_runs.clear();
                grid.plain_runs_around(p, self.padded(r), row_runs);
                nearest(row_runs, r)
            } else {
                whole_block(pool_runs);
                nearest(pool_runs, r)
            };
            // Fewer than the cap within the short reach: the whole radius.
            if r < whole_r && found.unwrap_or_else(|n| n) < cap {
                whole_block(pool_runs);
                found = nearest(pool_runs, whole_r);
            }
            match found {
                Ok(_) => finish(j, Found::Sorted(sorted)),
                Err(n) => {
                    cands.clear();
                    grid.plain_candidates(&hits[..n], &dists[..n], p, cands);
                    finish(j, Found::Candidates(cands));
                }
            }
            return;
        }
        // A block across a seam (or candidates for reuse, whose reach is the whole radius): the
        // row's candidates from the whole block.
        cands.clear();
        whole_block(pool_runs);
        if r > 0.0 {
            grid.block_candidates(
                BlockQuery { runs: pool_runs, p, r, skip: j as u32 },
                offsets,
                bounds,
                hits,
                cands,
            );
        }
        // A short reach that finds fewer than the cap: the whole radius, from the same block
        // (made for the whole radius).
        if r < whole_r && cands.len() < cap {
            cands.clear();
            let query = BlockQuery { runs: pool_runs, p, r: whole_r, skip: j as u32 };
            grid.block_candidates(query, offsets, bounds, hits, cands);
        }
        finish(j, Found::Candidates(cands));
    }
}
