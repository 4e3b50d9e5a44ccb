//! Validating an `[[events]]` entry's action: its kind, the names it acts on (with
//! suggestions), and whether it fits them (only a behaviour with a target is retargeted, only a
//! point target is moved).

use super::Validator;
use super::events::EventNames;
use crate::scenario::locate::{Seg, nearest_word};
use crate::scenario::schema::{BehaviourRef, EventToml};
use crate::scenario::{GroupSpec, MAX_AGENTS};
use crate::world::{Action, Switch, Target, WeightedBehaviour};

/// The actions and the keys each takes besides the trigger's and `name`.
pub(super) const ACTIONS: [(&str, &[&str]); 11] = [
    ("open", &["door", "exit", "gate", "source", "stage"]),
    ("close", &["door", "exit", "gate", "source", "stage"]),
    ("retarget", &["group", "behaviour", "target"]),
    ("move_target", &["target", "to"]),
    ("stop", &[]),
    ("spawn", &["group", "count", "region", "min_distance", "wall_distance"]),
    ("remove", &["group", "region"]),
    ("release", &["area", "stage", "count"]),
    ("set", &["set"]),
    ("regroup", &["group", "into", "region"]),
    ("journey", &["journey", "group", "region"]),
];

/// What `open` and `close` may name: the key, the word for one, the words for the list.
const SWITCHES: [(&str, &str, &str); 5] = [
    ("door", "door", "doors (named obstacles)"),
    ("exit", "exit", "exits"),
    ("gate", "gate", "gates"),
    ("source", "source", "sources"),
    ("stage", "stage", "stages"),
];

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The action of event `i` (its keys already checked against [`ACTIONS`]).
    pub(super) fn event_action(
        &mut self,
        i: usize,
        e: &EventToml,
        names: &EventNames,
        groups: &[GroupSpec<V>],
        targets: &[Target<V>],
    ) -> Option<Action<V>> {
        use Seg::{Index, Key};
        let base = [Key("events"), Index(i)];
        let at = |k: &'static str| [Key("events"), Index(i), Key(k)];
        let missing = |v: &mut Self, key: &str| -> Option<Action<V>> {
            v.fail(&base, format!("missing key `{key}` for a \"{}\" event", e.action))
        };
        match e.action.as_str() {
            "open" | "close" => {
                let s = self.switch(i, e, names)?;
                Some(if e.action == "open" { Action::Open(s) } else { Action::Close(s) })
            }
            "stop" => Some(Action::Stop),
            "move_target" => {
                let Some(name) = &e.target else { return missing(self, "target") };
                let t = self.named(&at("target"), "target", name, names.targets)? as u16;
                if !matches!(targets[t as usize], Target::Point(_)) {
                    return self.fail(
                        &at("target"),
                        format!("\"{name}\" is not a point target: only a point target can be moved"),
                    );
                }
                let Some(to) = e.to else { return missing(self, "to") };
                Some(Action::MoveTarget { target: t, to: self.point(&at("to"), to)? })
            }
            "spawn" => {
                let Some(group) = &e.group else { return missing(self, "group") };
                let group = self.group_index(&at("group"), group, names.groups)?;
                let Some(count) = e.count else { return missing(self, "count") };
                if count == 0 || count > MAX_AGENTS {
                    return self.fail(
                        &at("count"),
                        format!("expected a whole number of agents from 1 to {MAX_AGENTS}, found {count}"),
                    );
                }
                let Some(r) = &e.region else { return missing(self, "region") };
                let region = self.region(&at("region"), region_keys!(r), "region")?;
                let spacing = self.spacing_keys(&base, e.min_distance, e.wall_distance)?;
                Some(Action::Spawn { group, count: count as u32, region, spacing })
            }
            "set" => self.set_action(i, e, names, groups, targets),
            "regroup" => {
                let Some(from) = &e.group else { return missing(self, "group") };
                let from = self.group_index(&at("group"), from, names.groups)?;
                let Some(into) = &e.into else { return missing(self, "into") };
                let into = self.group_index(&at("into"), into, names.groups)?;
                if from == into {
                    return self.fail(&at("into"), "`into` names the group the agents are already in");
                }
                let region = match &e.region {
                    Some(r) => Some(self.region(&at("region"), region_keys!(r), "region")?),
                    None => None,
                };
                Some(Action::Regroup { from, into, region })
            }
            "journey" => {
                let Some(name) = &e.journey else { return missing(self, "journey") };
                let journey = self.named(&at("journey"), "journey", name, names.journeys)? as u16;
                let group = match &e.group {
                    Some(g) => Some(self.group_index(&at("group"), g, names.groups)?),
                    None => None,
                };
                let region = match &e.region {
                    Some(r) => Some(self.region(&at("region"), region_keys!(r), "region")?),
                    None => None,
                };
                if group.is_none() && region.is_none() {
                    return self.fail(
                        &base,
                        "a \"journey\" event needs `group`, `region` or both: whose journey it switches",
                    );
                }
                Some(Action::Journey { journey, group, region })
            }
            "release" => {
                let count = match e.count {
                    None => None,
                    Some(c) if (1..=MAX_AGENTS).contains(&c) => Some(c as u32),
                    Some(c) => {
                        return self.fail(
                            &at("count"),
                            format!("expected a whole number of agents from 1 to {MAX_AGENTS}, found {c}"),
                        );
                    }
                };
                if let Some(name) = &e.stage {
                    if e.area.is_some() {
                        return self.fail(
                            &at("stage"),
                            "a \"release\" event names a waiting `area` or a queue `stage`, not both",
                        );
                    }
                    let known: Vec<&str> = names.stages.iter().map(|(n, _)| *n).collect();
                    let stage = self.named(&at("stage"), "stage", name, &known)?;
                    if !names.stages[stage].1 {
                        return self.fail(&at("stage"), format!("stage \"{name}\" is not a queue: only a queue's head is released (a waiting stage is released through its `area`)"));
                    }
                    return Some(Action::ReleaseQueue { stage: stage as u16, count });
                }
                let Some(name) = &e.area else {
                    return self.fail(
                        &base,
                        "a \"release\" event needs `area` (a waiting area) or `stage` (a queue)",
                    );
                };
                let area = self.named(&at("area"), "waiting area", name, names.waiting)? as u32;
                Some(Action::Release { area, count })
            }
            "remove" => {
                let group = match &e.group {
                    Some(g) => Some(self.group_index(&at("group"), g, names.groups)?),
                    None => None,
                };
                let Some(r) = &e.region else { return missing(self, "region") };
                let region = self.region(&at("region"), region_keys!(r), "region")?;
                Some(Action::Remove { region, group })
            }
            _ => self.retarget(i, e, names, groups),
        }
    }

    /// `retarget`: a group's behaviour (by index or kind) that takes a target, and the new one.
    fn retarget(
        &mut self,
        i: usize,
        e: &EventToml,
        names: &EventNames,
        groups: &[GroupSpec<V>],
    ) -> Option<Action<V>> {
        use Seg::{Index, Key};
        let base = [Key("events"), Index(i)];
        let at = |k: &'static str| [Key("events"), Index(i), Key(k)];
        let Some(group) = &e.group else {
            return self.fail(&base, "missing key `group` for a \"retarget\" event");
        };
        let g = self.group_index(&at("group"), group, names.groups)?;
        let list = &groups[g as usize].group.behaviours;
        let b = match &e.behaviour {
            None => {
                return self.fail(
                    &base,
                    "missing key `behaviour` for a \"retarget\" event (its index in the group's list, or its kind)",
                );
            }
            Some(by) => self.behaviour_of(&at("behaviour"), group, list, by)?,
        };
        if list[b].behaviour.target().is_none() {
            return self.fail(
                &at("behaviour"),
                format!(
                    "behaviour {b} of group \"{group}\" (\"{}\") takes no target to change",
                    list[b].behaviour.name()
                ),
            );
        }
        let Some(name) = &e.target else {
            return self.fail(&base, "missing key `target` for a \"retarget\" event");
        };
        let target = self.named(&at("target"), "target", name, names.targets)? as u16;
        Some(Action::Retarget { group: g, behaviour: b as u16, target })
    }

    /// What an `open` or `close` event names: exactly one door, exit, gate or source.
    fn switch(&mut self, i: usize, e: &EventToml, names: &EventNames) -> Option<Switch> {
        use Seg::{Index, Key};
        let given = [&e.door, &e.exit, &e.gate, &e.source, &e.stage];
        let chosen: Vec<(usize, &String)> =
            given.iter().enumerate().filter_map(|(k, n)| n.as_ref().map(|n| (k, n))).collect();
        let [(k, name)] = chosen.as_slice() else {
            return self.fail(
                &[Key("events"), Index(i)],
                format!("an \"{}\" event needs one of `door`, `exit`, `gate`, `source` or `stage`", e.action),
            );
        };
        let (key, what, plural) = SWITCHES[*k];
        let stages: Vec<&str> = names.stages.iter().map(|(n, _)| *n).collect();
        let list: &[&str] = [names.doors, names.exits, names.gates, names.sources, &stages][*k];
        let Some(index) = list.iter().position(|n| n == name) else {
            let hint = nearest_word(name, list.iter().copied())
                .map(|n| format!("; did you mean \"{n}\"?"))
                .unwrap_or_default();
            let known = if list.is_empty() { "none are defined".to_string() } else { list.join(", ") };
            let path = [Key("events"), Index(i), Key(key)];
            return self.fail(&path, format!("no {what} is named \"{name}\"{hint} ({plural}: {known})"));
        };
        let index = index as u32;
        Some(
            [
                Switch::Door(index),
                Switch::Exit(index),
                Switch::Gate(index),
                Switch::Source(index),
                Switch::Stage(index),
            ][*k],
        )
    }

    /// The index of a group's behaviour given by its index in the list or by its kind (the
    /// first of that kind), or an error at `path` naming what the group has.
    pub(super) fn behaviour_of(
        &mut self,
        path: &[Seg],
        group: &str,
        list: &[WeightedBehaviour],
        by: &BehaviourRef,
    ) -> Option<usize> {
        match by {
            BehaviourRef::Index(b) if (*b as usize) < list.len() => Some(*b as usize),
            BehaviourRef::Index(b) => self.fail(
                path,
                format!(
                    "group \"{group}\" has {} behaviours (0 to {}), found {b}",
                    list.len(),
                    list.len().saturating_sub(1)
                ),
            ),
            BehaviourRef::Kind(kind) => match list.iter().position(|w| w.behaviour.name() == kind) {
                Some(b) => Some(b),
                None => {
                    let kinds: Vec<&str> = list.iter().map(|w| w.behaviour.name()).collect();
                    self.fail(
                        path,
                        format!(
                            "group \"{group}\" has no \"{kind}\" behaviour (it has: {})",
                            kinds.join(", ")
                        ),
                    )
                }
            },
        }
    }
}
