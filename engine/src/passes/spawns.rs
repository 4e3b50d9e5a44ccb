//! The `spawns` pass: spawn sources add agents with the next ids. Reads: the sources, the
//! tick's end time, the seed, and (for a source that keeps distances) the live agents near its
//! region and the obstacles. Writes: appends rows (through `World::push_agent`, which draws
//! each new agent's parameters from its own generator), each source's spawned count and a
//! closed source's paused ticks. `place_spaced` also places a `spawn` event's agents that keep
//! distances (`passes::events`).
//! Serial: a source adds a handful of agents per tick, in source order.

use crate::rng::{self, Purpose};
use crate::world::{Bounds, Dimension, Placed, Region, Spacing, World};

/// Draws one agent that keeps distances takes in a tick before it waits for room. The same
/// draws each tick (they come from the agent's own generator), so a waiting agent lands at the
/// first of them the crowd has cleared.
pub const TRIES_PER_TICK: u32 = 200;

/// Adds every agent the sources owe by the end of the tick being computed, or, for a source
/// with `min_distance` or `wall_distance`, every one of them there is room for (the rest wait,
/// in order, for a later tick); returns how many.
pub fn spawns(world: &mut World) -> u32 {
    let end_of_tick = (world.tick + 1) as f64 * world.dt as f64;
    let mut spawned = 0;
    let start_of_tick = world.tick as f64 * world.dt as f64;
    for s in 0..world.scene.sources.len() {
        let source = &mut world.scene.sources[s];
        if !source.open {
            // Paused: the tick's time is not owed (only time inside its active span counts).
            if start_of_tick >= source.start_s as f64 && start_of_tick < source.end_s as f64 {
                source.closed_ticks += 1;
            }
            continue;
        }
        let source = &world.scene.sources[s];
        let due = source.due_by(end_of_tick, world.dt);
        let (first, group, region, spacing) = (source.spawned, source.group, source.region, source.spacing);
        if due <= first {
            continue;
        }
        let spawner = rng::name_key(&format!("source/{}", source.name));
        let keys: Vec<u64> = (first..due).map(|k| rng::agent_key(spawner, k as u64)).collect();
        let added = if spacing.keeps_any() {
            place_spaced(world, group, &region, spacing, &keys) as u32
        } else {
            for &key in &keys {
                let p = region.sample(&mut rng::agent_rng(world.seed, key, Purpose::Spawn));
                world.push_agent(group, key, p);
            }
            keys.len() as u32
        };
        spawned += added;
        world.scene.sources[s].spawned = first + added;
        // A journey, or a first stage, of the source's own in place of its group's: the new
        // rows are the last.
        let source = &world.scene.sources[s];
        let stage = source.stage;
        if let Some(journey) = source.journey.or(stage.and(world.groups[group as usize].journey)) {
            let rows = world.agents.len();
            for row in rows - added as usize..rows {
                world.start_journey(row, journey, stage);
            }
        }
    }
    spawned
}

/// Places the agents `keys` of `group` in `region`, in order, each at the first of
/// `TRIES_PER_TICK` draws from its own generator that keeps `spacing` from every live agent
/// (and those placed before it) and from the obstacles; stops at the first that finds no room.
/// Returns how many it placed: the rest wait.
pub fn place_spaced<V: Dimension>(
    world: &mut World<V>,
    group: u16,
    region: &Region<V>,
    spacing: Spacing,
    keys: &[u64],
) -> usize {
    let mut new = Vec::with_capacity(keys.len());
    let mut placed = near(world, region, spacing.min_distance);
    for &key in keys {
        let mut draws = rng::agent_rng(world.seed, key, Purpose::Spawn);
        let Some(p) =
            (0..TRIES_PER_TICK).map(|_| region.sample(&mut draws)).find(|&p| placed.keeps(p, spacing))
        else {
            break;
        };
        placed.add(p);
        new.push((key, p));
    }
    let n = new.len();
    for (key, p) in new {
        world.push_agent(group, key, p);
    }
    n
}

/// The live agents a new one in `region` must keep `min_distance` from (those within it of
/// the region), and the obstacles, ready to check positions against.
fn near<'a, V: Dimension>(world: &'a World<V>, region: &Region<V>, min_distance: f32) -> Placed<'a, V> {
    let mut placed = Placed::new(&world.bounds, &world.obstacles, min_distance);
    if min_distance > 0.0 {
        for &p in &world.agents.position {
            if within(&world.bounds, region, p, min_distance) {
                placed.add(p);
            }
        }
    }
    placed
}

/// Whether `p` lies within `d` of `region` (its bounding box grown by `d` for a box), across a
/// wrapped world's seams.
fn within<V: Dimension>(bounds: &Bounds<V>, region: &Region<V>, p: V, d: f32) -> bool {
    match *region {
        Region::Rect { min, max } => {
            let o = bounds.offset((min + max) * 0.5, p).abs();
            let half = (max - min) * 0.5;
            (0..V::DIMENSIONS).all(|a| o.axis(a) <= half.axis(a) + d)
        }
        Region::Circle { centre, radius } => bounds.offset(centre, p).length() <= radius + d,
    }
}
