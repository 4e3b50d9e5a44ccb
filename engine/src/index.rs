//! Neighbour search: the per-tick spatial index and the neighbour lists it fills.
//!
//! Both backends share one contract, so a run gives the same bits with either: the index only
//! proposes *candidates* (a superset), and the exact test `|offset(p, q)|² <= r²` with the
//! world's own offset function decides membership. Candidates are sorted by (distance², id)
//! and only then truncated to the group's cap.

use std::cell::RefCell;

use kiddo::{Eytzinger, KdTree, SquaredEuclidean, VecOfArenas};
use rayon::prelude::*;

use crate::math::Vec2;
use crate::world::{Bounds, BoundsKind, Group};

/// Leaf size of the agents' k-d tree. 64 rather than kiddo's default 32: a sensing query
/// touches one to four leaves either way, and fewer, larger leaves measured about 10% faster
/// to query and 25% faster to build (docs/benchmarks.md, "k-d tree shape").
const BUCKET: usize = 64;

/// kiddo's immutable tree with `BUCKET`-point leaves; items are slice indices (rows).
type Tree = KdTree<f32, u32, Eytzinger, VecOfArenas<f32, u32, 2, BUCKET>, 2, BUCKET>;

/// Builds the tree over `points`, in parallel when the pool has more than one worker and
/// there are at least [`PARALLEL_BUILD_POINTS`] points (kiddo's own threshold is 262,144).
/// The tree's shape never affects results: membership is decided by the exact test and order
/// by (distance², id).
fn build_tree(points: &[[f32; 2]]) -> Tree {
    let tree = if rayon::current_num_threads() > 1 {
        Tree::builder().with_parallel_construction_threshold(PARALLEL_BUILD_POINTS).build_from_slice(points)
    } else {
        Tree::new_from_slice(points)
    };
    // Finite points never fail to build; positions are checked before every build.
    tree.expect("k-d tree over finite points")
}

/// Trees over at least this many points are built in parallel when the pool has more than
/// one thread (measured: see docs/benchmarks.md).
const PARALLEL_BUILD_POINTS: usize = 4_096;

/// Which neighbour-search backend a run uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexKind {
    /// kiddo's `ImmutableKdTree`, rebuilt every tick (the default).
    #[default]
    Kd,
    /// Every pair tested, O(N²): the oracle the k-d tree is checked against.
    Brute,
    /// An exact uniform grid with cells as wide as the largest sensing radius, rebuilt every
    /// tick by a counting sort into reused buffers. Same lists as the others, bit for bit.
    Grid,
}

impl IndexKind {
    pub const NAMES: [&'static str; 3] = ["kd", "brute", "grid"];

    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Kd => "kd",
            IndexKind::Brute => "brute",
            IndexKind::Grid => "grid",
        }
    }

    pub fn parse(s: &str) -> Option<IndexKind> {
        match s {
            "kd" => Some(IndexKind::Kd),
            "brute" => Some(IndexKind::Brute),
            "grid" => Some(IndexKind::Grid),
            _ => None,
        }
    }
}

