//! Flocking: separation (mean and inverse-distance variants), alignment, cohesion and the flock
//! target.

use throng_engine::behaviours::{
    CohesionForm, SeparationVariant, alignment, cohesion, cruise, flock_target, separation,
};
use throng_engine::math::Vec2;

use crate::common::{assert_close, v};

#[test]
fn separation_mean_points_away_from_mean_offset() {
    // Offsets n.p - p: (1, 2), (3, 0), (-1, 2); s = (3, 4) / 3 = (1, 1.3333333);
    // norm(-s) = (-0.6, -0.8); max_separation 5: force = (-3, -4).
    let offsets = [v(1.0, 2.0), v(3.0, 0.0), v(-1.0, 2.0)];
    assert_close(separation(offsets.into_iter(), 5.0, SeparationVariant::Mean), v(-3.0, -4.0));
    // One neighbour far away pushes exactly as hard as one close by (the mean variant):
    // offset (0, 100): norm(-s) = (0, -1), max_separation 2: force = (0, -2).
    assert_close(separation([v(0.0, 100.0)].into_iter(), 2.0, SeparationVariant::Mean), v(0.0, -2.0));
}

#[test]
fn separation_without_neighbours_is_zero() {
    for variant in [SeparationVariant::Mean, SeparationVariant::InverseDistance] {
        assert_eq!(separation(std::iter::empty::<Vec2>(), 3.0, variant), Vec2::ZERO);
    }
}

#[test]
fn separation_mean_with_coincident_neighbours_is_finite() {
    // All offsets zero: s = 0, norm(0) = 0, force = 0.
    let f = separation([Vec2::ZERO; 5].into_iter(), 4.0, SeparationVariant::Mean);
    assert_eq!(f, Vec2::ZERO);
    // Coincident and one real neighbour at (0, -2): s = (0, -2) / 3, norm(-s) = (0, 1), * 4.
    let f = separation([Vec2::ZERO, Vec2::ZERO, v(0.0, -2.0)].into_iter(), 4.0, SeparationVariant::Mean);
    assert_close(f, v(0.0, 4.0));
}

#[test]
fn separation_inverse_distance_weighs_near_neighbours_more() {
    // Offsets (2, 0) and (0, -4): norm(p - n.p) / |p - n.p| = (-1, 0) / 2 + (0, 1) / 4
    // = (-0.5, 0.25); |.| = 0.559 < max_separation 10, so no truncation.
    let offsets = [v(2.0, 0.0), v(0.0, -4.0)];
    let f = separation(offsets.into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-0.5, 0.25));
    // Offset (0.1, 0): (-1, 0) / 0.1 = (-10, 0), truncated to max_separation 3: (-3, 0).
    let f = separation([v(0.1, 0.0)].into_iter(), 3.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-3.0, 0.0));
}

#[test]
fn separation_inverse_distance_with_coincident_neighbours_is_finite() {
    // Coincident neighbours give no direction and are skipped: only (1, 0) counts, (-1, 0) / 1.
    let offsets = [Vec2::ZERO, Vec2::ZERO, v(1.0, 0.0)];
    let f = separation(offsets.into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_close(f, v(-1.0, 0.0));
    // Only coincident neighbours: zero, not NaN or infinity.
    let f = separation([Vec2::ZERO; 40].into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert_eq!(f, Vec2::ZERO);
    // Nearly coincident (1e-20 apart): still finite and no longer than max_separation.
    let f = separation([v(1e-20, 0.0), v(0.0, -1e-30)].into_iter(), 10.0, SeparationVariant::InverseDistance);
    assert!(f.is_finite() && f.length() <= 10.0 * (1.0 + 1e-6), "{f}");
}

#[test]
fn alignment_steers_towards_mean_heading() {
    // Neighbour velocities (2, 0), (0, 3): norms (1, 0), (0, 1), h = (0.5, 0.5);
    // v = (0, -5), norm(v) = (0, -1): force = (0.5, 1.5).
    let f = alignment([v(2.0, 0.0), v(0.0, 3.0)].into_iter(), v(0.0, -5.0));
    assert_close(f, v(0.5, 1.5));
    // A still neighbour counts but adds no heading: (0, 0), (4, 0): h = (1, 0) / 2 = (0.5, 0);
    // v = 0: force = (0.5, 0).
    let f = alignment([Vec2::ZERO, v(4.0, 0.0)].into_iter(), Vec2::ZERO);
    assert_close(f, v(0.5, 0.0));
    assert_eq!(alignment(std::iter::empty::<Vec2>(), v(1.0, 1.0)), Vec2::ZERO);
}

#[test]
fn cohesion_seeks_the_neighbours_centre() {
    // Offsets (2, 2), (4, 6): c - p = (3, 4), desired = (0.6, 0.8) * 5 = (3, 4),
    // v = (1, 1): force = (2, 3).
    let seek = CohesionForm::Seek;
    let f = cohesion([v(2.0, 2.0), v(4.0, 6.0)].into_iter(), v(1.0, 1.0), 5.0, seek);
    assert_close(f, v(2.0, 3.0));
    // Neighbours all on the agent: c - p = 0, desired = 0, force = -v.
    assert_eq!(cohesion([Vec2::ZERO; 3].into_iter(), v(1.0, -2.0), 5.0, seek), v(-1.0, 2.0));
    assert_eq!(cohesion(std::iter::empty::<Vec2>(), v(1.0, 1.0), 5.0, seek), Vec2::ZERO);
}

/// The Unity flock's cohesion: `norm(c − p) · |v|`, no `−v` damping.
#[test]
fn unity_cohesion_points_at_the_centre_with_the_agents_speed() {
    let unity = CohesionForm::Unity;
    // c - p = (3, 4): norm = (0.6, 0.8); |v| = |(0, 2)| = 2: force = (1.2, 1.6).
    let f = cohesion([v(2.0, 2.0), v(4.0, 6.0)].into_iter(), v(0.0, 2.0), 5.0, unity);
    assert_close(f, v(1.2, 1.6));
    // At rest, or on the centre: no force (never NaN).
    assert_eq!(cohesion([v(2.0, 2.0)].into_iter(), Vec2::ZERO, 5.0, unity), Vec2::ZERO);
    assert_eq!(cohesion([Vec2::ZERO; 2].into_iter(), v(1.0, -2.0), 5.0, unity), Vec2::ZERO);
}

/// The Unity flock's engine force: `norm(v) · speed` along the heading, zero at rest.
#[test]
fn cruise_pushes_along_the_heading() {
    // v = (3, 4): norm = (0.6, 0.8), speed 2: (1.2, 1.6).
    assert_close(cruise(v(3.0, 4.0), 2.0), v(1.2, 1.6));
    assert_eq!(cruise(Vec2::ZERO, 2.0), Vec2::ZERO);
}

#[test]
fn flock_target_is_heading_difference_times_speed() {
    // t - p = (0, 5), v = (3, 0): (norm(t - p) - norm(v)) * 2 = ((0, 1) - (1, 0)) * 2 = (-2, 2).
    assert_close(flock_target(v(0.0, 5.0), v(3.0, 0.0), 2.0), v(-2.0, 2.0));
    // t - p = (-3, -4), v = 0: ((-0.6, -0.8) - 0) * 1.5 = (-0.9, -1.2).
    assert_close(flock_target(v(-3.0, -4.0), Vec2::ZERO, 1.5), v(-0.9, -1.2));
    assert_eq!(flock_target(Vec2::ZERO, Vec2::ZERO, 3.0), Vec2::ZERO);
}
