//! `ClearanceMap`: how far each cell of an open world lies from every obstacle's proposing
//! boxes, so that an obstacle query from a point in the clear returns at once.

use crate::math::Vec2;

/// Cells in a clearance map at most; the cells widen to fit. With a byte per cell the map
/// takes 64 KB, small enough to stay in cache beside a tick's columns (a map of a million
/// cells cost more in misses than the queries it saved).
const MAX_CELLS: f32 = (1u32 << 16) as f32;

/// Cells per side of a tile: a tile's 64 cells share one cache line, so agents in spatial
/// order read the same few lines.
const TILE: usize = 8;

/// A static grid over the obstacles' region of an open world: each cell holds a lower bound on
/// the distance from any point of the cell to every box the obstacle index proposes obstacles
/// by (a wall's segment boxes, any other obstacle's bounding box). A query of reach `r` from a
/// point whose cell is clear by more than `r` can meet no box, so it proposes nothing: in a
/// room, most agents stand far from every wall, and their queries (the models' walls, the
/// push-out of `collide`) end at one lookup.
///
/// Each cell holds `k`, the cells between it and the nearest cell a box touches counted in
/// king's moves (at most 255), and its clearance is `(k − 2) · cell`: any two points `k` such
/// moves apart lie at least `k − 1` cells apart along one axis, and one more cell covers a
/// point or a box edge rounded into the next cell. So the map errs only on the side of
/// proposing.
#[derive(Debug)]
pub(super) struct ClearanceMap {
    origin: Vec2,
    inv_cell: f32,
    /// Cells per axis, whole tiles.
    n: [usize; 2],
    /// `k` per cell, tile by tile (tiles row by row, cells row by row within a tile).
    steps: Vec<u8>,
}

impl ClearanceMap {
    /// The map over `boxes` (each finite, `lo ≤ hi`), or `None` when there are none.
    pub(super) fn build(boxes: &[(Vec2, Vec2)]) -> Option<ClearanceMap> {
        let (lo, hi) = boxes
            .iter()
            .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), &(a, b)| (lo.min(a), hi.max(b)));
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        // The region: the boxes' extent and a tenth of it around, where agents near the
        // obstacles stand (a point outside the map takes the full query).
        let margin = Vec2::splat(0.1 * (hi - lo).max_element());
        let (origin, extent) = (lo - margin, hi - lo + 2.0 * margin);
        let cell = (extent.x * extent.y / MAX_CELLS).sqrt().max(extent.max_element() / MAX_CELLS);
        if !(cell.is_finite() && cell > 0.0) {
            return None;
        }
        let inv_cell = 1.0 / cell;
        let whole = |e: f32| ((e * inv_cell) as usize + 1).next_multiple_of(TILE);
        let n = [whole(extent.x), whole(extent.y)];
        let mut steps = vec![u32::MAX; n[0] * n[1]];
        let mut queue = Vec::new();
        let cell_of = |p: Vec2, axis: usize| {
            let t = (p[axis] - origin[axis]) * inv_cell;
            (t.max(0.0) as usize).min(n[axis] - 1)
        };
        for &(a, b) in boxes {
            for y in cell_of(a, 1)..=cell_of(b, 1) {
                for x in cell_of(a, 0)..=cell_of(b, 0) {
                    let c = y * n[0] + x;
                    if steps[c] != 0 {
                        steps[c] = 0;
                        queue.push(c as u32);
                    }
                }
            }
        }
        // Breadth first in king's moves from every touched cell.
        let mut head = 0;
        while head < queue.len() {
            let c = queue[head] as usize;
            head += 1;
            let (x, y) = (c % n[0], c / n[0]);
            let next = steps[c] + 1;
            for ny in y.saturating_sub(1)..=(y + 1).min(n[1] - 1) {
                for nx in x.saturating_sub(1)..=(x + 1).min(n[0] - 1) {
                    let d = ny * n[0] + nx;
                    if steps[d] == u32::MAX {
                        steps[d] = next;
                        queue.push(d as u32);
                    }
                }
            }
        }
        let mut tiled = vec![0u8; n[0] * n[1]];
        for (c, &k) in steps.iter().enumerate() {
            tiled[tile_slot(n, c % n[0], c / n[0])] = k.min(255) as u8;
        }
        Some(ClearanceMap { origin, inv_cell, n, steps: tiled })
    }

    /// Is every box farther than `reach` from `p`? `false` when `p` lies outside the map (or is
    /// not finite).
    #[inline]
    pub(super) fn clear_of(&self, p: Vec2, reach: f32) -> bool {
        let t = (p - self.origin) * self.inv_cell;
        if !(t.x >= 0.0 && t.y >= 0.0 && t.x < self.n[0] as f32 && t.y < self.n[1] as f32) {
            return false;
        }
        let (x, y) = ((t.x as usize).min(self.n[0] - 1), (t.y as usize).min(self.n[1] - 1));
        // (k − 2) · cell > reach, in cells.
        f32::from(self.steps[tile_slot(self.n, x, y)]) > reach * self.inv_cell + 2.0
    }
}

