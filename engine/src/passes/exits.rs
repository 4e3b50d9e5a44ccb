//! The `exits` pass: agents whose centre is inside an exit (of their group, or of all) leave.
//! Reads: positions, groups, the exits. Writes: removes rows from every agent column, the
//! survivors keeping their order. Parallel: the per-agent test; the removal is serial.

use rayon::prelude::*;

use crate::world::{Agents, Exit};

/// Removes the agents inside an exit and returns how many left. `keep` is reused scratch.
pub fn exits(exits: &[Exit], agents: &mut Agents, keep: &mut Vec<bool>) -> u32 {
    if exits.is_empty() {
        return 0;
    }
    let (group, position) = (&agents.group, &agents.position);
    keep.clear();
    keep.resize(agents.len(), true);
    keep.par_iter_mut().enumerate().with_min_len(1024).for_each(|(i, k)| {
        *k = !exits.iter().any(|e| {
            e.open && (e.groups.is_empty() || e.groups.contains(&group[i])) && e.region.contains(position[i])
        });
    });
    let gone = keep.iter().filter(|k| !**k).count();
    if gone > 0 {
        agents.retain_rows(keep);
    }
    gone as u32
}
