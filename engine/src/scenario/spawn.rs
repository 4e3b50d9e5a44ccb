//! Where a group's agents start. Each agent draws its position from its own spawn generator;
//! a spawn with `min_distance` or `wall_distance` (JuPedSim's `distribute_by_number`: the
//! distance between centres, and from a centre to an obstacle's surface) redraws, from the
//! same generator, until the position keeps those distances from every agent placed before
//! it (earlier groups first, then its own in order) and from every obstacle. Serial and keyed
//! by agent, so the same scenario and seed give the same positions at any thread count; an
//! agent whose first draw already keeps its distances lands where it would without them.

use std::collections::BTreeMap;

use crate::math::Vector;
use crate::world::Dimension;
pub(crate) use crate::world::Placed;
pub use crate::world::Spacing;

/// How many draws one agent may take before the spawn is declared too crowded.
pub const MAX_TRIES: u32 = 10_000;

/// A spawn that could not place its agents.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpawnError {
    /// A drawn spawn ran out of tries: the region is too crowded at these distances.
    #[error(
        "`groups[{group}].spawn`: could not place agent {agent} of {count} at least {min_distance} from every other agent and {wall_distance} from every obstacle after {MAX_TRIES} draws; the region is too crowded at these distances (place fewer agents, widen the region, or lower min_distance)"
    )]
    Crowded {
        /// The group's index.
        group: usize,
        /// The agent (0-based, within the group) that found no place.
        agent: u32,
        /// The group's count.
        count: u32,
        /// The spawn's `min_distance`.
        min_distance: f32,
        /// The spawn's `wall_distance`.
        wall_distance: f32,
    },
    /// A listed point breaks the distances.
    #[error("`groups[{group}].spawn.points[{point}]`: {problem}")]
    Point {
        /// The group's index.
        group: usize,
        /// The point's index in the list.
        point: usize,
        /// What is wrong, in words.
        problem: String,
    },
}

/// The largest volume (area in the plane) one agent takes at `min_distance` in the densest
/// packing (hexagonal in the plane, face-centred cubic in space): a region of volume `A`
/// holds at most `A / cell_volume` agents that far apart, and a random placement far fewer.
pub fn packing_cell<V: Vector>(min_distance: f32) -> f32 {
    let d = min_distance as f64;
    let cell = if V::DIMENSIONS == 2 { 3f64.sqrt() / 2.0 * d * d } else { d * d * d / 2f64.sqrt() };
    cell as f32
}

/// Checks listed point `point` of group `group` at `p` against `spacing`.
pub(crate) fn check_point<V: Dimension>(
    placed: &Placed<'_, V>,
    group: usize,
    point: usize,
    p: V,
    spacing: Spacing,
) -> Result<(), SpawnError> {
    if let Some((q, d)) = placed.first_too_close(p, spacing.min_distance) {
        return Err(SpawnError::Point {
            group,
            point,
            problem: format!(
                "{p} lies {d} from an agent placed before it at {q}, closer than min_distance {}",
                spacing.min_distance
            ),
        });
    }
    if let Some(d) = placed.wall_gap(p, spacing.wall_distance) {
        let where_ = if d < 0.0 { "inside an obstacle".to_string() } else { format!("{d} from an obstacle") };
        return Err(SpawnError::Point {
            group,
            point,
            problem: format!("{p} lies {where_}, closer than wall_distance {}", spacing.wall_distance),
        });
    }
    Ok(())
}

/// How many pairs of agents of the groups `counted` picks overlap in `world` by more than
/// `1e-4` of their radii's sum (centres nearer than the sum): what `throng check` reports
/// of a scene whose velocity models would start by pushing bodies apart.
pub fn overlapping_bodies<V: Dimension>(
    world: &crate::world::World<V>,
    counted: impl Fn(u16) -> bool,
) -> usize {
    let a = &world.agents;
    let rows: Vec<usize> = (0..a.position.len()).filter(|&i| counted(a.group[i])).collect();
    let largest = rows.iter().map(|&i| a.radius[i]).fold(0.0f32, f32::max);
    if rows.len() < 2 || largest <= 0.0 {
        return 0;
    }
    let no_obstacles: [V::Obstacle; 0] = [];
    let grid = Placed::new(&world.bounds, &no_obstacles, 2.0 * largest);
    let mut rows_in: BTreeMap<[i64; 3], Vec<usize>> = BTreeMap::new();
    for &i in &rows {
        rows_in.entry(grid.cell_of(a.position[i])).or_default().push(i);
    }
    let mut pairs = 0;
    for &i in &rows {
        let centre = grid.cell_of(a.position[i]);
        for c in grid.around(centre) {
            for &j in rows_in.get(&c).map_or(&[][..], |v| &v[..]) {
                let reach = (a.radius[i] + a.radius[j]) * (1.0 - 1e-4);
                if j > i && world.bounds.offset(a.position[i], a.position[j]).length_squared() < reach * reach
                {
                    pairs += 1;
                }
            }
        }
    }
    pairs
}
