//! The exact uniform grid: cells as wide as the largest sensing radius, rebuilt by a counting sort.

use crate::math::Vec2;
use crate::world::{Bounds, BoundsKind};

/// A uniform grid over the agents: rows bucketed by cell with a counting sort into buffers
/// that are reused every tick (no allocation once they have grown).
#[derive(Default)]
pub(super) struct Grid {
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
    pub(super) fn build(&mut self, bounds: &Bounds, positions: &[Vec2], ids: &[u32], cell_size: f32) {
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
    pub(super) fn candidates(&self, p: Vec2, r: f32, mut visit: impl FnMut(u32, Vec2, u32)) {
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
