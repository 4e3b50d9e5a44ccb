//! Oracle tests: the k-d backend of the spatial index against the brute-force one. Both must
//! give identical neighbour lists (same rows, same order, same distance bits) on random clouds
//! and on the inputs that break k-d trees: exact ties, many agents on one point, agents on a
//! line, the seam of a wrapped world. The brute backend is itself checked against a naive
//! all-pairs computation written here. Nearest-of-group is in nearest_of_group.rs, on this
//! file's cases.
//!
//! A little over 600 lines: every test here runs its case through one checker
//! (`assert_kd_matches_brute`) and the naive lists, which are this file's first half.

use throng_engine::index::{self, IndexKind, Neighbours, SpatialIndex};
use throng_engine::math::Vec2;
use throng_engine::world::{Bounds, BoundsKind, Group};
use throng_engine::{Scenario, World};

use crate::common::Rand;

// ---------------------------------------------------------------------------------------------
// Inputs

/// A group with only what the neighbour search reads set by hand; the other fields come from
/// a minimal parsed scenario, so this keeps compiling when `Group` grows.
pub(super) fn group(name: &str, sensing_radius: f32, max_neighbours: u32) -> Group {
    let template = template_world().groups[0].clone();
    Group { name: name.into(), behaviours: Vec::new(), sensing_radius, max_neighbours, ..template }
}

fn template_world() -> World {
    let text = r#"
version = 1
name = "template"
seed = 1
dt = 1.0
ticks = 1
[bounds]
min = [0, 0]
max = [1, 1]
[[groups]]
name = "template"
spawn = { kind = "points", points = [[0, 0]] }
max_speed = 1.0
max_force = 1.0
"#;
    Scenario::parse(text, "template.toml").unwrap_or_else(|e| panic!("{e}")).build_world()
}

pub(super) fn open(min: f32, max: f32) -> Bounds {
    Bounds { kind: BoundsKind::Open, min: Vec2::splat(min), max: Vec2::splat(max) }
}

pub(super) fn wrap(min: f32, max: f32) -> Bounds {
    Bounds { kind: BoundsKind::Wrap, min: Vec2::splat(min), max: Vec2::splat(max) }
}

/// Everything the neighbour pass reads.
pub(super) struct Case {
    pub(super) bounds: Bounds,
    pub(super) groups: Vec<Group>,
    pub(super) positions: Vec<Vec2>,
    /// Agent ids: ascending with the row, as in a world, but not equal to it (3 · row + 7), so
    /// an id used as a row, or a row used as an id, shows.
    pub(super) ids: Vec<u32>,
    pub(super) group: Vec<u16>,
}

impl Case {
    /// What sensing reads of the case.
    fn input(&self) -> index::SenseInput<'_, Vec2> {
        index::SenseInput {
            bounds: &self.bounds,
            groups: &self.groups,
            position: &self.positions,
            id: &self.ids,
            group: &self.group,
        }
    }

    pub(super) fn new(bounds: Bounds, groups: Vec<Group>, positions: Vec<Vec2>, group: Vec<u16>) -> Case {
        assert_eq!(positions.len(), group.len());
        let ids = (0..positions.len() as u32).map(|r| 3 * r + 7).collect();
        Case { bounds, groups, positions, ids, group }
    }

    /// Every agent in group 0.
    fn one_group(bounds: Bounds, radius: f32, cap: u32, positions: Vec<Vec2>) -> Case {
        let n = positions.len();
        Case::new(bounds, vec![group("g", radius, cap)], positions, vec![0; n])
    }

    /// A random cloud of `n` points in `[lo, hi)²`, split between two groups with their own
    /// radius and cap.
    pub(super) fn cloud(
        seed: u64,
        n: usize,
        bounds: Bounds,
        lo: f32,
        hi: f32,
        g0: (f32, u32),
        g1: (f32, u32),
    ) -> Case {
        let mut rand = Rand(seed);
        let positions = (0..n).map(|_| Vec2::new(rand.range(lo, hi), rand.range(lo, hi))).collect();
        let membership = (0..n).map(|_| u16::from(rand.below(3) == 0)).collect();
        Case::new(bounds, vec![group("a", g0.0, g0.1), group("b", g1.0, g1.1)], positions, membership)
    }
}

