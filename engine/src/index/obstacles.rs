//! `ObstacleIndex`: a static grid over the obstacles, built once per run, and the penetration
//! query the metrics use.

use super::clearance::ClearanceMap;
use crate::math::Vec2;
use crate::world::{Bounds, BoundsKind, Obstacle};

/// Cells in the obstacle grid at most (16 MB of offsets); cells grow beyond that.
const MAX_CELLS: f32 = (1u32 << 22) as f32;
/// An obstacle covering more cells than this is proposed to every query instead of being
/// registered cell by cell: a wall across a thousand cells is cheap to register, one across a
/// million is not.
const MAX_CELLS_PER_OBSTACLE: u64 = 4096;
/// Registrations at most over all obstacles; the widest obstacles beyond it are proposed to
/// every query, so memory stays bounded whatever the scenario.
const MAX_ITEMS: u64 = 1 << 24;

/// The obstacles' spatial index: a static uniform grid over their bounding boxes, built once
/// per run, plus a list of obstacles too large (or not finite) to register cell by cell, which
/// every query proposes. Each box is registered grown by one cell on every side, so a query
/// reaching no further than a cell (an agent's body, most look-aheads) reads only the cell
/// holding its point, usually empty; a longer one sweeps the cells of its square shrunk by that
/// margin. `cell_size` says how wide a cell is.
///
/// On a wrapped world whole cells tile the world and indices wrap; on an open one the grid
/// spans the registered boxes and a query is clamped to it (one entirely outside it is within
/// reach of no registered obstacle).
pub struct ObstacleIndex {
    bounds: Bounds,
    count: usize,
    grid: ObstacleGrid,
    /// Absolute slack on every query's reach: rounding of cell coordinates, of images across
    /// the seam, and of the callers' exact tests, a few ulps of the world's coordinates.
    pad: f32,
    large: Vec<u32>,
    /// Each obstacle's bounding circle's centre, the point `local` measures images from.
    centres: Vec<Vec2>,
    /// The boxes a wall is proposed by, obstacle `o`'s in
    /// `pieces[piece_start[o]..piece_start[o + 1]]`: its segments' boxes grown by its half
    /// thickness (a room's outline holds every agent in its box, and the grid's cells, grown
    /// by a cell, propose a thin wall far from its line). Other obstacles, and a wall whose box
    /// is not finite, have none: the grid's proposals stand.
    piece_start: Vec<u32>,
    pieces: Vec<(Vec2, Vec2)>,
    /// On an open world, how far each cell lies from every box the index proposes by: a
    /// query from a point clear by more than its reach proposes nothing at once. `None` on a
    /// wrapped world (scattered obstacles over a torus leave little clear: the standard crowd
    /// measured no gain) and when an obstacle's box is not finite.
    clearance: Option<ClearanceMap>,
}

/// The grid in CSR layout: cell `c = y·nx + x` holds `items[cell_start[c]..cell_start[c + 1]]`,
/// obstacle indices, ascending. An obstacle is registered in every cell its box overlaps; a
/// query reports it only from the first of those cells its sweep meets (see
/// [`ObstacleGrid::candidates`]), so it is visited once.
struct ObstacleGrid {
    wrap: bool,
    origin: Vec2,
    /// Cells per unit on each axis (0 for a grid of one cell).
    inv_cell: Vec2,
    n: [i64; 2],
    /// How far every registered box reaches beyond its obstacle: a query of reach up to this
    /// reads only the cell holding its point.
    margin: f32,
    cell_start: Vec<u32>,
    items: Vec<u32>,
    /// Per obstacle (unused for large ones): its first column and row, wrapped into the grid,
    /// and how many columns and rows it covers.
    first: Vec<[u32; 2]>,
    span: Vec<[u32; 2]>,
}

