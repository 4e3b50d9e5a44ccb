//! Oracle tests for the obstacle index: `ObstacleIndex::candidates` against brute force over
//! every obstacle. It must propose every obstacle within reach (a superset: the callers' exact
//! tests decide) and none twice, on open and wrapped worlds, for queries near and across the
//! seams, outside the obstacles' extent, with obstacles far larger than a cell or outside the
//! world, and with reaches from zero to more than the world.

use throng_engine::index::ObstacleIndex;
use throng_engine::math::{PI, Vec2, sin_cos};
use throng_engine::world::{Bounds, BoundsKind, Obstacle};

use crate::common::Rand;

fn bounds(kind: BoundsKind, min: Vec2, max: Vec2) -> Bounds {
    Bounds { kind, min, max }
}

/// `n` obstacles in `[lo, hi)²`: circles, rectangles, polygons (star-shaped, so simple, and
/// often concave) and walls (polylines with a thickness, 0 included) of sizes around `size`, a
/// few of them tiny or much larger.
fn scatter(rand: &mut Rand, n: usize, lo: Vec2, hi: Vec2, size: f32) -> Vec<Obstacle> {
    (0..n)
        .map(|_| {
            let c = rand.point(lo, hi);
            let s = match rand.below(10) {
                0 => 0.0,
                1 => size * 20.0,
                _ => rand.range(0.1, 1.0) * size,
            };
            match rand.below(4) {
                0 => Obstacle::Circle { centre: c, radius: s },
                1 => {
                    // Long and thin half of the time: walls along either axis.
                    let aspect = if rand.below(2) == 0 { 1.0 } else { rand.range(0.02, 0.2) };
                    let half =
                        if rand.below(2) == 0 { Vec2::new(s, s * aspect) } else { Vec2::new(s * aspect, s) };
                    Obstacle::Rect { min: c - half, max: c + half + Vec2::splat(1e-3) }
                }
                2 => {
                    let k = 3 + rand.below(6);
                    let vertices = (0..k)
                        .map(|j| {
                            let (sin, cos) = sin_cos(2.0 * PI * (j as f32 + rand.range(0.0, 0.8)) / k as f32);
                            c + Vec2::new(cos, sin) * (s.max(1e-3) * rand.range(0.3, 1.0))
                        })
                        .collect();
                    Obstacle::Polygon { vertices }
                }
                _ => {
                    let k = 2 + rand.below(3);
                    let points =
                        (0..k).map(|j| c + Vec2::new(j as f32 * s.max(1e-3), rand.range(-s, s))).collect();
                    Obstacle::Wall { points, thickness: rand.range(0.0, 0.2) * s }
                }
            }
        })
        .collect()
}

/// Is the obstacle's bounding box within `r` of `p`, by the minimum image on a wrapped world?
fn box_within(b: &Bounds, o: &Obstacle, p: Vec2, r: f32) -> bool {
    let (lo, hi) = o.bounding_box();
    let (centre, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
    let off = b.offset(centre, p).abs();
    let d = (off - half).max(Vec2::ZERO);
    d.length_squared() <= r * r
}

/// What the callers test: is the obstacle itself within `r` of the image of `p` nearest its
/// centre?
fn shape_within(index: &ObstacleIndex, obstacles: &[Obstacle], o: u32, p: Vec2, r: f32) -> bool {
    obstacles[o as usize].signed_distance(index.local(o, p)) <= r
}

#[derive(Default)]
struct Tally {
    queries: usize,
    expected: usize,
    proposed: usize,
}

/// Checks every query against brute force: the proposals hold every obstacle whose shape is
/// within reach, and every one but a wall whose box is, and no obstacle twice.
fn check(b: &Bounds, obstacles: &[Obstacle], queries: &[(Vec2, f32)]) -> Tally {
    let index = ObstacleIndex::build(obstacles, b);
    let mut tally = Tally::default();
    let mut seen = Vec::new();
    for &(p, r) in queries {
        seen.clear();
        index.candidates(p, r, |o| seen.push(o));
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
            panic!("obstacle {} proposed twice for p {p}, r {r} in {b:?}", w[0]);
        }
        for (i, o) in obstacles.iter().enumerate() {
            // A wall is proposed where its shape is within reach (one of its segments' boxes
            // is), any other obstacle wherever its box is.
            let piecewise = matches!(o, Obstacle::Wall { .. });
            let shape = shape_within(&index, obstacles, i as u32, p, r);
            let must = shape || (!piecewise && box_within(b, o, p, r));
            if must && seen.binary_search(&(i as u32)).is_err() {
                panic!("obstacle {i} {o:?} within {r} of {p} in {b:?} was not proposed");
            }
            tally.expected += usize::from(must);
        }
        tally.queries += 1;
        tally.proposed += seen.len();
    }
    tally
}

