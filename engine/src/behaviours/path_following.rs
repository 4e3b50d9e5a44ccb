//! Path following: the node cursor (once, loop, patrol) and the force towards the node.

use super::Behaviour;
use super::params::{Default, Invalid, Kind, KindSpec, ParamSpec, length};
use super::{arrive, seek};
use crate::math::Vector;
use crate::world::PathMode;

/// Path following: the cursor after this tick's reach test. When the agent is within
/// `radius` of node `current`, it moves on: `once` stops at the last node, `loop` wraps to
/// node 0, `patrol` reverses at either end (0, 1, …, n−1, n−2, …, 0, 1, …).
pub fn path_advance(
    dist_to_node: f32,
    radius: f32,
    current: u32,
    dir: i8,
    nodes: u32,
    mode: PathMode,
) -> (u32, i8) {
    if dist_to_node > radius {
        return (current, dir);
    }
    match mode {
        PathMode::Once => ((current + 1).min(nodes - 1), dir),
        PathMode::Loop => ((current + 1) % nodes, dir),
        PathMode::Patrol => {
            let next = current as i64 + dir as i64;
            if next < 0 || next >= nodes as i64 {
                let dir = -dir;
                ((current as i64 + dir as i64) as u32, dir)
            } else {
                (next as u32, dir)
            }
        }
    }
}

/// Path following's force: `seek(nodes[current])`, or `arrive` at the last node of a `once`
/// path.
#[inline]
pub fn follow_path<V: Vector>(to_node: V, v: V, max_speed: f32, arrive_here: bool, slowing_radius: f32) -> V {
    if arrive_here { arrive(to_node, v, max_speed, slowing_radius) } else { seek(to_node, v, max_speed) }
}

/// `follow_path`: seek the path's current node.
pub const FOLLOW_PATH: KindSpec = KindSpec {
    name: "follow_path",
    force: "seek of the current node (arrive at the end of a `once` path); see [behaviours.md](behaviours.md#path-following)",
    weighted: true,
    params: &[
        ParamSpec { key: "path", kind: Kind::Path, unit: "", meaning: "the path to follow" },
        ParamSpec {
            key: "mode",
            kind: Kind::Choice(&["once", "loop", "patrol"], "loop"),
            unit: "",
            meaning: "what happens at the last node (`loop` and `patrol` need 2 nodes or more)",
        },
        length("slowing_radius", Default::Value(3.0), "arrive radius at the end of a `once` path"),
        super::seek::ROUTE,
    ],
    build: |a, ctx| {
        let path = a.path("path");
        let mode = match a.choice("mode") {
            "once" => PathMode::Once,
            "patrol" => PathMode::Patrol,
            _ => PathMode::Loop,
        };
        let (name, nodes) = ctx.paths[path as usize];
        if mode != PathMode::Once && nodes < 2 {
            return Err(Invalid {
                key: "mode",
                message: format!(
                    "path \"{name}\" has {nodes} node; mode \"{}\" needs at least 2",
                    a.choice("mode")
                ),
            });
        }
        let slowing_radius = a.number("slowing_radius");
        Ok(match a.choice("route") {
            "field" => Behaviour::FollowPathField { path, mode, slowing_radius },
            _ => Behaviour::FollowPath { path, mode, slowing_radius },
        })
    },
};
