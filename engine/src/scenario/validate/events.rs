//! Validating `[[events]]` entries: one trigger (a time, a period, or a condition), one action
//! and the names it acts on, with times turned into ticks with the scenario's `dt`.

use super::*;
use crate::scenario::expectation::tick_at;
use crate::scenario::schema::*;
use crate::world::{Action, Event, Quantity, Switch, Trigger};

/// The actions and the keys each takes besides the trigger's and `name`.
const ACTIONS: [(&str, &[&str]); 5] = [
    ("open", &["door", "exit", "gate"]),
    ("close", &["door", "exit", "gate"]),
    ("retarget", &["group", "behaviour", "target"]),
    ("move_target", &["target", "to"]),
    ("stop", &[]),
];

/// The condition quantities `when.metric` names (besides `gates.NAME.crossings`).
const COUNTS: [(&str, u8); 4] =
    [("agents_active", 0), ("agents_exited", 1), ("agents_spawned", 2), ("queue_length", 3)];

/// What events may name.
pub(super) struct EventNames<'a> {
    pub(super) doors: &'a [&'a str],
    pub(super) exits: &'a [&'a str],
    pub(super) gates: &'a [&'a str],
    pub(super) groups: &'a [&'a str],
    pub(super) targets: &'a [&'a str],
}

