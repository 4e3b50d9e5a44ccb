//! Leader following: arrive behind the leader, evade when in its sight, plus separation.

use throng_engine::behaviours::{Following, Leader, follow_leader};
use throng_engine::math::{Vec2, norm};

use crate::common::{assert_close, v};

#[test]
fn follow_leader_out_of_sight_arrives_behind_plus_separation() {
    // Leader at p + (10, 0) moving (2, 0); behind_dist 3: tv = (1, 0) * 3 = (3, 0),
    // ahead = leader + tv = p + (13, 0), behind = leader - tv = p + (7, 0).
    // arrive(behind): d = 7 >= slowing 5, so desired = (1, 0) * 4 = (4, 0); v = (1, 0): (3, 0).
    // Sight 2.5: |ahead - p| = 13 and |leader - p| = 10 are both outside: no evade.
    // Separation (0.5, -0.25) is added as given: (3.5, -0.25).
    let f = follow_leader(
        Leader { offset: v(10.0, 0.0), velocity: v(2.0, 0.0), heading: norm(v(2.0, 0.0)) },
        v(1.0, 0.0),
        4.0,
        Following { behind_dist: 3.0, slowing_radius: 5.0, sight_radius: 2.5 },
        v(0.5, -0.25),
    );
    assert_close(f, v(3.5, -0.25));
    // Without separation: the arrive term alone.
    let f = follow_leader(
        Leader { offset: v(10.0, 0.0), velocity: v(2.0, 0.0), heading: norm(v(2.0, 0.0)) },
        v(1.0, 0.0),
        4.0,
        Following { behind_dist: 3.0, slowing_radius: 5.0, sight_radius: 2.5 },
        Vec2::ZERO,
    );
    assert_close(f, v(3.0, 0.0));
}

#[test]
fn follow_leader_evades_when_the_ahead_point_is_in_sight() {
    // Follower ahead of the leader: leader at p + (-6, 0) moving (1, 0), behind_dist 5:
    // tv = (5, 0), ahead - p = (-1, 0) (|.| = 1), leader - p = (-6, 0) (|.| = 6),
    // behind - p = (-11, 0).
    // arrive: d = 11 >= 5: desired = (-1, 0) * 4 = (-4, 0); v = (0, 1): (-4, -1).
    // evade(leader): d = 6, |q.v| = 1, T = 6 / (4 + 1) = 1.2 s, future - p = (-6, 0) + (1.2, 0)
    // = (-4.8, 0); flee: norm((4.8, 0)) * 4 - v = (4, 0) - (0, 1) = (4, -1).
    // Sight 2: only the ahead point is within (1 <= 2; 6 > 2): force = (-4, -1) + (4, -1) = (0, -2).
    let f = follow_leader(
        Leader { offset: v(-6.0, 0.0), velocity: v(1.0, 0.0), heading: norm(v(1.0, 0.0)) },
        v(0.0, 1.0),
        4.0,
        Following { behind_dist: 5.0, slowing_radius: 5.0, sight_radius: 2.0 },
        Vec2::ZERO,
    );
    assert_close(f, v(0.0, -2.0));
    // Sight exactly 1 = |ahead - p|: still in sight (<=), same force.
    let f = follow_leader(
        Leader { offset: v(-6.0, 0.0), velocity: v(1.0, 0.0), heading: norm(v(1.0, 0.0)) },
        v(0.0, 1.0),
        4.0,
        Following { behind_dist: 5.0, slowing_radius: 5.0, sight_radius: 1.0 },
        Vec2::ZERO,
    );
    assert_close(f, v(0.0, -2.0));
    // Sight 0.5: neither point is within, so only the arrive term: (-4, -1).
    let f = follow_leader(
        Leader { offset: v(-6.0, 0.0), velocity: v(1.0, 0.0), heading: norm(v(1.0, 0.0)) },
        v(0.0, 1.0),
        4.0,
        Following { behind_dist: 5.0, slowing_radius: 5.0, sight_radius: 0.5 },
        Vec2::ZERO,
    );
    assert_close(f, v(-4.0, -1.0));
}

#[test]
fn follow_leader_evades_when_the_leader_itself_is_in_sight() {
    // Leader at p + (1, 0) moving (0, 2), behind_dist 3: tv = (0, 3), ahead - p = (1, 3)
    // (|.| = sqrt(10) = 3.1622777 > sight 2), leader - p = (1, 0) (|.| = 1 <= 2): evade.
    // arrive(behind): behind - p = (1, -3), d = sqrt(10) < slowing 5:
    // desired = (1, -3)/sqrt(10) * 4 * sqrt(10)/5 = (1, -3) * 0.8 = (0.8, -2.4); v = 0.
    // evade: d = 1, |q.v| = 2, T = 1 / (4 + 2) = 1/6, future - p = (1, 0) + (0, 2)/6 = (1, 1/3);
    // flee: norm(-(1, 1/3)) = -(3, 1)/sqrt(10) = (-0.9486833, -0.3162278), * 4
    // = (-3.7947332, -1.2649111).
    // Sum: (0.8 - 3.7947332, -2.4 - 1.2649111) = (-2.9947332, -3.6649111).
    let f = follow_leader(
        Leader { offset: v(1.0, 0.0), velocity: v(0.0, 2.0), heading: norm(v(0.0, 2.0)) },
        Vec2::ZERO,
        4.0,
        Following { behind_dist: 3.0, slowing_radius: 5.0, sight_radius: 2.0 },
        Vec2::ZERO,
    );
    assert_close(f, v(-2.994733, -3.664911));
    // Sight 0.9: the leader (1) and the ahead point (3.16) are both outside: arrive only.
    let f = follow_leader(
        Leader { offset: v(1.0, 0.0), velocity: v(0.0, 2.0), heading: norm(v(0.0, 2.0)) },
        Vec2::ZERO,
        4.0,
        Following { behind_dist: 3.0, slowing_radius: 5.0, sight_radius: 0.9 },
        Vec2::ZERO,
    );
    assert_close(f, v(0.8, -2.4));
}