impl ObstacleIndex {
    /// Builds the grid over `obstacles` (indices into that slice are what queries report) for
    /// a world with `bounds`; on a wrapped world the cells tile the world. Done once per run:
    /// obstacles are static.
    pub fn build(obstacles: &[Obstacle], bounds: &Bounds) -> ObstacleIndex {
        let wrap = bounds.kind == BoundsKind::Wrap;
        let boxes: Vec<Option<(Vec2, Vec2)>> = obstacles
            .iter()
            .map(|o| {
                let (lo, hi) = o.bounding_box();
                (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
            })
            .collect();
        let cell = cell_size(&boxes, bounds);
        let margin = cell;
        let boxes: Vec<Option<(Vec2, Vec2)>> = boxes
            .into_iter()
            .map(|b| {
                let (lo, hi) = b?;
                let (lo, hi) = (lo - Vec2::splat(margin), hi + Vec2::splat(margin));
                // Far from a wrapped world, its image nearest the world: cell coordinates
                // there would round too coarsely.
                let (lo, hi) = if wrap && !near_world(bounds, lo) {
                    let image = bounds.wrap(lo);
                    (image, image + (hi - lo))
                } else {
                    (lo, hi)
                };
                (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
            })
            .collect();
        let (origin, extent) = if wrap { (bounds.min, bounds.size()) } else { open_extent(&boxes, cell) };
        let cell = cell.max((extent.x * extent.y / MAX_CELLS).sqrt()).max(extent.max_element() / MAX_CELLS);
        let axis = |extent: f32| -> (f32, i64) {
            let (inv, n) = if wrap {
                // Whole cells tile the world: as many as fit, stretched to fill it.
                let n = (extent / cell).ceil().clamp(1.0, MAX_CELLS);
                (n / extent, n)
            } else {
                let inv = 1.0 / cell;
                (inv, (extent * inv).floor() + 1.0)
            };
            if inv.is_finite() && n <= MAX_CELLS { (inv, n as i64) } else { (0.0, 1) }
        };
        let ((ix, nx), (iy, ny)) = (axis(extent.x), axis(extent.y));
        let mut grid = ObstacleGrid {
            wrap,
            origin,
            inv_cell: Vec2::new(ix, iy),
            n: [nx, ny],
            margin,
            cell_start: Vec::new(),
            items: Vec::new(),
            first: vec![[0; 2]; obstacles.len()],
            span: vec![[0; 2]; obstacles.len()],
        };

        // The grid holds the finite obstacles that lie within it (open) and cover few enough
        // cells, the narrowest first while the registrations fit the budget.
        let mut gridded: Vec<(u64, u32)> = Vec::new();
        let mut large = Vec::new();
        for (i, b) in boxes.iter().enumerate() {
            let cover = b.and_then(|(lo, hi)| grid.cover(lo, hi));
            match cover.map(|(first, span)| (first, span, u64::from(span[0]) * u64::from(span[1]))) {
                Some((first, span, cells)) if cells <= MAX_CELLS_PER_OBSTACLE => {
                    (grid.first[i], grid.span[i]) = (first, span);
                    gridded.push((cells, i as u32));
                }
                _ => large.push(i as u32),
            }
        }
        gridded.sort_unstable();
        let mut total = 0;
        let kept = gridded.iter().take_while(|&&(cells, _)| {
            total += cells;
            total <= MAX_ITEMS
        });
        let mut kept: Vec<u32> = kept.map(|&(_, i)| i).collect();
        large.extend(gridded[kept.len()..].iter().map(|&(_, i)| i));
        large.sort_unstable();
        kept.sort_unstable();
        grid.fill(&kept);

        let magnitude = [bounds.min, bounds.max, origin, origin + extent, bounds.max + bounds.size()]
            .iter()
            .map(|p| p.abs().max_element())
            .fold(0.0f32, f32::max);
        let pad = 1e-4 + 16.0 * f32::EPSILON * magnitude;
        let centres = obstacles.iter().map(|o| o.bounding_circle().0).collect();
        let (piece_start, pieces) = wall_pieces(obstacles);
        let clearance = if wrap { None } else { clearance_map(obstacles, &piece_start, &pieces) };
        ObstacleIndex {
            bounds: *bounds,
            count: obstacles.len(),
            grid,
            pad,
            large,
            centres,
            piece_start,
            pieces,
            clearance,
        }
    }

    /// Was this index built for these obstacles and bounds? (Obstacles are static in a run.)
    pub fn fits(&self, obstacles: &[Obstacle], bounds: &Bounds) -> bool {
        self.count == obstacles.len() && self.bounds == *bounds
    }

    /// Calls `visit(o)` for every obstacle whose bounding box comes within `r` of `p` (by the
    /// minimum image on a wrapped world), except a wall none of whose segments' boxes does: so
    /// for every obstacle whose shape comes within `r`, and maybe for a few more; callers make
    /// the exact test. Never twice in one call; in no particular order.
    #[inline]
    pub fn candidates(&self, p: Vec2, r: f32, mut visit: impl FnMut(u32)) {
        let reach = r + r * 1e-4 + self.pad;
        if self.clearance.as_ref().is_some_and(|map| map.clear_of(p, reach + self.pad)) {
            return;
        }
        let mut keep = |o: u32| {
            if self.pieces_within(o, p, reach) {
                visit(o);
            }
        };
        self.large.iter().for_each(|&o| keep(o));
        // Far outside a wrapped world cell coordinates round coarsely; its image inside does not.
        let q = if self.grid.wrap && !near_world(&self.bounds, p) { self.bounds.wrap(p) } else { p };
        self.grid.candidates(q, reach, keep);
    }

    /// Does one of obstacle `o`'s boxes come within `reach` of `p` (as seen from `o`)? True for
    /// an obstacle with none.
    #[inline(always)]
    fn pieces_within(&self, o: u32, p: Vec2, reach: f32) -> bool {
        let (a, b) = (self.piece_start[o as usize] as usize, self.piece_start[o as usize + 1] as usize);
        if a == b {
            return true;
        }
        // On an open world `local` is `p` to a rounding, which `reach`'s slack covers.
        let lp = if self.grid.wrap { self.local(o, p) } else { p };
        self.pieces[a..b].iter().any(|&(lo, hi)| {
            let outside = (lo - lp).max(lp - hi).max(Vec2::ZERO);
            outside.length_squared() <= reach * reach
        })
    }

    /// `p` as seen from obstacle `o` (its index): its minimum image nearest the obstacle's
    /// centre (on an open world, `p` as measured from that centre).
    #[inline]
    pub fn local(&self, o: u32, p: Vec2) -> Vec2 {
        let c = self.centres[o as usize];
        c + self.bounds.offset(c, p)
    }
}

/// The boxes the walls are proposed by (see `ObstacleIndex::pieces`): starts, one per obstacle
/// and one past the last, and the boxes.
fn wall_pieces(obstacles: &[Obstacle]) -> (Vec<u32>, Vec<(Vec2, Vec2)>) {
    let mut start = Vec::with_capacity(obstacles.len() + 1);
    let mut pieces = Vec::new();
    for o in obstacles {
        start.push(pieces.len() as u32);
        let (lo, hi) = o.bounding_box();
        if let Obstacle::Wall { ref points, thickness } = *o
            && lo.is_finite()
            && hi.is_finite()
        {
            let half = Vec2::splat(0.5 * thickness);
            pieces.extend(points.windows(2).map(|s| (s[0].min(s[1]) - half, s[0].max(s[1]) + half)));
        }
    }
    start.push(pieces.len() as u32);
    (start, pieces)
}

/// The clearance map over the boxes the index proposes obstacles by: each wall's segment
/// boxes (`pieces`), each other obstacle's bounding box; `None` when one is not finite.
fn clearance_map(obstacles: &[Obstacle], piece_start: &[u32], pieces: &[(Vec2, Vec2)]) -> Option<ClearanceMap> {
    let mut boxes = Vec::with_capacity(pieces.len() + obstacles.len());
    for (o, obstacle) in obstacles.iter().enumerate() {
        let own = &pieces[piece_start[o] as usize..piece_start[o + 1] as usize];
        if own.is_empty() {
            let (lo, hi) = obstacle.bounding_box();
            if !(lo.is_finite() && hi.is_finite()) {
                return None;
            }
            boxes.push((lo, hi));
        } else {
            boxes.extend_from_slice(own);
        }
    }
    ClearanceMap::build(&boxes)
}

/// The grid's cell side, also the margin of registered boxes: half the median obstacle's
/// shorter side (a circle's diameter, a wall's thickness), but at least an eighth of the mean
/// spacing between obstacles (over the world when wrapped, over the extent of their centres
/// when open), so that sparse small obstacles do not make long queries sweep many cells;
/// always positive and finite.
fn cell_size(boxes: &[Option<(Vec2, Vec2)>], bounds: &Bounds) -> f32 {
    let mut sides: Vec<f32> = boxes.iter().flatten().map(|&(lo, hi)| (hi - lo).min_element()).collect();
    let n = sides.len();
    if n == 0 {
        return 1.0;
    }
    let median = *sides.select_nth_unstable_by(n / 2, f32::total_cmp).1;
    let area = if bounds.kind == BoundsKind::Wrap {
        bounds.size()
    } else {
        let centres = boxes.iter().flatten().map(|&(lo, hi)| 0.5 * lo + 0.5 * hi);
        let (lo, hi) =
            centres.fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), c| (lo.min(c), hi.max(c)));
        hi - lo
    };
    let spacing = (area.x * area.y / n as f32).sqrt().max(area.max_element() / n as f32);
    let cell = 0.5 * median.max(0.25 * spacing);
    if cell.is_finite() && cell > 0.0 { cell } else { 1.0 }
}

