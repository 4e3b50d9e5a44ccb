//! Where an agent is trying to get to: the goal the stuck-agent count measures progress
//! against.

use crate::behaviours::{Behaviour, moving_point};
use crate::world::{Dimension, PathMode, Target, World};

/// Where agent row `i` is trying to get to, if it has a destination: the target of its
/// group's first seek, arrive or random walk, or the last node of a `once` path.
pub fn goal_of<V: Dimension>(world: &World<V>, i: usize, time_s: f64) -> Option<V> {
    let group = &world.groups[world.agents.group[i] as usize];
    group.behaviours.iter().find_map(|b| match b.behaviour {
        Behaviour::Seek { target }
        | Behaviour::Arrive { target, .. }
        | Behaviour::SeekField { target }
        | Behaviour::ArriveField { target, .. }
        | Behaviour::RandomWalk { target, .. } => match &world.targets[target as usize] {
            Target::Point(p) => Some(*p),
            Target::Moving { waypoints, speed } => Some(moving_point(waypoints, *speed, time_s).0),
            Target::Agent(id) => world.row_of(*id).map(|r| world.agents.position[r]),
            Target::Random { .. } | Target::Opposite { .. } | Target::Own => Some(world.agents.goal[i]),
            Target::Journey => {
                (world.agents.journey[i] != crate::world::NO_JOURNEY).then(|| world.agents.goal[i])
            }
            Target::NearestOf(_) | Target::Direction { .. } => None,
        },
        Behaviour::FollowPath { path, mode: PathMode::Once, .. }
        | Behaviour::FollowPathField { path, mode: PathMode::Once, .. } => {
            world.paths[path as usize].nodes.last().copied()
        }
        _ => None,
    })
}
