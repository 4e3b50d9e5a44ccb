//! Per-agent randomness. Every generator is keyed by (scenario seed, agent key, purpose) and
//! mixed through SplitMix64 into both the PCG state and its stream, because PCG generators that
//! differ only in stream are correlated. Floats are made from raw bits here, not through
//! `rand`'s distributions, whose values may change between releases.

use rand_core::Rng;
pub use rand_pcg::Pcg32 as AgentRng;

/// What a generator is for. Each purpose is an independent stream, so adding a draw of one kind
/// never shifts the draws of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Spawn position inside the group's spawn region.
    Spawn = 1,
    /// Per-agent parameters drawn from uniform ranges.
    Params = 2,
    /// The generator stored in the world and drawn from during the run (wander, random walk).
    Behaviour = 3,
    /// Initial velocity direction.
    Heading = 4,
    /// Per-agent parameters redrawn by a `set` event (keyed by the event's firing and the
    /// agent's id).
    Set = 5,
    /// A journey's `random` choice of an agent's next stage (keyed by the agent's id and the
    /// tick it chooses at).
    Journey = 6,
    /// The order in which a group's party sizes are dealt out at spawn (keyed by the group's
    /// name).
    Party = 7,
}

/// One SplitMix64 step: advances `state` and returns a well-mixed 64-bit value.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stable 64-bit key for a name (a group's, a source's): the first 8 bytes of its BLAKE3
/// digest, so it is the same on every platform and in every process.
pub fn name_key(name: &str) -> u64 {
    let digest = blake3::hash(name.as_bytes());
    u64::from_le_bytes(digest.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// The key of the `ordinal`-th agent made by the spawner called `spawner` (a group's initial
/// population or a spawn source). It depends on neither the other groups nor the global id, so
/// adding a group to a scenario never changes the draws of another group's agents.
pub fn agent_key(spawner: u64, ordinal: u64) -> u64 {
    let mut s = spawner ^ ordinal.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    splitmix64(&mut s)
}

/// The generator for (seed, agent key, purpose).
pub fn agent_rng(seed: u64, key: u64, purpose: Purpose) -> AgentRng {
    let mut s = seed;
    let a = splitmix64(&mut s);
    let mut s = a ^ key;
    let b = splitmix64(&mut s);
    let mut s = b ^ (purpose as u64).wrapping_mul(0xA076_1D64_78BD_642F);
    let state = splitmix64(&mut s);
    let stream = splitmix64(&mut s);
    AgentRng::new(state, stream)
}

/// Uniform in [0, 1), from the top 24 bits of one draw.
#[inline]
pub fn unit(rng: &mut AgentRng) -> f32 {
    (rng.next_u32() >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// Uniform in [lo, hi).
#[inline]
pub fn uniform(rng: &mut AgentRng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * unit(rng)
}

/// A vector whose components are uniform in [lo, hi), drawn in axis order (x, y, then z).
#[inline]
pub fn uniform_vector<V: crate::math::Vector>(rng: &mut AgentRng, lo: f32, hi: f32) -> V {
    V::from_fn(|_| uniform(rng, lo, hi))
}

/// Which way a cone turn goes ([`crate::math::Vector::cone_turn`]'s `spin`): in the plane a
/// fair coin (left 0.25, right 0.75: one draw, as a coin), in space an azimuth uniform in
/// [0, 1).
#[inline]
pub fn spin<V: crate::math::Vector>(rng: &mut AgentRng) -> f32 {
    if V::DIMENSIONS == 2 { if coin(rng) { 0.25 } else { 0.75 } } else { unit(rng) }
}

/// A fair coin.
#[inline]
pub fn coin(rng: &mut AgentRng) -> bool {
    rng.next_u32() & 1 == 1
}

/// A 64-bit fingerprint of a generator's state, for the state hash: the next draw of a clone.
/// Two generators with equal fingerprints give the same future with overwhelming probability.
#[inline]
pub fn fingerprint(rng: &AgentRng) -> u64 {
    rng.clone().next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purposes_and_agents_give_different_streams() {
        let a = unit(&mut agent_rng(1, 7, Purpose::Spawn));
        let b = unit(&mut agent_rng(1, 7, Purpose::Params));
        let c = unit(&mut agent_rng(1, 8, Purpose::Spawn));
        let d = unit(&mut agent_rng(2, 7, Purpose::Spawn));
        assert!(a != b && a != c && a != d);
        assert_eq!(a, unit(&mut agent_rng(1, 7, Purpose::Spawn)));
    }

    #[test]
    fn unit_stays_in_range() {
        let mut rng = agent_rng(3, 3, Purpose::Behaviour);
        for _ in 0..10_000 {
            let u = unit(&mut rng);
            assert!((0.0..1.0).contains(&u));
        }
    }
}