/// The region an open world's grid covers, as (origin, extent): the boxes of the obstacles it
/// may hold (those covering few enough cells), gathered from the median centre outwards and
/// skipping any that would make the region need more than [`MAX_CELLS`] cells, so that
/// neither a huge obstacle nor a far one coarsens the grid for the others. Obstacles left out
/// are proposed to every query.
fn open_extent(boxes: &[Option<(Vec2, Vec2)>], cell: f32) -> (Vec2, Vec2) {
    let cells = |lo: Vec2, hi: Vec2| {
        let n = (hi - lo) / cell + 2.0;
        f64::from(n.x) * f64::from(n.y)
    };
    let mut held: Vec<(Vec2, Vec2)> = boxes
        .iter()
        .flatten()
        .copied()
        .filter(|&(lo, hi)| cells(lo, hi) <= MAX_CELLS_PER_OBSTACLE as f64)
        .collect();
    if held.is_empty() {
        return (Vec2::ZERO, Vec2::ZERO);
    }
    let centre = |&(lo, hi): &(Vec2, Vec2)| 0.5 * lo + 0.5 * hi;
    let median = |mut v: Vec<f32>| {
        let k = v.len() / 2;
        *v.select_nth_unstable_by(k, f32::total_cmp).1
    };
    let mid = Vec2::new(
        median(held.iter().map(|b| centre(b).x).collect()),
        median(held.iter().map(|b| centre(b).y).collect()),
    );
    held.sort_by(|a, b| {
        (centre(a) - mid).abs().max_element().total_cmp(&(centre(b) - mid).abs().max_element())
    });
    let (mut lo, mut hi) = held[0];
    for &(a, b) in &held[1..] {
        let (l, h) = (lo.min(a), hi.max(b));
        if cells(l, h) <= f64::from(MAX_CELLS) {
            (lo, hi) = (l, h);
        }
    }
    (lo, hi - lo)
}

