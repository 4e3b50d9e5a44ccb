//! throng's ORCA against RVO2 2.0.2's own outputs (`tests/data/rvo2/`, made by `gen.cpp`
//! there): one step from 2,000 random agents, without and with obstacles, velocity by
//! velocity. The neighbours are found here by brute force exactly as RVO2 chooses them (the
//! 10 nearest within 15, nearest first); ties, which RVO2 breaks by its tree's visiting order
//! and throng by id, do not occur in these states.

use throng_engine::index::ObstacleIndex;
use throng_engine::math::Vec2;
use throng_engine::models::orca::{OrcaAgent, OrcaNeighbour, OrcaScratch, new_velocity};
use throng_engine::models::orca_obstacles::OrcaObstacles;
use throng_engine::world::{Bounds, BoundsKind, Obstacle, Orca};

/// A CSV of numbers from `tests/data/rvo2/`, header dropped.
pub fn rvo2_rows(name: &str) -> Vec<Vec<f32>> {
    let path = crate::common::root().join("tests/data/rvo2").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().skip(1).map(|l| l.split(',').map(|x| x.parse().expect("a number")).collect()).collect()
}

/// The four squares of RVO2's Blocks example, counter-clockwise as `gen.cpp` adds them.
pub fn blocks() -> Vec<Obstacle> {
    let squares = [
        [(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)],
        [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)],
        [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)],
        [(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)],
    ];
    squares
        .iter()
        .map(|sq| Obstacle::Polygon { vertices: sq.iter().map(|&(x, y)| Vec2::new(x, y)).collect() })
        .collect()
}

/// The largest difference between RVO2's new velocities and throng's for one step of the
/// state in `file`, how many agents differ by more than `tolerance`, and how many had an
/// obstacle near.
fn one_step(file: &str, obstacles: &[Obstacle], tolerance: f32) -> (f32, usize, usize) {
    let rows = rvo2_rows(file);
    let orca = Orca {
        time_horizon: 10.0,
        time_horizon_obst: 10.0,
        neighbour_dist: 15.0,
        max_neighbours: 10,
        preferred_speed: None,
    };
    let (radius, max_speed, dt) = (1.5, 2.0, 0.25);
    let bounds = Bounds { kind: BoundsKind::Open, min: Vec2::splat(-100.0), max: Vec2::splat(100.0) };
    let index = ObstacleIndex::build(obstacles, &bounds);
    let geometry = OrcaObstacles::build(obstacles);
    let position: Vec<Vec2> = rows.iter().map(|r| Vec2::new(r[1], r[2])).collect();
    let velocity: Vec<Vec2> = rows.iter().map(|r| Vec2::new(r[3], r[4])).collect();
    let mut s = OrcaScratch::default();
    let (mut worst, mut off, mut beside) = (0.0f32, 0, 0);
    for (i, r) in rows.iter().enumerate() {
        let p = position[i];
        let mut near: Vec<(f32, usize)> = (0..rows.len())
            .filter(|&j| j != i)
            .map(|j| ((position[j] - p).length_squared(), j))
            .filter(|&(d, _)| d < orca.neighbour_dist * orca.neighbour_dist)
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        near.truncate(orca.max_neighbours as usize);
        geometry.near(&index, obstacles, p, orca.time_horizon_obst * max_speed + radius, &mut s.near);
        beside += usize::from(!s.near.is_empty());
        let me = OrcaAgent { velocity: velocity[i], preferred: Vec2::new(r[5], r[6]), radius, max_speed };
        let others = near.iter().map(|&(_, j)| OrcaNeighbour {
            offset: position[j] - p,
            velocity: velocity[j],
            radius,
        });
        let v = new_velocity(&orca, dt, &me, &geometry, others, &mut s);
        let gap = (v - Vec2::new(r[9], r[10])).abs().max_element();
        worst = worst.max(gap);
        if gap > tolerance {
            off += 1;
            eprintln!("agent {i}: throng {v}, RVO2 ({}, {}), {gap}", r[9], r[10]);
        }
    }
    (worst, off, beside)
}

// RVO2's README allows 1e-4 for rounding and the order half-planes are added in; throng
// computes every line operation for operation as RVO2 does, in f32, so today the velocities
// are the same bits, and the tests hold them to that.

#[test]
fn one_orca_step_gives_rvo2s_velocities_among_2000_agents() {
    let (worst, off, _) = one_step("onestep.csv", &[], 1e-4);
    assert_eq!(off, 0, "agents whose velocity differs from RVO2's by more than 1e-4 (largest {worst})");
    assert_eq!(worst, 0.0, "the same bits as RVO2");
}

#[test]
fn one_orca_step_gives_rvo2s_velocities_beside_obstacles() {
    let (worst, off, beside) = one_step("onestep_obstacles.csv", &blocks(), 1e-4);
    assert!(beside > 500, "the blocks are near many agents ({beside})");
    assert_eq!(off, 0, "agents whose velocity differs from RVO2's by more than 1e-4 (largest {worst})");
    assert_eq!(worst, 0.0, "the same bits as RVO2");
}
