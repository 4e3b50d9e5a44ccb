//! Validating `[[events]]` entries: one trigger (a time, a period, or a condition), one action
//! and the names it acts on, with times turned into ticks with the scenario's `dt`.

use super::{Names, Validator, event_action};
use crate::scenario::expectation::tick_at;
use crate::scenario::locate::{Seg, nearest_word};
use crate::scenario::schema::{EventToml, GroupToml, WhenToml};
use crate::scenario::{GroupSpec, MAX_AGENTS};
use crate::world::{Action, Event, Quantity, StageCount, Target, Trigger};

/// The condition quantities `when.metric` names (besides `gates.NAME.crossings`).
const COUNTS: [(&str, u8); 5] = [
    ("agents_active", 0),
    ("agents_exited", 1),
    ("agents_spawned", 2),
    ("queue_length", 3),
    ("agents_removed", 4),
];

/// The counts of a journey stage `when.metric` names (`stages.NAME.WHAT`).
const STAGE_COUNTS: [(&str, StageCount); 3] =
    [("agents", StageCount::Agents), ("queue", StageCount::Queue), ("finished", StageCount::Finished)];

/// The tables an event's action may act on, and the clock its times are read with.
pub(super) struct EventTables<'a, V> {
    pub(super) groups: &'a [GroupSpec<V>],
    pub(super) targets: &'a [Target<V>],
    /// Seconds per tick.
    pub(super) dt: f32,
    /// The run's length in ticks.
    pub(super) ticks: u64,
}

