//! The `events` pass, before a tick's first pass: fires every `[[events]]` entry due, in file
//! order, on the state the last tick left. Reads: the world's counters and, for region
//! conditions, positions and groups, the last tick's queue length and the gates' totals.
//! Writes: the events' records, doors, the switches of exits, gates and sources, behaviours'
//! targets, point targets, `stopped`; a burst appends rows, a removal removes them. Serial: a
//! handful of events.

use crate::rng::{self, Purpose};
use crate::world::{Action, Dimension, Quantity, Scene, StageCount, Switch, Target, Trigger, World};

/// Places the agents `spawn` events with distances still owe, then fires the events due at
/// `world.tick`; returns how many fired.
pub fn events<V: Dimension>(world: &mut World<V>) -> u32 {
    let tick = world.tick;
    let mut fired = 0;
    for k in 0..world.events.len() {
        if !world.events[k].waiting_to_spawn.is_empty() {
            spawn_waiting(world, k);
        }
    }
    for k in 0..world.events.len() {
        if world.stopped {
            break;
        }
        if !due(world, k, tick) {
            continue;
        }
        let e = &mut world.events[k];
        e.fired += 1;
        e.first_tick.get_or_insert(tick);
        e.last_tick = Some(tick);
        let (action, firing) = (e.action.clone(), e.fired - 1);
        let key = rng::name_key(&format!("event/{}/{firing}", e.name));
        apply(world, k, &action, key);
        fired += 1;
    }
    fired
}

/// Whether event `k` fires at `tick`; keeps a repeating condition's `armed` up to date.
fn due<V: Dimension>(world: &mut World<V>, k: usize, tick: u64) -> bool {
    let e = &world.events[k];
    match &e.trigger {
        Trigger::At { tick: at } => *at == tick && e.fired == 0,
        Trigger::Every { start, period, end } => {
            tick >= *start && tick <= *end && (tick - start).is_multiple_of(*period)
        }
        Trigger::When { value, min, max, repeat } => {
            let v = quantity(world, value);
            let holds = min.is_none_or(|lo| v >= lo) && max.is_none_or(|hi| v <= hi);
            let (repeat, fired, armed) = (*repeat, e.fired, e.armed);
            let fire = holds && (fired == 0 || repeat && armed);
            world.events[k].armed = !holds;
            fire
        }
    }
}

/// A condition's value on the current state: integer counts, whatever the row order.
fn quantity<V: Dimension>(world: &World<V>, q: &Quantity<V>) -> f64 {
    let scene = world.scene.parts();
    match q {
        Quantity::AgentsActive => world.agents.len() as f64,
        Quantity::AgentsExited => world.exited as f64,
        Quantity::AgentsSpawned => scene.sources.iter().map(|s| s.spawned as u64).sum::<u64>() as f64,
        Quantity::QueueLength => world.queue_length as f64,
        Quantity::GateCrossings(g) => scene.gate_totals.get(*g as usize).copied().unwrap_or(0) as f64,
        Quantity::InRegion { region, group } => world.count_in(region, *group) as f64,
        Quantity::AgentsRemoved => world.removed as f64,
        Quantity::Waiting(w) => scene.waiting[*w as usize].held.len() as f64,
        // Measurement areas are planar: a scenario in space has none to name.
        Quantity::MeasureCount(m) => scene.measures[*m as usize].count(&world.agents) as f64,
        Quantity::MeasureDensity(m) => {
            let area = &scene.measures[*m as usize];
            area.count(&world.agents) as f64 / area.area()
        }
        Quantity::Stage(s, what) => {
            let reading = crate::metrics::stage_reading(world, *s as usize);
            match what {
                StageCount::Agents => reading.agents as f64,
                StageCount::Queue => reading.queue as f64,
                StageCount::Finished => reading.finished as f64,
            }
        }
        Quantity::AgentInRegion { agent, region } => {
            let inside = world.row_of(*agent).is_some_and(|r| region.contains(world.agents.position[r]));
            inside as u8 as f64
        }
    }
}

