//! Oracle tests in space: the index over three coordinates (k-d tree, exact grid, brute force)
//! against a naive all-pairs computation written here, on random clouds in open and wrapped
//! boxes (with rows in spatial order, so the k-d backend shares queries among clusters),
//! ties on a lattice, many agents on one point, pairs across a wrapped seam in every axis,
//! nearest-of-group, and lists taken from reused candidates.

use throng_engine::index::{self, CandidateLists, IndexKind, Neighbours, SpatialIndex};
use throng_engine::math::Vec3;
use throng_engine::world::{Bounds, BoundsKind, Group};

use super::neighbours::group;
use crate::common::Rand;

/// Everything the neighbour pass reads, in space.
struct Case {
    bounds: Bounds<Vec3>,
    groups: Vec<Group>,
    positions: Vec<Vec3>,
    /// 3 · row + 7: ascending with the row, never equal to it.
    ids: Vec<u32>,
    group: Vec<u16>,
}

fn boxed(kind: BoundsKind, min: f32, max: f32) -> Bounds<Vec3> {
    Bounds { kind, min: Vec3::splat(min), max: Vec3::splat(max) }
}

impl Case {
    /// What sensing reads of the case.
    fn input(&self) -> index::SenseInput<'_, Vec3> {
        index::SenseInput {
            bounds: &self.bounds,
            groups: &self.groups,
            position: &self.positions,
            id: &self.ids,
            group: &self.group,
        }
    }

    fn new(bounds: Bounds<Vec3>, groups: Vec<Group>, positions: Vec<Vec3>, group: Vec<u16>) -> Case {
        let ids = (0..positions.len() as u32).map(|r| 3 * r + 7).collect();
        Case { bounds, groups, positions, ids, group }
    }

    /// A random cloud of `n` points in `[lo, hi)³` in two groups, rows in Morton order.
    fn cloud(
        seed: u64,
        n: usize,
        bounds: Bounds<Vec3>,
        lo: f32,
        hi: f32,
        g0: (f32, u32),
        g1: (f32, u32),
    ) -> Case {
        let mut rand = Rand(seed);
        let mut positions: Vec<Vec3> =
            (0..n).map(|_| Vec3::new(rand.range(lo, hi), rand.range(lo, hi), rand.range(lo, hi))).collect();
        // Morton order of a 256³ lattice: consecutive rows are close, as after `reorder`.
        let spread = |v: u32| (0..8).fold(0u64, |acc, b| acc | (((v as u64 >> b) & 1) << (3 * b)));
        let code = |p: Vec3| {
            let c = ((p - Vec3::splat(lo)) / (hi - lo) * 255.0).clamp(Vec3::ZERO, Vec3::splat(255.0));
            spread(c.x as u32) | (spread(c.y as u32) << 1) | (spread(c.z as u32) << 2)
        };
        positions.sort_by_key(|&p| code(p));
        let membership = (0..n).map(|_| u16::from(rand.below(3) == 0)).collect();
        Case::new(bounds, vec![group("a", g0.0, g0.1), group("b", g1.0, g1.1)], positions, membership)
    }

    fn cell(&self) -> f32 {
        self.groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max).max(1e-3)
    }

    fn index(&self, kind: IndexKind, targeted: &[bool]) -> SpatialIndex<Vec3> {
        let mut index = SpatialIndex::new(kind);
        index.build_with_cell(&self.bounds, &self.positions, &self.ids, &self.group, targeted, self.cell());
        index
    }
}

/// One list: (row, distance² bits, offset bits), nearest first.
type List = Vec<(u32, u32, [u32; 3])>;

fn lists_of(out: &Neighbours<Vec3>, n: usize) -> Vec<List> {
    (0..n)
        .map(|i| {
            let (rows, dist_sq) = out.of(i);
            let offsets = out.offsets(i);
            rows.iter()
                .zip(dist_sq)
                .zip(offsets)
                .map(|((&r, &d), o)| (r, d.to_bits(), o.to_array().map(f32::to_bits)))
                .collect()
        })
        .collect()
}

fn sensed(kind: IndexKind, case: &Case) -> Vec<List> {
    let index = case.index(kind, &vec![false; case.groups.len()]);
    let mut out = Neighbours::default();
    index::sense_neighbours(&index, &case.input(), index::FirstReach::default(), &mut out);
    lists_of(&out, case.positions.len())
}

