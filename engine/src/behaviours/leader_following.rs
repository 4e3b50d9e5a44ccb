//! Leader following: arrive behind the leader, keep apart, evade the leader's sight line.

use super::Behaviour;
use super::params::{Default, Invalid, Kind, KindSpec, ParamSpec, force, length, length0};
use super::{arrive, evade};
use crate::behaviours::EvadePrediction;
use crate::math::Vector;
use crate::world::Target;

/// The leader as a follower sees it.
#[derive(Clone, Copy, Debug)]
pub struct Leader<V> {
    /// From the follower to the leader (through the bounds).
    pub offset: V,
    /// The leader's velocity.
    pub velocity: V,
    /// Where the leader heads (unit length, or zero).
    pub heading: V,
}

/// How a follower follows: the behaviour's distances.
#[derive(Clone, Copy, Debug)]
pub struct Following {
    /// How far behind the leader to arrive.
    pub behind_dist: f32,
    /// The arrive radius.
    pub slowing_radius: f32,
    /// Evade the leader when it or its `ahead` point is this close.
    pub sight_radius: f32,
}

/// Leader following: `tv = leader_heading · behind_dist; ahead = leader.p + tv;
/// behind = leader.p - tv; force = arrive(behind) + separation + evade(leader)` when `ahead`
/// or the leader is within `sight_radius`. `leader_heading` is the sources' `norm(leader.v)`
/// (or, with `behind_when_stopped = "last_heading"`, a stopped leader's last heading);
/// `separation` is computed by the caller.
pub fn follow_leader<V: Vector>(leader: Leader<V>, v: V, max_speed: f32, how: Following, separation: V) -> V {
    let Leader { offset: to_leader, velocity: leader_v, heading: leader_heading } = leader;
    let Following { behind_dist, slowing_radius, sight_radius } = how;
    let tv = leader_heading * behind_dist;
    let to_ahead = to_leader + tv;
    let to_behind = to_leader - tv;
    let mut force = arrive(to_behind, v, max_speed, slowing_radius) + separation;
    if to_ahead.length() <= sight_radius || to_leader.length() <= sight_radius {
        force += evade(to_leader, leader_v, v, max_speed, None, EvadePrediction::TargetSpeed);
    }
    force
}

/// `follow_leader`: arrive behind the leader, keep apart, keep out of its way.
pub const FOLLOW_LEADER: KindSpec = KindSpec {
    name: "follow_leader",
    force: "arrive behind the leader, separation from the other followers, evade the leader when in its sight",
    weighted: true,
    params: &[
        ParamSpec {
            key: "leader",
            kind: Kind::AgentTarget,
            unit: "",
            meaning: "whom to follow (not a member of this group)",
        },
        length0("behind_dist", Default::Value(2.0), "how far behind the leader to arrive"),
        length("slowing_radius", Default::Value(5.0), "arrive radius"),
        length0(
            "sight_radius",
            Default::Value(3.0),
            "evade the leader when it or its `ahead` point is this close",
        ),
        length("separation_radius", Default::Value(1.0), "followers keep apart within it"),
        force("max_separation", 1.0, "separation magnitude"),
        ParamSpec {
            key: "behind_when_stopped",
            kind: Kind::Choice(&["leader", "last_heading"], "leader"),
            unit: "",
            meaning: "where `behind` is when the leader has stopped (slower than 10 % of its max_speed): on the leader, as the sources' formula gives (followers ring it), or behind the way it last moved",
        },
    ],
    build: |a, ctx| {
        let leader = a.target("leader");
        let Target::Agent(id) = ctx.targets[leader as usize] else {
            let name = ctx.target_names.get(leader as usize).copied().unwrap_or("");
            return Err(Invalid {
                key: "leader",
                message: format!("the leader must be a target of kind \"agent\"; \"{name}\" is not"),
            });
        };
        if ctx.group_ids.contains(&(id as u64)) {
            return Err(Invalid {
                key: "leader",
                message: format!(
                    "agent {id} belongs to group \"{}\" itself: a leader cannot follow itself; put the leader in a group of its own",
                    ctx.group
                ),
            });
        }
        Ok(Behaviour::FollowLeader {
            leader,
            behind_dist: a.number("behind_dist"),
            slowing_radius: a.number("slowing_radius"),
            sight_radius: a.number("sight_radius"),
            separation_radius: a.number("separation_radius"),
            max_separation: a.number("max_separation"),
            keep_heading: a.choice("behind_when_stopped") == "last_heading",
        })
    },
};
