//! Obstacles: the geometry of circles and rectangles (signed distance, avoidance centre, push
//! out), the most threatening obstacle and the avoidance force.

use throng_engine::behaviours::{avoid_force, most_threatening};
use throng_engine::index::ObstacleIndex;
use throng_engine::math::Vec2;
use throng_engine::world::{Bounds, BoundsKind, Obstacle};

use super::assert_close_f;
use crate::common::{assert_close, v};

// ---------------------------------------------------------------------------------------------
// Obstacle geometry

#[test]
fn signed_distance_is_negative_inside() {
    let c = Obstacle::Circle { centre: v(0.0, 0.0), radius: 2.0 };
    // |(3, 4)| - 2 = 3; |(1, 0)| - 2 = -1; on the circle: 0.
    assert_close_f(c.signed_distance(v(3.0, 4.0)), 3.0);
    assert_close_f(c.signed_distance(v(1.0, 0.0)), -1.0);
    assert_close_f(c.signed_distance(v(0.0, 2.0)), 0.0);
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    // Outside the corner (4, 2): |(7, 6) - (4, 2)| = |(3, 4)| = 5. Beside a face: 3 and 0.5.
    assert_close_f(r.signed_distance(v(7.0, 6.0)), 5.0);
    assert_close_f(r.signed_distance(v(-3.0, 1.0)), 3.0);
    assert_close_f(r.signed_distance(v(2.0, -0.5)), 0.5);
    // Inside: minus the distance to the nearest face. (2, 1): faces 2, 2, 1, 1 -> -1.
    // (1, 0.5): faces 1, 3, 0.5, 1.5 -> -0.5.
    assert_close_f(r.signed_distance(v(2.0, 1.0)), -1.0);
    assert_close_f(r.signed_distance(v(1.0, 0.5)), -0.5);
}

#[test]
fn avoid_centre_is_a_circles_centre_or_a_rects_nearest_point() {
    // A circle's centre(o) is its centre, wherever ahead is.
    let c = Obstacle::Circle { centre: v(3.0, -1.0), radius: 2.0 };
    assert_eq!(c.avoid_centre(v(10.0, 10.0)), v(3.0, -1.0));
    assert_eq!(c.avoid_centre(v(3.5, -1.0)), v(3.0, -1.0));
    // A rectangle's is the nearest point to ahead: (0, 0)-(10, 2).
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(10.0, 2.0) };
    assert_eq!(r.avoid_centre(v(12.0, 5.0)), v(10.0, 2.0)); // beyond the corner
    assert_eq!(r.avoid_centre(v(5.0, -3.0)), v(5.0, 0.0)); // below the bottom face
    assert_eq!(r.avoid_centre(v(-1.0, 1.0)), v(0.0, 1.0)); // left of the left face
    // Inside: the nearest boundary point. (3, 0.5): faces left 3, right 7, bottom 0.5,
    // top 1.5 -> (3, 0). (9.5, 1): 9.5, 0.5, 1, 1 -> right face (10, 1).
    assert_eq!(r.avoid_centre(v(3.0, 0.5)), v(3.0, 0.0));
    assert_eq!(r.avoid_centre(v(9.5, 1.0)), v(10.0, 1.0));
    // (5, 1): 5, 5, 1, 1 -> bottom and top tie; bottom comes first: (5, 0).
    assert_eq!(r.avoid_centre(v(5.0, 1.0)), v(5.0, 0.0));
}

#[test]
fn push_out_of_a_circle_moves_the_body_clear_along_the_normal() {
    let c = Obstacle::Circle { centre: v(0.0, 0.0), radius: 2.0 };
    // Body radius 0.5, reach 2.5. p = (0, 1): n = (0, 1), out = (0, 2.5).
    assert_eq!(c.push_out(v(0.0, 1.0), 0.5), Some((v(0.0, 2.5), v(0.0, 1.0))));
    // p = (1.2, 1.6), |p| = 2 < 2.5: n = (0.6, 0.8), out = (1.5, 2.0).
    let (out, n) = c.push_out(v(1.2, 1.6), 0.5).unwrap();
    assert_close(out, v(1.5, 2.0));
    assert_close(n, v(0.6, 0.8));
    // Exactly at the centre: the fixed direction +x, out = (2.5, 0).
    assert_eq!(c.push_out(v(0.0, 0.0), 0.5), Some((v(2.5, 0.0), v(1.0, 0.0))));
    // Just touching (|p| = 2.5) or clear: nothing to do.
    assert_eq!(c.push_out(v(0.0, 2.5), 0.5), None);
    assert_eq!(c.push_out(v(0.0, -3.0), 0.5), None);
}

