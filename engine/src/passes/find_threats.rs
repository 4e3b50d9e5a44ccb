//! The `find_threats` pass: each avoiding agent's most threatening obstacle, per the spec (in
//! space, its most threatening solid: `find_solid_threats`).
//! Reads: positions, velocities, max speeds, radii, groups, obstacles and their index.
//! Writes: row `i` of `threat` (`NO_THREAT` when none, or when the world has no obstacles).
//! Parallel: per agent, pieces of at most `PIECE_ROWS` rows.

use rayon::prelude::*;

use crate::behaviours::{NO_THREAT, most_threatening, most_threatening_solid};
use crate::index::ObstacleIndex;
use crate::math::Vec3;
use crate::world::{Agents, Bounds, Group, Obstacle, Solid};

/// Sizes `threat` to the agents and fills it.
pub fn find_threats(
    index: Option<&ObstacleIndex>,
    obstacles: &[Obstacle],
    groups: &[Group],
    agents: &Agents,
    threat: &mut Vec<u32>,
) {
    let Agents { group, position, velocity, max_speed, radius, .. } = agents;
    threat.clear();
    threat.resize(group.len(), NO_THREAT);
    let Some(index) = index else { return };
    threat.par_iter_mut().enumerate().with_min_len(128).with_max_len(crate::par::PIECE_ROWS).for_each(
        |(i, out)| {
            *out = groups[group[i] as usize]
                .see_ahead()
                .and_then(|see| {
                    most_threatening(index, obstacles, position[i], velocity[i], max_speed[i], radius[i], see)
                })
                .unwrap_or(NO_THREAT);
        },
    );
}

/// [`find_threats`] in space: each avoiding agent's most threatening solid (an index into
/// `solids`), `NO_THREAT` when none.
pub fn find_solid_threats(
    solids: &[Solid],
    bounds: &Bounds<Vec3>,
    groups: &[Group],
    agents: &Agents<Vec3>,
    threat: &mut Vec<u32>,
) {
    let Agents { group, position, velocity, max_speed, radius, .. } = agents;
    threat.clear();
    threat.resize(group.len(), NO_THREAT);
    if solids.is_empty() {
        return;
    }
    threat.par_iter_mut().enumerate().with_min_len(128).with_max_len(crate::par::PIECE_ROWS).for_each(
        |(i, out)| {
            *out = groups[group[i] as usize]
                .see_ahead()
                .and_then(|see| {
                    most_threatening_solid(
                        solids,
                        bounds,
                        position[i],
                        velocity[i],
                        max_speed[i],
                        radius[i],
                        see,
                    )
                })
                .unwrap_or(NO_THREAT);
        },
    );
}
