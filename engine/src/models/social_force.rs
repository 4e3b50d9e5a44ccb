//! Social force (D. Helbing, P. Molnár, "Social force model for pedestrian dynamics", Phys.
//! Rev. E 51, 1995), with the body and friction forces and the wall terms of Helbing, Farkas
//! and Vicsek ("Simulating dynamical features of escape panic", Nature 407, 2000). Forces are
//! per unit of mass (accelerations); see `world::SocialForce` for the parameters.

use crate::math::{Vec2, norm};
use crate::world::SocialForce;

use super::surroundings::{Body, WallNear};

/// The agent's acceleration:
/// `(v_pref − v)/τ + Σ_j w_j [A e^{(r_ij − d_ij)/B} + k g(r_ij − d_ij)] n_ij + κ g(r_ij − d_ij) Δv_ji·t_ij t_ij
///  + Σ_W [A_W e^{(r_i − d_iW)/B} + k g(r_i − d_iW)] n_iW − κ g(r_i − d_iW) (v_i·t_iW) t_iW`,
/// with `n_ij` the unit vector from `j` to `i`, `t_ij` its left perpendicular, `r_ij` the
/// radii's sum, `d_ij` the centres' distance, `g(x) = max(x, 0)` (bodies touch), and the
/// anisotropy `w_j = λ + (1 − λ)(1 + cos φ)/2`, `φ` the angle between the agent's desired
/// direction and the direction to `j` (Helbing and Molnár's form; λ = 1 is isotropic), and
/// `A_W` the walls' strength.
pub fn acceleration(
    sf: &SocialForce,
    velocity: Vec2,
    preferred: Vec2,
    radius: f32,
    neighbours: impl Iterator<Item = Body>,
    walls: impl Iterator<Item = WallNear>,
) -> Vec2 {
    let mut a = driving(sf, velocity, preferred);
    let heading = norm(preferred);
    for j in neighbours {
        let d = j.offset.length();
        if d <= 0.0 {
            // Two centres in one place: no direction to push along.
            continue;
        }
        let n = -j.offset / d;
        let overlap = radius + j.radius - d;
        let cos_phi = -n.dot(heading);
        let w = sf.anisotropy + (1.0 - sf.anisotropy) * 0.5 * (1.0 + cos_phi);
        let push = w * sf.strength * crate::math::exp(overlap / sf.range) + sf.body * overlap.max(0.0);
        a += push * n;
        if overlap > 0.0 {
            let t = Vec2::new(-n.y, n.x);
            a += sf.friction * overlap * (j.velocity - velocity).dot(t) * t;
        }
    }
    for wall in walls {
        let overlap = radius - wall.distance;
        let n = wall.normal;
        a += (sf.wall_strength * crate::math::exp(overlap / sf.range) + sf.body * overlap.max(0.0)) * n;
        if overlap > 0.0 {
            let t = Vec2::new(-n.y, n.x);
            a -= sf.friction * overlap * velocity.dot(t) * t;
        }
    }
    a
}

/// The driving term `(v_pref − v)/τ`.
pub fn driving(sf: &SocialForce, velocity: Vec2, preferred: Vec2) -> Vec2 {
    (preferred - velocity) / sf.relaxation_time
}