/// Query points over `[lo, hi)²` with reaches from zero to `max_r`, a fifth of them zero.
fn queries(rand: &mut Rand, n: usize, lo: Vec2, hi: Vec2, max_r: f32) -> Vec<(Vec2, f32)> {
    (0..n)
        .map(|_| {
            let r = if rand.below(5) == 0 { 0.0 } else { rand.range(0.0, 1.0).powi(3) * max_r };
            (rand.point(lo, hi), r)
        })
        .collect()
}

#[test]
fn open_world_random_obstacles_and_queries_beyond_them() {
    let mut rand = Rand(1);
    for case in 0..6 {
        let b = bounds(BoundsKind::Open, Vec2::new(-50.0, -20.0), Vec2::new(50.0, 80.0));
        let size = [0.5, 2.0, 8.0][case % 3];
        let n = [10, 200][case / 3];
        let obstacles = scatter(&mut rand, n, b.min, b.max, size);
        // Queries well beyond the obstacles' extent too, where the grid clamps them.
        let qs = queries(&mut rand, 3000, b.min - Vec2::splat(60.0), b.max + Vec2::splat(60.0), 40.0);
        let t = check(&b, &obstacles, &qs);
        assert!(t.expected > 0 && t.proposed >= t.expected);
    }
}

#[test]
fn wrapped_world_random_obstacles_and_queries_across_the_seams() {
    let mut rand = Rand(2);
    for case in 0..6 {
        let (min, max) =
            [(Vec2::ZERO, Vec2::new(112.0, 112.0)), (Vec2::new(-30.0, 5.0), Vec2::new(40.0, 25.0))][case % 2];
        let b = bounds(BoundsKind::Wrap, min, max);
        let size = [0.5, 2.0, 6.0][case / 2];
        // Obstacles over the seams and partly outside the world.
        let obstacles = scatter(&mut rand, 150, min - Vec2::splat(3.0), max + Vec2::splat(3.0), size);
        let w = b.size();
        let mut qs = queries(&mut rand, 2000, min, max, 0.75 * w.max_element());
        // Within a few units of each seam, on either side of it (as a look-ahead midpoint is).
        for _ in 0..2000 {
            let r = rand.range(0.0, 6.0);
            let mut p = rand.point(min, max);
            if rand.below(2) == 0 {
                p.x = [min.x, max.x][rand.below(2)] + rand.range(-4.0, 4.0);
            }
            if rand.below(2) == 0 {
                p.y = [min.y, max.y][rand.below(2)] + rand.range(-4.0, 4.0);
            }
            qs.push((p, r));
        }
        let t = check(&b, &obstacles, &qs);
        assert!(t.expected > 0 && t.proposed >= t.expected);
    }
}

#[test]
fn wrapped_world_queries_wider_than_the_world_see_each_obstacle_once() {
    let mut rand = Rand(3);
    let b = bounds(BoundsKind::Wrap, Vec2::ZERO, Vec2::new(30.0, 20.0));
    let obstacles = scatter(&mut rand, 60, b.min, b.max, 1.5);
    let qs: Vec<(Vec2, f32)> =
        (0..300).map(|i| (rand.point(b.min, b.max), [14.0, 16.0, 25.0, 1e4][i % 4])).collect();
    let t = check(&b, &obstacles, &qs);
    // Each of these reaches the whole world on at least one axis, most on both.
    assert!(t.expected > 30 * t.queries);
}