/// The minimum image of `q − p` in `bounds`, axis by axis, written out.
fn naive_offset(bounds: &Bounds<Vec3>, p: Vec3, q: Vec3) -> Vec3 {
    let size = bounds.max - bounds.min;
    let image = |d: f32, size: f32| match bounds.kind {
        BoundsKind::Open => d,
        BoundsKind::Wrap if d > size / 2.0 => d - size,
        BoundsKind::Wrap if d < -size / 2.0 => d + size,
        BoundsKind::Wrap => d,
    };
    Vec3::new(image(q.x - p.x, size.x), image(q.y - p.y, size.y), image(q.z - p.z, size.z))
}

/// Every other agent within the group's radius, sorted by (distance², id), capped.
fn naive(case: &Case) -> Vec<List> {
    (0..case.positions.len())
        .map(|i| {
            let g = &case.groups[case.group[i] as usize];
            let p = case.positions[i];
            let mut found: Vec<(f32, u32, u32, Vec3)> = Vec::new();
            for (j, &q) in case.positions.iter().enumerate() {
                let o = naive_offset(&case.bounds, p, q);
                let d_sq = o.x * o.x + o.y * o.y + o.z * o.z;
                if j != i && d_sq <= g.sensing_radius * g.sensing_radius {
                    found.push((d_sq, case.ids[j], j as u32, o));
                }
            }
            found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            found.truncate(g.max_neighbours as usize);
            found.into_iter().map(|(d, _, j, o)| (j, d.to_bits(), o.to_array().map(f32::to_bits))).collect()
        })
        .collect()
}

/// Every backend gives the naive lists; returns them with how many were cut by the cap.
fn assert_backends_match(case: &Case) -> (Vec<List>, usize) {
    let expected = naive(case);
    for kind in [IndexKind::Kd, IndexKind::Grid, IndexKind::Brute] {
        assert!(sensed(kind, case) == expected, "{kind} differs from the naive lists");
    }
    let cut = (0..case.positions.len())
        .filter(|&i| expected[i].len() == case.groups[case.group[i] as usize].max_neighbours as usize)
        .count();
    (expected, cut)
}

#[test]
fn random_clouds_in_open_and_wrapped_boxes_give_the_naive_lists() {
    for (seed, kind) in [(1, BoundsKind::Open), (2, BoundsKind::Wrap), (3, BoundsKind::Wrap)] {
        let case = Case::cloud(seed, 1500, boxed(kind, 0.0, 20.0), 0.0, 20.0, (2.5, 12), (1.5, 40));
        let (lists, cut) = assert_backends_match(&case);
        let found: usize = lists.iter().map(Vec::len).sum();
        assert!(found > 10_000 && cut > 300, "the case tests little: {found} neighbours, {cut} capped");
        if kind == BoundsKind::Wrap {
            let across = (0..lists.len())
                .flat_map(|i| lists[i].iter().map(move |&(j, ..)| (i, j as usize)))
                .filter(|&(i, j)| (case.positions[j] - case.positions[i]).abs().max_element() > 10.0)
                .count();
            assert!(across > 100, "few pairs across the seams: {across}");
        }
    }
}

#[test]
fn lattice_ties_are_broken_by_id_and_stacked_agents_list_each_other_first() {
    // A 6³ lattice of spacing 1: each inner point has 6 neighbours at d² = 1, 12 at 2, 8 at 3;
    // cap 10 keeps the 6 faces and the 4 lowest-id edges.
    let mut positions: Vec<Vec3> = Vec::new();
    for x in 0..6 {
        for y in 0..6 {
            for z in 0..6 {
                positions.push(Vec3::new(x as f32, y as f32, z as f32));
            }
        }
    }
    // 40 agents on one point (more than a k-d leaf holds half of).
    positions.extend(std::iter::repeat_n(Vec3::new(2.5, 2.5, 2.5), 40));
    let n = positions.len();
    for kind in [BoundsKind::Open, BoundsKind::Wrap] {
        let case =
            Case::new(boxed(kind, 0.0, 6.0), vec![group("g", 1.75, 10)], positions.clone(), vec![0; n]);
        let (lists, _) = assert_backends_match(&case);
        // (4, 4, 4): away from the stack (d² = 6.75 from it).
        let inner = (4 * 6 + 4) * 6 + 4;
        let ones = lists[inner].iter().filter(|e| f32::from_bits(e.1) == 1.0).count();
        assert_eq!(ones, 6, "{:?}", lists[inner]);
        assert_eq!(lists[inner].len(), 10);
        // A stacked agent lists the other stacked ones first (d² = 0), lowest ids first.
        let first = 216;
        let expected: Vec<u32> = (first + 1..first + 11).map(|r| r as u32).collect();
        assert_eq!(lists[first].iter().map(|e| e.0).collect::<Vec<_>>(), expected);
    }
}

