//! The `find_threats` pass: each avoiding agent's most threatening obstacle, per the spec (in
//! space, its most threatening solid: `find_solid_threats`).
//! Reads: positions, velocities, max speeds, radii, groups, obstacles and their index.
//! Writes: row `i` of `threat` (`NO_THREAT` when none, or when the world has no obstacles).
//! Parallel: per agent, pieces of at most `PIECE_ROWS` rows.

use rayon::prelude::*;

use crate::behaviours::{NO_THREAT, most_threatening, most_threatening_solid};
use crate::index::ObstacleIndex;
use crate::math::{Vec2, Vec3};
use crate::world::{Bounds, Group, Obstacle, Solid};

/// Sizes `threat` to the agents and fills it.
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn find_threats(
    index: Option<&ObstacleIndex>,
    obstacles: &[Obstacle],
    groups: &[Group],
    group: &[u16],
    position: &[Vec2],
    velocity: &[Vec2],
    max_speed: &[f32],
    radius: &[f32],
    threat: &mut Vec<u32>,
) {
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
#[allow(clippy::too_many_arguments)] // a pass lists every column it touches; see docs/pipeline.md
pub fn find_solid_threats(
    solids: &[Solid],
    bounds: &Bounds<Vec3>,
    groups: &[Group],
    group: &[u16],
    position: &[Vec3],
    velocity: &[Vec3],
    max_speed: &[f32],
    radius: &[f32],
    threat: &mut Vec<u32>,
) {
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