#[test]
fn push_out_of_a_rect_moves_the_body_clear_from_outside_and_inside() {
    let r = Obstacle::Rect { min: v(0.0, 0.0), max: v(4.0, 2.0) };
    // Outside, clear: (5, 1) is 1 from the right face, body 0.5.
    assert_eq!(r.push_out(v(5.0, 1.0), 0.5), None);
    // Outside, overlapping the right face: q = (4, 1), d = (0.25, 0): n = (1, 0), out = (4.5, 1).
    assert_eq!(r.push_out(v(4.25, 1.0), 0.5), Some((v(4.5, 1.0), v(1.0, 0.0))));
    // Outside, overlapping the corner (4, 2): d = (0.375, 0.5), |d| = 0.625 < 0.75:
    // n = (0.6, 0.8), out = (4, 2) + n * 0.75 = (4.45, 2.6).
    let (out, n) = r.push_out(v(4.375, 2.5), 0.75).unwrap();
    assert_close(out, v(4.45, 2.6));
    assert_close(n, v(0.6, 0.8));
    // Inside, nearest the bottom face: (1, 0.5): faces 1, 3, 0.5, 1.5: out = (1, 0) - (0, 0.5).
    assert_eq!(r.push_out(v(1.0, 0.5), 0.5), Some((v(1.0, -0.5), v(0.0, -1.0))));
    // Inside, nearest the right face: (3.5, 1): 3.5, 0.5, 1, 1: out = (4.5, 1).
    assert_eq!(r.push_out(v(3.5, 1.0), 0.5), Some((v(4.5, 1.0), v(1.0, 0.0))));
    // The exact centre (2, 1): faces 2, 2, 1, 1: bottom wins the tie with top: (2, -0.5).
    assert_eq!(r.push_out(v(2.0, 1.0), 0.5), Some((v(2.0, -0.5), v(0.0, -1.0))));
    // The exact centre of a square: all four tie, left comes first: (-0.5, 1).
    let sq = Obstacle::Rect { min: v(0.0, 0.0), max: v(2.0, 2.0) };
    assert_eq!(sq.push_out(v(1.0, 1.0), 0.5), Some((v(-0.5, 1.0), v(-1.0, 0.0))));
}

// ---------------------------------------------------------------------------------------------
// The most threatening obstacle and the avoidance force

fn index(obstacles: &[Obstacle]) -> ObstacleIndex {
    let bounds = Bounds { kind: BoundsKind::Open, min: v(-100.0, -100.0), max: v(100.0, 100.0) };
    ObstacleIndex::build(obstacles, &bounds)
}

/// The agent of the threat tests: p = (0, 0), radius 0.5, see_ahead 10, max_speed 2.
fn threat(obstacles: &[Obstacle], vel: Vec2) -> Option<u32> {
    most_threatening(&index(obstacles), obstacles, Vec2::ZERO, vel, 2.0, 0.5, 10.0)
}

// At full speed (v = (2, 0), dyn = 1): ahead = (10, 0), ahead2 = (5, 0).
/// Contains ahead only: |(10, 0) - (11, 0)| = 1 <= 1.2 + 0.5; ahead2 is 6 away, p 11.
const AHEAD: Obstacle = Obstacle::Circle { centre: Vec2::new(11.0, 0.0), radius: 1.2 };
/// Contains ahead2 only: |(5, 0) - (5, 3)| = 3 <= 2.6 + 0.5; ahead and p are sqrt(34) = 5.83 away.
const AHEAD2: Obstacle = Obstacle::Circle { centre: Vec2::new(5.0, 3.0), radius: 2.6 };
/// Contains p only: |p - (-1, 0)| = 1 <= 0.8 + 0.5; ahead2 is 6 away.
const AT_P: Obstacle = Obstacle::Circle { centre: Vec2::new(-1.0, 0.0), radius: 0.8 };
/// Near p but threatening nothing: p is 3 > 2.5 away, ahead2 sqrt(34), ahead sqrt(109).
const DECOY: Obstacle = Obstacle::Circle { centre: Vec2::new(0.0, 3.0), radius: 2.0 };

#[test]
fn each_look_ahead_point_can_make_a_threat() {
    let full = v(2.0, 0.0);
    assert_eq!(threat(&[AHEAD], full), Some(0));
    assert_eq!(threat(&[AHEAD2], full), Some(0));
    assert_eq!(threat(&[AT_P], full), Some(0));
    assert_eq!(threat(&[DECOY], full), None);
    // A rectangle holding ahead: (9, -1)-(12, 1) contains (10, 0).
    assert_eq!(threat(&[Obstacle::Rect { min: v(9.0, -1.0), max: v(12.0, 1.0) }], full), Some(0));
    // The agent's radius inflates the obstacle: a circle at (11.8, 0) of radius 1.2 is 1.8 from
    // ahead: missed with body radius 0.5 (1.7), hit with 0.7 (1.9).
    let o = [Obstacle::Circle { centre: v(11.8, 0.0), radius: 1.2 }];
    assert_eq!(most_threatening(&index(&o), &o, Vec2::ZERO, full, 2.0, 0.5, 10.0), None);
    assert_eq!(most_threatening(&index(&o), &o, Vec2::ZERO, full, 2.0, 0.7, 10.0), Some(0));
}

