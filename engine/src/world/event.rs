//! Events on a scenario's timeline (`[[events]]`): what triggers each, what it does, and what
//! it has done so far. Definitions and state both live in the world, so checkpoints carry them
//! and the state hash covers them; the `events` pass applies them before a tick's first pass.
//!
//! A new variant goes at the end of its enum: checkpoints, golden snapshots and the state hash
//! store variants by their index, so inserting one in the middle changes every scene using a
//! later one.

use serde::{Deserialize, Serialize};

use super::{Obstacle, Param, Region, TargetId, WeightedBehaviour};
use crate::math::{Vec2, Vector};

/// A named obstacle that events open (remove) and close (put back): a door. A closed door is
/// among `World::obstacles`, after the unnamed ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Door {
    /// The obstacle's `name` in the scenario.
    pub name: String,
    /// Its shape.
    pub obstacle: Obstacle,
    /// Whether it stands (state; a door starts closed unless the scenario says `open = true`).
    pub closed: bool,
}

/// One `[[events]]` entry: its trigger, its action, and its record; its regions and points
/// are of the world's dimension (`V`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub struct Event<V = Vec2> {
    /// The entry's `name` (default `events[i]`).
    pub name: String,
    /// When it fires.
    pub trigger: Trigger<V>,
    /// What it does.
    pub action: Action<V>,
    /// Times it has fired (state).
    pub fired: u32,
    /// The tick (ticks completed before it applied) it first and last fired (state).
    pub first_tick: Option<u64>,
    /// See `first_tick`.
    pub last_tick: Option<u64>,
    /// For a repeating condition: whether it was false since it last fired (state).
    pub armed: bool,
    /// A `spawn` that keeps distances: the keys of the agents it owes that found no room yet,
    /// in order (state); each tick's events pass places what it can before any event fires.
    /// Kept outside the world's serialized bytes ([`SpawnSpacing`](super::SpawnSpacing)).
    #[serde(skip)]
    pub waiting_to_spawn: Vec<u64>,
}

impl<V: Vector> Event<V> {
    /// The most times it can fire in a run of `ticks` ticks (events apply before ticks 0 to
    /// `ticks - 1`).
    pub fn max_firings(&self, ticks: u64) -> u64 {
        match self.trigger {
            Trigger::At { tick } => (tick < ticks) as u64,
            Trigger::Every { start, period, end } if start < ticks => {
                (end.min(ticks - 1) - start) / period + 1
            }
            Trigger::Every { .. } => 0,
            Trigger::When { repeat: false, .. } => 1,
            Trigger::When { repeat: true, .. } => ticks.div_ceil(2),
        }
    }
}

/// When an event fires, judged before a tick's first pass on the state the last tick left.
/// `tick` is the number of ticks completed, so `At { tick: 200 }` with `dt = 0.1` applies at
/// 20 s, before the tick that starts there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Trigger<V = Vec2> {
    /// Once, at this tick.
    At {
        /// The tick.
        tick: u64,
    },
    /// At `start`, then every `period` ticks, up to `end` (inclusive).
    Every {
        /// First tick.
        start: u64,
        /// Ticks between firings (at least 1).
        period: u64,
        /// Last tick it may fire at.
        end: u64,
    },
    /// When the value comes within bounds: once, or (with `repeat`) each time it does again
    /// after having left them.
    When {
        /// The value judged.
        value: Quantity<V>,
        /// Lower bound, inclusive.
        min: Option<f64>,
        /// Upper bound, inclusive.
        max: Option<f64>,
        /// Fire again each time the value comes back within bounds.
        repeat: bool,
    },
}

/// A quantity a condition reads from the state between ticks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Quantity<V = Vec2> {
    /// Live agents.
    AgentsActive,
    /// Agents removed by exits so far.
    AgentsExited,
    /// Agents added by sources so far.
    AgentsSpawned,
    /// Agents that braked behind a blocker in the last tick.
    QueueLength,
    /// Crossings of a gate so far (its index), either way.
    GateCrossings(u32),
    /// Live agents (of one group, when given) inside a region.
    InRegion {
        /// The region.
        region: Region<V>,
        /// Only this group's agents.
        group: Option<u16>,
    },
    /// Agents removed by `remove` events (and by the program, `Simulation::despawn`) so far.
    AgentsRemoved,
    /// Agents a waiting area holds (its index).
    Waiting(u32),
    /// 1 while agent `agent` is alive and inside the region, else 0.
    AgentInRegion {
        /// The agent's id.
        agent: u32,
        /// The region.
        region: Region<V>,
    },
    /// Live agents inside a measurement area (its index).
    MeasureCount(u32),
    /// Live agents per square unit inside a measurement area (its index): the count divided
    /// by its area, so it is exact whatever the row order.
    MeasureDensity(u32),
    /// What a journey stage (its index) shows: agents heading to it, its queue, its finished
    /// visits (`stages.NAME.agents|queue|finished`).
    Stage(u32, StageCount),
}

/// Which of a stage's counts a condition reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StageCount {
    /// Agents whose current stage it is.
    Agents,
    /// Agents its waiting area holds, or in its queue's line.
    Queue,
    /// Visits finished since tick 0.
    Finished,
}