/// Is `p` within half a world of a wrapped world's rectangle, where its cell coordinates, and
/// those of its images, round no worse than the world's own?
#[inline]
fn near_world(bounds: &Bounds, p: Vec2) -> bool {
    let d = (p - 0.5 * (bounds.min + bounds.max)).abs();
    let size = bounds.size();
    d.x <= size.x && d.y <= size.y
}

/// `floor(t)`, saturating at ±2³¹ (0 for NaN: an infinite point in a one-cell grid).
/// Truncation and a correction, because without SSE4.1 `f32::floor` is a call into libm.
#[inline]
fn floor_cell(t: f32) -> i64 {
    let i = t as i32;
    i64::from(i) - i64::from(i as f32 > t)
}

impl ObstacleGrid {
    /// The cell of `p`, neither wrapped nor clamped to the grid.
    #[inline]
    fn cell_of(&self, p: Vec2) -> [i64; 2] {
        let c = (p - self.origin) * self.inv_cell;
        [floor_cell(c.x), floor_cell(c.y)]
    }

    /// Cells `lo..=hi` along `axis` as (first, count): on a wrapped world the first wrapped
    /// into the grid and the count at most the whole axis; on an open one clamped to the grid,
    /// `None` when entirely outside it.
    #[inline]
    fn axis_span(&self, axis: usize, lo: i64, hi: i64) -> Option<(i64, i64)> {
        let n = self.n[axis];
        if self.wrap {
            let first = if (0..n).contains(&lo) { lo } else { lo.rem_euclid(n) };
            Some((first, (hi - lo + 1).clamp(1, n)))
        } else if hi < 0 || lo >= n {
            None
        } else {
            let (lo, hi) = (lo.max(0), hi.min(n - 1));
            Some((lo, (hi - lo + 1).max(0)))
        }
    }

    /// The cells a box covers, as its first column and row and how many of each; `None` when
    /// an open grid does not hold all of it.
    fn cover(&self, lo: Vec2, hi: Vec2) -> Option<([u32; 2], [u32; 2])> {
        let (a, b) = (self.cell_of(lo), self.cell_of(hi));
        let (mut first, mut span) = ([0; 2], [0; 2]);
        for axis in 0..2 {
            if !self.wrap && (a[axis] < 0 || b[axis] >= self.n[axis]) {
                return None;
            }
            let (f, s) = self.axis_span(axis, a[axis], b[axis])?;
            (first[axis], span[axis]) = (f as u32, s as u32);
        }
        Some((first, span))
    }