/// One neighbour list: (row, dist_sq bits), nearest first.
type List = Vec<(u32, u32)>;

fn neighbour_lists(kind: IndexKind, case: &Case) -> Vec<List> {
    neighbour_lists_reaching(kind, case, index::FirstReach::default())
}

/// [`neighbour_lists`] with short first reaches per group and per row (see `index::short_reach`
/// and `index::row_reach`).
fn neighbour_lists_reaching(kind: IndexKind, case: &Case, reach: index::FirstReach<'_>) -> Vec<List> {
    let mut index = SpatialIndex::new(kind);
    // The grid's cells are as wide as the largest sensing radius, as in the pipeline without a skin.
    let cell = case.groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max).max(1e-3);
    let targeted = vec![false; case.groups.len()];
    index.build_with_cell(&case.bounds, &case.positions, &case.ids, &case.group, &targeted, cell);
    let mut out = Neighbours::default();
    index::sense_neighbours(&index, &case.input(), reach, &mut out);
    (0..case.positions.len())
        .map(|i| {
            let (rows, dist_sq) = out.of(i);
            rows.iter().zip(dist_sq).map(|(&r, &d)| (r, d.to_bits())).collect()
        })
        .collect()
}

/// The spec, written out naively: every other agent within the group's radius by the minimum
/// image, as (distance², id, row), sorted by (distance², id); not yet truncated.
fn naive_candidates(case: &Case) -> Vec<Vec<(f32, u32, u32)>> {
    let size = case.bounds.max - case.bounds.min;
    let min_image = |d: f32, size: f32| {
        if case.bounds.kind == BoundsKind::Open {
            d
        } else if d > size / 2.0 {
            d - size
        } else if d < -size / 2.0 {
            d + size
        } else {
            d
        }
    };
    (0..case.positions.len())
        .map(|i| {
            let g = &case.groups[case.group[i] as usize];
            let r_sq = g.sensing_radius * g.sensing_radius;
            let p = case.positions[i];
            let mut found: Vec<(f32, u32, u32)> = Vec::new();
            for (j, q) in case.positions.iter().enumerate() {
                if j == i {
                    continue;
                }
                let dx = min_image(q.x - p.x, size.x);
                let dy = min_image(q.y - p.y, size.y);
                let d_sq = dx * dx + dy * dy;
                if d_sq <= r_sq {
                    found.push((d_sq, case.ids[j], j as u32));
                }
            }
            found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            found
        })
        .collect()
}

/// The naive lists, truncated to each group's cap.
fn naive_lists(case: &Case) -> Vec<List> {
    naive_candidates(case)
        .into_iter()
        .enumerate()
        .map(|(i, mut found)| {
            found.truncate(case.groups[case.group[i] as usize].max_neighbours as usize);
            found.into_iter().map(|(d, _, j)| (j, d.to_bits())).collect()
        })
        .collect()
}

/// Statistics that make sure a case tested something.
#[derive(Debug, Default)]
struct Stats {
    neighbours: usize,
    /// Agents with more candidates in range than their cap: the cap cut the list.
    truncated: usize,
    /// Neighbour pairs whose minimum image differs from the raw offset.
    across_seam: usize,
}

/// The case with its rows in spatial order (by the Morton code of a fine lattice over the
/// points' extent), as the pipeline's `reorder` pass leaves them, so that consecutive rows are
/// neighbours and the k-d backend shares queries among clusters of rows. Ids move with their
/// rows, so they are no longer ascending. Returns the case and `orig[k]`, the original row of
/// new row `k`.
fn spatially_ordered(case: &Case) -> (Case, Vec<usize>) {
    let (lo, hi) = case
        .positions
        .iter()
        .fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let scale = Vec2::splat(1023.0) / (hi - lo).max(Vec2::splat(1e-6));
    let spread = |v: u32| (0..10).fold(0u64, |acc, b| acc | (((v as u64 >> b) & 1) << (2 * b)));
    let code = |p: Vec2| {
        let c = ((p - lo) * scale).clamp(Vec2::ZERO, Vec2::splat(1023.0));
        spread(c.x as u32) | (spread(c.y as u32) << 1)
    };
    let mut orig: Vec<usize> = (0..case.positions.len()).collect();
    orig.sort_by_key(|&r| (code(case.positions[r]), r));
    let ordered = Case {
        bounds: case.bounds,
        groups: case.groups.clone(),
        positions: orig.iter().map(|&r| case.positions[r]).collect(),
        ids: orig.iter().map(|&r| case.ids[r]).collect(),
        group: orig.iter().map(|&r| case.group[r]).collect(),
    };
    (ordered, orig)
}

