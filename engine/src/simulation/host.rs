//! What a program running throng (a game loop, a notebook) does between ticks: add and remove
//! agents, give one agent a goal, find agents by id and by place, and keep in step with its
//! own clock. Every change is part of the run from then on: the same calls at the same ticks
//! give the same hashes at any thread count and with either index, and checkpoints carry them.

use std::sync::OnceLock;

use thiserror::Error;

use super::Simulation;
use crate::index::{IndexKind, SpatialIndex};
use crate::pipeline::{NonFinite, Passes};
use crate::rng;
use crate::scenario::MAX_AGENTS;
use crate::world::Target;

/// A call between ticks that cannot be carried out; the simulation is unchanged.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ControlError {
    /// The group index is not one of the scenario's groups.
    #[error("no group {group}: the scenario has {groups} groups (0 to {last})", last = groups.saturating_sub(1))]
    NoGroup {
        /// The index asked for.
        group: u16,
        /// How many groups the scenario has.
        groups: usize,
    },
    /// No group has this name.
    #[error("no group is named \"{name}\"")]
    NoGroupNamed {
        /// The name asked for.
        name: String,
    },
    /// No live agent has this id (it never existed, left by an exit, or was removed).
    #[error("no live agent has id {id}")]
    NoAgent {
        /// The id asked for.
        id: u32,
    },
    /// A point or a length is not a finite number.
    #[error("the {what} must be finite, found {found}")]
    NotFinite {
        /// What was given, in words.
        what: &'static str,
        /// The value, as given.
        found: String,
    },
    /// A radius is negative.
    #[error("the radius must be at least 0, found {found}")]
    NegativeRadius {
        /// The radius given.
        found: f32,
    },
    /// The agent's group steers by no `own` target, so a goal would steer nothing.
    #[error(
        "agent {id}'s group \"{group}\" steers by no `kind = \"own\"` target, so a goal set for it would steer nothing"
    )]
    NoOwnTarget {
        /// The agent.
        id: u32,
        /// Its group's name.
        group: String,
    },
    /// An action names a door, exit, gate, source, waiting area, group, behaviour or target
    /// by an index the world does not have.
    #[error("no {what} {index}: the world has {count}")]
    NoSuch {
        /// What kind of thing, in words.
        what: &'static str,
        /// The index named.
        index: u32,
        /// How many the world has.
        count: usize,
    },
    /// A `retarget` names a behaviour that goes to no target.
    #[error("the behaviour named in group \"{group}\" goes to no target, so it cannot be retargeted")]
    NoTargetToChange {
        /// The group's name.
        group: String,
    },
    /// A `move_target` names a target that is not a point.
    #[error("target {target} is not a point target: only a point target can be moved")]
    NotAPointTarget {
        /// The target's index.
        target: u16,
    },
    /// A queue release names a stage that is not a queue.
    #[error("stage {stage} is not a queue: only a queue's head is released")]
    NotAQueue {
        /// The stage's index.
        stage: u16,
    },
    /// The world already holds as many agents as a run supports.
    #[error("the world holds {agents} agents: at most {MAX_AGENTS} are supported")]
    Full {
        /// Live agents now.
        agents: usize,
    },
}

/// What host-side lookups keep between ticks: rebuilt on first use after the agents changed.
pub(super) struct Lookups<V: Passes> {
    /// Where each live id's row is.
    rows: OnceLock<RowsById>,
    /// A k-d index over the positions, for queries by place.
    places: OnceLock<SpatialIndex<V>>,
}

/// Rows by id: a table indexed by id while the ids are dense, else (after many removals, in a
/// long game) the live (id, row) pairs sorted by id, so memory follows the live agents and not
/// every id ever given.
enum RowsById {
    /// Row of each id (`u32::MAX`: not alive), indexed by id.
    Table(Vec<u32>),
    /// (id, row) of every live agent, by id.
    Sorted(Vec<(u32, u32)>),
}

impl RowsById {
    fn of(ids: &[u32]) -> RowsById {
        let slots = ids.iter().max().map_or(0, |&m| m as usize + 1);
        if slots <= 4 * ids.len().max(16) {
            let mut rows = vec![u32::MAX; slots];
            for (row, &id) in ids.iter().enumerate() {
                rows[id as usize] = row as u32;
            }
            RowsById::Table(rows)
        } else {
            let mut pairs: Vec<(u32, u32)> =
                ids.iter().enumerate().map(|(row, &id)| (id, row as u32)).collect();
            pairs.sort_unstable();
            RowsById::Sorted(pairs)
        }
    }

