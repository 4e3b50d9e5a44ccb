//! Keeping distances when agents are placed: a spawn's `Spacing` (JuPedSim's
//! `distribute_by_number`: the distance between centres, and from a centre to an obstacle's
//! surface) and `Placed`, the agents placed so far in a grid, so a new position is checked
//! against the few near it. Group spawns at the start (`scenario::spawn`) and spawn sources
//! during a run (`passes::spawns`) both place through it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Bounds, BoundsKind, Dimension};

/// The distances a spawn keeps (a group's spawn table's, or a spawn source's, `min_distance`
/// and `wall_distance`); zero keeps none, as a spawn without them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
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

/// The agents placed so far, in a grid of cells at least `min_distance` wide, so a new
/// position is checked against the few agents near it.
pub struct Placed<'a, V: Dimension> {
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
    pub fn new(bounds: &'a Bounds<V>, obstacles: &'a [V::Obstacle], largest: f32) -> Self {
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
    pub(crate) fn cell_of(&self, p: V) -> [i64; 3] {
        let p = if self.bounds.kind == BoundsKind::Wrap { self.bounds.wrap(p) } else { p };
        let mut c = [0; 3];
        for (a, c) in c.iter_mut().enumerate().take(V::DIMENSIONS) {
            *c = ((p.axis(a) - self.bounds.min.axis(a)) / self.side(a)).floor() as i64;
        }
        c
    }

    /// The cells around `centre` and itself (3 × 3, or 3 × 3 × 3 in space), wrapped into
    /// the grid on a wrapped world; a cell may repeat on a grid under three cells wide.
    pub(crate) fn around(&self, centre: [i64; 3]) -> impl Iterator<Item = [i64; 3]> + '_ {
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
    pub fn keeps(&self, p: V, spacing: Spacing) -> bool {
        self.first_too_close(p, spacing.min_distance).is_none()
            && self.wall_gap(p, spacing.wall_distance).is_none()
    }

    /// The nearest placed agent closer than `min_distance` to `p`, with its distance.
    pub fn first_too_close(&self, p: V, min_distance: f32) -> Option<(V, f32)> {
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
    pub fn wall_gap(&self, p: V, wall_distance: f32) -> Option<f32> {
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
    pub fn add(&mut self, p: V) {
        if self.cell > 0.0 {
            let c = self.cell_of(p);
            self.cells.entry(c).or_default().push(p);
        }
    }
}
