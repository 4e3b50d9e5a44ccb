//! The `parties` pass, after `queue_brake` and before `models`: every member of a party adds
//! the group force (`behaviours::party_force`) to its steering, in the units its model reads
//! steering in. Reads: ids, groups, parties, positions, velocities and masses of every agent;
//! the groups' models and party forces. Writes: the steering of party members. Parallel: per
//! member (each reads its own party's members); the members are found by one sort of
//! (party, id) per tick, and the forces are added serially.

use rayon::prelude::*;

use crate::behaviours::party_force;
use crate::math::{Vec2, Vector};
use crate::world::{Agents, Group, Model, NO_PARTY};

/// The pass's reused buffers.
#[derive(Default)]
pub struct PartyScratch<V = Vec2> {
    /// Every party member as ((party, id), row), sorted: a party's members side by side, in
    /// id order.
    members: Vec<(u64, u32)>,
    /// Each member's party: the index of its first member and how many there are.
    span: Vec<(u32, u32)>,
    /// Each member's position, in `members` order.
    position: Vec<V>,
    /// The force on each member, in `members` order.
    force: Vec<V>,
}

/// Adds the group force to every party member's steering. Under the steering model the force
/// (per unit mass) times the agent's mass is a steering force; under a velocity model, which
/// takes `v + steering` as its preferred velocity, it is the force times social force's
/// relaxation time (so it adds to social force's acceleration exactly) or, under ORCA and
/// CFSM, times the party force's `response_s`. Members alone in the world (the others left)
/// and agents of a group without `parties` feel nothing.
pub fn parties<V: Vector>(groups: &[Group], agents: &Agents<V>, scratch: &mut PartyScratch<V>, steering: &mut [V]) {
    let PartyScratch { members, span, position, force } = scratch;
    members.clear();
    for (row, (&party, &id)) in agents.party.iter().zip(&agents.id).enumerate() {
        if party != NO_PARTY {
            members.push(((party as u64) << 32 | id as u64, row as u32));
        }
    }
    members.sort_unstable();
    span.clear();
    let mut start = 0;
    while start < members.len() {
        let party = members[start].0 >> 32;
        let len = members[start..].iter().take_while(|m| m.0 >> 32 == party).count();
        span.extend(std::iter::repeat_n((start as u32, len as u32), len));
        start += len;
    }
    position.clear();
    position.extend(members.iter().map(|&(_, row)| agents.position[row as usize]));
    force.clear();
    force.resize(members.len(), V::ZERO);
    let (position, span, members) = (&position[..], &span[..], &members[..]);
    force.par_iter_mut().enumerate().with_min_len(256).for_each(|(m, out)| {
        let row = members[m].1 as usize;
        let Some(parties) = &groups[agents.group[row] as usize].parties else {
            return;
        };
        let (first, len) = (span[m].0 as usize, span[m].1 as usize);
        let party = &position[first..first + len];
        *out = party_force(&parties.force, party, m - first, agents.velocity[row]);
    });
    for (m, &(_, row)) in members.iter().enumerate() {
        let row = row as usize;
        let group = &groups[agents.group[row] as usize];
        let Some(parties) = &group.parties else { continue };
        let scale = match group.model {
            Model::Steering => agents.mass[row],
            Model::SocialForce(sf) => sf.relaxation_time,
            Model::Orca(_) | Model::Cfsm(_) => parties.force.response_s,
        };
        steering[row] += force[m] * scale;
    }
}