/// k-d, grid and brute lists are identical, and each list is well formed: no self, within
/// the radius, strictly increasing by (distance², id), at most the cap. The k-d and grid lists
/// are also computed with the rows in spatial order (where the k-d backend shares one query
/// among a cluster of close rows) and must name the same agents in the same order.
#[track_caller]
fn assert_kd_matches_brute(case: &Case) -> (Vec<List>, Stats) {
    let kd = neighbour_lists(IndexKind::Kd, case);
    let brute = neighbour_lists(IndexKind::Brute, case);
    let (ordered, orig) = spatially_ordered(case);
    for kind in [IndexKind::Kd, IndexKind::Grid] {
        for (k, list) in neighbour_lists(kind, &ordered).into_iter().enumerate() {
            let i = orig[k];
            let list: List = list.into_iter().map(|(row, d)| (orig[row as usize] as u32, d)).collect();
            assert_eq!(
                list, brute[i],
                "row {i} at {} ({kind}, rows in spatial order): left differs from brute (right)",
                case.positions[i]
            );
        }
    }
    let grid = neighbour_lists(IndexKind::Grid, case);
    for (i, (g, b)) in grid.iter().zip(&brute).enumerate() {
        assert_eq!(g, b, "row {i} at {}: grid (left) and brute (right) differ", case.positions[i]);
    }
    let candidates = naive_candidates(case);
    let mut stats = Stats::default();
    for (i, (k, b)) in kd.iter().zip(&brute).enumerate() {
        let p = case.positions[i];
        assert_eq!(k, b, "row {i} at {p}: k-d (left) and brute (right) differ");
        let g = &case.groups[case.group[i] as usize];
        assert!(b.len() <= g.max_neighbours as usize, "row {i}: over the cap");
        for pair in b.windows(2) {
            let (ra, da) = (pair[0].0 as usize, f32::from_bits(pair[0].1));
            let (rb, db) = (pair[1].0 as usize, f32::from_bits(pair[1].1));
            assert!(
                da < db || (da == db && case.ids[ra] < case.ids[rb]),
                "row {i}: not sorted by (d², id): {:?}",
                pair
            );
        }
        for &(row, d) in b {
            assert_ne!(row as usize, i, "row {i} lists itself");
            let d = f32::from_bits(d);
            assert!(d <= g.sensing_radius * g.sensing_radius, "row {i}: neighbour {row} at d² {d}");
            let q = case.positions[row as usize];
            if (q - p).length_squared() != d {
                stats.across_seam += 1;
            }
        }
        stats.neighbours += b.len();
        stats.truncated += usize::from(candidates[i].len() > g.max_neighbours as usize);
    }
    (brute, stats)
}

// ---------------------------------------------------------------------------------------------
// Neighbour lists

#[test]
fn random_clouds_in_open_bounds_give_identical_lists() {
    // (seed, agents, side, (radius, cap) of group a, of group b). Density n / side² sets how
    // many candidates each radius holds; caps below that force truncation.
    let cases = [
        (1, 3000, 100.0, (3.0, 8), (6.0, 64)),
        (2, 4000, 1000.0, (40.0, 16), (1.0, 2)),
        (3, 2500, 50.0, (0.75, 1), (2.5, 256)),
    ];
    for (seed, n, side, a, b) in cases {
        // Agents may be outside the bounds of an open world: spread them beyond it.
        let case = Case::cloud(seed, n, open(0.0, side / 2.0), -side / 4.0, side * 0.75, a, b);
        let (_, stats) = assert_kd_matches_brute(&case);
        assert!(stats.neighbours > n, "seed {seed}: too few neighbours to test: {stats:?}");
        assert!(stats.truncated > n / 20, "seed {seed}: the caps never bit: {stats:?}");
        assert_eq!(stats.across_seam, 0, "an open world has no seam");
    }
}

