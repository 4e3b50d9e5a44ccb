//! Oracle tests of `nearest_of_group`: the k-d index and brute force give the same agent, and
//! brute force the one a naive scan finds, on random open and wrapped clouds, a sparse group in
//! a crowd, lattice ties (broken by id, also across a wrapped seam), many members on one point
//! and an empty group.

use throng_engine::index::{IndexKind, SpatialIndex};
use throng_engine::math::Vec2;
use throng_engine::world::{BoundsKind, Group};

use super::neighbours::{Case, group, open, wrap};
use crate::common::Rand;

/// kd and brute `nearest_of_group` for `g` at `p`, checked equal, plus the naive answer.
#[track_caller]
fn nearest_both(case: &Case, targeted: &[bool], g: u16, queries: &[Vec2]) -> Vec<Option<usize>> {
    let mut kd = SpatialIndex::new(IndexKind::Kd);
    kd.build(&case.bounds, &case.positions, &case.group, targeted);
    let mut brute = SpatialIndex::new(IndexKind::Brute);
    brute.build(&case.bounds, &case.positions, &case.group, targeted);
    queries
        .iter()
        .map(|&p| {
            let a = kd.nearest_of_group(g, p, &case.positions, &case.ids);
            let b = brute.nearest_of_group(g, p, &case.positions, &case.ids);
            assert_eq!(a, b, "nearest of group {g} to {p}: k-d (left) and brute (right) differ");
            assert_eq!(b, naive_nearest(case, g, p), "nearest of group {g} to {p}: brute vs naive");
            b
        })
        .collect()
}

fn naive_nearest(case: &Case, g: u16, p: Vec2) -> Option<usize> {
    (0..case.positions.len())
        .filter(|&r| case.group[r] == g)
        .map(|r| (case.bounds.offset(p, case.positions[r]).length_squared(), case.ids[r], r))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, _, r)| r)
}

#[test]
fn nearest_of_group_agrees_on_random_open_and_wrapped_clouds() {
    for (seed, bounds) in [(81, open(0.0, 200.0)), (82, wrap(0.0, 200.0)), (83, wrap(-1e4, -1e4 + 64.0))] {
        let (lo, hi) = (bounds.min.x, bounds.max.x);
        let case = Case::cloud(seed, 3000, bounds, lo, hi, (1.0, 1), (1.0, 1));
        let mut rand = Rand(seed + 100);
        // Queries: random points (outside the bounds too when open), and the members themselves.
        let mut queries: Vec<Vec2> = (0..1500)
            .map(|_| {
                let (a, b) = if bounds.kind == BoundsKind::Open { (lo - 50.0, hi + 50.0) } else { (lo, hi) };
                Vec2::new(rand.range(a, b), rand.range(a, b))
            })
            .collect();
        queries.extend(case.positions.iter().step_by(7));
        for g in [0, 1] {
            let found = nearest_both(&case, &[true, true], g, &queries);
            assert!(found.iter().all(Option::is_some));
        }
    }
}

#[test]
fn nearest_of_a_sparse_group_in_a_crowd_is_found() {
    // Group 1 has 5 members among 3000 agents of group 0: the first guess of the k-d search is
    // far, and must still find the true nearest.
    let mut rand = Rand(91);
    let bounds = wrap(0.0, 500.0);
    let positions: Vec<Vec2> =
        (0..3000).map(|_| Vec2::new(rand.range(0.0, 500.0), rand.range(0.0, 500.0))).collect();
    let membership: Vec<u16> = (0..3000).map(|i| u16::from(i % 600 == 17)).collect();
    let case = Case::new(bounds, vec![group_of("crowd"), group_of("few")], positions, membership);
    let queries: Vec<Vec2> =
        (0..2000).map(|_| Vec2::new(rand.range(0.0, 500.0), rand.range(0.0, 500.0))).collect();
    nearest_both(&case, &[false, true], 1, &queries);
}

fn group_of(name: &str) -> Group {
    group(name, 1.0, 4)
}

#[test]
fn nearest_of_group_ties_by_id() {
    // Members on an integer lattice [0, 10)², shuffled ids. A query at a cell centre
    // (x + 0.5, y + 0.5) is at d² = 0.5 from four members: the lowest id wins.
    let mut rand = Rand(101);
    let mut positions: Vec<Vec2> =
        (0..10).flat_map(|x| (0..10).map(move |y| Vec2::new(x as f32, y as f32))).collect();
    rand.shuffle(&mut positions);
    let n = positions.len();
    for bounds in [open(0.0, 10.0), wrap(0.0, 10.0)] {
        let case = Case::new(bounds, vec![group_of("members")], positions.clone(), vec![0; n]);
        let row_at = |x: f32, y: f32| positions.iter().position(|&p| p == Vec2::new(x, y)).expect("lattice");
        let mut queries = Vec::new();
        let mut expected = Vec::new();
        for (cx, cy) in [(2.5, 3.5), (7.5, 0.5), (4.5, 8.5)] {
            queries.push(Vec2::new(cx, cy));
            let corners =
                [(cx - 0.5, cy - 0.5), (cx + 0.5, cy - 0.5), (cx - 0.5, cy + 0.5), (cx + 0.5, cy + 0.5)];
            expected.push(corners.iter().map(|&(x, y)| row_at(x, y)).min_by_key(|&r| case.ids[r]));
        }
        if bounds.kind == BoundsKind::Wrap {
            // (9.5, 9.5) is equidistant from (9, 9), (0, 9), (9, 0) and (0, 0) across the seams.
            queries.push(Vec2::new(9.5, 9.5));
            let corners = [(9.0, 9.0), (0.0, 9.0), (9.0, 0.0), (0.0, 0.0)];
            expected.push(corners.iter().map(|&(x, y)| row_at(x, y)).min_by_key(|&r| case.ids[r]));
        }
        assert_eq!(nearest_both(&case, &[true], 0, &queries), expected, "{:?}", bounds.kind);
    }
}

#[test]
fn nearest_of_group_is_the_lowest_id_on_one_point_and_none_when_empty() {
    // 45 members on one point: the lowest id wins. Group 1 is targeted but has no members.
    let mut positions = vec![Vec2::new(3.0, 3.0); 45];
    positions.push(Vec2::new(8.0, 8.0));
    let membership: Vec<u16> = (0..46).map(|i| if i == 45 { 2 } else { 0 }).collect();
    for bounds in [open(0.0, 10.0), wrap(0.0, 10.0)] {
        let case = Case::new(
            bounds,
            vec![group_of("a"), group_of("b"), group_of("c")],
            positions.clone(),
            membership.clone(),
        );
        let queries = [Vec2::new(3.0, 3.0), Vec2::new(1.0, 9.0), Vec2::new(9.9, 9.9)];
        assert_eq!(nearest_both(&case, &[true, true, true], 0, &queries), [Some(0); 3]);
        assert_eq!(nearest_both(&case, &[true, true, true], 1, &queries), [None; 3]);
        assert_eq!(nearest_both(&case, &[true, true, true], 2, &queries), [Some(45); 3]);
    }
}