/// The groups' `on_closed` entries for `switch`: diverted when it closes, back when it opens.
pub fn divert<V: Dimension>(world: &mut World<V>, switch: Switch, open: bool) {
    for d in world.scene.parts_mut().diversions.iter_mut().filter(|d| d.switch == switch) {
        let behaviours = &mut world.groups[d.group as usize].behaviours;
        if open { d.restore(behaviours) } else { d.divert(behaviours) }
    }
}

/// Places what event `k` (a `spawn` with distances) owes, in order, as far as there is room.
fn spawn_waiting<V: Dimension>(world: &mut World<V>, k: usize) {
    let Action::Spawn { group, region, spacing, .. } = world.events[k].action.clone() else { return };
    let keys = std::mem::take(&mut world.events[k].waiting_to_spawn);
    let placed = crate::passes::place_spaced(world, group, &region, spacing, &keys);
    world.events[k].waiting_to_spawn = keys[placed..].to_vec();
}

/// Applies `action` now, for the program running the simulation (`Simulation::fire`), and
/// returns the ids of the agents it added. A burst's agents are keyed by (`host spawn`, their
/// id), as `Simulation::spawn` keys its own; a burst that keeps distances places those that
/// have room now, in order, and drops the rest (no event holds them). `key` keys a `set`
/// event's redraws.
pub(crate) fn apply_from_host<V: Dimension>(world: &mut World<V>, action: &Action<V>, key: u64) -> Vec<u32> {
    let first = world.next_id;
    match action {
        Action::Spawn { group, count, region, spacing } => {
            let keys: Vec<u64> =
                (0..*count as u64).map(|k| rng::agent_key(rng::name_key("host spawn"), first as u64 + k)).collect();
            if spacing.keeps_any() {
                crate::passes::place_spaced(world, *group, region, *spacing, &keys);
            } else {
                for key in keys {
                    let p = region.sample(&mut rng::agent_rng(world.seed, key, Purpose::Spawn));
                    world.push_agent(*group, key, p);
                }
            }
        }
        _ => apply(world, usize::MAX, action, key),
    }
    (first..world.next_id).collect()
}

