//! Where a group's agents start. Each agent draws its position from its own spawn generator;
//! a spawn with `min_distance` or `wall_distance` (JuPedSim's `distribute_by_number`: the
//! distance between centres, and from a centre to an obstacle's surface) redraws, from the
//! same generator, until the position keeps those distances from every agent placed before
//! it (earlier groups first, then its own in order) and from every obstacle. Serial and keyed
//! by agent, so the same scenario and seed give the same positions at any thread count; an
//! agent whose first draw already keeps its distances lands where it would without them.

use std::collections::BTreeMap;

use crate::math::Vector;
use crate::world::{Bounds, BoundsKind, Dimension};

/// How many draws one agent may take before the spawn is declared too crowded.
pub const MAX_TRIES: u32 = 10_000;

/// The distances a group's spawn keeps (the spawn table's `min_distance` and
/// `wall_distance`); zero keeps none, as a spawn without them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spacing {
    /// Least distance between the centres of two agents (world units, ≥ 0).
    pub min_distance: f32,
    /// Least distance from an agent's centre to an obstacle's surface (world units, ≥ 0).
    pub wall_distance: f32,
}

impl Spacing {
    /// Whether the spawn keeps any distance.
    pub fn keeps_any(&self) -> bool {
        self.min_distance > 0.0 || self.wall_distance > 0.0
    }
}

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

/// The agents placed so far, in a grid of cells at least `min_distance` wide, so a new
/// position is checked against the few agents near it.
pub(crate) struct Placed<'a, V: Dimension> {
    bounds: &'a Bounds<V>,
    obstacles: &'a [V::Obstacle],
    /// The cell side (world units); 0 when no spawn keeps a distance between agents.
    cell: f32,
    /// Cells per axis on a wrapped world (their side stretched to tile it); 0 when open.
    wrap_cells: [i64; 3],
    cells: BTreeMap<[i64; 3], Vec<V>>,
}

impl<'a, V: Dimension> Placed<'a, V> {
    /// An empty placement over `bounds` and `obstacles`, for spawns whose `min_distance` is at
    /// most `largest` (0: no agent keeps a distance from another).
    pub(crate) fn new(bounds: &'a Bounds<V>, obstacles: &'a [V::Obstacle], largest: f32) -> Self {
        let mut wrap_cells = [0; 3];
        if bounds.kind == BoundsKind::Wrap && largest > 0.0 {
            for (a, n) in wrap_cells.iter_mut().enumerate().take(V::DIMENSIONS) {
                *n = ((bounds.size().axis(a) / largest).floor() as i64).max(1);
            }
        }
        Placed { bounds, obstacles, cell: largest, wrap_cells, cells: BTreeMap::new() }
    }

    /// The side of a cell along axis `a`.
    fn side(&self, a: usize) -> f32 {
        if self.wrap_cells[a] > 0 {
            self.bounds.size().axis(a) / self.wrap_cells[a] as f32
        } else {
            self.cell
        }
    }

    /// The cell holding `p`.
    fn cell_of(&self, p: V) -> [i64; 3] {
        let p = if self.bounds.kind == BoundsKind::Wrap { self.bounds.wrap(p) } else { p };
        let mut c = [0; 3];
        for (a, c) in c.iter_mut().enumerate().take(V::DIMENSIONS) {
            *c = ((p.axis(a) - self.bounds.min.axis(a)) / self.side(a)).floor() as i64;
        }
        c
    }

    /// The cells around `centre` and itself (3 × 3, or 3 × 3 × 3 in space), wrapped into
    /// the grid on a wrapped world; a cell may repeat on a grid under three cells wide.
    fn around(&self, centre: [i64; 3]) -> impl Iterator<Item = [i64; 3]> + '_ {
        let z = if V::DIMENSIONS == 3 { 1 } else { 0 };
        (-z..=z).flat_map(move |dz| {
            (-1..=1i64).flat_map(move |dy| {
                (-1..=1i64).map(move |dx| {
                    let mut c = [centre[0] + dx, centre[1] + dy, centre[2] + dz];
                    for (a, n) in self.wrap_cells.iter().enumerate() {
                        if *n > 0 {
                            c[a] = c[a].rem_euclid(*n);
                        }
                    }
                    c
                })
            })
        })
    }

    /// Whether `p` keeps `spacing` from every agent placed so far and from every obstacle.
    pub(crate) fn keeps(&self, p: V, spacing: Spacing) -> bool {
        self.first_too_close(p, spacing.min_distance).is_none()
            && self.wall_gap(p, spacing.wall_distance).is_none()
    }

    /// The nearest placed agent closer than `min_distance` to `p`, with its distance.
    pub(crate) fn first_too_close(&self, p: V, min_distance: f32) -> Option<(V, f32)> {
        if min_distance <= 0.0 || self.cells.is_empty() {
            return None;
        }
        let mut worst: Option<(V, f32)> = None;
        for c in self.around(self.cell_of(p)) {
            for &q in self.cells.get(&c).map_or(&[][..], |v| &v[..]) {
                let d = self.bounds.offset(p, q).length();
                if d < min_distance && worst.is_none_or(|(_, w)| d < w) {
                    worst = Some((q, d));
                }
            }
        }
        worst
    }

    /// The distance from `p` to the nearest obstacle's surface, if it is below `wall_distance`.
    pub(crate) fn wall_gap(&self, p: V, wall_distance: f32) -> Option<f32> {
        if wall_distance <= 0.0 {
            return None;
        }
        let nearest = self
            .obstacles
            .iter()
            .map(|o| V::surface_distance(o, self.bounds, p))
            .fold(f32::INFINITY, f32::min);
        (nearest < wall_distance).then_some(nearest)
    }

    /// Records an agent at `p`.
    pub(crate) fn add(&mut self, p: V) {
        if self.cell > 0.0 {
            let c = self.cell_of(p);
            self.cells.entry(c).or_default().push(p);
        }
    }
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
