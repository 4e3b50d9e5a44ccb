//! Waiting areas (`[[waiting]]`): regions that hold the agents arriving in them until events
//! release them, first come first served, as JuPedSim's waiting sets and Vadere's waiting
//! targets do. Definitions and who is held both live in the world, so checkpoints carry them.

use serde::{Deserialize, Serialize};

use super::Region;

/// One waiting area and the agents it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaitingArea {
    /// The entry's `name`, which `release` events and conditions use.
    pub name: String,
    /// Where agents are held: an agent whose centre is inside at the end of a tick stops there.
    pub region: Region,
    /// The groups it holds (empty: every group).
    pub groups: Vec<u16>,
    /// The agents held (state), in arrival order: (tick at whose end it arrived, id), ascending.
    pub held: Vec<(u64, u32)>,
    /// The agents it has released (state), ascending ids: they pass through it freely.
    pub released: Vec<u32>,
}

impl WaitingArea {
    /// Whether it holds agents of group `g`.
    pub fn holds_group(&self, g: u16) -> bool {
        self.groups.is_empty() || self.groups.contains(&g)
    }

    /// Releases the `count` agents that arrived first (all of them with `None`); returns how
    /// many it released.
    pub fn release(&mut self, count: Option<u32>) -> u32 {
        let n = count.map_or(self.held.len(), |c| (c as usize).min(self.held.len()));
        for (_, id) in self.held.drain(..n) {
            if let Err(at) = self.released.binary_search(&id) {
                self.released.insert(at, id);
            }
        }
        n as u32
    }
}