/// Applies `action`, event `event`'s; `spawner` keys the agents a burst adds (the event's name
/// and firing).
fn apply<V: Dimension>(world: &mut World<V>, event: usize, action: &Action<V>, spawner: u64) {
    match action {
        Action::Open(s) | Action::Close(s) => {
            let open = matches!(action, Action::Open(_));
            // Doors, exits, gates and sources are planar: a scenario in space has none to name.
            let scene = world.scene.parts_mut();
            match *s {
                Switch::Door(d) => {
                    scene.doors[d as usize].closed = !open;
                    world.refresh_obstacles();
                }
                Switch::Exit(x) => scene.exits[x as usize].open = open,
                Switch::Gate(g) => scene.gates[g as usize].open = open,
                Switch::Source(x) => scene.sources[x as usize].open = open,
                Switch::Stage(s) => {
                    let stage = &mut scene.stages[s as usize];
                    match stage.kind {
                        crate::world::StageKind::Exit(x) => scene.exits[x as usize].open = open,
                        _ => stage.closed = !open,
                    }
                }
            }
            divert(world, *s, open);
        }
        Action::Regroup { from, into, region } => {
            let a = &mut world.agents;
            for (g, p) in a.group.iter_mut().zip(&a.position) {
                if *g == *from && region.is_none_or(|r| r.contains(*p)) {
                    *g = *into;
                }
            }
        }
        Action::Spawn { group, count, region, spacing } => {
            let keys = (0..*count).map(|k| rng::agent_key(spawner, k as u64));
            if spacing.keeps_any() {
                // Those with no room wait, in order, after any this event still owes.
                world.events[event].waiting_to_spawn.extend(keys);
                spawn_waiting(world, event);
            } else {
                for key in keys {
                    let p = region.sample(&mut rng::agent_rng(world.seed, key, Purpose::Spawn));
                    world.push_agent(*group, key, p);
                }
            }
        }
        Action::Set { group, params, behaviours } => super::set(world, *group, params, behaviours, spawner),
        Action::Journey { journey, group, region } => {
            if let (Some(g), None) = (group, region) {
                world.groups[*g as usize].journey = Some(*journey);
            }
            let a = &world.agents;
            let rows: Vec<usize> = (0..a.len())
                .filter(|&i| group.is_none_or(|g| a.group[i] == g) && region.is_none_or(|r| r.contains(a.position[i])))
                .collect();
            let mut ids: Vec<u32> = rows.iter().map(|&i| a.id[i]).collect();
            ids.sort_unstable();
            for row in rows {
                world.start_journey(row, *journey, None);
            }
            // Whom a waiting area held is on its way elsewhere now.
            for w in world.scene.parts_mut().waiting.iter_mut() {
                w.held.retain(|(_, id)| ids.binary_search(id).is_err());
            }
        }
        Action::ReleaseQueue { stage, count } => {
            if let Some(q) = world.scene.parts_mut().stages[*stage as usize].queue.as_mut() {
                q.release(*count);
            }
        }
        Action::Release { area, count } => {
            world.scene.parts_mut().waiting[*area as usize].release(*count);
        }
        Action::Remove { region, group } => {
            let a = &world.agents;
            let keep: Vec<bool> = a
                .position
                .iter()
                .zip(&a.group)
                .map(|(p, g)| !(group.is_none_or(|want| *g == want) && region.contains(*p)))
                .collect();
            let gone = keep.iter().filter(|k| !**k).count();
            if gone > 0 {
                world.agents.retain_rows(&keep);
                world.removed += gone as u64;
            }
        }
        Action::Retarget { group, behaviour, target } => {
            world.groups[*group as usize].behaviours[*behaviour as usize].behaviour.set_target(*target);
        }
        Action::MoveTarget { target, to } => world.targets[*target as usize] = Target::Point(*to),
        Action::Stop => world.stopped = true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Event, Region};

    #[test]
    fn a_repeating_condition_fires_each_time_it_comes_back() {
        use crate::math::Vec2;
        let mut world = crate::scenario::Scenario::parse(
            "version = 1\nname = \"e\"\nseed = 1\ndt = 0.1\nticks = 5\n[bounds]\nmin = [0, 0]\nmax = [10, 10]\n[[groups]]\nname = \"g\"\ncount = 1\nspawn = { kind = \"points\", points = [[1, 1]] }\nmax_speed = 1\nmax_force = 1\n",
            "e.toml",
        )
        .expect("valid")
        .build_world();
        let region = Region::Circle { centre: Vec2::new(1.0, 1.0), radius: 0.5 };
        world.events.push(Event {
            name: "in".into(),
            trigger: Trigger::When {
                value: Quantity::InRegion { region, group: None },
                min: Some(1.0),
                max: None,
                repeat: true,
            },
            action: Action::Stop,
            fired: 0,
            first_tick: None,
            last_tick: None,
            armed: false,
            waiting_to_spawn: Vec::new(),
        });
        world.stopped = false;
        // Inside: fires; still inside: does not; out and back: fires again.
        assert_eq!(events(&mut world), 1);
        world.stopped = false;
        world.tick = 1;
        assert_eq!(events(&mut world), 0);
        world.agents.position[0] = Vec2::new(5.0, 5.0);
        world.tick = 2;
        assert_eq!(events(&mut world), 0);
        world.agents.position[0] = Vec2::new(1.0, 1.0);
        world.tick = 3;
        assert_eq!(events(&mut world), 1);
        assert_eq!(
            (world.events[0].fired, world.events[0].first_tick, world.events[0].last_tick),
            (2, Some(0), Some(3))
        );
    }
}