impl Validator<'_> {
    pub(super) fn events(
        &mut self,
        raw: &[EventToml],
        names: &EventNames,
        groups: &[GroupSpec],
        targets: &[Target],
        dt: f32,
        ticks: u64,
    ) -> Option<Vec<Event>> {
        let mut out: Vec<Event> = Vec::new();
        for (i, e) in raw.iter().enumerate() {
            let event = self.event(i, e, names, groups, targets, dt, ticks)?;
            if out.iter().any(|o| o.name == event.name) {
                let path = [Seg::Key("events"), Seg::Index(i), Seg::Key("name")];
                return self.fail(&path, format!("event name \"{}\" is used twice", event.name));
            }
            out.push(event);
        }
        Some(out)
    }

    #[allow(clippy::too_many_arguments)] // the names and tables an event may refer to
    fn event(
        &mut self,
        i: usize,
        e: &EventToml,
        names: &EventNames,
        groups: &[GroupSpec],
        targets: &[Target],
        dt: f32,
        ticks: u64,
    ) -> Option<Event> {
        use Seg::{Index, Key};
        let base = [Key("events"), Index(i)];
        let at = |k: &'static str| [Key("events"), Index(i), Key(k)];
        let options: Vec<(&str, usize)> = ACTIONS.iter().enumerate().map(|(k, (n, _))| (*n, k)).collect();
        let k = self.choice(&at("action"), &e.action, &options)?;
        let mut allowed: Vec<&str> = ACTIONS[k].1.to_vec();
        allowed.extend(["at_s", "every_s", "start_s", "end_s", "when", "repeat"]);
        let present = [
            ("door", e.door.is_some()),
            ("exit", e.exit.is_some()),
            ("gate", e.gate.is_some()),
            ("group", e.group.is_some()),
            ("behaviour", e.behaviour.is_some()),
            ("target", e.target.is_some()),
            ("to", e.to.is_some()),
        ];
        self.only_allowed(&base, &present, &allowed, &format!("a \"{}\" event", e.action))?;

        // The trigger: exactly one of at_s, every_s, when.
        let end_s = ticks as f64 * dt as f64;
        let time = |v: &mut Self, key: &'static str, t: f64| -> Option<u64> {
            if !(t.is_finite() && (0.0..=1e9).contains(&t)) {
                return v.fail(&at(key), format!("expected a time from 0 to 1e9 seconds, found {t}"));
            }
            if t > end_s + 1e-9 {
                let shown = (end_s * 1e6).round() / 1e6;
                v.warn(
                    &at(key),
                    format!("{key} = {t} is after the run's end ({shown} s): the event never fires"),
                );
            }
            Some(tick_at(t, dt))
        };
        let given: Vec<&str> =
            [("at_s", e.at_s.is_some()), ("every_s", e.every_s.is_some()), ("when", e.when.is_some())]
                .iter()
                .filter(|(_, is)| *is)
                .map(|(n, _)| *n)
                .collect();
        if given.len() != 1 {
            let found = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
            return self.fail(
                &base,
                format!("an event needs one trigger, `at_s`, `every_s` or `when`; found {found}"),
            );
        }
        for (key, is, with) in [
            ("start_s", e.start_s.is_some(), "every_s"),
            ("end_s", e.end_s.is_some(), "every_s"),
            ("repeat", e.repeat.is_some(), "when"),
        ] {
            if is && given[0] != with {
                return self.fail(&at(key), format!("`{key}` goes with `{with}`"));
            }
        }
        let trigger = match given[0] {
            "at_s" => Trigger::At { tick: time(self, "at_s", e.at_s?)? },
            "every_s" => {
                let every = e.every_s?;
                if !(every.is_finite() && every > 0.0 && every <= 1e9) {
                    return self.fail(
                        &at("every_s"),
                        format!("expected a period from 0 to 1e9 seconds (not 0), found {every}"),
                    );
                }
                let period = ((every / dt as f64).round() as u64).max(1);
                let start = match e.start_s {
                    Some(t) => time(self, "start_s", t)?,
                    None => 0,
                };
                let end = match e.end_s {
                    Some(t) => time(self, "end_s", t)?,
                    None => u64::MAX,
                };
                if start > end {
                    return self.fail(&at("start_s"), "expected start_s <= end_s");
                }
                Trigger::Every { start, period, end }
            }
            _ => self.condition(i, e.when.as_ref()?, e.repeat.unwrap_or(false), names)?,
        };

        let switch = |v: &mut Self| -> Option<Switch> {
            let chosen: Vec<(&'static str, &String)> =
                [("door", &e.door), ("exit", &e.exit), ("gate", &e.gate)]
                    .into_iter()
                    .filter_map(|(k, n)| n.as_ref().map(|n| (k, n)))
                    .collect();
            let [(key, name)] = chosen.as_slice() else {
                return v
                    .fail(&base, format!("an \"{}\" event needs one of `door`, `exit` or `gate`", e.action));
            };
            let (list, what, plural): (&[&str], &str, &str) = match *key {
                "door" => (names.doors, "door", "doors (named obstacles)"),
                "exit" => (names.exits, "exit", "exits"),
                _ => (names.gates, "gate", "gates"),
            };
            let Some(index) = list.iter().position(|n| n == name) else {
                let hint = nearest_word(name, list.iter().copied())
                    .map(|n| format!("; did you mean \"{n}\"?"))
                    .unwrap_or_default();
                let known = if list.is_empty() { "none are defined".to_string() } else { list.join(", ") };
                return v.fail(&at(key), format!("no {what} is named \"{name}\"{hint} ({plural}: {known})"));
            };
            Some(match *key {
                "door" => Switch::Door(index as u32),
                "exit" => Switch::Exit(index as u32),
                _ => Switch::Gate(index as u32),
            })
        };
        let target = |v: &mut Self| -> Option<u16> {
            let Some(name) = &e.target else {
                return v.fail(&base, format!("missing key `target` for a \"{}\" event", e.action));
            };
            match names.targets.iter().position(|n| n == name) {
                Some(t) => Some(t as u16),
                None => {
                    let hint = nearest_word(name, names.targets.iter().copied())
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    v.fail(
                        &at("target"),
                        format!(
                            "no target is named \"{name}\"{hint} (targets: {})",
                            names.targets.join(", ")
                        ),
                    )
                }
            }
        };
        let action = match e.action.as_str() {
            "open" => Action::Open(switch(self)?),
            "close" => Action::Close(switch(self)?),
            "stop" => Action::Stop,
            "move_target" => {
                let t = target(self)?;
                if !matches!(targets[t as usize], Target::Point(_)) {
                    return self.fail(
                        &at("target"),
                        format!(
                            "\"{}\" is not a point target: only a point target can be moved",
                            names.targets[t as usize]
                        ),
                    );
                }
                let Some(to) = e.to else {
                    return self.fail(&base, "missing key `to` for a \"move_target\" event");
                };
                Action::MoveTarget { target: t, to: self.point(&at("to"), to)? }
            }
            _ => {
                let Some(group) = &e.group else {
                    return self.fail(&base, "missing key `group` for a \"retarget\" event");
                };
                let g = self.group_index(&at("group"), group, names.groups)?;
                let list = &groups[g as usize].group.behaviours;
                let b = match &e.behaviour {
                    None => return self.fail(&base, "missing key `behaviour` for a \"retarget\" event (its index in the group's list, or its kind)"),
                    Some(BehaviourRef::Index(b)) if (*b as usize) < list.len() => *b as usize,
                    Some(BehaviourRef::Index(b)) => {
                        return self.fail(&at("behaviour"), format!("group \"{group}\" has {} behaviours (0 to {}), found {b}", list.len(), list.len().saturating_sub(1)));
                    }
                    Some(BehaviourRef::Kind(kind)) => match list.iter().position(|w| w.behaviour.name() == kind) {
                        Some(b) => b,
                        None => {
                            let kinds: Vec<&str> = list.iter().map(|w| w.behaviour.name()).collect();
                            return self.fail(&at("behaviour"), format!("group \"{group}\" has no \"{kind}\" behaviour (it has: {})", kinds.join(", ")));
                        }
                    },
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
                Action::Retarget { group: g, behaviour: b as u16, target: target(self)? }
            }
        };
        let name = match &e.name {
            Some(n) if n.trim().is_empty() => return self.fail(&at("name"), "expected a non-empty name"),
            Some(n) => n.clone(),
            None => format!("events[{i}]"),
        };
        Some(Event { name, trigger, action, fired: 0, first_tick: None, last_tick: None, armed: false })
    }

    /// `when = { metric | region (+ group), min, max }`.
    fn condition(&mut self, i: usize, w: &WhenToml, repeat: bool, names: &EventNames) -> Option<Trigger> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("events"), Index(i), Key("when"), Key(k)];
        let base = [Key("events"), Index(i), Key("when")];
        let value = match (&w.metric, &w.region) {
            (Some(_), Some(_)) => return self.fail(&at("region"), "give `metric` or `region`, not both"),
            (None, None) => return self.fail(&base, "missing key `metric` or `region` in `when`"),
            (Some(m), None) => {
                if w.group.is_some() {
                    return self
                        .fail(&at("group"), "`group` goes with `region` (the agents of a group inside it)");
                }
                let gate = m
                    .strip_prefix("gates.")
                    .and_then(|r| r.strip_suffix(".crossings"))
                    .and_then(|g| names.gates.iter().position(|n| *n == g));
                match (gate, COUNTS.iter().find(|(n, _)| n == m)) {
                    (Some(g), _) => Quantity::GateCrossings(g as u32),
                    (None, Some((_, 0))) => Quantity::AgentsActive,
                    (None, Some((_, 1))) => Quantity::AgentsExited,
                    (None, Some((_, 2))) => Quantity::AgentsSpawned,
                    (None, Some(_)) => Quantity::QueueLength,
                    (None, None) => {
                        let mut known: Vec<String> = COUNTS.iter().map(|(n, _)| n.to_string()).collect();
                        known.extend(names.gates.iter().map(|g| format!("gates.{g}.crossings")));
                        let hint = nearest_word(m, known.iter().map(String::as_str))
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default();
                        return self.fail(
                            &at("metric"),
                            format!(
                                "unknown condition \"{m}\"{hint} (conditions read: {}, or the agents in a `region`)",
                                known.join(", ")
                            ),
                        );
                    }
                }
            }
            (None, Some(r)) => {
                let region =
                    self.region(&at("region"), &r.kind, r.min, r.max, r.centre, r.radius, "region")?;
                let group = match &w.group {
                    Some(g) => Some(self.group_index(&at("group"), g, names.groups)?),
                    None => None,
                };
                Quantity::InRegion { region, group }
            }
        };
        let bound = |v: &mut Self, key: &'static str, x: Option<f64>| match x {
            Some(x) if !x.is_finite() => v.fail(&at(key), format!("expected a finite number, found {x}")),
            x => Some(x),
        };
        let (min, max) = (bound(self, "min", w.min)?, bound(self, "max", w.max)?);
        match (min, max) {
            (None, None) => return self.fail(&base, "a condition needs `min`, `max` or both"),
            (Some(lo), Some(hi)) if lo > hi => {
                return self.fail(&at("min"), format!("expected min <= max, found min {lo} > max {hi}"));
            }
            _ => {}
        }
        Some(Trigger::When { value, min, max, repeat })
    }
}
