//! Obstacles in space (balls and boxes) and `avoid_obstacles` against them, from values
//! computed by hand: signed distances, the avoidance centre and direction, push-out, the most
//! threatening solid (nearest avoidance centre, lower index on ties) and a wrapped world's
//! minimum image.

use throng_engine::behaviours::{avoid_solid_force, look_ahead, most_threatening_solid};
use throng_engine::math::Vec3;
use throng_engine::world::{Bounds, BoundsKind, Solid};

fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

#[track_caller]
fn close(actual: Vec3, expected: Vec3) {
    assert!((actual - expected).abs().max_element() <= 1e-5, "expected {expected}, got {actual}");
}

fn open() -> Bounds<Vec3> {
    Bounds { kind: BoundsKind::Open, min: v3(0.0, 0.0, 0.0), max: v3(100.0, 100.0, 100.0) }
}

#[test]
fn signed_distances_of_a_ball_and_a_box() {
    let ball = Solid::Ball { centre: v3(10.0, 10.0, 10.0), radius: 2.0 };
    // (12, 13, 16) − centre = (2, 3, 6): 7 from the centre, 5 from the surface.
    assert_eq!(ball.signed_distance(v3(12.0, 13.0, 16.0)), 5.0);
    assert_eq!(ball.signed_distance(v3(10.0, 10.0, 11.5)), -0.5);
    let cuboid = Solid::Cuboid { min: v3(0.0, 0.0, 0.0), max: v3(4.0, 6.0, 8.0) };
    // Outside past a corner: (7, 10, 8) − (4, 6, 8) = (3, 4, 0): 5.
    assert_eq!(cuboid.signed_distance(v3(7.0, 10.0, 8.0)), 5.0);
    // Inside: nearest face x = 4 at 1 (the others 3, 3, 3, 4, 4 away).
    assert_eq!(cuboid.signed_distance(v3(3.0, 3.0, 4.0)), -1.0);
    assert!(cuboid.inflated_contains(v3(4.5, 3.0, 4.0), 0.5));
    assert!(!cuboid.inflated_contains(v3(4.6, 3.0, 4.0), 0.5));
}

#[test]
fn avoidance_centre_and_direction() {
    let ball = Solid::Ball { centre: v3(10.0, 0.0, 0.0), radius: 3.0 };
    // A ball pushes `ahead` straight away from its centre.
    close(ball.avoid_direction(v3(9.0, 2.0, 2.0)), v3(-1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0));
    let slab = Solid::Cuboid { min: v3(0.0, 0.0, 0.0), max: v3(100.0, 100.0, 1.0) };
    // Above a long slab: away from the nearest point, i.e. straight up, not from its middle.
    close(slab.avoid_centre(v3(70.0, 20.0, 3.0)), v3(70.0, 20.0, 1.0));
    close(slab.avoid_direction(v3(70.0, 20.0, 3.0)), Vec3::Z);
    // Inside it: out through the nearest face (the top, 0.25 away).
    close(slab.avoid_direction(v3(70.0, 20.0, 0.75)), Vec3::Z);
    close(slab.avoid_centre(v3(70.0, 20.0, 0.75)), v3(70.0, 20.0, 1.0));
}

#[test]
fn push_out_to_touching() {
    let ball = Solid::Ball { centre: v3(0.0, 0.0, 0.0), radius: 1.0 };
    // A body of radius 0.5 at (0, 0.9, 1.2) (1.5 from the centre) just touches: nothing to do.
    assert_eq!(ball.push_out(v3(0.0, 0.9, 1.2), 0.5), None);
    // At (0, 0.6, 0.8) (1 from the centre): out along (0, 0.6, 0.8) to 1.5.
    let (p, n) = ball.push_out(v3(0.0, 0.6, 0.8), 0.5).expect("overlaps");
    close(p, v3(0.0, 0.9, 1.2));
    close(n, v3(0.0, 0.6, 0.8));
    // On the centre: up.
    close(ball.push_out(Vec3::ZERO, 0.5).expect("overlaps").0, v3(0.0, 0.0, 1.5));
    let cuboid = Solid::Cuboid { min: v3(0.0, 0.0, 0.0), max: v3(2.0, 2.0, 2.0) };
    // Inside, nearest the −y face (0.25 away): out through it, the body's radius beyond.
    let (p, n) = cuboid.push_out(v3(1.0, 0.25, 1.0), 0.5).expect("inside");
    close(p, v3(1.0, -0.5, 1.0));
    close(n, Vec3::NEG_Y);
    // Outside but within the radius of the +z face.
    close(cuboid.push_out(v3(1.0, 1.0, 2.25), 0.5).expect("overlaps").0, v3(1.0, 1.0, 2.5));
}

#[test]
fn the_most_threatening_solid_and_its_force() {
    // An agent at the origin flying +x at full speed (4) looks 8 ahead: ahead (8, 0, 0),
    // ahead2 (4, 0, 0).
    let (p, v) = (Vec3::ZERO, v3(4.0, 0.0, 0.0));
    let (ahead, ahead2) = look_ahead(p, v, 4.0, 8.0);
    close(ahead, v3(8.0, 0.0, 0.0));
    close(ahead2, v3(4.0, 0.0, 0.0));
    let solids = [
        // Off the line: 3 from it, radius 2 + body 0.5: not touched.
        Solid::Ball { centre: v3(6.0, 3.0, 0.0), radius: 2.0 },
        // Holds ahead: centre 9 from p.
        Solid::Ball { centre: v3(9.0, 0.0, 0.5), radius: 1.5 },
        // Holds ahead2 (0.25 below it, within the body's 0.5): its point nearest ahead,
        // (5, 0, −0.25), is 5.006 from p, nearer than the ball's centre (9.014).
        Solid::Cuboid { min: v3(3.0, -1.0, -3.0), max: v3(5.0, 1.0, -0.25) },
    ];
    let bounds = open();
    assert_eq!(most_threatening_solid(&solids, &bounds, p, v, 4.0, 0.5, 8.0), Some(2));
    assert_eq!(most_threatening_solid(&solids[..2], &bounds, p, v, 4.0, 0.5, 8.0), Some(1));
    assert_eq!(most_threatening_solid(&solids[..1], &bounds, p, v, 4.0, 0.5, 8.0), None);
    // Against the ball at (9, 0, 0.5): norm(ahead − centre) = norm(−1, 0, −0.5), times 3.
    let f = avoid_solid_force(&solids[1], &bounds, p, v, 4.0, 8.0, 3.0);
    close(f, v3(-1.0, 0.0, -0.5) / 1.25f32.sqrt() * 3.0);
}

#[test]
fn a_wrapped_world_sees_a_solid_across_the_seam() {
    let bounds = Bounds { kind: BoundsKind::Wrap, min: v3(0.0, 0.0, 0.0), max: v3(20.0, 20.0, 20.0) };
    let ball = Solid::Ball { centre: v3(1.0, 10.0, 10.0), radius: 1.0 };
    // (19.5, 10, 10) is 1.5 from the centre across the x seam.
    close(ball.local(&bounds, v3(19.5, 10.0, 10.0)), v3(-0.5, 10.0, 10.0));
    // Flying +x from (18, 10, 10), it sees the ball ahead through the seam.
    let found =
        most_threatening_solid(&[ball], &bounds, v3(18.0, 10.0, 10.0), v3(1.0, 0.0, 0.0), 1.0, 0.2, 4.0);
    assert_eq!(found, Some(0));
}
