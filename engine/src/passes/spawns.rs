//! The `spawns` pass: spawn sources add agents with the next ids. Reads: the sources, the
//! tick's end time, the seed. Writes: appends rows (through `World::push_agent`, which draws
//! each new agent's parameters from its own generator), each source's spawned count and a
//! closed source's paused ticks.
//! Serial: a source adds a handful of agents per tick, in source order.

use crate::rng::{self, Purpose};
use crate::world::World;

/// Adds every agent the sources owe by the end of the tick being computed; returns how many.
pub fn spawns(world: &mut World) -> u32 {
    let end_of_tick = (world.tick + 1) as f64 * world.dt as f64;
    let mut spawned = 0;
    let start_of_tick = world.tick as f64 * world.dt as f64;
    for s in 0..world.sources.len() {
        let source = &mut world.sources[s];
        if !source.open {
            // Paused: the tick's time is not owed (only time inside its active span counts).
            if start_of_tick >= source.start_s as f64 && start_of_tick < source.end_s as f64 {
                source.closed_ticks += 1;
            }
            continue;
        }
        let source = &world.sources[s];
        let due = source.due_by(end_of_tick, world.dt);
        let (first, group, region) = (source.spawned, source.group, source.region);
        let spawner = rng::name_key(&format!("source/{}", source.name));
        for k in first..due {
            let key = rng::agent_key(spawner, k as u64);
            let p = region.sample(&mut rng::agent_rng(world.seed, key, Purpose::Spawn));
            world.push_agent(group, key, p);
        }
        if due > first {
            spawned += due - first;
            world.sources[s].spawned = due;
        }
    }
    spawned
}
