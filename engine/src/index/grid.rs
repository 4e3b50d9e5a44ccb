//! The exact uniform grid: cells as wide as the widest reach sensing asks (the largest sensing
//! radius plus the skin), rebuilt by a counting sort.
//! One implementation for the plane and for space: a grid in the plane is a grid in space one
//! cell deep (its `n[2]` is 1 and every point's third cell coordinate 0).

use super::candidate::{Candidate, SortedList, sort_key};
use super::rank::{RANK_MAX, RankColumns};
use super::scan::{Columns, Run, scan_runs, scan_runs_with_dist};
use crate::math::{Vec2, Vector};
use crate::world::{Bounds, BoundsKind};

/// How a point of a block's cell finds its offset to each entry of the block, the same bits as
/// `Bounds::offset` in every case.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum BlockOffsets {
    /// `q - p`: the block crosses no seam.
    Plain,
    /// `(q - p) - shift` of the entry's run (see [`Run`]): the block crosses a seam, and across it each run
    /// lies one world's size away along each axis it crosses on. `Bounds::offset` subtracts
    /// the size (or adds it, which is subtracting its negation) on exactly those axes, since
    /// every entry of the block is less than half the world from the point (by half a cell).
    Shifted,
    /// `Bounds::offset` per entry: a wrapped world too few cells across for the block's
    /// entries to be surely less than half the world from the point.
    PerEntry,
}

/// One row's search of a grid block: the block's runs (see [`Grid::push_block_runs`]), the row's
/// point (in the block's cell), how far it looks, and its own entry's row, which is left out.
#[derive(Clone, Copy)]
pub(super) struct BlockQuery<'r, V> {
    pub(super) runs: &'r [Run<V>],
    pub(super) p: V,
    pub(super) r: f32,
    pub(super) skip: u32,
}

/// A block of cells around one cell (see [`Grid::block`]): the cells it spans along each axis
/// (unwrapped: below 0 or from `n` across a seam) and how its points find their offsets.
#[derive(Clone, Copy)]
pub(super) struct Block {
    span: [(i64, i64); 3],
    pub(super) offsets: BlockOffsets,
}

/// A uniform grid over the agents: rows bucketed by cell with a counting sort into buffers
/// that are reused every tick (no allocation once they have grown).
pub(super) struct Grid<V = Vec2> {
    origin: V,
    /// 1 / cell width, height (and depth) (cells are at least the requested size).
    inv_cell: V,
    /// Cells along each axis; 1 along the axes the dimension does not have.
    n: [i64; 3],
    wrap: bool,
    /// The world's size along each axis when wrapped (a run's shift across a seam).
    size: V,
    /// `cell_start[c]..cell_start[c + 1]` are the entries of cell `c` (x fastest, then y, z).
    cell_start: Vec<u32>,
    /// Rows, grouped by cell, ascending within a cell.
    rows: Vec<u32>,
    /// Coordinates (one column per axis, the absent ones empty) and id of each entry of `rows`,
    /// in the same (cell) order, so scanning a cell reads contiguous memory.
    axes: [Vec<f32>; 3],
    ids: Vec<u32>,
    /// Each row's cell (scratch for the counting sort).
    cell_of: Vec<u32>,
}

impl<V: Vector> Default for Grid<V> {
    fn default() -> Self {
        Grid {
            origin: V::ZERO,
            inv_cell: V::ZERO,
            n: [1; 3],
            wrap: false,
            size: V::ZERO,
            cell_start: Vec::new(),
            rows: Vec::new(),
            axes: Default::default(),
            ids: Vec::new(),
            cell_of: Vec::new(),
        }
    }
}

/// Grids larger than this many cells per agent use wider cells (sparse open worlds).
const MAX_CELLS_PER_AGENT: f32 = 4.0;

/// Where a grid lies and how wide its cells are, found before it is filled: the world's box
/// (a wrapped world's own, else the agents' bounding box), and cells at least the asked size,
/// widened while there would be more than [`MAX_CELLS_PER_AGENT`] cells per agent.
#[derive(Clone, Copy, Debug)]
pub(super) struct GridPlan<V> {
    origin: V,
    extent: V,
    wrap: bool,
    size: f32,
    /// The cells had to be widened past the asked size: each holds more than one reach of
    /// agents, and sensing reads far more candidates than the k-d tree would.
    pub(super) widened: bool,
}