/// Where cell `(x, y)` of a map with `n` cells per axis is kept.
#[inline]
fn tile_slot(n: [usize; 2], x: usize, y: usize) -> usize {
    let tile = (y / TILE) * (n[0] / TILE) + x / TILE;
    tile * TILE * TILE + (y % TILE) * TILE + x % TILE
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance from `p` to the box `(lo, hi)` (0 inside).
    fn box_distance(p: Vec2, (lo, hi): (Vec2, Vec2)) -> f32 {
        (lo - p).max(p - hi).max(Vec2::ZERO).length()
    }

    #[test]
    fn a_point_is_called_clear_only_when_every_box_is_beyond_reach() {
        // A room's four walls as thin boxes, a pillar and a slanted bar's box.
        let boxes = [
            (Vec2::new(0.0, 0.0), Vec2::new(40.0, 0.0)),
            (Vec2::new(40.0, 0.0), Vec2::new(40.0, 30.0)),
            (Vec2::new(0.0, 30.0), Vec2::new(40.0, 30.0)),
            (Vec2::new(0.0, 0.0), Vec2::new(0.0, 30.0)),
            (Vec2::new(19.5, 14.5), Vec2::new(20.5, 15.5)),
            (Vec2::new(5.0, 5.0), Vec2::new(9.0, 6.0)),
        ];
        let map = ClearanceMap::build(&boxes).expect("boxes");
        let (mut clear, mut tested) = (0, 0);
        // A lattice over the map and beyond it, at every reach a caller uses.
        for iy in -40..=380 {
            for ix in -50..=490 {
                let p = Vec2::new(ix as f32 * 0.1 + 0.013, iy as f32 * 0.1 + 0.007);
                let nearest = boxes.iter().map(|&b| box_distance(p, b)).fold(f32::INFINITY, f32::min);
                for reach in [0.2, 0.5, 3.0] {
                    tested += 1;
                    if map.clear_of(p, reach) {
                        assert!(nearest > reach, "{p} called clear at reach {reach}, a box {nearest} away");
                        clear += 1;
                    }
                }
            }
        }
        // The map is useful: most of the room's interior is clear at a body's reach.
        assert!(clear > tested / 3, "{clear} of {tested} clear");
        assert!(map.clear_of(Vec2::new(30.0, 22.0), 3.0));
        assert!(!map.clear_of(Vec2::new(f32::NAN, 22.0), 0.2));
        assert!(!map.clear_of(Vec2::new(1e6, 22.0), 0.2), "outside the map, nothing is known");
    }

    #[test]
    fn no_boxes_no_map() {
        assert!(ClearanceMap::build(&[]).is_none());
        assert!(ClearanceMap::build(&[(Vec2::ZERO, Vec2::new(f32::INFINITY, 1.0))]).is_none());
    }
}
