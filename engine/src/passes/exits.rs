//! The `exits` pass: agents whose centre is inside an exit (of their group, or of all), or
//! within reach of their own goal for an exit at it, leave; an agent on a journey leaves only
//! by the exit its current stage names.
//! Reads: positions, groups, own goals, journey stages, the exits. Writes: removes rows from every agent column, the
//! survivors keeping their order. Parallel: the per-agent test; the removal is serial.

use rayon::prelude::*;

use crate::world::{Agents, Bounds, Exit, NO_JOURNEY, Stage, StageKind};

/// Removes the agents inside an exit and returns how many left. `keep` is reused scratch.
pub fn exits(exits: &[Exit], stages: &[Stage], agents: &mut Agents, bounds: &Bounds, keep: &mut Vec<bool>) -> u32 {
    if exits.is_empty() {
        return 0;
    }
    let (group, position, goal) = (&agents.group, &agents.position, &agents.goal);
    let (journey, stage) = (&agents.journey, &agents.stage);
    keep.clear();
    keep.resize(agents.len(), true);
    keep.par_iter_mut().enumerate().with_min_len(1024).for_each(|(i, k)| {
        let takes = |e: &Exit| e.takes(group[i], position[i], goal[i], bounds);
        *k = if journey[i] == NO_JOURNEY {
            !exits.iter().any(takes)
        } else {
            !matches!(stages[stage[i] as usize].kind, StageKind::Exit(e) if takes(&exits[e as usize]))
        };
    });
    let gone = keep.iter().filter(|k| !**k).count();
    if gone > 0 {
        agents.retain_rows(keep);
    }
    gone as u32
}
