//! The group force that holds a party together (Moussaïd, Perozo, Garnier, Helbing,
//! Theraulaz 2010, PLoS ONE 5(4) e10047), per unit mass:
//! `f = f_gaze + f_attraction + f_repulsion`, where, for member `i` of a party of `n`:
//!
//! - gaze: `−β₁ α v`, `α` the angle (radians) by which the direction from `i` to the *other*
//!   members' centre lies outside the field of view (`vision` either side of `v`, the walking
//!   direction), 0 inside it; `v` is `i`'s velocity. A member ahead of the others slows down
//!   until it sees them;
//! - attraction: `β₂ u` when `i` is at least `(n − 1)/2` m from the party's centre (all
//!   members, `i` too), `u` the unit vector towards it;
//! - repulsion: `β₃ w` for each other member closer than `repulsion_range`, `w` the unit vector
//!   from that member to `i`.

use crate::math::{Vector, acos};
use crate::world::PartyForce;

/// The group force on member `me` of a party whose members stand at `positions` (in id order,
/// `me` among them), walking at `velocity`. Zero for a party of one.
pub fn party_force<V: Vector>(f: &PartyForce, positions: &[V], me: usize, velocity: V) -> V {
    let n = positions.len();
    if n < 2 {
        return V::ZERO;
    }
    let at = positions[me];
    let mut force = V::ZERO;

    // Gaze: the others' centre, against the walking direction.
    let mut others = V::ZERO;
    for (k, &p) in positions.iter().enumerate() {
        if k != me {
            others += p;
        }
    }
    let to_others = others / (n - 1) as f32 - at;
    let (speed, reach) = (velocity.length(), to_others.length());
    if speed > 0.0 && reach > 0.0 {
        let angle = acos(velocity.dot(to_others) / (speed * reach));
        if angle > f.vision {
            force -= velocity * (f.gaze * (angle - f.vision));
        }
    }

    // Attraction to the party's centre.
    let mut all = V::ZERO;
    for &p in positions {
        all += p;
    }
    let to_centre = all / n as f32 - at;
    let from_centre = to_centre.length();
    if from_centre > 0.0 && from_centre >= (n - 1) as f32 / 2.0 {
        force += to_centre * (f.attraction / from_centre);
    }

    // Repulsion between members.
    for (k, &p) in positions.iter().enumerate() {
        let away = at - p;
        let d = away.length();
        if k != me && d > 0.0 && d < f.repulsion_range {
            force += away * (f.repulsion / d);
        }
    }
    force
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec2;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn a_member_beside_its_partner_feels_nothing() {
        // Abreast, 0.6 m apart, walking +x: the partner is at 90° (just inside the field of
        // view), 0.3 m from the centre (under (2 − 1)/2 = 0.5), farther than 0.5 m.
        let f = PartyForce::default();
        let pair = [Vec2::new(0.0, 0.0), Vec2::new(0.0, 0.6)];
        assert_eq!(party_force(&f, &pair, 0, Vec2::new(1.2, 0.0)), Vec2::ZERO);
    }

    #[test]
    fn a_member_ahead_slows_down_by_the_angle_it_must_turn() {
        // Walking +x at 1 m/s, the partner 0.4 m behind and 0.4 m to the side: the partner is
        // at 135°, 45° (π/4) outside the view, so gaze = −4 · π/4 · (1, 0) = (−π, 0). The
        // centre is (−0.2, 0.2), 0.283 m away: under 0.5, no attraction. The partner is
        // 0.566 m away: beyond 0.5, no repulsion.
        let f = PartyForce::default();
        let pair = [Vec2::new(0.0, 0.0), Vec2::new(-0.4, 0.4)];
        let force = party_force(&f, &pair, 0, Vec2::new(1.0, 0.0));
        assert!(close(force, Vec2::new(-std::f32::consts::PI, 0.0)), "{force}");
    }

    #[test]
    fn a_member_far_from_the_centre_is_drawn_to_it() {
        // Standing still (no gaze), 2 m from its partner: the centre is 1 m away (≥ 0.5), so
        // attraction = 3 · (1, 0).
        let f = PartyForce::default();
        let pair = [Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0)];
        assert!(close(party_force(&f, &pair, 0, Vec2::ZERO), Vec2::new(3.0, 0.0)));
    }

    #[test]
    fn members_too_close_push_apart_and_triples_use_the_others_centre() {
        // A triple standing still: members 0 and 1 are 0.3 m apart (repulsion 1 · (−1, 0)
        // on 0); member 2 is 0.8 m away (none). The centre is (0.15, 0.2667) from a sum of
        // (0.45, 0.8): 0.306 m from member 0, under (3 − 1)/2 = 1, no attraction.
        let f = PartyForce::default();
        let triple = [Vec2::new(0.0, 0.0), Vec2::new(0.3, 0.0), Vec2::new(0.15, 0.8)];
        assert!(close(party_force(&f, &triple, 0, Vec2::ZERO), Vec2::new(-1.0, 0.0)));
        // Walking +y, member 2 has the others' centre (0.15, 0) straight behind: 180°, π/2
        // outside the view: gaze = −4 · π/2 · (0, 1) = (0, −2π). It is 0.53 m from the
        // centre (under 1) and 0.81 m from each other member.
        let force = party_force(&f, &triple, 2, Vec2::new(0.0, 1.0));
        assert!(close(force, Vec2::new(0.0, -std::f32::consts::TAU)), "{force}");
    }

    #[test]
    fn one_member_alone_feels_nothing() {
        let f = PartyForce::default();
        assert_eq!(party_force(&f, &[Vec2::new(1.0, 2.0)], 0, Vec2::new(1.0, 0.0)), Vec2::ZERO);
    }
}
