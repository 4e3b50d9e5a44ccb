//! Neighbour search: the per-tick spatial index and the neighbour lists it fills.
//!
//! Both backends share one contract, so a run gives the same bits with either: the index only
//! proposes *candidates* (a superset), and the exact test `|offset(p, q)|² <= r²` with the
//! world's own offset function decides membership. Candidates are sorted by (distance², id)
//! and only then truncated to the group's cap.

use std::cell::RefCell;

use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rayon::prelude::*;

use crate::math::Vec2;
use crate::world::{Bounds, BoundsKind, Group};

type Tree = ImmutableKdTree<f32, 2>;

/// Which neighbour-search backend a run uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexKind {
    /// kiddo's `ImmutableKdTree`, rebuilt every tick (the default).
    #[default]
    Kd,
    /// Every pair tested, O(N²): the oracle the k-d tree is checked against.
    Brute,
}

impl IndexKind {
    pub const NAMES: [&'static str; 2] = ["kd", "brute"];

    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Kd => "kd",
            IndexKind::Brute => "brute",
        }
    }

    pub fn parse(s: &str) -> Option<IndexKind> {
        match s {
            "kd" => Some(IndexKind::Kd),
            "brute" => Some(IndexKind::Brute),
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
            IndexKind::Kd if !self.points.is_empty() => {
                // Finite points never fail to build; positions are checked before every build.
                Some(Tree::new_from_slice(&self.points).expect("k-d tree over finite points"))
            }
            _ => None,
        };
    }

    /// Calls `visit(row)` for every point that may lie within `radius` of `p` (a superset).
    fn candidates(&self, bounds: &Bounds, pad: f32, p: Vec2, radius: f32, mut visit: impl FnMut(u32)) {
        match &self.tree {
            None => self.rows.iter().for_each(|&row| visit(row)),
            Some(tree) => {
                let r = radius + radius * 1e-4 + pad;
                let r_sq = r * r;
                for_each_image(bounds, p, r, |q| {
                    tree.query(&[q.x, q.y])
                        .within::<SquaredEuclidean<f32>>(r_sq)
                        .unsorted()
                        .visit(|hit| visit(self.rows[hit.item as usize]));
                });
            }
        }
    }
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

/// The spatial index over live agents, rebuilt every tick by `build_index`.
#[derive(Default)]
pub struct SpatialIndex {
    kind: IndexKind,
    bounds: Option<Bounds>,
    /// Absolute slack added to k-d query radii, covering the rounding of shifted images.
    pad: f32,
    all: PointSet,
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

    /// Packs positions (reusing the buffers) and rebuilds the trees. `targeted[g]` says whether
    /// group `g` needs its own set for nearest-of-group queries.
    pub fn build(&mut self, bounds: &Bounds, positions: &[Vec2], group: &[u16], targeted: &[bool]) {
        self.bounds = Some(*bounds);
        self.pad = match bounds.kind {
            BoundsKind::Open => 1e-6,
            BoundsKind::Wrap => {
                let extent = bounds.min.abs().max(bounds.max.abs()).max_element();
                1e-6 * (1.0 + extent)
            }
        };
        let all = &mut self.all;
        all.rows.clear();
        all.rows.extend(0..positions.len() as u32);
        all.points.clear();
        all.points.extend(positions.iter().map(|p| [p.x, p.y]));
        all.rebuild(self.kind);

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
    pub fn candidates(&self, p: Vec2, radius: f32, visit: impl FnMut(u32)) {
        self.all.candidates(self.bounds(), self.pad, p, radius, visit);
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
#[derive(Default, Debug)]
pub struct Neighbours {
    pub stride: usize,
    pub count: Vec<u32>,
    pub rows: Vec<u32>,
    pub dist_sq: Vec<f32>,
}

impl Neighbours {
    /// Neighbour rows of agent row `i` and their squared distances.
    #[inline]
    pub fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let start = i * self.stride;
        let end = start + self.count[i] as usize;
        (&self.rows[start..end], &self.dist_sq[start..end])
    }

    fn resize(&mut self, agents: usize, stride: usize) {
        self.stride = stride;
        self.count.resize(agents, 0);
        self.rows.resize(agents * stride, 0);
        self.dist_sq.resize(agents * stride, 0.0);
    }
}

thread_local! {
    /// Candidate scratch, one per worker thread, reused across agents and ticks.
    static CANDIDATES: RefCell<Vec<(f32, u32, u32)>> = const { RefCell::new(Vec::new()) };
}

/// The `sense_neighbours` pass: for every agent, the other agents within its group's sensing
/// radius, sorted by (distance², id), truncated to the group's `max_neighbours`.
/// Reads: positions, ids, groups, the index. Writes: row `i` of `out` for agent `i` only.
pub fn sense_neighbours(
    index: &SpatialIndex,
    bounds: &Bounds,
    groups: &[Group],
    position: &[Vec2],
    id: &[u32],
    group: &[u16],
    out: &mut Neighbours,
) {
    let stride = groups.iter().map(|g| g.max_neighbours as usize).max().unwrap_or(0);
    out.resize(position.len(), stride);
    if stride == 0 {
        out.count.fill(0);
        return;
    }
    out.rows
        .par_chunks_mut(stride)
        .zip(out.dist_sq.par_chunks_mut(stride))
        .zip(out.count.par_iter_mut())
        .enumerate()
        .with_min_len(64)
        .for_each(|(i, ((rows, dists), count))| {
            let g = &groups[group[i] as usize];
            let cap = g.max_neighbours as usize;
            if cap == 0 || g.sensing_radius <= 0.0 {
                *count = 0;
                return;
            }
            let p = position[i];
            let r_sq = g.sensing_radius * g.sensing_radius;
            CANDIDATES.with_borrow_mut(|cands| {
                cands.clear();
                index.candidates(p, g.sensing_radius, |row| {
                    if row as usize == i {
                        return;
                    }
                    let d_sq = bounds.offset(p, position[row as usize]).length_squared();
                    if d_sq <= r_sq {
                        cands.push((d_sq, id[row as usize], row));
                    }
                });
                cands.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                cands.dedup_by_key(|c| c.2);
                let n = cands.len().min(cap);
                for (k, &(d_sq, _, row)) in cands[..n].iter().enumerate() {
                    rows[k] = row;
                    dists[k] = d_sq;
                }
                *count = n as u32;
            });
        });
}
