//! The surroundings of eight agents side by side, as the collision-free speed model's and
//! social force's lanes read them: slot `k` holds neighbour `k` (or wall `k`) of every lane, in
//! the order the one-agent code takes them.

use crate::math::Vec2;
use crate::math::lanes::{LANES, Lanes};

use super::surroundings::{Body, WallNear};

/// One neighbour of every lane: offset x, offset y, velocity x, velocity y, radius.
pub type BodySlot = [Lanes; 5];

/// One wall of every lane: normal x, normal y, distance.
pub type WallSlot = [Lanes; 3];

/// Eight agents' neighbours and walls; slots past a lane's count hold stale values that no
/// result reads.
#[derive(Clone, Debug, Default)]
pub struct SurroundingsLanes {
    /// Neighbours each lane has.
    pub bodies_in: [u32; LANES],
    /// Neighbour `k` of every lane in `bodies[k]`.
    pub bodies: Vec<BodySlot>,
    /// Walls each lane has.
    pub walls_in: [u32; LANES],
    /// Wall `k` of every lane in `walls[k]`.
    pub walls: Vec<WallSlot>,
}

impl SurroundingsLanes {
    /// Empties every lane.
    pub fn clear(&mut self) {
        self.bodies_in = [0; LANES];
        self.walls_in = [0; LANES];
    }

    /// Lane `l`'s neighbours and walls, in the order its model takes them.
    pub fn set(&mut self, l: usize, bodies: impl Iterator<Item = Body>, walls: impl Iterator<Item = WallNear>) {
        let columns = [0, 1, 2, 3, 4];
        let values = bodies.map(|b| [b.offset.x, b.offset.y, b.velocity.x, b.velocity.y, b.radius]);
        self.bodies_in[l] = fill(&mut self.bodies, l, columns, values);
        self.set_walls(l, walls);
    }

    /// As [`SurroundingsLanes::set`] for a model that reads no neighbour's velocity (CFSM),
    /// from each neighbour's offset and radius: the velocity slots are left stale, and the
    /// caller gathers no velocity.
    pub fn set_placed(
        &mut self,
        l: usize,
        bodies: impl Iterator<Item = (Vec2, f32)>,
        walls: impl Iterator<Item = WallNear>,
    ) {
        let values = bodies.map(|(offset, radius)| [offset.x, offset.y, radius]);
        self.bodies_in[l] = fill(&mut self.bodies, l, [0, 1, 4], values);
        self.set_walls(l, walls);
    }

    fn set_walls(&mut self, l: usize, walls: impl Iterator<Item = WallNear>) {
        let values = walls.map(|w| [w.normal.x, w.normal.y, w.distance]);
        self.walls_in[l] = fill(&mut self.walls, l, [0, 1, 2], values);
    }

    /// The most neighbours any lane has.
    pub fn most_bodies(&self) -> usize {
        self.bodies_in.iter().max().copied().unwrap_or(0) as usize
    }

    /// The most walls any lane has.
    pub fn most_walls(&self) -> usize {
        self.walls_in.iter().max().copied().unwrap_or(0) as usize
    }
}

/// Writes `values` into lane `l` of `slots`, one slot each, value `c` into column
/// `columns[c]`, growing the slots as needed; returns how many there were.
fn fill<const N: usize, const M: usize>(
    slots: &mut Vec<[Lanes; N]>,
    l: usize,
    columns: [usize; M],
    values: impl Iterator<Item = [f32; M]>,
) -> u32 {
    let mut count = 0;
    for (k, value) in values.enumerate() {
        if k == slots.len() {
            slots.push([Lanes::default(); N]);
        }
        // One borrow of the slot: indexing `slots` per value made the compiler reload the
        // vector's pointer and length after every store.
        let slot = &mut slots[k];
        for (&column, v) in columns.iter().zip(value) {
            slot[column].0[l] = v;
        }
        count = k + 1;
    }
    count as u32
}