/// What an event does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Action<V = Vec2> {
    /// Opens a door (removes its obstacle), or lets an exit remove or a gate count again.
    Open(Switch),
    /// Closes a door (puts its obstacle back), or stops an exit removing or a gate counting.
    Close(Switch),
    /// Gives behaviour `behaviour` of group `group` the target `target`.
    Retarget {
        /// The group.
        group: u16,
        /// The behaviour's index in the group's list.
        behaviour: u16,
        /// The new target.
        target: TargetId,
    },
    /// Moves a point target.
    MoveTarget {
        /// The target (a `point` target).
        target: TargetId,
        /// Where to.
        to: V,
    },
    /// Ends the run: no further tick runs.
    Stop,
    /// Adds `count` agents of group `group` uniformly in `region`, with the next ids; their
    /// draws are keyed by the event's name and how many times it had fired. With `spacing`,
    /// each keeps its distances, and those with no room wait (`Event::waiting_to_spawn`).
    Spawn {
        /// The group.
        group: u16,
        /// How many.
        count: u32,
        /// Where.
        region: Region<V>,
        /// The distances each keeps (`min_distance`, `wall_distance`; none by default). Kept
        /// outside the world's serialized bytes ([`SpawnSpacing`](super::SpawnSpacing)).
        #[serde(skip)]
        spacing: super::Spacing,
    },
    /// Releases the agents a waiting area holds: the `count` that arrived first, or all.
    Release {
        /// The area (`World::waiting`).
        area: u32,
        /// How many (all when `None`).
        count: Option<u32>,
    },
    /// Changes a group's per-agent parameters (redrawn for its live agents) and its
    /// behaviours' parameters.
    Set {
        /// The group.
        group: u16,
        /// New per-agent parameters, in the order `AgentParam` lists them.
        params: Vec<(AgentParam, Param)>,
        /// Behaviours changed.
        behaviours: Vec<BehaviourPatch>,
    },
    /// Moves the live agents of group `from` (inside a region, when given) into group `into`:
    /// they take its behaviours and sensing from the next tick on and keep their own bodies,
    /// parameters and per-agent state.
    Regroup {
        /// The group they leave.
        from: u16,
        /// The group they join.
        into: u16,
        /// Only the agents inside it.
        region: Option<Region<V>>,
    },
    /// Removes the live agents (of one group, when given) inside a region.
    Remove {
        /// The region.
        region: Region<V>,
        /// Only this group's agents.
        group: Option<u16>,
    },
    /// Puts the live agents of a group, or inside a region, or both, at the start of another
    /// journey; with a group and no region, the group's new agents start on it too.
    Journey {
        /// The journey (`World`'s journeys).
        journey: u16,
        /// Only this group's agents.
        group: Option<u16>,
        /// Only the agents inside it.
        region: Option<Region<V>>,
    },
    /// Releases the `count` agents at the head of a queue stage (all of them with `None`):
    /// they go on to their journey's next stage at the end of the tick.
    ReleaseQueue {
        /// The stage (a queue).
        stage: u16,
        /// How many (all when `None`).
        count: Option<u32>,
    },
}

/// A per-agent parameter a `set` event changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AgentParam {
    /// `max_speed`.
    MaxSpeed,
    /// `max_force`.
    MaxForce,
    /// `mass`.
    Mass,
    /// `radius`.
    Radius,
}

impl AgentParam {
    /// Every one, with its key in a scenario.
    pub const ALL: [(AgentParam, &'static str); 4] = [
        (AgentParam::MaxSpeed, "max_speed"),
        (AgentParam::MaxForce, "max_force"),
        (AgentParam::Mass, "mass"),
        (AgentParam::Radius, "radius"),
    ];
}

/// The fields a `set` event changes in one behaviour of a group: copied from `patched` (the
/// behaviour as the scenario would build it with the new values) into the live one, so what
/// earlier events changed in its other fields stays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BehaviourPatch {
    /// The behaviour's index in the group's list.
    pub behaviour: u16,
    /// The behaviour with the new values.
    pub patched: WeightedBehaviour,
    /// The fields to copy (the scenario's keys; `weight` is the entry's weight).
    pub fields: Vec<String>,
}

/// A group's `on_closed` entry: while a door or exit is closed, the group's behaviours that go
/// to a target (`seek`, `arrive`, `random_walk`, `flock_target`) go to `target` instead; when it
/// opens again they go back to the targets they had.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Diversion {
    /// The group.
    pub group: u16,
    /// The door or exit.
    pub switch: Switch,
    /// Where the group goes while it is closed.
    pub target: TargetId,
    /// While diverted (state): each diverted behaviour's index and the target it had.
    pub saved: Option<Vec<(u16, TargetId)>>,
}

impl Diversion {
    /// Diverts the group (once), saving the targets it had.
    pub fn divert(&mut self, behaviours: &mut [WeightedBehaviour]) {
        if self.saved.is_some() {
            return;
        }
        let mut saved = Vec::new();
        for (b, w) in behaviours.iter_mut().enumerate() {
            if let Some(t) = w.behaviour.target()
                && w.behaviour.goes_to_target()
            {
                saved.push((b as u16, t));
                w.behaviour.set_target(self.target);
            }
        }
        self.saved = Some(saved);
    }

    /// Gives the group back the targets it had before it was diverted.
    pub fn restore(&mut self, behaviours: &mut [WeightedBehaviour]) {
        for (b, t) in self.saved.take().unwrap_or_default() {
            behaviours[b as usize].behaviour.set_target(t);
        }
    }
}

/// What `open` and `close` act on, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Switch {
    /// A door (`World::doors`).
    Door(u32),
    /// An exit (`World::exits`).
    Exit(u32),
    /// A gate (`World::gates`).
    Gate(u32),
    /// A spawn source (`World::sources`).
    Source(u32),
    /// A journey stage (`World::scene`'s stages): an exit stage's exit, or the stage itself.
    Stage(u32),
}