#[test]
fn pairs_across_every_seam_of_a_wrapped_box_use_the_minimum_image() {
    // Box [−10, 10)³, radius 1. By hand: (−9.75, 0, 0) and (9.5, 0, 0) are 0.75 apart across
    // x; (0, 0, −9.75) and (0, 0, 9.75) are 0.5 apart across z; (−9.75, −9.75, −9.75) and
    // (9.75, 9.75, 9.75) are √(3 · 0.25) across the corner (d² = 0.75).
    let positions = vec![
        Vec3::new(-9.75, 0.0, 0.0),
        Vec3::new(9.5, 0.0, 0.0),
        Vec3::new(0.0, 0.0, -9.75),
        Vec3::new(0.0, 0.0, 9.75),
        Vec3::splat(-9.75),
        Vec3::splat(9.75),
    ];
    let case =
        Case::new(boxed(BoundsKind::Wrap, -10.0, 10.0), vec![group("g", 1.0, 8)], positions, vec![0; 6]);
    let (lists, _) = assert_backends_match(&case);
    let d = |x: f32| x.to_bits();
    assert_eq!(lists[0].iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), [(1, d(0.5625))]);
    assert_eq!(lists[2].iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), [(3, d(0.25))]);
    assert_eq!(lists[4].iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(), [(5, d(0.75))]);
    assert_eq!(lists[4][0].2, [-0.5f32, -0.5, -0.5].map(f32::to_bits));
}

#[test]
fn nearest_of_group_in_space_agrees_with_the_naive_answer() {
    for (seed, kind) in [(11, BoundsKind::Open), (12, BoundsKind::Wrap)] {
        let case = Case::cloud(seed, 400, boxed(kind, 0.0, 30.0), 0.0, 30.0, (2.0, 8), (2.0, 8));
        let targeted = [true, true];
        let kd = case.index(IndexKind::Kd, &targeted);
        let brute = case.index(IndexKind::Brute, &targeted);
        let mut rand = Rand(seed + 100);
        for _ in 0..200 {
            let p = Vec3::new(rand.range(0.0, 30.0), rand.range(0.0, 30.0), rand.range(0.0, 30.0));
            for g in [0u16, 1] {
                let naive = (0..case.positions.len()).filter(|&r| case.group[r] == g).min_by(|&a, &b| {
                    let da = naive_offset(&case.bounds, p, case.positions[a]).length_squared();
                    let db = naive_offset(&case.bounds, p, case.positions[b]).length_squared();
                    da.total_cmp(&db).then(case.ids[a].cmp(&case.ids[b]))
                });
                assert_eq!(kd.nearest_of_group(g, p, &case.positions, &case.ids), naive, "kd at {p}");
                assert_eq!(brute.nearest_of_group(g, p, &case.positions, &case.ids), naive, "brute at {p}");
            }
        }
    }
}

#[test]
fn lists_from_reused_candidates_are_the_lists_sensed_afresh() {
    // Candidates found with a skin of 0.5; every agent then moves, over four ticks, less than
    // 0.45 × skin in all, and the lists filtered from the old candidates equal the lists
    // sensed at the new positions after each step: with candidates kept in order (small
    // steps leave a few out of place, the large one many) and as found.
    for (seed, kind) in [(21, BoundsKind::Open), (22, BoundsKind::Wrap)] {
        for ordered in [false, true] {
            let mut case = Case::cloud(seed, 1200, boxed(kind, 0.0, 16.0), 0.0, 16.0, (2.0, 10), (1.2, 30));
            let index = case.index(IndexKind::Kd, &[false, false]);
            let (mut candidates, mut lists) = (CandidateLists::default(), Neighbours::default());
            candidates.ordered = ordered;
            let skin = 0.5;
            index::sense_candidates(&index, &case.input(), skin, &mut candidates, &mut lists);
            assert!(
                lists_of(&lists, case.positions.len()) == naive(&case),
                "lists found with the candidates"
            );
            let mut rand = Rand(seed + 7);
            for step in [0.005, 0.005, 0.15, 0.02] {
                for p in &mut case.positions {
                    let d = Vec3::new(rand.range(-1.0, 1.0), rand.range(-1.0, 1.0), rand.range(-1.0, 1.0));
                    *p = case.bounds.wrap(*p + d * (step / 3f32.sqrt()));
                }
                let mut reused = Neighbours::default();
                index::neighbours_from_candidates(
                    &case.input(),
                    &mut candidates,
                    skin,
                    (&[], &[]),
                    &mut reused,
                );
                let want = naive(&case);
                assert!(
                    lists_of(&reused, case.positions.len()) == want,
                    "lists from reused candidates (ordered {ordered}, step {step})"
                );
            }
        }
    }
}
