//! Keeping distances when agents are placed: a spawn's `Spacing` (JuPedSim's
//! `distribute_by_number`: the distance between centres, and from a centre to an obstacle's
//! surface) and `Placed`, the agents placed so far in a grid, so a new position is checked
//! against the few near it. Group spawns at the start (`scenario::spawn`), and spawn sources
//! and `spawn` events during a run (`passes::spawns`), place through it. `SpawnSpacing` is the
//! spacing a world's sources and events hold, and the agents its events still owe: kept outside
//! the world's serialized bytes, so a world without any has the bytes and hashes it had before.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Action, Bounds, BoundsKind, Dimension, Scene, World};

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

/// The spawns' spacing a world holds: per source its `Spacing`, per event the `Spacing` of its
/// `spawn` action (none for other actions) and the keys of the agents it still owes.
/// Checkpoints (format 7) keep it after the expectations' state and the state hash adds it,
/// each only when a world has some; the world's own bytes leave it out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpawnSpacing {
    /// Per source, in order.
    pub sources: Vec<Spacing>,
    /// Per event, in order: its spawn's spacing and the keys it owes.
    pub events: Vec<(Spacing, Vec<u64>)>,
}

impl SpawnSpacing {
    /// What `world` holds, or `None` when no source or event keeps a distance or owes an agent.
    pub fn of<V: Dimension>(world: &World<V>) -> Option<SpawnSpacing> {
        let of_event = |a: &Action<V>| match a {
            Action::Spawn { spacing, .. } => *spacing,
            _ => Spacing::default(),
        };
        let s = SpawnSpacing {
            sources: world.scene.parts().sources.iter().map(|s| s.spacing).collect(),
            events: world.events.iter().map(|e| (of_event(&e.action), e.waiting_to_spawn.clone())).collect(),
        };
        let any = s.sources.iter().any(Spacing::keeps_any)
            || s.events.iter().any(|(sp, owed)| sp.keeps_any() || !owed.is_empty());
        any.then_some(s)
    }

    /// Puts it back into `world` (one built from the same scenario); an error in words when the
    /// counts differ.
    pub fn restore<V: Dimension>(self, world: &mut World<V>) -> Result<(), String> {
        let sources = world.scene.parts_mut().sources;
        if self.sources.len() != sources.len() || self.events.len() != world.events.len() {
            return Err(format!(
                "the spawns' spacing names {} sources and {} events, the world has {} and {}",
                self.sources.len(),
                self.events.len(),
                sources.len(),
                world.events.len()
            ));
        }
        for (source, spacing) in sources.iter_mut().zip(self.sources) {
            source.spacing = spacing;
        }
        for (event, (spacing, owed)) in world.events.iter_mut().zip(self.events) {
            if let Action::Spawn { spacing: s, .. } = &mut event.action {
                *s = spacing;
            }
            event.waiting_to_spawn = owed;
        }
        Ok(())
    }
}