impl std::fmt::Display for IndexKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Points of one set (all agents, or one group's) and, for the k-d backend, their tree.
#[derive(Default)]
struct PointSet {
    /// Row in the world of each point.
    rows: Vec<u32>,
    points: Vec<[f32; 2]>,
    tree: Option<Tree>,
}

impl PointSet {
    fn rebuild(&mut self, kind: IndexKind) {
        self.tree = match kind {
            // Nearest-of-group sets use a k-d tree with the grid backend too.
            IndexKind::Kd | IndexKind::Grid if !self.points.is_empty() => Some(build_tree(&self.points)),
            _ => None,
        };
    }

    /// Calls `visit(row)` for every point that may lie within `radius` of `p` (a superset).
    fn candidates(&self, bounds: &Bounds, pad: f32, p: Vec2, radius: f32, mut visit: impl FnMut(u32)) {
        match &self.tree {
            None => self.rows.iter().for_each(|&row| visit(row)),
            Some(tree) => query_tree(tree, bounds, pad, p, radius, |item| visit(self.rows[item as usize])),
        }
    }
}

/// Calls `visit(item)` for every tree item that may lie within `radius` of `p` or of one of its
/// images across a wrapped seam: one kiddo radius query per image.
#[inline]
fn query_tree(tree: &Tree, bounds: &Bounds, pad: f32, p: Vec2, radius: f32, mut visit: impl FnMut(u32)) {
    let r = radius + radius * 1e-4 + pad;
    let r_sq = r * r;
    for_each_image(bounds, p, r, |q| {
        tree.query(&[q.x, q.y]).within::<SquaredEuclidean<f32>>(r_sq).unsorted().visit(|hit| visit(hit.item));
    });
}

/// Calls `f` with `p` and, on a wrapped world, each image of `p` across a seam closer than
/// `r`. Minimum images lie within half the world of `p`, so one shift per axis suffices: towards
/// the far side for a point in the near half. A point can be proposed twice only when `r`
/// exceeds half the world; callers deduplicate.
pub(crate) fn for_each_image(bounds: &Bounds, p: Vec2, r: f32, mut f: impl FnMut(Vec2)) {
    f(p);
    if bounds.kind != BoundsKind::Wrap {
        return;
    }
    let size = bounds.size();
    let centre = 0.5 * (bounds.min + bounds.max);
    let shift = |x: f32, lo: f32, hi: f32, c: f32, size: f32| {
        if x < c {
            if x - lo < r { size } else { 0.0 }
        } else if hi - x < r {
            -size
        } else {
            0.0
        }
    };
    let sx = shift(p.x, bounds.min.x, bounds.max.x, centre.x, size.x);
    let sy = shift(p.y, bounds.min.y, bounds.max.y, centre.y, size.y);
    if sx != 0.0 {
        f(p + Vec2::new(sx, 0.0));
    }
    if sy != 0.0 {
        f(p + Vec2::new(0.0, sy));
    }
    if sx != 0.0 && sy != 0.0 {
        f(p + Vec2::new(sx, sy));
    }
}

/// A uniform grid over the agents: rows bucketed by cell with a counting sort into buffers
/// that are reused every tick (no allocation once they have grown).
#[derive(Default)]
struct Grid {
    origin: Vec2,
    /// 1 / cell width and height (cells are at least the requested size).
    inv_cell: Vec2,
    nx: i64,
    ny: i64,
    wrap: bool,
    /// `cell_start[c]..cell_start[c + 1]` are the entries of cell `c` (row-major).
    cell_start: Vec<u32>,
    /// Rows, grouped by cell, ascending within a cell.
    rows: Vec<u32>,
    /// Position and id of each entry of `rows`, in the same (cell) order, so scanning a cell
    /// reads contiguous memory.
    points: Vec<Vec2>,
    ids: Vec<u32>,
    /// Each row's cell (scratch for the counting sort).
    cell_of: Vec<u32>,
}

/// Grids larger than this many cells per agent use wider cells (sparse open worlds).
const MAX_CELLS_PER_AGENT: f32 = 4.0;

impl Grid {
    fn build(&mut self, bounds: &Bounds, positions: &[Vec2], ids: &[u32], cell_size: f32) {
        let n = positions.len();
        let (origin, extent, wrap) = match bounds.kind {
            BoundsKind::Wrap => (bounds.min, bounds.size(), true),
            BoundsKind::Open => {
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
                for &p in positions {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                if n == 0 {
                    (lo, hi) = (Vec2::ZERO, Vec2::ONE);
                }
                (lo, (hi - lo).max(Vec2::splat(1e-3)), false)
            }
        };
        // Cells at least `cell_size` wide, but not so many that a sparse world wastes memory.
        let max_cells = (MAX_CELLS_PER_AGENT * n as f32).max(64.0);
        let mut size = cell_size.max(extent.max_element() * 1e-6).max(1e-6);
        while (extent.x / size).floor().max(1.0) * (extent.y / size).floor().max(1.0) > max_cells {
            size *= 1.5;
        }
        let nx = ((extent.x / size).floor() as i64).max(1);
        let ny = ((extent.y / size).floor() as i64).max(1);
        // Open worlds get one spare column and row: the extent's far edge falls inside.
        let (nx, ny) = if wrap { (nx, ny) } else { (nx + 1, ny + 1) };
        let cell =
            if wrap { Vec2::new(extent.x / nx as f32, extent.y / ny as f32) } else { Vec2::splat(size) };
        *self = Grid {
            origin,
            inv_cell: Vec2::ONE / cell,
            nx,
            ny,
            wrap,
            cell_start: std::mem::take(&mut self.cell_start),
            rows: std::mem::take(&mut self.rows),
            points: std::mem::take(&mut self.points),
            ids: std::mem::take(&mut self.ids),
            cell_of: std::mem::take(&mut self.cell_of),
        };
        let cells = (nx * ny) as usize;
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        let mut cell_of = std::mem::take(&mut self.cell_of);
        cell_of.clear();
        cell_of.extend(positions.iter().map(|&p| {
            let (cx, cy) = self.cell_coords(p);
            (cy * nx + cx) as u32
        }));
        self.cell_of = cell_of;
        for &c in &self.cell_of {
            self.cell_start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.rows.clear();
        self.rows.resize(n, 0);
        self.points.clear();
        self.points.resize(n, Vec2::ZERO);
        self.ids.clear();
        self.ids.resize(n, 0);
        // Scatter with a running cursor per cell; rows stay ascending within each cell.
        for (row, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.cell_start[c as usize];
            let k = *slot as usize;
            self.rows[k] = row as u32;
            self.points[k] = positions[row];
            self.ids[k] = ids[row];
            *slot += 1;
        }
        // The cursors now hold each cell's end; shift them back to starts.
        for c in (1..=cells).rev() {
            self.cell_start[c] = self.cell_start[c - 1];
        }
        self.cell_start[0] = 0;
    }

    /// The cell of `p`, clamped into the grid.
    #[inline]
    fn cell_coords(&self, p: Vec2) -> (i64, i64) {
        let c = (p - self.origin) * self.inv_cell;
        ((c.x.floor() as i64).clamp(0, self.nx - 1), (c.y.floor() as i64).clamp(0, self.ny - 1))
    }

    /// Calls `visit(row, position, id)` for every agent in a cell overlapping the square
    /// around `p` of half side `r`, each at most once.
    #[inline]
    fn candidates(&self, p: Vec2, r: f32, mut visit: impl FnMut(u32, Vec2, u32)) {
        // Scalar `floor` is exact and fast; glam's (with its libm feature) is a software call.
        let lo = (p - Vec2::splat(r) - self.origin) * self.inv_cell;
        let hi = (p + Vec2::splat(r) - self.origin) * self.inv_cell;
        let span = |lo: f32, hi: f32, n: i64| -> (i64, i64) {
            let (lo, hi) = (lo.floor() as i64, hi.floor() as i64);
            if self.wrap {
                // Every distinct column once, even when the square is wider than the world.
                (lo, hi.min(lo + n - 1))
            } else {
                (lo.clamp(0, n - 1), hi.clamp(0, n - 1))
            }
        };
        let (x0, x1) = span(lo.x, hi.x, self.nx);
        let (y0, y1) = span(lo.y, hi.y, self.ny);
        // One modulo per axis; then step with a conditional wrap (no division per cell).
        let first_cx = x0.rem_euclid(self.nx);
        let mut cy = y0.rem_euclid(self.ny);
        for _ in y0..=y1 {
            let row_base = cy * self.nx;
            let mut cx = first_cx;
            for _ in x0..=x1 {
                let c = (row_base + cx) as usize;
                let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
                for ((&row, &q), &id) in self.rows[a..b].iter().zip(&self.points[a..b]).zip(&self.ids[a..b]) {
                    visit(row, q, id);
                }
                cx += 1;
                if cx == self.nx {
                    cx = 0;
                }
            }
            cy += 1;
            if cy == self.ny {
                cy = 0;
            }
        }
    }
}

/// The spatial index over live agents, rebuilt every tick by `build_index`.
#[derive(Default)]
pub struct SpatialIndex {
    kind: IndexKind,
    bounds: Option<Bounds>,
    /// Absolute slack added to k-d query radii, covering the rounding of shifted images.
    pad: f32,
    all: PointSet,
    grid: Grid,
    /// One set per group; filled only for groups some `NearestOf` target names.
    groups: Vec<PointSet>,
}

impl SpatialIndex {
    pub fn new(kind: IndexKind) -> SpatialIndex {
        SpatialIndex { kind, ..SpatialIndex::default() }
    }

    pub fn kind(&self) -> IndexKind {
        self.kind
    }

    /// Packs positions (reusing the buffers) and rebuilds the trees or the grid. `targeted[g]`
    /// says whether group `g` needs its own set for nearest-of-group queries; `cell_size` is the
    /// grid's cell (the largest query radius the grid should answer from 3 × 3 cells).
    pub fn build_with_cell(
        &mut self,
        bounds: &Bounds,
        positions: &[Vec2],
        ids: &[u32],
        group: &[u16],
        targeted: &[bool],
        cell_size: f32,
    ) {
        if self.kind == IndexKind::Grid {
            self.grid.build(bounds, positions, ids, cell_size);
        }
        self.build(bounds, positions, group, targeted);
    }

    /// Rebuilds only the nearest-of-group sets, for a tick whose neighbour lists come from
    /// reused candidates: the all-agents tree or grid keeps its last state and must not be
    /// queried until rebuilt.
    pub fn build_groups_only(
        &mut self,
        bounds: &Bounds,
        positions: &[Vec2],
        group: &[u16],
        targeted: &[bool],
    ) {
        self.build_sets(bounds, positions, group, targeted, false);
    }

    pub fn build(&mut self, bounds: &Bounds, positions: &[Vec2], group: &[u16], targeted: &[bool]) {
        self.build_sets(bounds, positions, group, targeted, true);
    }

    fn build_sets(
        &mut self,
        bounds: &Bounds,
        positions: &[Vec2],
        group: &[u16],
        targeted: &[bool],
        all: bool,
    ) {
        self.bounds = Some(*bounds);
        self.pad = match bounds.kind {
            BoundsKind::Open => 1e-6,
            BoundsKind::Wrap => {
                let extent = bounds.min.abs().max(bounds.max.abs()).max_element();
                1e-6 * (1.0 + extent)
            }
        };
        if all {
            let all = &mut self.all;
            all.rows.clear();
            all.rows.extend(0..positions.len() as u32);
            all.points.clear();
            if self.kind == IndexKind::Kd {
                all.points.extend(positions.iter().map(|p| [p.x, p.y]));
            }
            all.rebuild(self.kind);
        }

        self.groups.resize_with(targeted.len(), PointSet::default);
        for (g, set) in self.groups.iter_mut().enumerate() {
            set.rows.clear();
            set.points.clear();
            if targeted[g] {
                for (row, (&p, &pg)) in positions.iter().zip(group).enumerate() {
                    if pg as usize == g {
                        set.rows.push(row as u32);
                        set.points.push([p.x, p.y]);
                    }
                }
            }
            set.rebuild(self.kind);
        }
    }

    fn bounds(&self) -> &Bounds {
        self.bounds.as_ref().expect("index built before use")
    }

    /// Calls `visit(row)` for every agent that may lie within `radius` of `p`: a superset that
    /// the caller filters with the exact test.
    pub fn candidates(&self, p: Vec2, radius: f32, mut visit: impl FnMut(u32)) {
        match self.kind {
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
        p: Vec2,
        radius: f32,
        positions: &[Vec2],
        ids: &[u32],
        mut visit: impl FnMut(u32, Vec2, u32),
    ) {
        match (self.kind, &self.all.tree) {
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
    pub fn nearest_of_group(&self, g: u16, p: Vec2, positions: &[Vec2], ids: &[u32]) -> Option<usize> {
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
                let size = bounds.size();
                let shifts: &[Vec2] = match bounds.kind {
                    BoundsKind::Open => &[Vec2::ZERO],
                    BoundsKind::Wrap => {
                        let c = 0.5 * (bounds.min + bounds.max);
                        let sx = if p.x < c.x { size.x } else { -size.x };
                        let sy = if p.y < c.y { size.y } else { -size.y };
                        &[Vec2::ZERO, Vec2::new(sx, 0.0), Vec2::new(0.0, sy), Vec2::new(sx, sy)]
                    }
                };
                for s in shifts {
                    let q = p + *s;
                    let hit = tree.query(&[q.x, q.y]).nearest_one::<SquaredEuclidean<f32>>().execute();
                    guess_sq = guess_sq.min(exact(set.rows[hit.item as usize]));
                }
                let r = guess_sq.sqrt();
                set.candidates(bounds, self.pad, p, r + r * 1e-4 + self.pad, &mut consider);
            }
        }
        best.map(|(_, row)| row as usize)
    }
}

/// Per-agent neighbour lists with a fixed stride (the largest cap of any group): row `i`'s
/// neighbours are `rows[i*stride .. i*stride + count[i]]`, nearest first, ties by id. A fixed
/// stride lets every agent write its own slice in parallel with no prefix sum and no
/// allocation after the first tick.
///
/// Beside each neighbour's row the list keeps what sensing computed anyway: its squared
/// distance and its offset `bounds.offset(p_i, p_neighbour)` (the minimum image on a wrapped
/// world), so the behaviours that need offsets read them here instead of gathering neighbour
/// positions again. They are the same bits the behaviours would compute.
#[derive(Default, Debug)]
pub struct Neighbours {
    pub stride: usize,
    pub count: Vec<u32>,
    pub rows: Vec<u32>,
    pub dist_sq: Vec<f32>,
    pub offset: Vec<Vec2>,
}

impl Neighbours {
    /// Neighbour rows of agent row `i` and their squared distances.
    #[inline]
    pub fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let start = i * self.stride;
        let end = start + self.count[i] as usize;
        (&self.rows[start..end], &self.dist_sq[start..end])
    }

    /// Offsets from agent row `i` to its neighbours, in list order.
    #[inline]
    pub fn offsets(&self, i: usize) -> &[Vec2] {
        let start = i * self.stride;
        &self.offset[start..start + self.count[i] as usize]
    }

    /// How many of agent `i`'s neighbours lie within `radius` (a prefix of its list).
    #[inline]
    pub fn within(&self, i: usize, radius: f32) -> usize {
        let r_sq = radius * radius;
        let (_, dist_sq) = self.of(i);
        // The list is in ascending distance: when its last lies within, all do (the common
        // case of a behaviour radius as large as the sensing radius).
        match dist_sq.last() {
            Some(&last) if last <= r_sq => dist_sq.len(),
            _ => dist_sq.iter().take_while(|&&d| d <= r_sq).count(),
        }
    }

    /// Sizes the lists for `agents` rows, each with room for the largest cap in `groups`, and
    /// runs `fill(first_row, stride, rows, dists, offsets, counts)` on every chunk of
    /// [`SENSE_CHUNK`] rows in parallel.
    fn fill_chunks(
        &mut self,
        agents: usize,
        groups: &[Group],
        fill: impl Fn(usize, usize, &mut [u32], &mut [f32], &mut [Vec2], &mut [u32]) + Sync + Send,
    ) {
        let mut none = vec![(); agents.div_ceil(SENSE_CHUNK)];
        self.fill_chunks_with(agents, groups, &mut none, |base, stride, rows, dists, offsets, counts, ()| {
            fill(base, stride, rows, dists, offsets, counts)
        });
    }

    /// As [`Neighbours::fill_chunks`], with `extra[k]` (one per chunk) beside chunk `k`'s lists.
    /// With no room for any neighbour (every cap 0), `fill` gets lists of no room and counts
    /// of 0.
    #[allow(clippy::type_complexity)] // a chunk of each list column and the extra
    fn fill_chunks_with<T: Send>(
        &mut self,
        agents: usize,
        groups: &[Group],
        extra: &mut [T],
        fill: impl Fn(usize, usize, &mut [u32], &mut [f32], &mut [Vec2], &mut [u32], &mut T) + Sync + Send,
    ) {
        debug_assert_eq!(extra.len(), agents.div_ceil(SENSE_CHUNK));
        let stride = groups.iter().map(|g| g.max_neighbours as usize).max().unwrap_or(0);
        self.resize(agents, stride);
        if stride == 0 {
            self.count.fill(0);
            self.count.par_chunks_mut(SENSE_CHUNK).zip(extra.par_iter_mut()).enumerate().for_each(
                |(chunk, (counts, x))| fill(chunk * SENSE_CHUNK, 0, &mut [], &mut [], &mut [], counts, x),
            );
            return;
        }
        self.rows
            .par_chunks_mut(stride * SENSE_CHUNK)
            .zip(self.dist_sq.par_chunks_mut(stride * SENSE_CHUNK))
            .zip(self.offset.par_chunks_mut(stride * SENSE_CHUNK))
            .zip(self.count.par_chunks_mut(SENSE_CHUNK))
            .zip(extra.par_iter_mut())
            .enumerate()
            .with_max_len(crate::PIECE_ROWS / SENSE_CHUNK)
            .for_each(|(chunk, ((((rows, dists), offsets), counts), x))| {
                fill(chunk * SENSE_CHUNK, stride, rows, dists, offsets, counts, x)
            });
    }

    fn resize(&mut self, agents: usize, stride: usize) {
        self.stride = stride;
        self.count.resize(agents, 0);
        self.rows.resize(agents * stride, 0);
        self.dist_sq.resize(agents * stride, 0.0);
        self.offset.resize(agents * stride, Vec2::ZERO);
    }
}

/// One candidate neighbour while a list is being sorted.
#[derive(Clone, Copy, Default)]
struct Candidate {
    /// (distance², id), see [`sort_key`].
    key: u64,
    row: u32,
    offset: Vec2,
}

/// Per-worker scratch of `sense_neighbours`, reused across agents and ticks.
#[derive(Default)]
struct SenseScratch {
    /// One agent's candidates while its list is sorted.
    cands: Vec<Candidate>,
    /// The clustered path's pool indices of one row's hits, written for every pooled point
    /// and kept as a prefix: only ever grown, never cleared.
    hits: Vec<u32>,
    /// The shared candidates of a cluster of rows: row, x, y and id of each (columns, so the
    /// distance loop vectorises).
    pool_row: Vec<u32>,
    pool_x: Vec<f32>,
    pool_y: Vec<f32>,
    pool_id: Vec<u32>,
    /// Squared distances from one row of the cluster to each pooled candidate.
    pool_d_sq: Vec<f32>,
}

thread_local! {
    static SENSE_SCRATCH: RefCell<SenseScratch> = RefCell::new(SenseScratch::default());
}

/// A key that orders candidates by (distance², id) with one integer comparison: for finite
/// non-negative floats the bit patterns order exactly as the values do.
#[inline]
fn sort_key(d_sq: f32, id: u32) -> u64 {
    debug_assert!(d_sq >= 0.0 && d_sq.is_finite());
    ((d_sq.to_bits() as u64) << 32) | id as u64
}

/// Sorts a short list by key with insertion sort: lists hold about a dozen candidates, where
/// this beats the standard library's general sort. Keys are unique (they contain the id) except
/// for the repeats `sense_neighbours` removes.
#[inline]
fn insertion_sort(c: &mut [Candidate]) {
    for i in 1..c.len() {
        let x = c[i];
        let mut j = i;
        while j > 0 && c[j - 1].key > x.key {
            c[j] = c[j - 1];
            j -= 1;
        }
        c[j] = x;
    }
}

/// Rows per parallel task in `sense_neighbours`: enough that the per-task overhead (and the
/// borrow of the thread's scratch) is paid rarely, small enough to balance two to eight workers.
const SENSE_CHUNK: usize = 128;

/// Lists of up to this many candidates are ordered by counting ranks rather than by sorting.
const RANK_SORT_MAX: usize = 32;

/// Most rows in one k-d query cluster (see [`sense_neighbours`]).
const CLUSTER_MAX: usize = 32;

/// Largest side of a cluster's bounding box, in sensing radii. Wider clusters share one query
/// among more rows but test more candidates each; 2 measured best on the standard crowd
/// (docs/benchmarks.md, "Sensing in clusters").
const CLUSTER_EXTENT: f32 = 2.0;

/// The `sense_neighbours` pass: for every agent, the other agents within its group's sensing
/// radius, sorted by (distance², id), truncated to the group's `max_neighbours`.
/// Reads: positions, ids, groups, the index. Writes: row `i` of `out` for agent `i` only.
///
/// With the k-d index, consecutive rows that lie close together (as they do once the rows are
/// in spatial order, see `reorder`) share one tree query: a *cluster* of up to [`CLUSTER_MAX`]
/// rows whose bounding box is at most [`CLUSTER_EXTENT`] sensing radii wide queries the tree
/// once around the box's centre, with the radius grown by the box's half-diagonal, and each
/// row then tests the shared candidates exactly. Any point within `r` of a row lies within
/// `r + half-diagonal` of the centre, so the candidates are a superset, and the exact test, the
/// sort and the cap make the lists the same bits as one query per row (the oracle tests check
/// this against brute force). A row with no close successor forms a cluster of one.
pub fn sense_neighbours(
    index: &SpatialIndex,
    bounds: &Bounds,
    groups: &[Group],
    position: &[Vec2],
    id: &[u32],
    group: &[u16],
    out: &mut Neighbours,
) {
    sense_within(index, bounds, groups, position, id, group, 0.0, Sink::Lists(out));
}

/// Each agent's candidate rows (see [`sense_candidates`]), in variable-length lists: one
/// growable buffer per chunk of [`SENSE_CHUNK`] rows, so chunks fill in parallel, lists take
/// only the room they need however dense a spot is, and the buffers are reused from tick to
/// tick.
#[derive(Default, Debug)]
pub struct CandidateLists {
    chunks: Vec<CandidateChunk>,
}

#[derive(Default, Debug)]
struct CandidateChunk {
    rows: Vec<u32>,
    /// Where each row's list starts in `rows`, and one past the last list's end.
    start: Vec<u32>,
}

impl CandidateLists {
    /// The candidate rows of agent row `i`.
    #[inline]
    pub fn of(&self, i: usize) -> &[u32] {
        let c = &self.chunks[i / SENSE_CHUNK];
        let k = i % SENSE_CHUNK;
        &c.rows[c.start[k] as usize..c.start[k + 1] as usize]
    }

    /// Candidates held in all, for reports.
    pub fn total(&self) -> usize {
        self.chunks.iter().map(|c| c.rows.len()).sum()
    }
}

/// Where [`sense_within`] puts what it finds.
enum Sink<'a> {
    /// Neighbour lists: sorted by (distance², id), capped at each group's `max_neighbours`.
    Lists(&'a mut Neighbours),
    /// Candidate rows in the order found, uncapped, and the neighbour lists taken from them
    /// while they are at hand: those within each group's sensing radius, as
    /// [`neighbours_from_candidates`] would take them.
    Candidates(&'a mut CandidateLists, &'a mut Neighbours),
}

/// For [`neighbours_from_candidates`] on later ticks: each agent's candidate rows, every other
/// agent within its group's sensing radius plus `skin` (for every agent whose group senses at
/// all), in no particular order and with no cap. And this tick's neighbour lists, taken from
/// the candidates as they are found: the same lists as [`sense_neighbours`] and
/// [`neighbours_from_candidates`], bit for bit.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn sense_candidates(
    index: &SpatialIndex,
    bounds: &Bounds,
    groups: &[Group],
    position: &[Vec2],
    id: &[u32],
    group: &[u16],
    skin: f32,
    out: &mut CandidateLists,
    lists: &mut Neighbours,
) {
    sense_within(index, bounds, groups, position, id, group, skin, Sink::Candidates(out, lists));
}

/// The clustered sensing of [`sense_neighbours`], with each radius grown by `skin`, into `sink`.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
fn sense_within(
    index: &SpatialIndex,
    bounds: &Bounds,
    groups: &[Group],
    position: &[Vec2],
    id: &[u32],
    group: &[u16],
    skin: f32,
    sink: Sink<'_>,
) {
    // Candidates can repeat only when a query (with its padding) reaches across half a
    // wrapped world; the loader forbids that for sensing radii, but stay exact regardless.
    let min_side = bounds.size().min_element();
    let reaches_half = |r: f32| bounds.kind == BoundsKind::Wrap && 2.0 * (r * 1.001 + 1e-3) >= min_side;
    let may_repeat = groups.iter().any(|g| reaches_half(g.sensing_radius + skin));
    let tree = match (index.kind, &index.all.tree) {
        (IndexKind::Kd, Some(tree)) if !may_repeat => Some(tree),
        _ => None,
    };
    let radius_of = |i: usize| {
        let g = &groups[group[i] as usize];
        if g.max_neighbours == 0 { 0.0 } else { g.sensing_radius.max(0.0) + skin }
    };
    // Senses the rows `base..base + len`, calling `finish(row, candidates)` once per row, in
    // row order.
    let sense_chunk = |base: usize, len: usize, finish: &mut dyn FnMut(usize, &mut [Candidate])| {
        SENSE_SCRATCH.with_borrow_mut(|scratch| {
            let end = base + len;
            let mut i = base;
            while i < end {
                let r = radius_of(i);
                if r <= 0.0 {
                    scratch.cands.clear();
                    finish(i, &mut scratch.cands);
                    i += 1;
                    continue;
                }
                let Some(tree) = tree else {
                    // One query per row.
                    let (p, r_sq) = (position[i], r * r);
                    let cands = &mut scratch.cands;
                    cands.clear();
                    index.candidates_with(p, r, position, id, |row, q, q_id| {
                        let offset = bounds.offset(p, q);
                        let d_sq = offset.length_squared();
                        if d_sq <= r_sq && row as usize != i {
                            cands.push(Candidate { key: sort_key(d_sq, q_id), row, offset });
                        }
                    });
                    finish(i, cands);
                    i += 1;
                    continue;
                };
                // Grow a cluster of consecutive rows while its box stays small.
                let (mut lo, mut hi, mut r_max) = (position[i], position[i], r);
                let mut last = i + 1;
                while last < end && last - i < CLUSTER_MAX {
                    let q = position[last];
                    let r_q = radius_of(last).max(r_max);
                    let (lo2, hi2) = (lo.min(q), hi.max(q));
                    if (hi2 - lo2).max_element() > CLUSTER_EXTENT * r_q {
                        break;
                    }
                    (lo, hi, r_max) = (lo2, hi2, r_q);
                    last += 1;
                }
                let centre = 0.5 * (lo + hi);
                // Half-diagonal, rounded up a little so every row is surely inside.
                let half_diag = 0.5 * (hi - lo).length() * (1.0 + 1e-5) + 1e-6 * centre.abs().max_element();
                let reach = r_max + half_diag;
                if reaches_half(reach) {
                    // Too wide to share on this small world: one query per row instead.
                    last = i + 1;
                }
                let (reach, centre) = if last == i + 1 { (r, position[i]) } else { (reach, centre) };
                let SenseScratch { cands, hits, pool_row, pool_x, pool_y, pool_id, pool_d_sq } = scratch;
                pool_row.clear();
                pool_x.clear();
                pool_y.clear();
                pool_id.clear();
                query_tree(tree, bounds, index.pad, centre, reach, |row| pool_row.push(row));
                // Gathered after the query, which keeps kiddo's visit loop to one push.
                pool_x.extend(pool_row.iter().map(|&row| position[row as usize].x));
                pool_y.extend(pool_row.iter().map(|&row| position[row as usize].y));
                pool_id.extend(pool_row.iter().map(|&row| id[row as usize]));
                // Away from a wrapped world's seams, every pooled point lies well within half
                // the world of every row, where `Bounds::offset` is exactly `q - p`.
                let r_pad = reach + reach * 1e-4 + index.pad;
                let plain = bounds.kind == BoundsKind::Open
                    || (centre - bounds.min).min_element() >= r_pad
                        && (bounds.max - centre).min_element() >= r_pad;
                for (j, &p) in position.iter().enumerate().take(last).skip(i) {
                    let r = radius_of(j);
                    cands.clear();
                    if r > 0.0 {
                        let r_sq = r * r;
                        if plain {
                            let (px, py) = (&pool_x[..], &pool_y[..]);
                            pool_d_sq.clear();
                            pool_d_sq.extend(px.iter().zip(py).map(|(&x, &y)| {
                                let (dx, dy) = (x - p.x, y - p.y);
                                dx * dx + dy * dy
                            }));
                            // Each index written unconditionally, kept by advancing the
                            // count: no branch to mispredict on the one in four candidates
                            // in range, and only a 4-byte store per candidate.
                            let pool = pool_row.len();
                            if hits.len() < pool {
                                hits.resize(pool, 0);
                            }
                            let hits = &mut hits[..pool];
                            let mut n = 0;
                            for (k, (&d_sq, &row)) in pool_d_sq.iter().zip(pool_row.iter()).enumerate() {
                                hits[n] = k as u32;
                                n += usize::from(d_sq <= r_sq && row as usize != j);
                            }
                            cands.clear();
                            cands.extend(hits[..n].iter().map(|&k| {
                                let k = k as usize;
                                Candidate {
                                    key: sort_key(pool_d_sq[k], pool_id[k]),
                                    row: pool_row[k],
                                    offset: Vec2::new(px[k] - p.x, py[k] - p.y),
                                }
                            }));
                            finish(j, cands);
                            continue;
                        } else {
                            for (k, &row) in pool_row.iter().enumerate() {
                                let offset = bounds.offset(p, Vec2::new(pool_x[k], pool_y[k]));
                                let d_sq = offset.length_squared();
                                if d_sq <= r_sq && row as usize != j {
                                    cands.push(Candidate { key: sort_key(d_sq, pool_id[k]), row, offset });
                                }
                            }
                        }
                    }
                    finish(j, cands);
                }
                i = last;
            }
        });
    };
    match sink {
        Sink::Lists(out) => {
            out.fill_chunks(position.len(), groups, |base, stride, rows, dists, offsets, counts| {
                let len = counts.len();
                // Writes agent `i`'s sorted, capped list.
                let mut finish = |i: usize, cands: &mut [Candidate]| {
                    let at = (i - base) * stride;
                    let count = write_sorted(
                        cands,
                        groups[group[i] as usize].max_neighbours as usize,
                        may_repeat,
                        &mut rows[at..at + stride],
                        &mut dists[at..at + stride],
                        &mut offsets[at..at + stride],
                    );
                    counts[i - base] = count as u32;
                };
                sense_chunk(base, len, &mut finish);
            });
        }
        Sink::Candidates(out, lists) => {
            let n = position.len();
            out.chunks.resize_with(n.div_ceil(SENSE_CHUNK), CandidateChunk::default);
            lists.fill_chunks_with(
                n,
                groups,
                &mut out.chunks,
                |base, stride, rows, dists, offsets, counts, c| {
                    let len = counts.len();
                    c.rows.clear();
                    c.start.clear();
                    c.start.push(0);
                    // The rows as found (where a row could be found twice, `may_repeat`, the
                    // pipeline does not reuse candidates); then the list, from those within the
                    // sensing radius (the key holds the squared distance).
                    let mut finish = |i: usize, cands: &mut [Candidate]| {
                        debug_assert_eq!(i, base + c.start.len() - 1, "rows finish in order");
                        c.rows.extend(cands.iter().map(|x| x.row));
                        c.start.push(c.rows.len() as u32);
                        let g = &groups[group[i] as usize];
                        let mut kept = 0;
                        if g.max_neighbours > 0 && g.sensing_radius > 0.0 {
                            let r_sq = g.sensing_radius * g.sensing_radius;
                            for k in 0..cands.len() {
                                let x = cands[k];
                                cands[kept] = x;
                                kept += usize::from(f32::from_bits((x.key >> 32) as u32) <= r_sq);
                            }
                        }
                        let at = (i - base) * stride;
                        counts[i - base] = write_sorted(
                            &mut cands[..kept],
                            g.max_neighbours as usize,
                            may_repeat,
                            &mut rows[at..at + stride],
                            &mut dists[at..at + stride],
                            &mut offsets[at..at + stride],
                        ) as u32;
                    };
                    sense_chunk(base, len, &mut finish);
                    // Keep a quarter of room spare (growing to half when less is left), so the
                    // ordinary drift of a chunk's count never reallocates after warm-up.
                    let len = c.rows.len();
                    if c.rows.capacity() < len + len / 4 {
                        c.rows.reserve_exact(len / 2);
                    }
                },
            );
        }
    }
}

/// Orders `cands` by (distance², id) and writes the first `cap` into `rows`, `dists` and
/// `offsets` (one list's slots). With `dedup`, a candidate proposed twice (the same key twice)
/// counts once. Returns how many were written.
#[inline]
fn write_sorted(
    cands: &mut [Candidate],
    cap: usize,
    dedup: bool,
    rows: &mut [u32],
    dists: &mut [f32],
    offsets: &mut [Vec2],
) -> usize {
    let mut put = |s: usize, c: &Candidate| {
        rows[s] = c.row;
        dists[s] = f32::from_bits((c.key >> 32) as u32);
        offsets[s] = c.offset;
    };
    if dedup {
        // A point proposed twice has the same key twice: sort all, keep one.
        cands.sort_unstable_by_key(|c| c.key);
        let mut kept = 0;
        for k in 0..cands.len() {
            if kept == 0 || cands[k].key != cands[kept - 1].key {
                cands[kept] = cands[k];
                kept += 1;
            }
        }
        let count = kept.min(cap);
        cands[..count].iter().enumerate().for_each(|(s, c)| put(s, c));
        count
    } else if cands.len() <= RANK_SORT_MAX {
        // Keys are distinct (each holds its id): a candidate's rank is how many keys are
        // smaller. Counting has no data-dependent branches, which beats a sort's
        // mispredictions on a dozen items, and the cap is a bound check.
        for c in cands.iter() {
            let rank = cands.iter().filter(|o| o.key < c.key).count();
            if rank < cap {
                put(rank, c);
            }
        }
        cands.len().min(cap)
    } else {
        // The `cap` smallest keys, then only those sorted.
        let keep = cands.len().min(cap);
        if cands.len() > cap {
            cands.select_nth_unstable_by_key(cap, |c| c.key);
        }
        insertion_sort(&mut cands[..keep]);
        cands[..keep].iter().enumerate().for_each(|(s, c)| put(s, c));
        keep
    }
}

/// The neighbour lists of [`sense_neighbours`], from complete candidate lists (see
/// [`sense_candidates`]) instead of the index: for every agent, each candidate's offset and
/// squared distance from the current positions, the exact radius test, the sort by
/// (distance², id) and the cap. `skin` is the candidates' extra reach: none of them is more
/// than its agent's radius plus twice the skin away. When every point that is within an agent's sensing radius now
/// is among its candidates, the lists are the same bits as sensing afresh: the same offsets
/// (`Bounds::offset`, which the clustered path's plain `q - p` equals away from seams), the
/// same test, the same order.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches
pub fn neighbours_from_candidates(
    bounds: &Bounds,
    groups: &[Group],
    position: &[Vec2],
    id: &[u32],
    group: &[u16],
    candidates: &CandidateLists,
    skin: f32,
    out: &mut Neighbours,
) {
    // Slack for rounding in the seam test, relative to the world's coordinates.
    let seam_pad = 1e-3 * (1.0 + bounds.min.abs().max(bounds.max.abs()).max_element());
    out.fill_chunks(position.len(), groups, |base, stride, rows, dists, offsets, counts| {
        SENSE_SCRATCH.with_borrow_mut(|scratch| {
            for (k, count) in counts.iter_mut().enumerate() {
                let i = base + k;
                let g = &groups[group[i] as usize];
                let cands = &mut scratch.cands;
                let mut n = 0;
                if g.max_neighbours > 0 && g.sensing_radius > 0.0 {
                    let (p, r_sq) = (position[i], g.sensing_radius * g.sensing_radius);
                    let rows_i = candidates.of(i);
                    if cands.len() < rows_i.len() {
                        cands.resize(rows_i.len(), Candidate::default());
                    }
                    // Every slot written, kept by advancing the count: about half the
                    // candidates are in range, a branch would mispredict on each. Away
                    // from a wrapped world's seams every candidate's offset is the plain
                    // `q - p`, which is what `Bounds::offset` computes there.
                    let far = g.sensing_radius + 2.0 * skin;
                    let plain = bounds.kind == BoundsKind::Open
                        || (p - bounds.min).min_element() >= far * 1.001 + seam_pad
                            && (bounds.max - p).min_element() >= far * 1.001 + seam_pad;
                    if plain {
                        for &row in rows_i {
                            let offset = position[row as usize] - p;
                            let d_sq = offset.length_squared();
                            cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                            n += usize::from(d_sq <= r_sq && row as usize != i);
                        }
                    } else {
                        for &row in rows_i {
                            let offset = bounds.offset(p, position[row as usize]);
                            let d_sq = offset.length_squared();
                            cands[n] = Candidate { key: sort_key(d_sq, id[row as usize]), row, offset };
                            n += usize::from(d_sq <= r_sq && row as usize != i);
                        }
                    }
                }
                let at = k * stride;
                let n = write_sorted(
                    &mut cands[..n],
                    g.max_neighbours as usize,
                    false,
                    &mut rows[at..at + stride],
                    &mut dists[at..at + stride],
                    &mut offsets[at..at + stride],
                );
                *count = n as u32;
            }
        });
    });
}

/// The index floor `throng bench` compares a tick against: packing `positions`, building a
/// kiddo tree over them exactly as `build_index` does, and one bare radius query per agent (radius `radius[i]`), counting
/// hits with no sorting and no behaviour work. Runs on the current rayon pool. Returns the hit
/// count, so the work cannot be optimised away.
pub fn kd_floor(points: &mut Vec<[f32; 2]>, positions: &[Vec2], radius: &[f32]) -> u64 {
    points.clear();
    points.extend(positions.iter().map(|p| [p.x, p.y]));
    if points.is_empty() {
        return 0;
    }
    let tree = build_tree(points);
    points
        .par_iter()
        .zip(radius)
        .with_min_len(64)
        .with_max_len(crate::PIECE_ROWS)
        .map(|(p, &r)| {
            let mut hits = 0u64;
            tree.query(p).within::<SquaredEuclidean<f32>>(r * r).unsorted().visit(|_| hits += 1);
            hits
        })
        .sum()
}
