//! Social groups, called *parties* here (a scenario's `[groups]` are already its kinds of
//! agent): friends and families who walk together. A group's `parties` table says how its
//! agents are dealt into parties at spawn and how strongly the group force
//! (`behaviours::party_force`) holds each party together.

use serde::{Deserialize, Serialize};

use crate::math::Vector;
use crate::rng::{AgentRng, Purpose, agent_rng, unit};

/// The `party` column's value for an agent who walks alone.
pub const NO_PARTY: u32 = u32::MAX;

/// The largest party: the paper's groups have 2 to 5 members.
pub const MAX_PARTY_SIZE: usize = 5;

/// A group's parties: who walks with whom, and the force that keeps them together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parties {
    /// `shares[k − 1]`: the share of the group's agents who walk in a party of `k` (`k = 1`:
    /// alone). The shares add up to 1.
    pub shares: Vec<f32>,
    /// The group force's strengths.
    pub force: PartyForce,
    /// Whether a member inside its exit waits there until every member still walking is
    /// inside an exit too, so the party leaves together.
    pub leave_together: bool,
}

/// The group force of Moussaïd, Perozo, Garnier, Helbing and Theraulaz (2010), per unit mass:
/// gaze, attraction to the party's centre, repulsion between members.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartyForce {
    /// β₁ (1/s per radian): how strongly a member slows while it must turn its head more than
    /// `vision` to see the others' centre: `−β₁ α v`.
    pub gaze: f32,
    /// β₂ (m/s²): the pull towards the party's centre once a member is farther from it than
    /// `(n − 1)/2` m.
    pub attraction: f32,
    /// β₃ (m/s²): the push between two members closer than `repulsion_range`.
    pub repulsion: f32,
    /// Half the field of view (radians): the others' centre is seen within this angle of the
    /// walking direction.
    pub vision: f32,
    /// Members whose centres are closer than this (m) push each other apart.
    pub repulsion_range: f32,
    /// How a velocity model takes the force (s): its preferred velocity moves by force ×
    /// `response_s` (social force uses its own relaxation time, so the force is added to its
    /// acceleration exactly).
    pub response_s: f32,
}

impl Default for PartyForce {
    /// The paper's parameters: β₁ = 4, β₂ = 3, β₃ = 1, a field of view of ±90°; members repel
    /// within 0.5 m; velocity models respond within 0.5 s.
    fn default() -> Self {
        PartyForce {
            gaze: 4.0,
            attraction: 3.0,
            repulsion: 1.0,
            vision: std::f32::consts::FRAC_PI_2,
            repulsion_range: 0.5,
            response_s: 0.5,
        }
    }
}

/// Does any of `groups` deal its agents into parties? (Else no pass, metric or picture of
/// parties has anything to do.)
pub fn any_parties(groups: &[super::Group]) -> bool {
    groups.iter().any(|g| g.parties.is_some())
}

/// How many parties of each size `n` agents make under `shares`: `counts[k − 1]` parties of
/// `k` (so `counts[0]` agents walk alone). Each size's agents are its share of `n`, rounded to
/// whole parties; the largest sizes give up parties while they would take more than `n`.
pub fn party_counts(shares: &[f32], n: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = shares
        .iter()
        .enumerate()
        .map(|(k, &s)| if k == 0 { 0 } else { ((s as f64 * n as f64) / (k + 1) as f64).round() as usize })
        .collect();
    let taken = |c: &[usize]| c.iter().enumerate().map(|(k, &c)| (k + 1) * c).sum::<usize>();
    while taken(&counts) > n {
        let k = counts.iter().rposition(|&c| c > 0).expect("some party takes agents");
        counts[k] -= 1;
    }
    counts[0] = n - taken(&counts);
    counts
}

