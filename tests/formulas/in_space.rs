//! The behaviour formulas in space (three coordinates): the same vector formulas as in the
//! plane, checked against values computed by hand, and a plane embedded in space (z = 0)
//! giving the plane's bits exactly.

use throng_engine::behaviours::{
    CohesionForm, EvadePrediction, Following, Leader, SeparationVariant, alignment, arrive, cohesion, cruise,
    evade, flee, flock_target, follow_leader, follow_path, pursuit, queue_brake_force, random_walk_step,
    seek, separation, wander, wander_jitter,
};
use throng_engine::math::{Vec2, Vec3, Vector};

use super::assert_close_f;

fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

#[track_caller]
fn assert_close3(actual: Vec3, expected: Vec3) {
    for axis in 0..3 {
        let (a, e) = (actual[axis], expected[axis]);
        assert!((a - e).abs() <= 1e-5 * e.abs().max(1.0), "expected {expected}, got {actual}");
    }
}

#[test]
fn seek_flee_and_arrive_in_space() {
    // t − p = (2, 3, 6), |t − p| = 7; max_speed 14: desired = (4, 6, 12); v = (1, 0, 0).
    let (to, v) = (v3(2.0, 3.0, 6.0), v3(1.0, 0.0, 0.0));
    assert_close3(seek(to, v, 14.0), v3(3.0, 6.0, 12.0));
    // flee: −(4, 6, 12) − (1, 0, 0).
    assert_close3(flee(to, v, 14.0), v3(-5.0, -6.0, -12.0));
    // arrive, slowing radius 14: d / 14 = 0.5, desired = (2, 3, 6).
    assert_close3(arrive(to, v, 14.0, 14.0), v3(1.0, 3.0, 6.0));
    // follow_path is seek, or arrive at a once path's end.
    assert_close3(follow_path(to, v, 14.0, false, 14.0), v3(3.0, 6.0, 12.0));
    assert_close3(follow_path(to, v, 14.0, true, 14.0), v3(1.0, 3.0, 6.0));
}

#[test]
fn pursuit_and_evade_predict_in_space() {
    // Quarry at (0, 0, 10) moving (3, 0, −1); max_speed 5: T = 10 / 5 = 2, future = (6, 0, 8),
    // |future| = 10: desired = (3, 0, 4); v = 0.
    let (to, qv) = (v3(0.0, 0.0, 10.0), v3(3.0, 0.0, -1.0));
    assert_close3(pursuit(to, qv, Vec3::ZERO, 5.0, None), v3(3.0, 0.0, 4.0));
    // Evade with T = d / max_speed (own speed): the same future, fled; v = (0, 1, 0).
    let f = evade(to, qv, v3(0.0, 1.0, 0.0), 5.0, None, EvadePrediction::OwnSpeed);
    assert_close3(f, v3(-3.0, -1.0, -4.0));
    // A fixed look-ahead of 1 s: future = (3, 0, 9), |·| = √90; desired = −(3, 0, 9) · 5 / √90.
    let k = 5.0 / 90f32.sqrt();
    assert_close3(pursuit(to, qv, Vec3::ZERO, 5.0, Some(1.0)), v3(3.0 * k, 0.0, 9.0 * k));
}

