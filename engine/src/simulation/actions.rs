//! Event actions fired by the program running the simulation (`Simulation::fire`): open or
//! close a door, an exit, a gate or a source, retarget, move a target, spawn, remove, release,
//! set parameters, regroup, stop. Each applies at once, between ticks, exactly as the same
//! action of an `[[events]]` entry firing before the next tick would; the action is checked
//! against the world first, so a call that names nothing real changes nothing.

use super::{ControlError, Simulation};
use crate::pipeline::Passes;
use crate::rng;
use crate::world::{Action, Scene, Switch, Target, World};

impl<V: Passes> Simulation<V> {
    /// Applies `action` now, as an `[[events]]` entry with it would before the next tick, and
    /// returns the ids of the agents it added (a `spawn`; none for the other actions).
    ///
    /// An action is best built from the scenario's own words with [`crate::parse_action`],
    /// which checks names and values as the scenario's events are checked. A burst's agents are keyed by their ids, as
    /// [`Simulation::spawn`] keys its own, so the same calls at the same ticks give the same
    /// agents at any thread count; a burst that keeps distances places those that have room
    /// now and drops the rest. A `set` redraws its group's parameters keyed by the tick.
    pub fn fire(&mut self, action: &Action<V>) -> Result<Vec<u32>, ControlError> {
        check(&self.world, action)?;
        let key = rng::name_key(&format!("host action/{}", self.world.tick));
        let added = crate::passes::events::apply_from_host(&mut self.world, action, key);
        self.lookups.forget();
        Ok(added)
    }
}

/// Whether every index `action` names is one of the world's.
fn check<V: Passes>(world: &World<V>, action: &Action<V>) -> Result<(), ControlError> {
    let scene = world.scene.parts();
    let within = |what: &'static str, index: u32, count: usize| {
        if (index as usize) < count { Ok(()) } else { Err(ControlError::NoSuch { what, index, count }) }
    };
    let group = |g: u16| within("group", g as u32, world.groups.len());
    let target = |t: u16| within("target", t as u32, world.targets.len());
    match action {
        Action::Open(s) | Action::Close(s) => match *s {
            Switch::Door(d) => within("door", d, scene.doors.len()),
            Switch::Exit(x) => within("exit", x, scene.exits.len()),
            Switch::Gate(g) => within("gate", g, scene.gates.len()),
            Switch::Source(x) => within("source", x, scene.sources.len()),
            Switch::Stage(s) => within("stage", s, scene.stages.len()),
        },
        Action::Retarget { group: g, behaviour, target: t } => {
            group(*g)?;
            target(*t)?;
            let behaviours = &world.groups[*g as usize].behaviours;
            within("behaviour", *behaviour as u32, behaviours.len())?;
            match behaviours[*behaviour as usize].behaviour.target() {
                Some(_) => Ok(()),
                None => Err(ControlError::NoTargetToChange { group: world.groups[*g as usize].name.clone() }),
            }
        }
        Action::MoveTarget { target: t, to } => {
            target(*t)?;
            if !to.is_finite() {
                return Err(ControlError::NotFinite { what: "point", found: format!("{to:?}") });
            }
            match world.targets[*t as usize] {
                Target::Point(_) => Ok(()),
                _ => Err(ControlError::NotAPointTarget { target: *t }),
            }
        }
        Action::Spawn { group: g, count, .. } => {
            group(*g)?;
            let agents = world.agents.len();
            if agents as u64 + *count as u64 > crate::scenario::MAX_AGENTS {
                return Err(ControlError::Full { agents });
            }
            Ok(())
        }
        Action::Release { area, .. } => within("waiting area", *area, scene.waiting.len()),
        Action::Set { group: g, behaviours, .. } => {
            group(*g)?;
            let count = world.groups[*g as usize].behaviours.len();
            behaviours.iter().try_for_each(|b| within("behaviour", b.behaviour as u32, count))
        }
        Action::Regroup { from, into, .. } => group(*from).and(group(*into)),
        Action::Remove { group: g, .. } => g.map_or(Ok(()), group),
        Action::ReleaseQueue { stage, .. } => {
            within("stage", *stage as u32, scene.stages.len())?;
            match scene.stages[*stage as usize].queue {
                Some(_) => Ok(()),
                None => Err(ControlError::NotAQueue { stage: *stage }),
            }
        }
        Action::Journey { journey, group: g, .. } => {
            g.map_or(Ok(()), group)?;
            within("journey", *journey as u32, scene.journeys.len())
        }
        Action::Stop => Ok(()),
    }
}
