//! A run's peak memory, estimated from its scenario before anything is built, so a run that
//! cannot fit is refused with a clear message instead of aborting half-way ("memory allocation
//! of 268435456 bytes failed").
//!
//! The model: a fixed base, plus per agent the agent columns and the pipeline's per-agent
//! scratch (positions before integration, steering, headings, the reorder keys and its gather
//! buffers, the index), plus 16 bytes per neighbour slot (`max_neighbours` of the agent's group:
//! row, distance² and offset), plus, when sensing candidates are reused (`sensing_skin > 0`),
//! 10 bytes per neighbour slot for the candidate lists, twice that where agents come or go
//! (exits, sources, spawn events: the lists are carried over into a second buffer). Spawn
//! sources count at their `max_agents`, event bursts at their count times the most times they
//! can fire. The constants are measured: `throng bench` prints the estimate beside the
//! measured peak RSS, and an ignored test holds it within 25 % at 10k and 1M agents.

use super::Scenario;
use crate::world::Dimension;

/// Memory of a run with no agents (the program, its thread pool, the scenario): 8 MiB.
pub const BASE_BYTES: u64 = 8 << 20;
/// Per agent, whatever its group: columns and pipeline scratch (measured: 478 bytes per agent
/// for the zombies at 1M agents with 8 neighbour slots, less 8 × 16 for the slots).
pub const AGENT_BYTES: u64 = 350;
/// Per agent of a run in space (measured: 1.13 GB peak for 1M agents with 32 neighbour slots
/// in `bench/benches/space.rs`, less 32 × 20 for the slots).
pub const AGENT_BYTES_IN_SPACE: u64 = 490;
/// Per neighbour slot of an agent (`max_neighbours`): a row index, a distance² and an offset
/// (4 bytes more in space, whose offsets have z).
pub const NEIGHBOUR_SLOT_BYTES: u64 = 16;
/// Per neighbour slot, when the scenario reuses sensing candidates (`sensing_skin > 0`).
pub const CANDIDATE_SLOT_BYTES: u64 = 10;

/// A run's estimated peak memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The most agents alive at once: every group's count plus every source's `max_agents`.
    pub agents: u64,
    /// The estimate, in bytes.
    pub bytes: u64,
}

impl MemoryEstimate {
    /// The estimate in MiB, for messages.
    pub fn mib(&self) -> f64 {
        self.bytes as f64 / (1u64 << 20) as f64
    }
}

impl<V: Dimension> Scenario<V> {
    /// The estimated peak memory of a run of this scenario (see the module documentation).
    pub fn memory_estimate(&self) -> MemoryEstimate {
        let space = V::DIMENSIONS == 3;
        let spawns = |e: &crate::world::Event<V>| matches!(e.action, crate::world::Action::Spawn { .. });
        let rows_change =
            !self.exits.is_empty() || !self.sources.is_empty() || self.events.iter().any(spawns);
        let candidate_buffers = if self.sensing_skin > 0.0 { 1 + u64::from(rows_change) } else { 0 };
        let slot =
            NEIGHBOUR_SLOT_BYTES + if space { 4 } else { 0 } + candidate_buffers * CANDIDATE_SLOT_BYTES;
        let agent = if space { AGENT_BYTES_IN_SPACE } else { AGENT_BYTES };
        let per_agent = |g: usize| agent + slot * self.groups[g].group.max_neighbours as u64;
        let initial = self.groups.iter().enumerate().map(|(g, spec)| (spec.count as u64, per_agent(g)));
        let spawned = self.sources.iter().map(|s| (s.max as u64, per_agent(s.group as usize)));
        let bursts = self.events.iter().filter_map(|e| match e.action {
            crate::world::Action::Spawn { group, count, .. } => {
                Some((count as u64 * e.max_firings(self.ticks), per_agent(group as usize)))
            }
            _ => None,
        });
        let (agents, bytes) = initial
            .chain(spawned)
            .chain(bursts)
            .fold((0u64, BASE_BYTES), |(n, b), (count, each)| (n + count, b + count * each));
        MemoryEstimate { agents, bytes }
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    #[test]
    fn the_estimate_counts_groups_sources_neighbour_slots_and_the_skin() {
        let text = |skin: &str| {
            format!(
                r#"version = 1
name = "m"
seed = 1
dt = 0.1
ticks = 10
sensing_skin = {skin}
[bounds]
min = [0, 0]
max = [100, 100]
[[groups]]
name = "a"
count = 1000
spawn = {{ kind = "rect", min = [0, 0], max = [100, 100] }}
max_speed = 1.0
max_force = 1.0
max_neighbours = 10
[[groups.behaviours]]
kind = "separation"
radius = 1.0
[[sources]]
name = "door"
group = "a"
kind = "circle"
centre = [50, 50]
radius = 2
rate = 1
max_agents = 500
"#
            )
        };
        let plain = Scenario::parse(&text("0"), "m").expect("valid").memory_estimate();
        // 1,500 agents × (350 + 10 × 16) bytes + 8 MiB.
        assert_eq!(plain.agents, 1500);
        assert_eq!(plain.bytes, (8 << 20) + 1500 * (350 + 160));
        // The source adds agents, so the candidate lists take two buffers: 10 × (16 + 2 × 10).
        let skin = Scenario::parse(&text("1.0"), "m").expect("valid").memory_estimate();
        assert_eq!(skin.bytes, (8 << 20) + 1500 * (350 + 360));
    }
}