#[test]
fn flocking_in_space() {
    // Separation (mean): offsets (1, 0, 0), (0, 2, 0), (0, 0, 3): s = (1, 2, 3) / 3;
    // norm(−s) · √14 = (−1, −2, −3).
    let offsets = [v3(1.0, 0.0, 0.0), v3(0.0, 2.0, 0.0), v3(0.0, 0.0, 3.0)];
    let f = separation(offsets.into_iter(), 14f32.sqrt(), SeparationVariant::Mean);
    assert_close3(f, v3(-1.0, -2.0, -3.0));
    // Inverse distance: (2, 0, 0) → (−1/2, 0, 0); (0, 0, 4) → (0, 0, −1/4); |sum| < 10.
    let offsets = [v3(2.0, 0.0, 0.0), v3(0.0, 0.0, 4.0)];
    let f = separation(offsets.into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_close3(f, v3(-0.5, 0.0, -0.25));
    // Alignment: headings (0, 0, 1), (0, 1, 0), mean (0, ½, ½); own heading (1, 0, 0).
    let f = alignment([v3(0.0, 0.0, 2.0), v3(0.0, 3.0, 0.0)].into_iter(), v3(4.0, 0.0, 0.0));
    assert_close3(f, v3(-1.0, 0.5, 0.5));
    // Cohesion: offsets (4, 0, 0), (0, 6, 12): centre at (2, 3, 6); seek it at 14 with
    // v = (1, 0, 0): (3, 6, 12). The Unity form: norm((2, 3, 6)) · |v| with v = (0, 0, 7).
    let offsets = [v3(4.0, 0.0, 0.0), v3(0.0, 6.0, 12.0)];
    let f = cohesion(offsets.into_iter(), v3(1.0, 0.0, 0.0), 14.0, CohesionForm::Seek);
    assert_close3(f, v3(3.0, 6.0, 12.0));
    let f = cohesion(offsets.into_iter(), v3(0.0, 0.0, 7.0), 14.0, CohesionForm::Unity);
    assert_close3(f, v3(2.0, 3.0, 6.0));
    // Cruise: norm((0, 3, 4)) · 10. Flock target at (0, 0, 5): ((0, 0, 1) − (0, .6, .8)) · 10.
    assert_close3(cruise(v3(0.0, 3.0, 4.0), 10.0), v3(0.0, 6.0, 8.0));
    assert_close3(flock_target(v3(0.0, 0.0, 5.0), v3(0.0, 3.0, 4.0), 10.0), v3(0.0, -6.0, 2.0));
}

#[test]
fn wander_jitters_on_a_sphere() {
    // Jitter 16 at dt 2.5 s: step 16 · √(2.5 · 0.1) = 8. c = (4, 0, 0), u = (0, ½, −¼):
    // c + 8u = (4, 4, −2), |·| = 6; onto the sphere of radius 3: (2, 2, −1).
    let c = wander_jitter(v3(4.0, 0.0, 0.0), v3(0.0, 0.5, -0.25), 16.0, 2.5, 3.0);
    assert_close3(c, v3(2.0, 2.0, -1.0));
    assert_close_f(c.length(), 3.0);
    // The point ahead: norm(v) · D + c = (0, 0, 1) · 4 + (0, 3, 0) = (0, 3, 4); seek it at 5
    // with v = (0, 0, 2): (0, 3, 4) − (0, 0, 2).
    assert_close3(wander(v3(0.0, 0.0, 2.0), v3(0.0, 3.0, 0.0), 4.0, 5.0), v3(0.0, 3.0, 2.0));
}

#[test]
fn random_walk_turns_within_a_cone_about_the_line_to_the_target() {
    // t − p = (0, 0, 20), aggro 30: step 10, half-angle π/6; u = ½: 15° off the line.
    // cos 15° = 0.9659258, sin 15° = 0.2588190. The azimuth is measured from the first vector
    // of the orthonormal pair of (0, 0, 1), which is (1, 0, 0), then (0, 1, 0) a quarter on.
    let to = v3(0.0, 0.0, 20.0);
    let (step, last) = random_walk_step(to, 30.0, 1.0, 10.0, 0.5, 0.0);
    assert!(!last);
    assert_close3(step, v3(2.58819, 0.0, 9.659258));
    let (step, _) = random_walk_step(to, 30.0, 1.0, 10.0, 0.5, 0.25);
    assert_close3(step, v3(0.0, 2.58819, 9.659258));
    let (step, _) = random_walk_step(to, 30.0, 1.0, 10.0, 0.5, 0.5);
    assert_close3(step, v3(-2.58819, 0.0, 9.659258));
    // Whatever the azimuth, the step keeps its length and its angle to the line.
    for k in 0..16 {
        let (step, _) = random_walk_step(v3(3.0, -4.0, 12.0), 30.0, 1.0, 10.0, 0.8, k as f32 / 16.0);
        assert_close_f(step.length(), 6.5);
        // d = 13: half-angle = lerp(0, π/2, 13/30) / 2; the turn is 0.8 of it.
        let turn = 0.8 * (std::f32::consts::FRAC_PI_2 * 13.0 / 30.0) * 0.5;
        let cos = step.dot(v3(3.0, -4.0, 12.0)) / (6.5 * 13.0);
        assert_close_f(cos, throng_engine::math::sin_cos(turn).1);
    }
    // The last, straight leg is the offset itself.
    assert_eq!(random_walk_step(v3(0.3, 0.4, 0.0), 30.0, 1.0, 10.0, 0.5, 0.3), (v3(0.3, 0.4, 0.0), true));
}

#[test]
fn leader_following_and_queue_brake_in_space() {
    // Leader 10 ahead on z, heading (0, 0, 1), behind_dist 2: the behind point is (0, 0, 8);
    // arrive there at 4 (d = 8 > slowing 1): (0, 0, 4); plus separation (1, 0, 0). Ahead
    // (0, 0, 12) and the leader (10) are beyond sight 3: no evade.
    let f = follow_leader(
        Leader { offset: v3(0.0, 0.0, 10.0), velocity: v3(0.0, 0.0, 2.0), heading: v3(0.0, 0.0, 1.0) },
        Vec3::ZERO,
        4.0,
        Following { behind_dist: 2.0, slowing_radius: 1.0, sight_radius: 3.0 },
        v3(1.0, 0.0, 0.0),
    );
    assert_close3(f, v3(1.0, 0.0, 4.0));
    // Queue brake: −(2, −1, 4) · ½ − (1, ½, −1) + (0, 0, 1) = (−2, 0, 0).
    let f = queue_brake_force(v3(2.0, -1.0, 4.0), v3(1.0, 0.5, -1.0), 0.5, v3(0.0, 0.0, 1.0));
    assert_close3(f, v3(-2.0, 0.0, 0.0));
}

/// The plane inside space: every formula given vectors with z = 0 gives z = 0 and the plane's
/// x and y to the bit (a sum of squares with a zero term is the same sum).
#[test]
fn the_plane_in_space_gives_the_planes_bits() {
    let lift = |p: Vec2| Vec3::new(p.x, p.y, 0.0);
    let same = |flat: Vec2, solid: Vec3| {
        assert_eq!(solid.z, 0.0, "{solid}"); // +0 or −0 (flee negates)
        assert_eq!(
            (flat.x.to_bits(), flat.y.to_bits()),
            (solid.x.to_bits(), solid.y.to_bits()),
            "{flat} {solid}"
        );
    };
    let samples = [
        (Vec2::new(3.1, -0.7), Vec2::new(0.3, 1.9)),
        (Vec2::new(-12.5, 4.25), Vec2::new(-0.01, 0.0)),
        (Vec2::new(1e-20, 3e-21), Vec2::new(2.0, -2.0)),
        (Vec2::new(3e19, -4e19), Vec2::new(1.5, 0.5)),
    ];
    for (to, v) in samples {
        let (to3, v3_) = (lift(to), lift(v));
        same(seek(to, v, 2.3), seek(to3, v3_, 2.3));
        same(flee(to, v, 2.3), flee(to3, v3_, 2.3));
        same(arrive(to, v, 2.3, 4.0), arrive(to3, v3_, 2.3, 4.0));
        same(pursuit(to, v, v, 1.7, None), pursuit(to3, v3_, v3_, 1.7, None));
        let prediction = EvadePrediction::TargetSpeed;
        same(evade(to, v, -v, 1.7, None, prediction), evade(to3, v3_, -v3_, 1.7, None, prediction));
        let (flat, solid) = ([to, v, to - v], [to3, v3_, to3 - v3_]);
        for variant in [SeparationVariant::Mean, SeparationVariant::InverseDistance] {
            same(separation(flat.into_iter(), 3.0, variant), separation(solid.into_iter(), 3.0, variant));
        }
        same(alignment(flat.into_iter(), v), alignment(solid.into_iter(), v3_));
        for form in [CohesionForm::Seek, CohesionForm::Unity] {
            same(cohesion(flat.into_iter(), v, 2.0, form), cohesion(solid.into_iter(), v3_, 2.0, form));
        }
        same(wander_jitter(to, v, 1.5, 0.05, 2.0), wander_jitter(to3, v3_, 1.5, 0.05, 2.0));
        same(wander(v, to, 2.0, 1.5), wander(v3_, to3, 2.0, 1.5));
    }
    assert_eq!(<Vec3 as Vector>::DIMENSIONS, 3);
}
