//! Leader following: arrive behind the leader, keep apart, evade the leader's sight line.

use super::{arrive, evade};
use crate::behaviours::EvadePrediction;
use crate::math::{Vec2, norm};

/// Leader following: `tv = norm(leader.v) · behind_dist; ahead = leader.p + tv;
/// behind = leader.p - tv; force = arrive(behind) + separation + evade(leader)` when `ahead`
/// or the leader is within `sight_radius`. `separation` is computed by the caller.
#[allow(clippy::too_many_arguments)] // the spec's parameters, one each
pub fn follow_leader(
    to_leader: Vec2,
    leader_v: Vec2,
    v: Vec2,
    max_speed: f32,
    behind_dist: f32,
    slowing_radius: f32,
    sight_radius: f32,
    separation: Vec2,
) -> Vec2 {
    let tv = norm(leader_v) * behind_dist;
    let to_ahead = to_leader + tv;
    let to_behind = to_leader - tv;
    let mut force = arrive(to_behind, v, max_speed, slowing_radius) + separation;
    if to_ahead.length() <= sight_radius || to_leader.length() <= sight_radius {
        force += evade(to_leader, leader_v, v, max_speed, None, EvadePrediction::TargetSpeed);
    }
    force
}