impl<V: Vector> GridPlan<V> {
    pub(super) fn new(bounds: &Bounds<V>, positions: &[V], cell_size: f32) -> GridPlan<V> {
        let n = positions.len();
        let (origin, extent, wrap) = match bounds.kind {
            BoundsKind::Wrap => (bounds.min, bounds.size(), true),
            BoundsKind::Open => {
                let (mut lo, mut hi) = (V::splat(f32::INFINITY), V::splat(f32::NEG_INFINITY));
                for &p in positions {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                if n == 0 {
                    (lo, hi) = (V::ZERO, V::splat(1.0));
                }
                (lo, (hi - lo).max(V::splat(1e-3)), false)
            }
        };
        // Cells at least `cell_size` wide, but not so many that a sparse world wastes memory.
        let max_cells = (MAX_CELLS_PER_AGENT * n as f32).max(64.0);
        let asked = cell_size.max(extent.max_element() * 1e-6).max(1e-6);
        let cells_along = |size: f32| -> f32 {
            (0..V::DIMENSIONS).map(|a| (extent.axis(a) / size).floor().max(1.0)).product()
        };
        let mut size = asked;
        while cells_along(size) > max_cells {
            size *= 1.5;
        }
        GridPlan { origin, extent, wrap, size, widened: size > asked }
    }
}

impl<V: Vector> Grid<V> {
    /// Rebuilds the grid over `positions` (with their `ids`) as `plan` lays it out.
    pub(super) fn build(&mut self, plan: &GridPlan<V>, positions: &[V], ids: &[u32]) {
        let GridPlan { origin, extent, wrap, size, .. } = *plan;
        let n = positions.len();
        let mut cells_n = [1i64; 3];
        for (a, cells) in cells_n.iter_mut().enumerate().take(V::DIMENSIONS) {
            // Open worlds get one spare cell per axis: the extent's far edge falls inside.
            *cells = ((extent.axis(a) / size).floor() as i64).max(1) + i64::from(!wrap);
        }
        let cell = if wrap { V::from_fn(|a| extent.axis(a) / cells_n[a] as f32) } else { V::splat(size) };
        *self = Grid {
            origin,
            inv_cell: V::splat(1.0) / cell,
            n: cells_n,
            wrap,
            size: extent,
            cell_start: std::mem::take(&mut self.cell_start),
            rows: std::mem::take(&mut self.rows),
            axes: std::mem::take(&mut self.axes),
            ids: std::mem::take(&mut self.ids),
            cell_of: std::mem::take(&mut self.cell_of),
        };
        let cells = (cells_n[0] * cells_n[1] * cells_n[2]) as usize;
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        let mut cell_of = std::mem::take(&mut self.cell_of);
        cell_of.clear();
        cell_of.extend(positions.iter().map(|&p| self.cell_number(p) as u32));
        self.cell_of = cell_of;
        for &c in &self.cell_of {
            self.cell_start[c as usize + 1] += 1;
        }
        for c in 0..cells {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.rows.clear();
        self.rows.resize(n, 0);
        for axis in self.axes.iter_mut().take(V::DIMENSIONS) {
            axis.clear();
            axis.resize(n, 0.0);
        }
        self.ids.clear();
        self.ids.resize(n, 0);
        // Scatter with a running cursor per cell; rows stay ascending within each cell.
        for (row, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut self.cell_start[c as usize];
            let k = *slot as usize;
            self.rows[k] = row as u32;
            for a in 0..V::DIMENSIONS {
                self.axes[a][k] = positions[row].axis(a);
            }
            self.ids[k] = ids[row];
            *slot += 1;
        }
        // The cursors now hold each cell's end; shift them back to starts.
        for c in (1..=cells).rev() {
            self.cell_start[c] = self.cell_start[c - 1];
        }
        self.cell_start[0] = 0;
    }

    /// The cell of `p` along each axis, clamped into the grid (0 along absent axes): for a
    /// row's position, the cell the row was put in at the last build.
    #[inline]
    pub(super) fn cell_coords(&self, p: V) -> [i64; 3] {
        let c = (p - self.origin) * self.inv_cell;
        let mut cell = [0i64; 3];
        for (a, cell) in cell.iter_mut().enumerate().take(V::DIMENSIONS) {
            // Truncation, not `floor` (a library call on baseline x86-64): they differ only
            // below 0, where both clamp to 0.
            *cell = (c.axis(a) as i64).clamp(0, self.n[a] - 1);
        }
        cell
    }

    /// The one number of the cell `cell_coords` gives (x fastest, then y, z).
    #[inline]
    pub(super) fn cell_number(&self, p: V) -> i64 {
        self.number_of(self.cell_coords(p))
    }

    /// The one number of the cell at cell coordinates `[x, y, z]`.
    #[inline]
    pub(super) fn number_of(&self, [x, y, z]: [i64; 3]) -> i64 {
        (z * self.n[1] + y) * self.n[0] + x
    }

    /// The position of entry `e`.
    #[inline]
    pub(super) fn point(&self, e: usize) -> V {
        V::from_fn(|a| self.axes[a][e])
    }

    /// Writes into `hits` (from the start, growing it as needed) the entries of `runs` that lie
    /// within `√r_sq` of `p`, by the offset `(q - p) - shift` of each run (`q - p` on a plain
    /// block), leaving out the entry of row `skip`, and returns how many, in run order. The
    /// squared distance is summed in axis order, the same bits as the offset's
    /// `length_squared()`.
    #[inline]
    pub(super) fn scan(&self, runs: &[Run<V>], p: V, r_sq: f32, skip: u32, hits: &mut Vec<u32>) -> usize {
        let [xs, ys, zs] = &self.axes;
        scan_runs(&Columns { xs, ys, zs, rows: &self.rows }, runs, p, r_sq, skip, hits)
    }

    /// The nearest entries of a [`BlockOffsets::Plain`] block's `runs` to `p`, a point of the
    /// block's cell: of those within `r` but the entry of row `skip`, the first `cap` by
    /// (distance², id) into `list`, with their rows, squared distances and offsets `q - p`: the
    /// same bits, in the same order, as [`Grid::block_candidates`] and `write_sorted` give.
    /// Returns `Ok(n)` with `n` the number within reach (which may be more than `cap`); or,
    /// when more than [`RANK_MAX`] lie within reach, `Err(n)` with `list` left as it was and
    /// the `n` hits and their squared distances in `hits[..n]` and `dists[..n]` (for
    /// [`Grid::plain_candidates`]).
    pub(super) fn block_nearest(
        &self,
        query: BlockQuery<'_, V>,
        cap: usize,
        hits: &mut Vec<u32>,
        dists: &mut Vec<f32>,
        list: &mut SortedList<V>,
    ) -> Result<usize, usize> {
        let BlockQuery { runs, p, r, skip } = query;
        let r_sq = r * r;
        let [xs, ys, zs] = &self.axes;
        let cols = Columns { xs, ys, zs, rows: &self.rows };
        let n = scan_runs_with_dist(&cols, runs, p, r_sq, skip, hits, dists);
        if n > RANK_MAX {
            return Err(n);
        }
        let (hits, dists) = (&hits[..n], &dists[..n]);
        let ranks =
            RankColumns::new(hits.iter().zip(dists).map(|(&e, d)| (d.to_bits(), self.ids[e as usize])));
        let mut order = [0u8; RANK_MAX];
        ranks.order(&mut order);
        list.fill(n.min(cap), |slot| {
            let k = order[slot] as usize;
            let e = hits[k] as usize;
            (self.rows[e], dists[k], self.point(e) - p)
        });
        Ok(n)
    }

    /// Appends to `cands` the hits of a [`BlockOffsets::Plain`] block around `p` that
    /// [`Grid::block_nearest`] left unranked, with their squared distances: each one's key and
    /// offset `q - p`, the same bits as [`Grid::block_candidates`] gives.
    pub(super) fn plain_candidates(&self, hits: &[u32], dists: &[f32], p: V, cands: &mut Vec<Candidate<V>>) {
        cands.extend(hits.iter().zip(dists).map(|(&e, &d_sq)| {
            let e = e as usize;
            Candidate { key: sort_key(d_sq, self.ids[e]), row: self.rows[e], offset: self.point(e) - p }
        }));
    }

    /// Writes into `cands` (after what it holds) every entry of a block's `runs` within `r` of
    /// `p`, a point of the block's cell, but the entry of row `skip`: its key and its offset,
    /// the same bits as `Bounds::offset` in each of the block's [`BlockOffsets`] cases.
    pub(super) fn block_candidates(
        &self,
        query: BlockQuery<'_, V>,
        offsets: BlockOffsets,
        bounds: &Bounds<V>,
        hits: &mut Vec<u32>,
        cands: &mut Vec<Candidate<V>>,
    ) {
        let BlockQuery { runs, p, r, skip } = query;
        let candidate = |e: usize, offset: V| Candidate {
            key: sort_key(offset.length_squared(), self.ids[e]),
            row: self.rows[e],
            offset,
        };
        match offsets {
            BlockOffsets::Plain => {
                let n = self.scan(runs, p, r * r, skip, hits);
                cands.extend(hits[..n].iter().map(|&e| candidate(e as usize, self.point(e as usize) - p)));
            }
            BlockOffsets::Shifted => {
                let n = self.scan(runs, p, r * r, skip, hits);
                // The hits come in run order: walk the runs beside them for each hit's shift.
                let mut run = 0;
                cands.extend(hits[..n].iter().map(|&e| {
                    while !(runs[run].start..runs[run].end).contains(&e) {
                        run += 1;
                    }
                    let e = e as usize;
                    candidate(e, (self.point(e) - p) - runs[run].shift)
                }));
            }
            BlockOffsets::PerEntry => {
                for e in runs.iter().flat_map(|run| run.start as usize..run.end as usize) {
                    let offset = bounds.offset(p, self.point(e));
                    if offset.length_squared() <= r * r && self.rows[e] != skip {
                        cands.push(candidate(e, offset));
                    }
                }
            }
        }
    }

    /// The block of cells around cell `at` (cell coordinates): the cells within `k` cells of
    /// it along each axis, `k` the fewest cells that span `reach`, so that every agent within
    /// `reach` of any point of cell `at` is in the block, each cell once. `None` when a wrapped
    /// axis has too few cells to hold the block without a repeat; else the block, with how a
    /// point of cell `at` finds its offset to the block's entries.
    pub(super) fn block(&self, at: [i64; 3], reach: f32) -> Option<Block> {
        let mut span = [(0i64, 0i64); 3];
        let (mut crosses, mut sure) = (false, true);
        for a in 0..V::DIMENSIONS {
            let n = self.n[a];
            let k = ceil_to_int(reach * self.inv_cell.axis(a)).max(1);
            let (from, to) = (at[a] - k, at[a] + k);
            if self.wrap {
                if 2 * k + 1 > n {
                    return None;
                }
                crosses |= from < 0 || to >= n;
                // A point of cell `at` and an entry of the block are at most `k + 1` cells
                // apart along the axis: less than half the world, by half a cell or more.
                sure &= 2 * (k + 1) < n;
                span[a] = (from, to);
            } else {
                span[a] = (from.max(0), to.min(n - 1));
            }
        }
        let offsets = match (crosses, sure) {
            (false, true) => BlockOffsets::Plain,
            (true, true) => BlockOffsets::Shifted,
            (_, false) => BlockOffsets::PerEntry,
        };
        Some(Block { span, offsets })
    }

    /// Appends to `runs` the entries of `block`'s cells as runs of entries `start..end`, one
    /// per row of cells where the row crosses no seam, else one per cell.
    pub(super) fn push_block_runs(&self, block: &Block, runs: &mut Vec<Run<V>>) {
        let [nx, ny, nz] = self.n;
        let span = block.span;
        // The shift of cells `c` along axis `a` (unwrapped, so below 0 or from `n` across a seam).
        let shift = |c: i64, a: usize| {
            if c < 0 {
                self.size.axis(a)
            } else if c >= self.n[a] {
                -self.size.axis(a)
            } else {
                0.0
            }
        };
        let wrapped = |c: i64, n: i64| {
            if c < 0 {
                c + n
            } else if c >= n {
                c - n
            } else {
                c
            }
        };
        let axes = V::DIMENSIONS;
        for z in span[2].0..=span[2].1 {
            let shift_z = if axes == 3 { shift(z, 2) } else { 0.0 };
            for y in span[1].0..=span[1].1 {
                let shift_y = shift(y, 1);
                let base = (wrapped(z, nz) * ny + wrapped(y, ny)) * nx;
                let (x0, x1) = span[0];
                let run = |x: i64, start: i64, end: i64| {
                    let shift = [shift(x, 0), shift_y, shift_z];
                    Run {
                        start: self.cell_start[start as usize],
                        end: self.cell_start[end as usize],
                        shift: V::from_fn(|a| shift[a]),
                    }
                };
                if x0 >= 0 && x1 < nx {
                    // One run for the whole row of cells.
                    runs.push(run(x0, base + x0, base + x1 + 1));
                } else {
                    for x in x0..=x1 {
                        let c = base + wrapped(x, nx);
                        runs.push(run(x, c, c + 1));
                    }
                }
            }
        }
    }

    /// Appends to `runs` the entries of the cells that overlap the square (the cube, in space)
    /// of half side `reach` around `p`, one run per row of cells, with no shift: for a point of
    /// a block that [`Grid::block`] found [`BlockOffsets::Plain`] and a `reach` within the
    /// block's, a part of that block holding every entry within `reach` of `p` (the cell of a
    /// coordinate only grows with it).
    pub(super) fn plain_runs_around(&self, p: V, reach: f32, runs: &mut Vec<Run<V>>) {
        let (lo, hi) = (self.cell_coords(p - V::splat(reach)), self.cell_coords(p + V::splat(reach)));
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let base = (z * self.n[1] + y) * self.n[0];
                runs.push(Run {
                    start: self.cell_start[(base + lo[0]) as usize],
                    end: self.cell_start[(base + hi[0] + 1) as usize],
                    shift: V::ZERO,
                });
            }
        }
    }