#[test]
fn the_nearest_threat_wins() {
    let full = v(2.0, 0.0);
    // Distances from p to centre(o): AHEAD 11, AHEAD2 sqrt(34) = 5.83, AT_P 1, DECOY 3 (but it
    // does not threaten).
    assert_eq!(threat(&[AHEAD, AHEAD2, AT_P], full), Some(2));
    assert_eq!(threat(&[AT_P, AHEAD2, AHEAD], full), Some(0));
    assert_eq!(threat(&[AHEAD, AHEAD2], full), Some(1));
    assert_eq!(threat(&[DECOY, AHEAD, AHEAD2], full), Some(2));
    // A rectangle's distance is to its nearest point to ahead: (9, -1)-(12, 1) with ahead
    // (10, 0) inside: faces 1, 2, 1, 1 -> (9, 0), 9 from p; AHEAD2 at 5.83 is nearer.
    let wall = Obstacle::Rect { min: v(9.0, -1.0), max: v(12.0, 1.0) };
    assert_eq!(threat(&[wall.clone(), AHEAD2], full), Some(1));
    // ... and AHEAD's centre at 11 is farther than the wall's 9.
    assert_eq!(threat(&[AHEAD, wall], full), Some(1));
}

#[test]
fn threat_ties_go_to_the_lower_index() {
    // Two circles of radius 3 at (0, 3) and (0, -3): p is 3 <= 3.5 from both, both at distance 3.
    let up = Obstacle::Circle { centre: v(0.0, 3.0), radius: 3.0 };
    let down = Obstacle::Circle { centre: v(0.0, -3.0), radius: 3.0 };
    let full = v(2.0, 0.0);
    assert_eq!(threat(&[up.clone(), down.clone()], full), Some(0));
    assert_eq!(threat(&[down.clone(), up.clone()], full), Some(0));
    assert_eq!(threat(&[AHEAD, down, up], full), Some(1));
}

#[test]
fn slow_agents_look_less_far_ahead() {
    // A circle at (9.5, 0), radius 1 (1.5 inflated). At full speed ahead = (10, 0) is 0.5 away:
    // a threat. At v = (1, 0), dyn = 1/2: ahead = (5, 0) (4.5 away), ahead2 = (2.5, 0) (7 away),
    // p 9.5 away: none.
    let o = [Obstacle::Circle { centre: v(9.5, 0.0), radius: 1.0 }];
    assert_eq!(threat(&o, v(2.0, 0.0)), Some(0));
    assert_eq!(threat(&o, v(1.0, 0.0)), None);
    // Standing still: dyn = 0, ahead = ahead2 = p; only an obstacle at p threatens.
    assert_eq!(threat(&o, Vec2::ZERO), None);
    assert_eq!(threat(&[AHEAD, AHEAD2, AT_P], Vec2::ZERO), Some(2));
    // Nothing near: no threat at all.
    assert_eq!(threat(&[Obstacle::Circle { centre: v(50.0, 50.0), radius: 5.0 }], v(2.0, 0.0)), None);
}

#[test]
fn avoid_force_points_from_centre_to_ahead() {
    // p = (0, 0), v = (2, 0), max_speed 2, see_ahead 10: ahead = (10, 0).
    // Circle centred (11, 1): ahead - centre = (-1, -1), norm * 3 = (-2.1213203, -2.1213203).
    let c = [Obstacle::Circle { centre: v(11.0, 1.0), radius: 2.0 }];
    let f = avoid_force(&c[0], index(&c).local(0, Vec2::ZERO), v(2.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(-2.1213203, -2.1213203));
    // dyn shortens ahead too: v = (1, 0): ahead = (5, 0); circle at (6, -1): ahead - centre =
    // (-1, 1), norm * 3 = (-2.1213203, 2.1213203).
    let c = [Obstacle::Circle { centre: v(6.0, -1.0), radius: 2.0 }];
    let f = avoid_force(&c[0], index(&c).local(0, Vec2::ZERO), v(1.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(-2.1213203, 2.1213203));
    // A long wall (9, 2)-(20, 5) above ahead (10, 0): centre(o) = (10, 2), ahead - centre =
    // (0, -2): the push is sideways, (0, -3), not away from the wall's middle (14.5, 3.5).
    let w = [Obstacle::Rect { min: v(9.0, 2.0), max: v(20.0, 5.0) }];
    let f = avoid_force(&w[0], index(&w).local(0, Vec2::ZERO), v(2.0, 0.0), 2.0, 10.0, 3.0);
    assert_close(f, v(0.0, -3.0));
    // max_avoid_force scales it: 0.5 -> (0, -0.5).
    let f = avoid_force(&w[0], index(&w).local(0, Vec2::ZERO), v(2.0, 0.0), 2.0, 10.0, 0.5);
    assert_close(f, v(0.0, -0.5));
}
