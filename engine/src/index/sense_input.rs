//! `SenseInput`: what sensing reads of the world and its agents.

use crate::math::Vector;
use crate::world::{Agents, Bounds, Group};

/// What sensing reads: the world's bounds and groups, and the agents' positions, ids and
/// groups (one row per agent).
#[derive(Clone, Copy)]
pub struct SenseInput<'a, V> {
    /// Every offset between two agents goes through them.
    pub bounds: &'a Bounds<V>,
    /// Each group's sensing radius and neighbour cap.
    pub groups: &'a [Group],
    /// The agents' positions.
    pub position: &'a [V],
    /// The agents' ids: ties between equal distances go to the lower id.
    pub id: &'a [u32],
    /// The agents' groups, indexed into `groups`.
    pub group: &'a [u16],
}

impl<'a, V: Vector> SenseInput<'a, V> {
    /// What sensing reads of `agents`, in a world of these bounds and groups.
    pub fn of(bounds: &'a Bounds<V>, groups: &'a [Group], agents: &'a Agents<V>) -> SenseInput<'a, V> {
        SenseInput { bounds, groups, position: &agents.position, id: &agents.id, group: &agents.group }
    }
}