#[test]
fn huge_obstacles_and_obstacles_far_outside_are_proposed_within_reach() {
    let mut rand = Rand(4);
    for kind in [BoundsKind::Open, BoundsKind::Wrap] {
        let b = bounds(kind, Vec2::ZERO, Vec2::new(100.0, 100.0));
        let mut obstacles = scatter(&mut rand, 100, b.min, b.max, 1.0);
        obstacles.extend([
            // A ground plane far larger than the world, a wall across it, a wall along a seam.
            Obstacle::Rect { min: Vec2::splat(-1e6), max: Vec2::splat(1e6) },
            Obstacle::Rect { min: Vec2::new(-5.0, 40.0), max: Vec2::new(105.0, 41.0) },
            Obstacle::Rect { min: Vec2::new(99.5, 0.0), max: Vec2::new(100.5, 100.0) },
            // Ten worlds away (an image of a point inside a wrapped world) and far beyond.
            Obstacle::Circle { centre: Vec2::new(1030.0, -970.0), radius: 2.0 },
            Obstacle::Circle { centre: Vec2::new(5e6, 5e6), radius: 1.0 },
            // Zero-size ones on a seam and a corner.
            Obstacle::Circle { centre: Vec2::new(0.0, 50.0), radius: 0.0 },
            Obstacle::Circle { centre: Vec2::ZERO, radius: 0.0 },
        ]);
        let mut qs = queries(&mut rand, 3000, Vec2::splat(-20.0), Vec2::splat(120.0), 30.0);
        qs.extend([
            (Vec2::new(5e6, 5e6 + 2.0), 1.5),
            (Vec2::new(-1e6, 0.0), 5.0),
            (Vec2::new(0.0, 0.0), 0.0),
        ]);
        let t = check(&b, &obstacles, &qs);
        assert!(t.expected > t.queries, "{kind:?}: the plane is within reach of every query inside it");
    }
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let open = bounds(BoundsKind::Open, Vec2::ZERO, Vec2::new(10.0, 10.0));
    let wrap = bounds(BoundsKind::Wrap, Vec2::ZERO, Vec2::new(10.0, 10.0));
    // A sliver of a world, and one far from the origin.
    let sliver = bounds(BoundsKind::Wrap, Vec2::ZERO, Vec2::new(1e-6, 5.0));
    let far = bounds(BoundsKind::Wrap, Vec2::splat(1e7 - 64.0), Vec2::splat(1e7));
    let point = Obstacle::Circle { centre: Vec2::new(3.0, 3.0), radius: 0.0 };
    let mut rand = Rand(5);
    for b in [open, wrap, sliver, far] {
        let qs: Vec<(Vec2, f32)> = (0..200)
            .map(|_| (rand.point(b.min - Vec2::splat(2.0), b.max + Vec2::splat(2.0)), rand.range(0.0, 4.0)))
            .collect();
        check(&b, &[], &qs);
        check(&b, std::slice::from_ref(&point), &qs);
        check(&b, &vec![point.clone(); 20], &qs);
        let near = scatter(&mut rand, 30, b.min, b.max, 0.5);
        check(&b, &near, &qs);
        // Non-finite queries propose what they may but never panic.
        let index = ObstacleIndex::build(&near, &b);
        for p in [Vec2::NAN, Vec2::INFINITY, Vec2::new(f32::NEG_INFINITY, 1.0)] {
            index.candidates(p, 1.0, |_| {});
            index.candidates(Vec2::ONE, f32::INFINITY, |_| {});
            index.candidates(Vec2::ONE, f32::NAN, |_| {});
        }
    }
}

#[test]
fn a_query_far_from_every_obstacle_proposes_none() {
    // The point of the grid: most agents are nowhere near an obstacle.
    let obstacles: Vec<Obstacle> = (0..10)
        .flat_map(|i| (0..10).map(move |j| (i, j)))
        .map(|(i, j)| Obstacle::Circle {
            centre: Vec2::new(11.2 * i as f32 + 5.6, 11.2 * j as f32 + 5.6),
            radius: 1.2,
        })
        .collect();
    for kind in [BoundsKind::Open, BoundsKind::Wrap] {
        let b = bounds(kind, Vec2::ZERO, Vec2::splat(112.0));
        let index = ObstacleIndex::build(&obstacles, &b);
        for p in [Vec2::new(0.0, 0.0), Vec2::new(11.2, 50.0), Vec2::new(-300.0, 40.0)] {
            let mut n = 0;
            index.candidates(p, 1.2, |_| n += 1);
            assert_eq!(n, 0, "{kind:?} at {p}");
        }
    }
}