#[test]
fn random_clouds_in_wrapped_bounds_give_identical_lists() {
    let cases = [
        (11, 3000, wrap(0.0, 80.0), (3.5, 12), (7.9, 32)),
        (12, 4000, wrap(-40.0, 40.0), (2.5, 4), (5.0, 256)),
        // Far from the origin, where the f32 spacing is coarse (2^-7).
        (13, 3000, wrap(1.0e5, 1.0e5 + 128.0), (4.0, 8), (0.5, 1)),
    ];
    for (seed, n, bounds, a, b) in cases {
        let case = Case::cloud(seed, n, bounds, bounds.min.x, bounds.max.x, a, b);
        let (_, stats) = assert_kd_matches_brute(&case);
        assert!(stats.neighbours > n, "seed {seed}: too few neighbours to test: {stats:?}");
        assert!(stats.truncated > n / 20, "seed {seed}: the caps never bit: {stats:?}");
        assert!(stats.across_seam > 10, "seed {seed}: no pairs across the seam: {stats:?}");
    }
}

#[test]
fn random_clouds_of_many_seeds_give_identical_lists() {
    // Parameters drawn per seed: agent count, world size, bounds kind, and each group's radius
    // and cap (caps from 1 to 256, so some truncate nearly every list and some never do).
    let mut truncated = 0;
    for seed in 100..110u64 {
        let mut rand = Rand(seed);
        let n = 1500 + rand.below(2500);
        let side = 20.0 + rand.range(0.0, 300.0);
        let lo = rand.range(-1000.0, 1000.0).round();
        let wrapped = rand.below(2) == 0;
        let bounds = if wrapped { wrap(lo, lo + side) } else { open(lo, lo + side) };
        // Mean neighbours within radius r: n * π r² / side²; aim for 1 to 40.
        let radius =
            |rand: &mut Rand| side * (rand.range(1.0, 40.0) / (n as f32 * std::f32::consts::PI)).sqrt();
        let caps = [1, 2, 5, 12, 32, 256];
        let a = (radius(&mut rand), caps[rand.below(caps.len())]);
        let b = (radius(&mut rand), caps[rand.below(caps.len())]);
        let case = Case::cloud(seed, n, bounds, lo, lo + side, a, b);
        let (_, stats) = assert_kd_matches_brute(&case);
        assert!(stats.neighbours > n / 2, "seed {seed}: {stats:?}");
        assert_eq!(stats.across_seam > 0, wrapped, "seed {seed}: {stats:?}");
        truncated += stats.truncated;
    }
    assert!(truncated > 1000, "the caps hardly ever cut a list: {truncated}");
}

#[test]
fn brute_force_matches_a_naive_all_pairs_computation() {
    let cases = [
        Case::cloud(21, 2500, open(0.0, 100.0), -20.0, 120.0, (4.0, 6), (9.0, 40)),
        Case::cloud(22, 2500, wrap(-50.0, 50.0), -50.0, 50.0, (4.0, 6), (9.0, 40)),
    ];
    for case in &cases {
        let brute = neighbour_lists(IndexKind::Brute, case);
        let naive = naive_lists(case);
        let mut capped = 0;
        for (i, (b, n)) in brute.iter().zip(&naive).enumerate() {
            assert_eq!(b, n, "row {i}: brute (left) and the naive oracle (right) differ");
            capped += usize::from(b.len() == 6 && case.group[i] == 0);
        }
        assert!(capped > 100, "the cap of 6 was reached only {capped} times");
        assert_kd_matches_brute(case);
    }
}