/// Deals a group's `ids` (its agents at spawn, placed at `positions`) into parties: the sizes
/// [`party_counts`] gives, in an order shuffled by the generator keyed by (`seed`, `key`,
/// purpose `Party`); walking the agents in spatial (Morton) order, each agent not yet dealt
/// takes the next size and, for a party, the nearest agents not yet dealt among the next 64
/// in that order (ties by id). A party's id is its smallest member id; an agent alone gets
/// [`NO_PARTY`]. The same inputs give the same parties on every machine.
pub fn form_parties<V: Vector>(
    shares: &[f32],
    ids: &[u32],
    positions: &[V],
    seed: u64,
    key: u64,
) -> Vec<u32> {
    const WINDOW: usize = 64;
    let n = ids.len();
    let counts = party_counts(shares, n);
    let mut sizes: Vec<usize> =
        counts.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k + 1, c)).collect();
    shuffle(&mut sizes, &mut agent_rng(seed, key, Purpose::Party));
    let order = morton_order(positions, ids);
    let mut party = vec![NO_PARTY; n];
    let mut dealt = vec![false; n];
    let mut next_size = sizes.into_iter();
    for (at, &first) in order.iter().enumerate() {
        if dealt[first] {
            continue;
        }
        dealt[first] = true;
        let size = next_size.next().unwrap_or(1);
        if size == 1 {
            continue;
        }
        let mut near: Vec<(f32, u32, usize)> = order[at + 1..]
            .iter()
            .filter(|&&r| !dealt[r])
            .take(WINDOW)
            .map(|&r| (positions[r].distance_squared(positions[first]), ids[r], r))
            .collect();
        near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let members: Vec<usize> =
            std::iter::once(first).chain(near.iter().take(size - 1).map(|&(_, _, r)| r)).collect();
        let id = members.iter().map(|&r| ids[r]).min().expect("a party has members");
        for &r in &members {
            dealt[r] = true;
            party[r] = if members.len() > 1 { id } else { NO_PARTY };
        }
    }
    party
}

/// Fisher–Yates with the engine's generator (the same draws on every machine).
fn shuffle<T>(items: &mut [T], rng: &mut AgentRng) {
    for i in (1..items.len()).rev() {
        let j = ((unit(rng) * (i + 1) as f32) as usize).min(i);
        items.swap(i, j);
    }
}

/// The rows of `positions` in Morton order of their cell on a 65,536² lattice over their
/// extent (first two axes), ties by id.
fn morton_order<V: Vector>(positions: &[V], ids: &[u32]) -> Vec<usize> {
    let lo = positions.iter().fold(V::splat(f32::INFINITY), |lo, &p| lo.min(p));
    let hi = positions.iter().fold(V::splat(f32::NEG_INFINITY), |hi, &p| hi.max(p));
    let cell = |a: usize, p: V| {
        let span = (hi.axis(a) - lo.axis(a)).max(1e-6);
        ((p.axis(a) - lo.axis(a)) / span * 65_535.0) as u32
    };
    let spread = |mut x: u64| {
        x &= 0xFFFF;
        x = (x | (x << 8)) & 0x00FF_00FF;
        x = (x | (x << 4)) & 0x0F0F_0F0F;
        x = (x | (x << 2)) & 0x3333_3333;
        (x | (x << 1)) & 0x5555_5555
    };
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&r| {
        let p = positions[r];
        (spread(cell(0, p) as u64) | spread(cell(1, p) as u64) << 1, ids[r])
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec2;

    #[test]
    fn counts_follow_the_shares_of_agents_not_of_parties() {
        // 100 agents, half alone and half in pairs: 50 alone, 25 pairs.
        assert_eq!(party_counts(&[0.5, 0.5], 100), vec![50, 25]);
        // 30 % in pairs, 60 % in triples of 10 agents: 3 → 2 pairs (rounded), 6 → 2 triples.
        assert_eq!(party_counts(&[0.1, 0.3, 0.6], 10), vec![0, 2, 2]);
        // Rounding up past n: 3 agents all in pairs is one pair and one alone.
        assert_eq!(party_counts(&[0.0, 1.0], 3), vec![1, 1]);
    }

    #[test]
    fn pairs_are_the_nearest_agents() {
        // Two tight pairs far apart: each agent's partner is the one beside it.
        let positions =
            [Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0), Vec2::new(0.5, 0.0), Vec2::new(10.5, 0.0)];
        let party = form_parties(&[0.0, 1.0], &[4, 5, 6, 7], &positions, 1, 2);
        assert_eq!(party, vec![4, 5, 4, 5]);
    }

    #[test]
    fn dealing_is_seeded_and_adds_up() {
        let positions: Vec<Vec2> = (0..60).map(|i| Vec2::new((i % 10) as f32, (i / 10) as f32)).collect();
        let ids: Vec<u32> = (0..60).collect();
        let shares = [0.2, 0.4, 0.3, 0.1];
        let a = form_parties(&shares, &ids, &positions, 7, 9);
        assert_eq!(a, form_parties(&shares, &ids, &positions, 7, 9));
        let mut sizes = std::collections::BTreeMap::<u32, usize>::new();
        for &p in a.iter().filter(|&&p| p != NO_PARTY) {
            *sizes.entry(p).or_default() += 1;
        }
        let mut by_size = [0usize; 5];
        for &s in sizes.values() {
            by_size[s - 1] += 1;
        }
        let alone = a.iter().filter(|&&p| p == NO_PARTY).count();
        assert_eq!((alone, by_size[1], by_size[2], by_size[3]), (10, 12, 6, 2), "{by_size:?}");
    }
}
