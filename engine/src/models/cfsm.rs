//! The collision-free speed model (A. Tordeux, M. Chraibi, A. Seyfried, "Collision-free speed
//! model for pedestrian dynamics", Traffic and Granular Flow '15, Springer 2016), as JuPedSim's
//! `CollisionFreeSpeedModel` defines it: a first-order model whose direction is the desired
//! one turned away from neighbours and walls by exponential repulsion, and whose speed is the
//! free spacing ahead divided by a time gap.

use crate::math::{Vec2, norm};
use crate::world::Cfsm;

use super::surroundings::{Body, WallNear};

/// The agent's new velocity: direction
/// `e = norm(e0 − Σ_j a e^{(l_ij − d_ij)/D} u_ij − Σ_W a_w e^{(r − d_iW)/D_w} u_iW)` (`u` the unit
/// vector from the agent to the neighbour or the wall's nearest point, `l_ij` the radii's sum;
/// when the sum is zero, the current heading), speed `min(max(s / T, 0), v0)` with `s` the
/// spacing `d_ij − l_ij` to the nearest neighbour ahead (`e · (x_j − x) ≥ 0`) within the
/// corridor `|e⊥ · (x_j − x)| ≤ l_ij`, and `e0`, `v0` the direction and length of the
/// preferred velocity.
pub fn new_velocity(
    m: &Cfsm,
    velocity: Vec2,
    preferred: Vec2,
    radius: f32,
    neighbours: impl Iterator<Item = Body> + Clone,
    walls: impl Iterator<Item = WallNear>,
) -> Vec2 {
    let v0 = preferred.length();
    let mut sum = norm(preferred);
    for j in neighbours.clone() {
        let d = j.offset.length();
        if d > 0.0 {
            sum -= m.strength * crate::math::exp((radius + j.radius - d) / m.range) * (j.offset / d);
        }
    }
    for w in walls {
        // The nearest point lies against the normal: u = −normal.
        sum += m.wall_strength * crate::math::exp((radius - w.distance) / m.wall_range) * w.normal;
    }
    let direction = heading(sum, velocity);
    let left = Vec2::new(-direction.y, direction.x);
    let mut spacing = f32::INFINITY;
    for j in neighbours {
        let l = radius + j.radius;
        if direction.dot(j.offset) >= 0.0 && left.dot(j.offset).abs() <= l {
            spacing = spacing.min(j.offset.length() - l);
        }
    }
    direction * speed(m.time_gap, spacing, v0)
}

/// The direction of the summed pulls `sum`; when they cancel, the current heading
/// (`velocity`'s direction, none when standing).
pub fn heading(sum: Vec2, velocity: Vec2) -> Vec2 {
    if sum == Vec2::ZERO { norm(velocity) } else { norm(sum) }
}

/// The speed for `spacing` to the nearest neighbour ahead: `min(max(s / T, 0), v0)`, `T` the
/// time gap.
pub fn speed(time_gap: f32, spacing: f32, v0: f32) -> f32 {
    (spacing / time_gap).max(0.0).min(v0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfsm() -> Cfsm {
        Cfsm {
            time_gap: 1.0,
            strength: 8.0,
            range: 0.1,
            wall_strength: 5.0,
            wall_range: 0.02,
            neighbour_dist: 3.0,
            max_neighbours: 24,
            preferred_speed: None,
        }
    }

    #[test]
    fn alone_an_agent_walks_at_its_preferred_velocity() {
        let v = new_velocity(
            &cfsm(),
            Vec2::ZERO,
            Vec2::new(0.0, 1.3),
            0.2,
            std::iter::empty(),
            std::iter::empty(),
        );
        assert_eq!(v, Vec2::new(0.0, 1.3));
    }

    #[test]
    fn a_wall_turns_the_agent_by_its_exponential() {
        // A wall 0.25 north of a body of radius 0.2 (its normal points south, at the agent):
        // e = norm((1, 0) + 5·e^((0.2 − 0.25)/0.02)·(0, −1)) = norm(1, −5e^(−2.5)) =
        // norm(1, −0.410425) = (1, −0.410425) / 1.080948 = (0.925114, −0.379690); no
        // neighbour, so the speed is v0 = 1.3: v = (1.202648, −0.493597).
        let wall = WallNear { normal: Vec2::new(0.0, -1.0), distance: 0.25 };
        let v = new_velocity(
            &cfsm(),
            Vec2::ZERO,
            Vec2::new(1.3, 0.0),
            0.2,
            std::iter::empty(),
            [wall].into_iter(),
        );
        assert!((v - Vec2::new(1.202648, -0.493597)).length() < 2e-6, "{v}");
    }

    #[test]
    fn when_the_pulls_cancel_the_agent_keeps_its_heading() {
        // A wall of strength 1 touching the body (distance = radius, e^0 = 1) straight ahead
        // cancels the unit goal direction exactly: the sum is zero, so the direction is the
        // agent's current heading, north, at the desired speed (no neighbour ahead).
        let m = Cfsm { wall_strength: 1.0, ..cfsm() };
        let wall = WallNear { normal: Vec2::new(-1.0, 0.0), distance: 0.2 };
        let v = new_velocity(
            &m,
            Vec2::new(0.0, 0.5),
            Vec2::new(1.3, 0.0),
            0.2,
            std::iter::empty(),
            [wall].into_iter(),
        );
        assert_eq!(v, Vec2::new(0.0, 1.3));
        // Standing still, it has no heading: it stays.
        let v =
            new_velocity(&m, Vec2::ZERO, Vec2::new(1.3, 0.0), 0.2, std::iter::empty(), [wall].into_iter());
        assert_eq!(v, Vec2::ZERO);
    }

    #[test]
    fn a_neighbour_ahead_sets_the_speed_by_the_time_gap() {
        // Straight ahead at 1.0, radii 0.2 + 0.2: spacing 0.6, speed 0.6 / 1 s; the repulsion
        // 8·e^(−6) is along the line, so the direction stays.
        let j = Body { offset: Vec2::new(1.0, 0.0), velocity: Vec2::ZERO, radius: 0.2 };
        let v =
            new_velocity(&cfsm(), Vec2::ZERO, Vec2::new(1.3, 0.0), 0.2, [j].into_iter(), std::iter::empty());
        assert!((v - Vec2::new(0.6, 0.0)).length() < 1e-6, "{v}");
        // Beside the corridor (0.5 to the side of a 0.4 corridor), it does not slow the agent,
        // but turns it away: e = norm((1, 0) − 8·e^((0.4 − d)/0.1)·u).
        let j = Body { offset: Vec2::new(1.0, 0.5), velocity: Vec2::ZERO, radius: 0.2 };
        let v =
            new_velocity(&cfsm(), Vec2::ZERO, Vec2::new(1.3, 0.0), 0.2, [j].into_iter(), std::iter::empty());
        let d = 1.25f32.sqrt();
        let sum = Vec2::new(1.0, 0.0) - 8.0 * crate::math::exp((0.4 - d) / 0.1) * Vec2::new(1.0, 0.5) / d;
        assert!((v - sum.normalize() * 1.3).length() < 1e-5 && v.y < 0.0, "{v}");
    }
}