#[test]
fn lattice_ties_are_broken_by_id() {
    // A 25 x 25 integer lattice, shuffled so that id order is unrelated to position. With
    // radius 2, an interior agent has 4 neighbours at d² = 1, 4 at d² = 2 and 4 at d² = 4
    // (the boundary is inclusive); a cap of 6 keeps the 4 nearest and the 2 diagonal ones with
    // the lowest ids.
    let mut rand = Rand(31);
    let mut positions: Vec<Vec2> =
        (0..25).flat_map(|x| (0..25).map(move |y| Vec2::new(x as f32, y as f32))).collect();
    rand.shuffle(&mut positions);
    let case = Case::one_group(open(0.0, 25.0), 2.0, 6, positions.clone());
    let (lists, _) = assert_kd_matches_brute(&case);
    assert_eq!(lists, naive_lists(&case));

    let row_at =
        |x: f32, y: f32| positions.iter().position(|&p| p == Vec2::new(x, y)).expect("on the lattice");
    for (cx, cy) in [(10.0, 10.0), (3.0, 17.0), (20.0, 2.0)] {
        let me = row_at(cx, cy);
        let list = &lists[me];
        let d_sq: Vec<f32> = list.iter().map(|&(_, d)| f32::from_bits(d)).collect();
        assert_eq!(d_sq, [1.0, 1.0, 1.0, 1.0, 2.0, 2.0]);
        let mut axial: Vec<usize> = [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]
            .iter()
            .map(|(dx, dy)| row_at(cx + dx, cy + dy))
            .collect();
        axial.sort_by_key(|&r| case.ids[r]);
        let mut diagonal: Vec<usize> = [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
            .iter()
            .map(|(dx, dy)| row_at(cx + dx, cy + dy))
            .collect();
        diagonal.sort_by_key(|&r| case.ids[r]);
        let rows: Vec<usize> = list.iter().map(|&(r, _)| r as usize).collect();
        assert_eq!(rows[..4], axial[..], "the d² = 1 ring, by id");
        assert_eq!(rows[4..], diagonal[..2], "the two lowest-id diagonals");
    }
}

#[test]
fn lattice_ties_across_a_wrapped_seam_give_every_agent_the_same_ring() {
    // A 20 x 20 lattice filling a wrapped [0, 20)² world: every agent sees the same ring,
    // across the seam or not: 4 at d² = 1, 4 at d² = 2, then 2 of the 4 at d² = 4 (by id).
    let mut rand = Rand(32);
    let mut positions: Vec<Vec2> =
        (0..20).flat_map(|x| (0..20).map(move |y| Vec2::new(x as f32, y as f32))).collect();
    rand.shuffle(&mut positions);
    let case = Case::one_group(wrap(0.0, 20.0), 2.0, 10, positions);
    let (lists, stats) = assert_kd_matches_brute(&case);
    assert_eq!(lists, naive_lists(&case));
    for (i, list) in lists.iter().enumerate() {
        let d_sq: Vec<f32> = list.iter().map(|&(_, d)| f32::from_bits(d)).collect();
        assert_eq!(
            d_sq,
            [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 4.0, 4.0],
            "row {i} at {}",
            case.positions[i]
        );
    }
    assert!(stats.across_seam > 100, "{stats:?}");
}

#[test]
fn near_ties_on_an_inexact_lattice_agree_bit_for_bit() {
    // Spacing 0.1 is not exact in binary: distances that are equal on paper differ in the
    // last bits. Both backends must still agree bit for bit.
    let positions: Vec<Vec2> =
        (0..40).flat_map(|x| (0..40).map(move |y| Vec2::new(x as f32 * 0.1, y as f32 * 0.1))).collect();
    for bounds in [open(0.0, 4.0), wrap(0.0, 4.0)] {
        let case = Case::one_group(bounds, 0.2, 7, positions.clone());
        let (lists, _) = assert_kd_matches_brute(&case);
        assert_eq!(lists, naive_lists(&case));
    }
}

#[test]
fn many_agents_on_one_point_list_each_other_first_by_id() {
    // 48 agents on (5, 5) (more than a k-d leaf holds), plus 30 scattered around it.
    let mut rand = Rand(41);
    let on_point = 48;
    let mut positions = vec![Vec2::new(5.0, 5.0); on_point];
    positions.extend((0..30).map(|_| Vec2::new(rand.range(3.0, 7.0), rand.range(3.0, 7.0))));
    rand.shuffle(&mut positions);
    let stacked: Vec<usize> = (0..positions.len()).filter(|&r| positions[r] == Vec2::new(5.0, 5.0)).collect();
    assert_eq!(stacked.len(), on_point);

    for bounds in [open(0.0, 10.0), wrap(0.0, 10.0)] {
        // Cap 16: an agent on the point keeps the 16 lowest-id others on it, all at d² = +0.
        let case = Case::one_group(bounds, 1.0, 16, positions.clone());
        let (lists, _) = assert_kd_matches_brute(&case);
        for &me in &stacked {
            let expected: List =
                stacked.iter().filter(|&&r| r != me).take(16).map(|&r| (r as u32, 0)).collect();
            assert_eq!(lists[me], expected, "row {me}");
        }
        // Cap 64: all 47 others on the point come first, then the scattered ones in range.
        let case = Case::one_group(bounds, 1.0, 64, positions.clone());
        let (lists, _) = assert_kd_matches_brute(&case);
        assert_eq!(lists, naive_lists(&case));
        for &me in &stacked {
            let first: List = stacked.iter().filter(|&&r| r != me).map(|&r| (r as u32, 0)).collect();
            assert_eq!(lists[me][..on_point - 1], first[..], "row {me}");
        }
    }
}

#[test]
fn agents_on_a_line_give_identical_lists() {
    // 400 agents sharing y (and then sharing x), with repeated coordinates along the line.
    let mut rand = Rand(51);
    let along: Vec<f32> = (0..400).map(|_| (rand.range(0.0, 60.0) * 4.0).round() / 4.0).collect();
    for (horizontal, bounds) in [(true, open(0.0, 60.0)), (false, open(0.0, 60.0)), (true, wrap(0.0, 60.0))] {
        let positions: Vec<Vec2> = along
            .iter()
            .map(|&t| if horizontal { Vec2::new(t.min(59.75), 7.25) } else { Vec2::new(7.25, t.min(59.75)) })
            .collect();
        let case = Case::one_group(bounds, 1.3, 12, positions);
        let (lists, stats) = assert_kd_matches_brute(&case);
        assert_eq!(lists, naive_lists(&case));
        assert!(stats.truncated > 100, "{stats:?}");
    }
}

#[test]
fn neighbours_across_a_wrapped_seam_use_the_minimum_image() {
    // World [-50, 50)², radius 1. By hand (minimum image):
    // 0 (-49.75, 0) and 1 (49.5, 0): dx = 99.25 - 100 = -0.75, d² = 0.5625.
    // 2 (-49.75, -49.75) and 3 (49.75, 49.75): dx = dy = 99.5 - 100 = -0.5, d² = 0.5.
    // 4 (0, 49.5) and 5 (0, -49.75): dy = -99.25 + 100 = 0.75, d² = 0.5625.
    // 6 (10, 10) and 7 (11.5, 10): d² = 2.25 > 1, no neighbours.
    let positions = vec![
        Vec2::new(-49.75, 0.0),
        Vec2::new(49.5, 0.0),
        Vec2::new(-49.75, -49.75),
        Vec2::new(49.75, 49.75),
        Vec2::new(0.0, 49.5),
        Vec2::new(0.0, -49.75),
        Vec2::new(10.0, 10.0),
        Vec2::new(11.5, 10.0),
    ];
    let case = Case::one_group(wrap(-50.0, 50.0), 1.0, 8, positions.clone());
    let (lists, stats) = assert_kd_matches_brute(&case);
    let d = |x: f32| x.to_bits();
    let expected: Vec<List> = vec![
        vec![(1, d(0.5625))],
        vec![(0, d(0.5625))],
        vec![(3, d(0.5))],
        vec![(2, d(0.5))],
        vec![(5, d(0.5625))],
        vec![(4, d(0.5625))],
        vec![],
        vec![],
    ];
    assert_eq!(lists, expected);
    assert_eq!(stats.across_seam, 6);

    // The same agents in an open world are all far apart.
    let case = Case::one_group(open(-50.0, 50.0), 1.0, 8, positions);
    let (lists, _) = assert_kd_matches_brute(&case);
    assert!(lists.iter().all(|l| l.is_empty()), "{lists:?}");
}

#[test]
fn boundary_pairs_across_a_far_seam_survive_rounded_images() {
    // World [131040, 131104)² straddles 2^17, where the f32 spacing doubles from 2^-7 to 2^-6,
    // so the k-d search's shifted image `p + 64` of a point just above the low edge rounds by
    // up to 2^-7. Radius r = 2 + 2^-7. Pair k: p = (lo + a, y), a = (2k + 1) * 2^-7, and
    // q = (hi - b, y), b = r - a = 2 - k / 64; all exact in f32. By hand: the minimum image
    // offset from p to q is (q - p) - 64 = -(a + b) = -r exactly, so d² = r * r, on the
    // (inclusive) boundary. Half of the images `hi + a` round up, 2^-7 beyond r: only the
    // index's slack for rounded images keeps those pairs. Rows 2k = p, 2k + 1 = q.
    let (lo, hi) = (131_040.0f32, 131_104.0f32);
    let r = 2.0 + 1.0 / 128.0;
    let mut positions = Vec::new();
    for k in 0..24 {
        let a = (2 * k + 1) as f32 / 128.0;
        let b = 2.0 - k as f32 / 64.0;
        let y = lo + 3.0 + 2.5 * k as f32;
        positions.push(Vec2::new(lo + a, y));
        positions.push(Vec2::new(hi - b, y));
        assert_eq!((hi - b) - (lo + a) - 64.0, -r, "pair {k} is not exact");
    }
    let case = Case::one_group(wrap(lo, hi), r, 4, positions);
    let (lists, stats) = assert_kd_matches_brute(&case);
    let d_sq = (r * r).to_bits();
    for (row, list) in lists.iter().enumerate() {
        assert_eq!(list, &vec![((row ^ 1) as u32, d_sq)], "row {row}");
    }
    assert_eq!(stats.across_seam, 48);
}

#[test]
fn dense_bands_along_both_seams_give_identical_lists() {
    // Points crowded within 2 units of the edges of a wrapped world (and its corners), where
    // nearly every neighbour is found through a shifted image.
    let mut rand = Rand(61);
    let bounds = wrap(-30.0, 30.0);
    let mut positions = Vec::new();
    for _ in 0..2000 {
        let edge = |r: &mut Rand| if r.below(2) == 0 { r.range(-30.0, -28.0) } else { r.range(28.0, 30.0) };
        let p = match rand.below(3) {
            0 => Vec2::new(edge(&mut rand), rand.range(-30.0, 30.0)),
            1 => Vec2::new(rand.range(-30.0, 30.0), edge(&mut rand)),
            _ => Vec2::new(edge(&mut rand), edge(&mut rand)),
        };
        positions.push(p);
    }
    let n = positions.len();
    let groups = vec![group("a", 1.5, 10), group("b", 3.0, 100)];
    let case = Case::new(bounds, groups, positions, (0..n).map(|i| (i % 2) as u16).collect());
    let (lists, stats) = assert_kd_matches_brute(&case);
    assert_eq!(lists, naive_lists(&case));
    assert!(stats.across_seam > n, "{stats:?}");
}

#[test]
fn zero_radius_and_zero_cap_give_empty_lists() {
    let mut rand = Rand(71);
    let positions: Vec<Vec2> =
        (0..200).map(|_| Vec2::new(rand.range(0.0, 5.0), rand.range(0.0, 5.0))).collect();
    let groups = vec![group("no-radius", 0.0, 8), group("no-cap", 3.0, 0), group("some", 1.0, 4)];
    let case = Case::new(open(0.0, 5.0), groups, positions, (0..200).map(|i| (i % 3) as u16).collect());
    let (lists, stats) = assert_kd_matches_brute(&case);
    for (i, list) in lists.iter().enumerate() {
        assert_eq!(list.is_empty(), case.group[i] != 2, "row {i}");
    }
    assert!(stats.neighbours > 0);
}

#[test]
fn a_short_first_reach_gives_the_same_lists_as_the_whole_radius() {
    // Dense clouds where most lists are full: the reach `index::short_reach` picks from the
    // lists themselves, and reaches far too short (every row falls back to its whole radius)
    // or just short (some do), all give the brute-force lists bit for bit.
    for seed in 0..6 {
        let bounds = if seed % 2 == 0 { open(0.0, 40.0) } else { wrap(0.0, 40.0) };
        let case = Case::cloud(seed, 1500, bounds, 0.0, 40.0, (6.0, 10), (3.0, 4));
        let brute = neighbour_lists(IndexKind::Brute, &case);
        let (ordered, order) = spatially_ordered(&case);
        let mut picked = Vec::new();
        let mut lists = Neighbours::default();
        let mut index = SpatialIndex::new(IndexKind::Kd);
        let targeted = vec![false; ordered.groups.len()];
        index.build_with_cell(
            &ordered.bounds,
            &ordered.positions,
            &ordered.ids,
            &ordered.group,
            &targeted,
            6.0,
        );
        index::sense_neighbours(&index, &ordered.input(), index::FirstReach::default(), &mut lists);
        index::short_reach(&ordered.groups, &ordered.group, &lists, &mut picked);
        assert!(picked[0] > 0.0 && picked[0] < 6.0, "seed {seed}: a short reach is picked: {picked:?}");
        let mut own = Vec::new();
        index::row_reach(&ordered.groups, &ordered.group, &lists, &mut own);
        let full = own.iter().filter(|&&r| r > 0.0).count();
        assert!(full > 500, "seed {seed}: most rows have a reach of their own: {full}");
        // Each row's last neighbour is within its own reach (1.1 × its distance).
        for (i, &r) in own.iter().enumerate() {
            let (rows, dist_sq) = lists.of(i);
            if r > 0.0 {
                assert!(dist_sq[rows.len() - 1] < r * r && r < 6.0 * 1.1, "seed {seed}, row {i}");
            }
        }
        // Rows' own reaches, then far too short for every other row, then short of the last
        // neighbour for every row (each falls back to the whole radius), and only the first
        // half of the rows with one.
        let tiny: Vec<f32> = (0..own.len()).map(|i| if i % 2 == 0 { 0.5 } else { own[i] }).collect();
        let short: Vec<f32> = own.iter().map(|r| r * 0.85).collect();
        let rows = [&[][..], &own[..], &tiny[..], &short[..], &own[..own.len() / 2]];
        let groups = [picked.clone(), vec![0.5, 0.5], vec![picked[0] * 0.8, picked[1] * 0.8]];
        for (group, row) in groups.iter().flat_map(|g| rows.iter().map(move |r| (g, *r))) {
            let reach = index::FirstReach { group, row };
            // The grid's blocks of cells use the short reach the same way as the k-d clusters.
            for kind in [IndexKind::Kd, IndexKind::Grid] {
                let got = neighbour_lists_reaching(kind, &ordered, reach);
                for (k, list) in got.into_iter().enumerate() {
                    let list: List =
                        list.into_iter().map(|(row, d)| (order[row as usize] as u32, d)).collect();
                    assert_eq!(
                        list,
                        brute[order[k]],
                        "{kind}, seed {seed}, reach {group:?}, {} own, row {}",
                        row.len(),
                        order[k]
                    );
                }
            }
        }
    }
}

#[test]
fn wrapped_worlds_a_few_cells_wide_give_identical_lists() {
    // The grid shares a block of cells among the rows of one cell. On a wrapped world of 2 to
    // 8 cells a side the block crosses seams, fills the world, or would hold a cell twice
    // (then each row queries alone); every case gives the brute-force lists, with the rows in
    // spatial order (long runs of rows in one cell) and not.
    for (seed, cells) in (2..=8).enumerate() {
        let side = 4.0 * cells as f32 + 0.5;
        let case = Case::cloud(40 + seed as u64, 600, wrap(0.0, side), 0.0, side, (4.0, 12), (1.5, 64));
        let (_, stats) = assert_kd_matches_brute(&case);
        assert!(stats.across_seam > 0, "{cells} cells: no pair across a seam: {stats:?}");
        assert!(stats.truncated > 0, "{cells} cells: the caps never bit: {stats:?}");
    }
}

#[test]
fn grid_cells_are_as_wide_as_the_widest_reach_sensing_asks() {
    // Groups that sense (radius 3 and 2) and one that does not (radius 9, no neighbours).
    let groups = [group("a", 3.0, 10), group("b", 2.0, 4), group("c", 9.0, 0)];
    let mut cache = index::SensingCache::<Vec2>::default();
    assert_eq!(cache.widest_reach(&groups), 3.0, "no skin: the largest radius of a group that senses");
    cache.short_reach = vec![2.5, 0.0, 0.0];
    assert_eq!(cache.widest_reach(&groups), 3.0, "a short reach does not narrow the cells");
    cache.set_skin(0.5);
    assert_eq!(cache.widest_reach(&groups), 3.5, "with a skin: radius plus skin");
    assert_eq!(cache.widest_reach(&[group("c", 9.0, 0)]), 1e-3, "nobody senses: the smallest cell");
}
