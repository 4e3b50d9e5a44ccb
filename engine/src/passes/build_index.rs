//! The `build_index` pass. Reads: positions, ids, groups, targets, obstacles, bounds. Writes:
//! the agents' spatial index (k-d trees or grid; on a tick that reuses sensing candidates, only
//! the nearest-of-group sets) and the obstacle index (rebuilt only when the obstacles or bounds
//! change, so once per run). Parallel: k-d builds from 4,096 points, the grid's counting sort.

use crate::index::{ObstacleIndex, Point, SpatialIndex};
use crate::world::{Agents, Bounds, Obstacle, Target};

use super::StepContext;

/// The obstacle index for these obstacles and bounds: kept when it still fits, else rebuilt;
/// `None` without obstacles.
pub fn refresh_obstacle_index(obstacles: &[Obstacle], bounds: &Bounds, index: &mut Option<ObstacleIndex>) {
    if obstacles.is_empty() {
        *index = None;
    } else if !index.as_ref().is_some_and(|o| o.fits(obstacles, bounds)) {
        *index = Some(ObstacleIndex::build(obstacles, bounds));
    }
}

/// What `build_agent_index` rebuilds this tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexScope {
    /// The whole index: this tick senses afresh.
    Whole,
    /// Only the nearest-of-group sets: the neighbour lists come from reused candidates.
    NearestOfGroups,
}

/// Packs positions and rebuilds the agents' k-d trees or grid (cells `cell` wide: the widest
/// reach sensing asks, `SensingCache::widest_reach`), or with [`IndexScope::NearestOfGroups`]
/// only the nearest-of-group sets. Reads the agents' positions, ids and groups.
/// `targeted[g]` is set for every group some `NearestOf` target names.
pub fn build_agent_index<V: Point>(
    ctx: &StepContext<V>,
    targets: &[Target<V>],
    agents: &Agents<V>,
    scope: IndexScope,
    cell: f32,
    index: &mut SpatialIndex<V>,
    targeted: &mut Vec<bool>,
) {
    let Agents { position, id, group, .. } = agents;
    targeted.clear();
    targeted.resize(ctx.groups.len(), false);
    for t in targets {
        if let Target::NearestOf(g) = t {
            targeted[*g as usize] = true;
        }
    }
    if scope == IndexScope::Whole {
        index.build_with_cell(ctx.bounds, position, id, group, targeted, cell);
    } else {
        index.build_groups_only(ctx.bounds, position, group, targeted);
    }
}