    fn row(&self, id: u32) -> Option<usize> {
        match self {
            RowsById::Table(rows) => rows.get(id as usize).filter(|&&r| r != u32::MAX).map(|&r| r as usize),
            RowsById::Sorted(pairs) => {
                pairs.binary_search_by_key(&id, |&(i, _)| i).ok().map(|k| pairs[k].1 as usize)
            }
        }
    }
}

impl<V: Passes> Default for Lookups<V> {
    fn default() -> Self {
        Lookups { rows: OnceLock::new(), places: OnceLock::new() }
    }
}

impl<V: Passes> Lookups<V> {
    /// Forgets everything: the rows or the positions changed.
    pub(super) fn forget(&mut self) {
        *self = Lookups::default();
    }
}

/// What [`Simulation::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advance {
    /// Whole ticks run by this call.
    pub ticks: u64,
    /// How far into the next tick the host's clock is, from 0 up to (not including) 1: the
    /// weight to draw agents between their last two positions.
    pub alpha: f64,
}

impl<V: Passes> Simulation<V> {
    /// Adds an agent of group `group` at `position` with the next id, and returns the id. Its
    /// parameters are drawn from its group's, keyed by the run's seed and its id, so the same
    /// spawns at the same ticks give the same agents at any thread count. An agent whose group
    /// steers by an `own` target starts with its goal where it stands.
    pub fn spawn(&mut self, group: u16, position: V) -> Result<u32, ControlError> {
        let groups = self.world.groups.len();
        if group as usize >= groups {
            return Err(ControlError::NoGroup { group, groups });
        }
        if !position.is_finite() {
            return Err(ControlError::NotFinite { what: "position", found: format!("{position:?}") });
        }
        let agents = self.world.agents.len();
        if agents as u64 >= MAX_AGENTS || self.world.next_id == u32::MAX {
            return Err(ControlError::Full { agents });
        }
        let key = rng::agent_key(rng::name_key("host spawn"), self.world.next_id as u64);
        let id = self.world.push_agent(group, key, position);
        self.lookups.forget();
        Ok(id)
    }

    /// The index of the group named `name`, for [`Simulation::spawn`].
    pub fn group_named(&self, name: &str) -> Result<u16, ControlError> {
        let found = self.world.groups.iter().position(|g| g.name == name);
        found.map(|g| g as u16).ok_or_else(|| ControlError::NoGroupNamed { name: name.to_string() })
    }

    /// Removes agent `id`, as a `remove` event would (it counts among `World::removed`).
    pub fn despawn(&mut self, id: u32) -> Result<(), ControlError> {
        self.despawn_all(&[id])
    }

    /// Removes every agent of `ids` in one pass over the rows; refuses them all, and removes
    /// none, if one is not alive.
    pub fn despawn_all(&mut self, ids: &[u32]) -> Result<(), ControlError> {
        let mut keep = vec![true; self.world.agents.len()];
        for &id in ids {
            let row = self.row_of(id).ok_or(ControlError::NoAgent { id })?;
            keep[row] = false;
        }
        let gone = keep.iter().filter(|k| !**k).count();
        if gone > 0 {
            self.world.agents.retain_rows(&keep);
            self.world.removed += gone as u64;
            self.lookups.forget();
        }
        Ok(())
    }

    /// Gives agent `id` the goal `point`: the point its group's `own` target steers it to
    /// (seek, arrive, a routed seek), from the next tick on.
    pub fn set_goal(&mut self, id: u32, point: V) -> Result<(), ControlError> {
        if !point.is_finite() {
            return Err(ControlError::NotFinite { what: "goal", found: format!("{point:?}") });
        }
        let row = self.row_of(id).ok_or(ControlError::NoAgent { id })?;
        let group = &self.world.groups[self.world.agents.group[row] as usize];
        let steers_by_own = group
            .behaviours
            .iter()
            .filter_map(|b| b.behaviour.target())
            .any(|t| matches!(self.world.targets[t as usize], Target::Own));
        if !steers_by_own {
            return Err(ControlError::NoOwnTarget { id, group: group.name.clone() });
        }
        self.world.agents.goal[row] = self.world.bounds.wrap(point);
        Ok(())
    }

    /// The row of agent `id` in `World::agents`, if it is alive: O(1) whatever the row order
    /// (a table by id is built on the first call after the rows changed; when most ids ever
    /// given are gone, a sorted list answers in O(log n) instead).
    pub fn row_of(&self, id: u32) -> Option<usize> {
        self.lookups.rows.get_or_init(|| RowsById::of(&self.world.agents.id)).row(id)
    }