/// What events may name.
pub(super) struct EventNames<'a> {
    pub(super) doors: &'a [&'a str],
    pub(super) exits: &'a [&'a str],
    pub(super) gates: &'a [&'a str],
    pub(super) groups: &'a [&'a str],
    pub(super) targets: &'a [&'a str],
    pub(super) sources: &'a [&'a str],
    pub(super) waiting: &'a [&'a str],
    pub(super) measures: &'a [&'a str],
    pub(super) journeys: &'a [&'a str],
    /// The stages, with whether each is a queue (what `release` events may name).
    pub(super) stages: &'a [(&'a str, bool)],
    /// What behaviours may name, and the groups as written, for `set` events.
    pub(super) scenario: &'a Names<'a>,
    pub(super) raw_groups: &'a [GroupToml],
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The events, with `capacity` (the agents the groups and sources may make) raised by
    /// what their bursts may add at most.
    pub(super) fn events(
        &mut self,
        raw: &[EventToml],
        names: &EventNames,
        tables: &EventTables<V>,
        capacity: &mut u64,
    ) -> Option<Vec<Event<V>>> {
        let ticks = tables.ticks;
        use Seg::{Index, Key};
        let mut out: Vec<Event<V>> = Vec::new();
        for (i, e) in raw.iter().enumerate() {
            let event = self.event(i, e, names, tables)?;
            if out.iter().any(|o| o.name == event.name) {
                let path = [Key("events"), Index(i), Key("name")];
                return self.fail(&path, format!("event name \"{}\" is used twice", event.name));
            }
            if let Action::Spawn { count, .. } = event.action {
                *capacity = capacity.saturating_add((count as u64).saturating_mul(event.max_firings(ticks)));
                if *capacity > MAX_AGENTS {
                    return self.fail(
                        &[Key("events"), Index(i), Key("count")],
                        format!(
                            "up to {capacity} agents with this burst (it may fire {} times); at most {MAX_AGENTS} are supported",
                            event.max_firings(ticks)
                        ),
                    );
                }
            }
            out.push(event);
        }
        for (i, e) in out.iter().enumerate() {
            if let Trigger::When { value: Quantity::AgentInRegion { agent, .. }, .. } = e.trigger
                && agent as u64 >= *capacity
            {
                return self.fail(
                    &[Key("events"), Index(i), Key("when"), Key("agent")],
                    format!(
                        "no agent has id {agent}: this scenario's ids run from 0 to {}",
                        capacity.saturating_sub(1)
                    ),
                );
            }
        }
        Some(out)
    }

    fn event(
        &mut self,
        i: usize,
        e: &EventToml,
        names: &EventNames,
        tables: &EventTables<V>,
    ) -> Option<Event<V>> {
        let EventTables { groups, targets, dt, ticks } = *tables;
        use Seg::{Index, Key};
        let base = [Key("events"), Index(i)];
        let at = |k: &'static str| [Key("events"), Index(i), Key(k)];
        let options: Vec<(&str, usize)> =
            event_action::ACTIONS.iter().enumerate().map(|(k, (n, _))| (*n, k)).collect();
        let k = self.choice(&at("action"), &e.action, &options)?;
        let mut allowed: Vec<&str> = event_action::ACTIONS[k].1.to_vec();
        allowed.extend(["at_s", "every_s", "start_s", "end_s", "when", "repeat"]);
        let present = [
            ("door", e.door.is_some()),
            ("exit", e.exit.is_some()),
            ("gate", e.gate.is_some()),
            ("group", e.group.is_some()),
            ("behaviour", e.behaviour.is_some()),
            ("target", e.target.is_some()),
            ("to", e.to.is_some()),
            ("source", e.source.is_some()),
            ("count", e.count.is_some()),
            ("region", e.region.is_some()),
            ("min_distance", e.min_distance.is_some()),
            ("wall_distance", e.wall_distance.is_some()),
            ("area", e.area.is_some()),
            ("set", e.set.is_some()),
            ("into", e.into.is_some()),
            ("journey", e.journey.is_some()),
            ("stage", e.stage.is_some()),
        ];
        self.only_allowed(&base, &present, &allowed, &format!("a \"{}\" event", e.action))?;

        // The trigger: exactly one of at_s, every_s, when.
        let end_s = ticks as f64 * dt as f64;
        let time = |v: &mut Self, key: &'static str, t: f64| -> Option<u64> {
            if !(t.is_finite() && (0.0..=1e9).contains(&t)) {
                return v.fail(&at(key), format!("expected a time from 0 to 1e9 seconds, found {t}"));
            }
            if t > end_s + 1e-9 {
                let shown = crate::scenario::expectation::run_end_shown(ticks, dt);
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

        let action = self.event_action(i, e, names, groups, targets)?;
        let name = match &e.name {
            Some(n) if n.trim().is_empty() => return self.fail(&at("name"), "expected a non-empty name"),
            Some(n) => n.clone(),
            None => format!("events[{i}]"),
        };
        Some(Event {
            name,
            trigger,
            action,
            fired: 0,
            first_tick: None,
            last_tick: None,
            armed: false,
            waiting_to_spawn: Vec::new(),
        })
    }

    /// `when = { metric | region (+ group), min, max }`.
    fn condition(&mut self, i: usize, w: &WhenToml, repeat: bool, names: &EventNames) -> Option<Trigger<V>> {
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
                if w.agent.is_some() {
                    return self.fail(&at("agent"), "`agent` goes with `region` (the agent reaching it)");
                }
                let gate = m
                    .strip_prefix("gates.")
                    .and_then(|r| r.strip_suffix(".crossings"))
                    .and_then(|g| names.gates.iter().position(|n| *n == g));
                let waiting = m
                    .strip_prefix("waiting.")
                    .and_then(|r| r.strip_suffix(".count"))
                    .and_then(|w| names.waiting.iter().position(|n| *n == w));
                let measure = |suffix: &str| {
                    m.strip_prefix("measures.")
                        .and_then(|r| r.strip_suffix(suffix))
                        .and_then(|a| names.measures.iter().position(|n| *n == a))
                };
                let (count, density) = (measure(".count"), measure(".density"));
                let stage =
                    m.strip_prefix("stages.").and_then(|r| r.rsplit_once('.')).and_then(|(s, what)| {
                        let s = names.stages.iter().position(|(n, _)| *n == s)?;
                        let what = STAGE_COUNTS.iter().find(|(n, _)| *n == what)?.1;
                        Some(Quantity::Stage(s as u32, what))
                    });
                match (gate, COUNTS.iter().find(|(n, _)| n == m)) {
                    (Some(g), _) => Quantity::GateCrossings(g as u32),
                    (None, _) if stage.is_some() => stage?,
                    (None, _) if waiting.is_some() => Quantity::Waiting(waiting? as u32),
                    (None, _) if count.is_some() => Quantity::MeasureCount(count? as u32),
                    (None, _) if density.is_some() => Quantity::MeasureDensity(density? as u32),
                    (None, Some((_, 0))) => Quantity::AgentsActive,
                    (None, Some((_, 1))) => Quantity::AgentsExited,
                    (None, Some((_, 2))) => Quantity::AgentsSpawned,
                    (None, Some((_, 3))) => Quantity::QueueLength,
                    (None, Some(_)) => Quantity::AgentsRemoved,
                    (None, None) => {
                        let mut known: Vec<String> = COUNTS.iter().map(|(n, _)| n.to_string()).collect();
                        known.extend(names.gates.iter().map(|g| format!("gates.{g}.crossings")));
                        known.extend(names.waiting.iter().map(|w| format!("waiting.{w}.count")));
                        for a in names.measures {
                            known.extend([format!("measures.{a}.count"), format!("measures.{a}.density")]);
                        }
                        for (s, _) in names.stages {
                            known.extend(STAGE_COUNTS.iter().map(|(what, _)| format!("stages.{s}.{what}")));
                        }
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
                let region = self.region(&at("region"), region_keys!(r), "region")?;
                match (w.agent, &w.group) {
                    (Some(_), Some(_)) => {
                        return self.fail(&at("group"), "give `agent` or `group`, not both");
                    }
                    (Some(agent), None) => Quantity::AgentInRegion { agent, region },
                    (None, Some(g)) => Quantity::InRegion {
                        region,
                        group: Some(self.group_index(&at("group"), g, names.groups)?),
                    },
                    (None, None) => Quantity::InRegion { region, group: None },
                }
            }
        };
        let bound = |v: &mut Self, key: &'static str, x: Option<f64>| match x {
            Some(x) if !x.is_finite() => {
                v.fail(&at(key), format!("expected a finite number, found {}", crate::scenario::shown(x)))
            }
            x => Some(x),
        };
        let (mut min, max) = (bound(self, "min", w.min)?, bound(self, "max", w.max)?);
        // An agent's condition is 1 while it is inside: without bounds, "when it gets there".
        if matches!(value, Quantity::AgentInRegion { .. }) && min.is_none() && max.is_none() {
            min = Some(1.0);
        }
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