    /// Calls `visit(row, position, id)` for every agent in a cell overlapping the square (the
    /// cube, in space) around `p` of half side `r`, each at most once.
    #[inline]
    pub(super) fn candidates(&self, p: V, r: f32, mut visit: impl FnMut(u32, V, u32)) {
        // Scalar `floor` is exact and fast; glam's (with its libm feature) is a software call.
        let lo = (p - V::splat(r) - self.origin) * self.inv_cell;
        let hi = (p + V::splat(r) - self.origin) * self.inv_cell;
        let span = |a: usize| -> (i64, i64) {
            if a >= V::DIMENSIONS {
                return (0, 0);
            }
            let n = self.n[a];
            let (lo, hi) = (lo.axis(a).floor() as i64, hi.axis(a).floor() as i64);
            if self.wrap {
                // Every distinct cell once, even when the square is wider than the world.
                (lo, hi.min(lo + n - 1))
            } else {
                (lo.clamp(0, n - 1), hi.clamp(0, n - 1))
            }
        };
        let ((x0, x1), (y0, y1), (z0, z1)) = (span(0), span(1), span(2));
        let [nx, ny, nz] = self.n;
        // One modulo per axis; then step with a conditional wrap (no division per cell).
        let first_cx = x0.rem_euclid(nx);
        let first_cy = y0.rem_euclid(ny);
        let mut cz = z0.rem_euclid(nz);
        for _ in z0..=z1 {
            let mut cy = first_cy;
            for _ in y0..=y1 {
                let row_base = (cz * ny + cy) * nx;
                let mut cx = first_cx;
                for _ in x0..=x1 {
                    let c = (row_base + cx) as usize;
                    let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
                    for e in a..b {
                        visit(self.rows[e], self.point(e), self.ids[e]);
                    }
                    cx += 1;
                    if cx == nx {
                        cx = 0;
                    }
                }
                cy += 1;
                if cy == ny {
                    cy = 0;
                }
            }
            cz += 1;
            if cz == nz {
                cz = 0;
            }
        }
    }
}

/// `x.ceil() as i64` (0 for NaN, saturating) without `ceil`, which is a library call on
/// baseline x86-64 and ran once per axis of every grid block: truncation, plus one where that
/// fell below `x` (exact wherever the conversion is: every float of 2²³ or more is whole).
#[inline]
fn ceil_to_int(x: f32) -> i64 {
    let t = x as i64;
    t.saturating_add(i64::from((t as f32) < x))
}

#[cfg(test)]
mod tests {
    use super::ceil_to_int;

    #[test]
    fn ceil_to_int_is_ceil_then_the_conversion() {
        let next_up = f32::from_bits(1.0f32.to_bits() + 1);
        for x in [0.0, -0.0, 0.5, 1.0, next_up, 2.9, 3.0, -0.5, -1.5, -2.0, 8388607.5, 1e10, f32::MAX] {
            assert_eq!(ceil_to_int(x), x.ceil() as i64, "{x}");
        }
        assert_eq!(ceil_to_int(f32::NAN), 0);
        assert_eq!(ceil_to_int(f32::INFINITY), i64::MAX);
        assert_eq!(ceil_to_int(f32::NEG_INFINITY), i64::MIN);
    }
}
