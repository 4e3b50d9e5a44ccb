//! The `exits` pass: agents whose centre is inside an exit (of their group, or of all), or
//! within reach of their own goal for an exit at it, leave; an agent on a journey leaves only
//! by the exit its current stage names; a party member whose group leaves together waits inside
//! until every member still walking is inside an exit too.
//! Reads: positions, groups, own goals, journey stages, parties, the exits. Writes: removes
//! rows from every agent column, the survivors keeping their order. Parallel: the per-agent
//! test; the parties' check and the removal are serial.

use rayon::prelude::*;

use crate::world::{Agents, Bounds, Exit, Group, NO_JOURNEY, NO_PARTY, Stage, StageKind};

/// Removes the agents inside an exit and returns how many left. `keep` is reused scratch.
pub fn exits(
    exits: &[Exit],
    stages: &[Stage],
    groups: &[Group],
    agents: &mut Agents,
    bounds: &Bounds,
    keep: &mut Vec<bool>,
) -> u32 {
    if exits.is_empty() {
        return 0;
    }
    keep.clear();
    keep.resize(agents.len(), true);
    keep.par_iter_mut().enumerate().with_min_len(1024).for_each(|(i, k)| {
        *k = !inside(exits, stages, agents, bounds, i);
    });
    if leaves_together(groups) {
        wait_for_the_party(groups, agents, keep);
    }
    let gone = keep.iter().filter(|k| !**k).count();
    if gone > 0 {
        agents.retain_rows(keep);
    }
    gone as u32
}

/// Keeps the members inside an exit of a party that leaves together while another member
/// is still walking (not leaving this tick).
fn wait_for_the_party(groups: &[Group], agents: &Agents, keep: &mut [bool]) {
    let together = |r: usize| groups[agents.group[r] as usize].parties.as_ref().is_some_and(|p| p.leave_together);
    let mut members: Vec<(u32, usize)> =
        (0..agents.len()).filter(|&r| agents.party[r] != NO_PARTY).map(|r| (agents.party[r], r)).collect();
    members.sort_unstable();
    for party in members.chunk_by(|a, b| a.0 == b.0) {
        if party.iter().any(|&(_, r)| keep[r]) {
            for &(_, r) in party {
                if together(r) {
                    keep[r] = true;
                }
            }
        }
    }
}

/// Whether agent `i` stands where it would leave: inside an exit that takes it (its stage's
/// exit, on a journey).
fn inside(exits: &[Exit], stages: &[Stage], agents: &Agents, bounds: &Bounds, i: usize) -> bool {
    let a = agents;
    let takes = |e: &Exit| e.takes(a.group[i], a.position[i], a.goal[i], bounds);
    if a.journey[i] == NO_JOURNEY {
        exits.iter().any(takes)
    } else {
        matches!(stages[a.stage[i] as usize].kind, StageKind::Exit(e) if takes(&exits[e as usize]))
    }
}

/// Whether some group's parties leave together.
fn leaves_together(groups: &[Group]) -> bool {
    groups.iter().any(|g| g.parties.as_ref().is_some_and(|p| p.leave_together))
}

/// Before `integrate`: a member of a party that leaves together stands still while it is
/// inside its exit (the `exits` pass kept it there for a member still walking): its steering
/// and velocity are zeroed, as a waiting area holds its agents.
pub fn hold_at_exits(
    exits: &[Exit],
    stages: &[Stage],
    groups: &[Group],
    agents: &Agents,
    bounds: &Bounds,
    steering: &mut [crate::math::Vec2],
    velocity: &mut [crate::math::Vec2],
) {
    if exits.is_empty() || !leaves_together(groups) {
        return;
    }
    let together = |r: usize| groups[agents.group[r] as usize].parties.as_ref().is_some_and(|p| p.leave_together);
    steering.par_iter_mut().zip(velocity.par_iter_mut()).enumerate().with_min_len(1024).for_each(|(i, (s, v))| {
        if agents.party[i] != NO_PARTY && together(i) && inside(exits, stages, agents, bounds, i) {
            *s = crate::math::Vec2::ZERO;
            *v = crate::math::Vec2::ZERO;
        }
    });
}