    /// Calls `f(c)` for every cell obstacle `o` is registered in.
    fn for_each_cell(&self, o: u32, mut f: impl FnMut(usize)) {
        let ([x0, y0], [cols, rows]) = (self.first[o as usize], self.span[o as usize]);
        let [nx, ny] = self.n;
        let mut y = i64::from(y0);
        for _ in 0..rows {
            let mut x = i64::from(x0);
            for _ in 0..cols {
                f((y * nx + x) as usize);
                x = if x + 1 == nx { 0 } else { x + 1 };
            }
            y = if y + 1 == ny { 0 } else { y + 1 };
        }
    }

    /// Registers the obstacles `kept` (ascending), whose `first` and `span` are set, with a
    /// counting sort into the CSR arrays.
    fn fill(&mut self, kept: &[u32]) {
        let cells = (self.n[0] * self.n[1]) as usize;
        let mut cell_start = vec![0u32; cells + 1];
        for &o in kept {
            self.for_each_cell(o, |c| cell_start[c + 1] += 1);
        }
        for c in 0..cells {
            cell_start[c + 1] += cell_start[c];
        }
        let mut cursor = cell_start.clone();
        let mut items = vec![0u32; cell_start[cells] as usize];
        for &o in kept {
            self.for_each_cell(o, |c| {
                items[cursor[c] as usize] = o;
                cursor[c] += 1;
            });
        }
        (self.cell_start, self.items) = (cell_start, items);
    }

    /// Calls `visit(o)` for every obstacle registered in a cell that the square around `p` of
    /// half side `h` overlaps, each once. The square sweeps columns from its left edge and rows
    /// from its bottom edge (wrapping on a wrapped world); an obstacle's cells and the square's
    /// are both a range of columns times a range of rows, so the obstacle is reported from the
    /// one cell where the sweep first meets it on both axes.
    #[inline]
    fn candidates(&self, p: Vec2, h: f32, mut visit: impl FnMut(u32)) {
        let h = (h - self.margin).max(0.0);
        let lo = self.cell_of(p - Vec2::splat(h));
        let [nx, ny] = self.n;
        if h == 0.0 {
            // The common case: one cell, and each obstacle in it once.
            let Some((x, _)) = self.axis_span(0, lo[0], lo[0]) else { return };
            let Some((y, _)) = self.axis_span(1, lo[1], lo[1]) else { return };
            let c = (y * nx + x) as usize;
            let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
            self.items[a..b].iter().for_each(|&o| visit(o));
            return;
        }
        let hi = self.cell_of(p + Vec2::splat(h));
        let Some((x0, cols)) = self.axis_span(0, lo[0], hi[0]) else { return };
        let Some((y0, rows)) = self.axis_span(1, lo[1], hi[1]) else { return };
        let mut y = y0;
        for ky in 0..rows {
            let mut x = x0;
            for kx in 0..cols {
                let c = (y * nx + x) as usize;
                let (a, b) = (self.cell_start[c] as usize, self.cell_start[c + 1] as usize);
                for &o in &self.items[a..b] {
                    if (kx == 0 || self.meets_first(o, 0, x, x0))
                        && (ky == 0 || self.meets_first(o, 1, y, y0))
                    {
                        visit(o);
                    }
                }
                x = if x + 1 == nx { 0 } else { x + 1 };
            }
            y = if y + 1 == ny { 0 } else { y + 1 };
        }
    }

    /// Is column (axis 0) or row (axis 1) `c` of a sweep that started at `start` (not `c`
    /// itself) the first of obstacle `o`'s that the sweep meets? Only when it is the
    /// obstacle's first and the sweep did not start inside the obstacle: on a wrapped world a
    /// sweep starting inside may come round to the obstacle's first again.
    #[inline]
    fn meets_first(&self, o: u32, axis: usize, c: i64, start: i64) -> bool {
        let first = i64::from(self.first[o as usize][axis]);
        let behind = if start >= first { start - first } else { start + self.n[axis] - first };
        c == first && behind >= i64::from(self.span[o as usize][axis])
    }
}

/// How far a body of radius `r` at `p` reaches into the nearest obstacle (0 when clear).
pub fn penetration(index: &ObstacleIndex, obstacles: &[Obstacle], p: Vec2, r: f32) -> f32 {
    let mut depth = 0.0f32;
    index.candidates(p, r, |o| {
        let ob = &obstacles[o as usize];
        depth = depth.max(r - ob.signed_distance(index.local(o, p)));
    });
    depth
}