/// The largest time step (s) at which the explicit step stays well inside its stability
/// bound: `1 / √(k/m + A/(m·B))`, half of `2/ω` for the stiffest spring the forces make
/// (touching bodies, or a body touching a wall when walls push harder).
pub fn stable_dt(sf: &SocialForce) -> f32 {
    1.0 / (sf.body + sf.strength.max(sf.wall_strength) / sf.range).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sf() -> SocialForce {
        SocialForce {
            relaxation_time: 0.5,
            strength: 25.0,
            range: 0.08,
            wall_strength: 25.0,
            body: 1500.0,
            friction: 3000.0,
            anisotropy: 1.0,
            neighbour_dist: 3.0,
            max_neighbours: 16,
            preferred_speed: None,
        }
    }

    #[test]
    fn alone_an_agent_relaxes_to_its_preferred_velocity() {
        let a = acceleration(
            &sf(),
            Vec2::new(0.5, 0.0),
            Vec2::new(1.5, 0.0),
            0.3,
            std::iter::empty(),
            std::iter::empty(),
        );
        assert_eq!(a, Vec2::new(2.0, 0.0), "(1.5 − 0.5) / 0.5");
    }

    #[test]
    fn a_neighbour_pushes_by_the_exponential_and_touching_adds_body_and_friction() {
        // A neighbour 1 to the east, radii 0.3 + 0.3: gap 0.4, push 25·e^(−0.4/0.08) westward.
        let j = Body { offset: Vec2::new(1.0, 0.0), velocity: Vec2::ZERO, radius: 0.3 };
        let a = acceleration(&sf(), Vec2::ZERO, Vec2::ZERO, 0.3, [j].into_iter(), std::iter::empty());
        let expected = -25.0 * crate::math::exp(-5.0);
        assert!((a.x - expected).abs() < 1e-6 && a.y == 0.0, "{a} against {expected}");
        // Overlapping by 0.1 with the neighbour sliding north at 1: body 1500·0.1 west and the
        // friction 3000·0.1·(1 · t)·t with t = (0, −1) (n = (−1, 0)): 300 north.
        let j = Body { offset: Vec2::new(0.5, 0.0), velocity: Vec2::new(0.0, 1.0), radius: 0.3 };
        let a = acceleration(&sf(), Vec2::ZERO, Vec2::ZERO, 0.3, [j].into_iter(), std::iter::empty());
        let push = 25.0 * crate::math::exp(0.1 / 0.08) + 150.0;
        assert!((a.x + push).abs() < 1e-3 && (a.y - 300.0).abs() < 1e-3, "{a}");
    }

    #[test]
    fn a_wall_a_body_presses_into_slows_its_sliding_by_friction() {
        // 0.1 into a wall to the south (normal (0, 1)), sliding east at 1 with the preferred
        // velocity the same (no driving term): the push 25·e^(0.1/0.08) + 1500·0.1 = 237.2586
        // north, and the friction −3000·0.1·(v·t)·t with t = (−1, 0): (−300, 0), against the
        // slide (Helbing, Farkas and Vicsek's sign).
        let wall = WallNear { normal: Vec2::new(0.0, 1.0), distance: 0.2 };
        let v = Vec2::new(1.0, 0.0);
        let a = acceleration(&sf(), v, v, 0.3, std::iter::empty(), [wall].into_iter());
        let push = 25.0 * crate::math::exp(0.1 / 0.08) + 150.0;
        assert!((a.y - push).abs() < 1e-3 && (a.x + 300.0).abs() < 1e-3, "{a} against (−300, {push})");
    }

    #[test]
    fn a_wall_pushes_along_its_normal_and_a_neighbour_behind_counts_less_when_anisotropic() {
        let wall = WallNear { normal: Vec2::new(0.0, 1.0), distance: 0.3 };
        let a = acceleration(&sf(), Vec2::ZERO, Vec2::ZERO, 0.3, std::iter::empty(), [wall].into_iter());
        assert!((a.y - 25.0).abs() < 1e-5 && a.x == 0.0, "touching: A·e⁰ = 25: {a}");
        let behind = Body { offset: Vec2::new(-1.0, 0.0), velocity: Vec2::ZERO, radius: 0.3 };
        let half = SocialForce { anisotropy: 0.5, ..sf() };
        let a = acceleration(
            &half,
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 0.0),
            0.3,
            [behind].into_iter(),
            std::iter::empty(),
        );
        assert!((a.x - 0.5 * 25.0 * crate::math::exp(-5.0)).abs() < 1e-7, "λ = 0.5 straight behind: {a}");
    }
}