    /// The ids of the agents within `radius` of `point` (edges included, across the edges of
    /// a wrapped world), nearest first, ties by id. A k-d index over the positions is built on
    /// the first query after they changed; later queries until then cost only their answer.
    pub fn query_radius(&self, point: V, radius: f32) -> Result<Vec<u32>, ControlError> {
        if !point.is_finite() {
            return Err(ControlError::NotFinite { what: "point", found: format!("{point:?}") });
        }
        if !radius.is_finite() {
            return Err(ControlError::NotFinite { what: "radius", found: format!("{radius}") });
        }
        if radius < 0.0 {
            return Err(ControlError::NegativeRadius { found: radius });
        }
        Ok(self.within(point, radius, None))
    }

    /// The neighbours of agent `id` as its group senses them now: the other agents within the
    /// group's `sensing_radius`, nearest first (ties by id), at most `max_neighbours`.
    pub fn neighbours_of(&self, id: u32) -> Result<Vec<u32>, ControlError> {
        let row = self.row_of(id).ok_or(ControlError::NoAgent { id })?;
        let a = &self.world.agents;
        let group = &self.world.groups[a.group[row] as usize];
        let mut found = self.within(a.position[row], group.sensing_radius, Some(id));
        found.truncate(group.max_neighbours as usize);
        Ok(found)
    }

    /// Runs as many whole ticks as `elapsed_s` seconds of the host's clock cover, carrying the
    /// rest to the next call: a fixed-step accumulator. The world always steps by the
    /// scenario's `dt` (the models and every schedule count in ticks), so results never depend
    /// on the host's frame rate. At most `max_ticks` run per call (a slow frame then lets the
    /// simulation fall behind rather than stall the host); the time beyond them is dropped.
    pub fn advance(&mut self, elapsed_s: f64, max_ticks: u64) -> Result<Advance, NonFinite> {
        let dt = self.world.dt as f64;
        if elapsed_s.is_finite() && elapsed_s > 0.0 {
            self.pending_s += elapsed_s;
        }
        let due = (self.pending_s / dt).floor() as u64;
        let ticks = due.min(max_ticks);
        self.pending_s = if due > max_ticks { 0.0 } else { self.pending_s - ticks as f64 * dt };
        let last = self.tick() + ticks;
        let ran = self.tick();
        self.run_until::<()>(last, |_| std::ops::ControlFlow::Continue(()))?;
        Ok(Advance { ticks: self.tick() - ran, alpha: (self.pending_s / dt).clamp(0.0, 1.0 - f64::EPSILON) })
    }

    /// Ids within `radius` of `point`, nearest first, ties by id, `skip` left out.
    fn within(&self, point: V, radius: f32, skip: Option<u32>) -> Vec<u32> {
        let a = &self.world.agents;
        let bounds = &self.world.bounds;
        let mut hits: Vec<(f32, u32)> = Vec::new();
        let r_sq = radius * radius;
        let mut test = |row: u32| {
            let row = row as usize;
            let d_sq = bounds.offset(point, a.position[row]).length_squared();
            if d_sq <= r_sq && Some(a.id[row]) != skip {
                hits.push((d_sq, a.id[row]));
            }
        };
        let places = self.lookups.places.get_or_init(|| {
            let mut index = SpatialIndex::new(IndexKind::Kd);
            let targeted = vec![false; self.world.groups.len()];
            self.pipeline.install(|| index.build(bounds, &a.position, &a.group, &targeted));
            index
        });
        places.candidates(point, radius, &mut test);
        hits.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        // On a wrapped world a radius past half its size meets an agent's images more than
        // once; each is measured to the nearest image, so the copies sort side by side.
        hits.dedup();
        hits.into_iter().map(|(_, id)| id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_was_wrong() {
        let e = ControlError::NoGroup { group: 3, groups: 2 };
        assert_eq!(e.to_string(), "no group 3: the scenario has 2 groups (0 to 1)");
        let e = ControlError::NotFinite { what: "position", found: "[NaN, 0.0]".into() };
        assert_eq!(e.to_string(), "the position must be finite, found [NaN, 0.0]");
    }

    #[test]
    fn rows_by_id_answer_alike_dense_or_sparse() {
        let dense = [4, 0, 3, 1, 2];
        let sparse = [4000, 7, 123, 90_000, 5];
        assert!(matches!(RowsById::of(&dense), RowsById::Table(_)));
        assert!(matches!(RowsById::of(&sparse), RowsById::Sorted(_)));
        for ids in [&dense[..], &sparse[..]] {
            let rows = RowsById::of(ids);
            for id in [0, 1, 2, 3, 4, 5, 6, 7, 122, 123, 4000, 89_999, 90_000, u32::MAX] {
                assert_eq!(rows.row(id), ids.iter().position(|&x| x == id), "{ids:?}: id {id}");
            }
        }
    }

    #[test]
    fn lookups_start_empty() {
        let l = Lookups::<crate::math::Vec2>::default();
        assert!(l.rows.get().is_none() && l.places.get().is_none());
    }
}
