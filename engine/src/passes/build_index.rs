//! The `build_index` pass. Reads: positions, ids, groups, targets, obstacles, bounds. Writes:
//! the agents' spatial index (k-d trees or grid; on a tick that reuses sensing candidates, only
//! the nearest-of-group sets) and the obstacle index (rebuilt only when the obstacles or bounds
//! change, so once per run). Parallel: k-d builds from 4,096 points, the grid's counting sort.

use crate::index::{ObstacleIndex, Point, SpatialIndex};
use crate::world::{Bounds, Obstacle, Target};

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

/// Packs positions and rebuilds the agents' k-d trees or grid (cells `cell` wide: the widest
/// reach sensing asks, `SensingCache::widest_reach`); with `all` false, only the
/// nearest-of-group sets (the neighbour lists come from reused candidates this tick).
/// `targeted[g]` is set for every group some `NearestOf` target names.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn build_agent_index<V: Point>(
    ctx: &StepContext<V>,
    targets: &[Target<V>],
    position: &[V],
    id: &[u32],
    group: &[u16],
    all: bool,
    cell: f32,
    index: &mut SpatialIndex<V>,
    targeted: &mut Vec<bool>,
) {
    targeted.clear();
    targeted.resize(ctx.groups.len(), false);
    for t in targets {
        if let Target::NearestOf(g) = t {
            targeted[*g as usize] = true;
        }
    }
    if all {
        index.build_with_cell(ctx.bounds, position, id, group, targeted, cell);
    } else {
        index.build_groups_only(ctx.bounds, position, group, targeted);
    }
}
