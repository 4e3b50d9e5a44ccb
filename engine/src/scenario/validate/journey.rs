//! Validating `[[stages]]` and `[[journeys]]`: each stage a waypoint, an exit, a waiting area or
//! a queue;
//! each journey a start and one transition per stage that has a next one, every stage it can
//! reach leading on to an exit; and the groups and sources that start agents on them.

use super::{Rule, Validator};
use crate::scenario::locate::Seg;
use crate::scenario::schema::{JourneyToml, ScenarioToml, StageToml, TransitionToml};
use crate::scenario::{GroupSpec, MAX_AGENTS, MAX_MAGNITUDE, shown};
use crate::world::{
    Choice, Exit, Journey, Queue, Region, Source, Stage, StageKind, Target, Transition, WaitingArea,
};

/// The stage kinds, by name.
const KINDS: &[(&str, usize)] = &[("waypoint", 0), ("exit", 1), ("waiting", 2), ("queue", 3)];
/// Most slots a queue may have.
const MAX_SLOTS: u64 = 100_000;
/// A queue's `radius` when the file gives none (world units): a walker within it of its slot
/// stands there.
pub const QUEUE_RADIUS: f32 = 0.3;
/// The choices, by name.
const CHOICES: &[(&str, usize)] =
    &[("fixed", 0), ("round_robin", 1), ("least_targeted", 2), ("nearest", 3), ("random", 4)];

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The stages, in file order.
    pub(super) fn stages(
        &mut self,
        raw: &[StageToml],
        (exits, waiting): (&[Exit], &[WaitingArea]),
        dt: f32,
    ) -> Option<Vec<Stage>> {
        use Seg::{Index, Key};
        let exit_names: Vec<&str> = exits.iter().map(|e| e.name.as_str()).collect();
        let area_names: Vec<&str> = waiting.iter().map(|w| w.name.as_str()).collect();
        let mut stages = Vec::new();
        for (i, s) in raw.iter().enumerate() {
            let base = [Key("stages"), Index(i)];
            let at = |k: &'static str| [Key("stages"), Index(i), Key(k)];
            if s.name.trim().is_empty() {
                return self.fail(&at("name"), "expected a non-empty name");
            }
            if raw[..i].iter().any(|o| o.name == s.name) {
                return self.fail(&at("name"), format!("stage name \"{}\" is used twice", s.name));
            }
            let kind = self.choice(&at("kind"), &s.kind, KINDS)?;
            let present = [
                ("position", s.position.is_some()),
                ("radius", s.radius.is_some()),
                ("exit", s.exit.is_some()),
                ("area", s.area.is_some()),
                ("slots", s.slots.is_some()),
                ("from", s.from.is_some()),
                ("to", s.to.is_some()),
                ("count", s.count.is_some()),
                ("service_s", s.service_s.is_some()),
                ("room", s.room.is_some()),
            ];
            let allowed: &[&str] = [
                &["position", "radius"][..],
                &["exit"],
                &["area"],
                &["slots", "from", "to", "count", "radius", "service_s", "room"],
            ][kind];
            self.only_allowed(&base, &present, allowed, &format!("a \"{}\" stage", s.kind))?;
            let required: &[&str] = [&["position", "radius"][..], &["exit"], &["area"], &[]][kind];
            if let Some((key, _)) = present.iter().find(|(k, is)| !is && required.contains(k)) {
                return self.fail(&base, format!("missing key `{key}` for a \"{}\" stage", s.kind));
            }
            if kind == 3 {
                let queue = self.queue(i, s, dt)?;
                let head = queue.slots[0];
                let stage = Stage::new(&s.name, StageKind::Queue, head);
                stages.push(Stage { queue: Some(queue), ..stage });
                continue;
            }
            let (kind, point) = match kind {
                0 => {
                    let position = self.plane_point(&at("position"), s.position?)?;
                    let radius = self.num(&at("radius"), s.radius?, Rule::Positive(MAX_MAGNITUDE))?;
                    (StageKind::Waypoint { position, radius }, position)
                }
                1 => {
                    let e = self.named(&at("exit"), "exit", s.exit.as_deref()?, &exit_names)?;
                    if exits[e].at_own_goal {
                        return self.fail(
                            &at("exit"),
                            format!("exit \"{}\" is of kind \"goal\" (at each agent's own goal), so it has no place a stage could lead to; give the stage an exit of kind \"rect\" or \"circle\"", exits[e].name),
                        );
                    }
                    (StageKind::Exit(e as u32), centre(&exits[e].region))
                }
                _ => {
                    let k = self.named(&at("area"), "waiting area", s.area.as_deref()?, &area_names)?;
                    (StageKind::Waiting(k as u32), centre(&waiting[k].region))
                }
            };
            stages.push(Stage::new(&s.name, kind, point));
        }
        Some(stages)
    }

    /// Stage `i`'s queue: its slots (a list, or `count` along the line `from` → `to`, the head
    /// at `from`), its radius, service time and room.
    fn queue(&mut self, i: usize, s: &StageToml, dt: f32) -> Option<Queue> {
        use Seg::{Index, Key};
        let base = [Key("stages"), Index(i)];
        let at = |k: &'static str| [Key("stages"), Index(i), Key(k)];
        let line = [s.from.is_some(), s.to.is_some(), s.count.is_some()];
        let slots = match (&s.slots, line) {
            (Some(_), l) if l.iter().any(|&x| x) => {
                return self.fail(
                    &at("slots"),
                    "a queue's slots are either `slots` (a list of points) or `from`, `to` and `count` (a line), not both",
                );
            }
            (Some(points), _) => {
                if points.is_empty() || points.len() as u64 > MAX_SLOTS {
                    return self.fail(
                        &at("slots"),
                        format!("expected 1 to {MAX_SLOTS} slots, found {}", points.len()),
                    );
                }
                let mut slots = Vec::new();
                for (k, p) in points.iter().enumerate() {
                    slots.push(self.plane_point(&[Key("stages"), Index(i), Key("slots"), Index(k)], *p)?);
                }
                slots
            }
            (None, [true, true, true]) => {
                let from = self.plane_point(&at("from"), s.from?)?;
                let to = self.plane_point(&at("to"), s.to?)?;
                let count = s.count?;
                if !(2..=MAX_SLOTS).contains(&count) {
                    return self.fail(
                        &at("count"),
                        format!("expected a whole number of slots from 2 to {MAX_SLOTS}, found {count}"),
                    );
                }
                (0..count).map(|k| from + (to - from) * (k as f32 / (count - 1) as f32)).collect()
            }
            (None, _) => {
                return self.fail(
                    &base,
                    "a \"queue\" stage needs its slots: `slots = [[x, y], ...]` (the head first), or `from`, `to` and `count` for slots evenly along a line",
                );
            }
        };
        let radius = match s.radius {
            Some(r) => self.num(&at("radius"), r, Rule::Positive(MAX_MAGNITUDE))?,
            None => QUEUE_RADIUS,
        };
        let service_ticks = match s.service_s {
            Some(t) => (self.num(&at("service_s"), t, Rule::Positive(1e9))? / dt).round().max(1.0) as u64,
            None => 0,
        };
        let room = match s.room {
            Some(n) if (1..=MAX_AGENTS).contains(&n) => n as u32,
            Some(n) => {
                return self.fail(
                    &at("room"),
                    format!("expected a whole number of agents from 1 to {MAX_AGENTS}, found {n}"),
                );
            }
            None => 0,
        };
        Some(Queue {
            slots,
            radius,
            service_ticks,
            room,
            queued: Vec::new(),
            released: Vec::new(),
            head_since: None,
        })
    }

    /// The journeys, in file order, over `stages`.
    pub(super) fn journeys(&mut self, raw: &[JourneyToml], stages: &[Stage]) -> Option<Vec<Journey>> {
        use Seg::{Index, Key};
        let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
        let mut journeys = Vec::new();
        for (i, j) in raw.iter().enumerate() {
            let at = |k: &'static str| [Key("journeys"), Index(i), Key(k)];
            if j.name.trim().is_empty() {
                return self.fail(&at("name"), "expected a non-empty name");
            }
            if raw[..i].iter().any(|o| o.name == j.name) {
                return self.fail(&at("name"), format!("journey name \"{}\" is used twice", j.name));
            }
            let start = self.named(&at("start"), "stage", &j.start, &names)? as u16;
            let mut transitions: Vec<Transition> = Vec::new();
            for (k, t) in j.transitions.iter().enumerate() {
                let transition = self.transition(i, k, t, stages)?;
                if transitions.iter().any(|o| o.from == transition.from) {
                    let path = [Key("journeys"), Index(i), Key("transitions"), Index(k), Key("from")];
                    return self.fail(
                        &path,
                        format!("journey \"{}\" already has a transition from stage \"{}\": each stage has at most one", j.name, t.from),
                    );
                }
                transitions.push(transition);
            }
            let journey = Journey { name: j.name.clone(), start, transitions };
            self.leads_to_exits(i, &journey, stages)?;
            journeys.push(journey);
        }
        Some(journeys)
    }

    /// Transition `k` of journey `j`.
    fn transition(&mut self, j: usize, k: usize, t: &TransitionToml, stages: &[Stage]) -> Option<Transition> {
        use Seg::{Index, Key};
        let base = [Key("journeys"), Index(j), Key("transitions"), Index(k)];
        let at = |key: &'static str| [&base[..], &[Key(key)]].concat();
        let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
        let from = self.named(&at("from"), "stage", &t.from, &names)? as u16;
        if let StageKind::Exit(_) = stages[from as usize].kind {
            return self.fail(
                &at("from"),
                format!("stage \"{}\" is an exit: a journey ends there, so no transition leaves it", t.from),
            );
        }
        let choose = t.choose.as_deref().unwrap_or("fixed");
        let kind = self.choice(&at("choose"), choose, CHOICES)?;
        let listed = t.to.names();
        let mut to = Vec::new();
        for (m, name) in listed.iter().enumerate() {
            let path = [&base[..], &[Key("to"), Index(m)]].concat();
            let path = if listed.len() == 1 { at("to") } else { path };
            let s = self.named(&path, "stage", name, &names)? as u16;
            if to.contains(&s) {
                return self.fail(&path, format!("stage \"{name}\" is listed twice"));
            }
            to.push(s);
        }
        match (kind, to.len()) {
            (_, 0) => return self.fail(&at("to"), "expected at least one stage to go to"),
            (0, 1) => {}
            (0, n) => {
                return self.fail(
                    &at("to"),
                    format!("a \"fixed\" transition goes to one stage, found {n}; choose among several with `choose = \"round_robin\"`, \"least_targeted\", \"nearest\" or \"random\""),
                );
            }
            _ => {}
        }
        let weighted = matches!(kind, 1 | 4);
        if let Some(w) = &t.weights {
            if !weighted {
                return self.fail(
                    &at("weights"),
                    format!("`weights` is not a parameter of a \"{choose}\" transition (only \"round_robin\" and \"random\" take weights)"),
                );
            }
            if w.len() != to.len() {
                return self.fail(
                    &at("weights"),
                    format!("expected one weight per stage in `to` ({}), found {}", to.len(), w.len()),
                );
            }
        }
        let weights = t.weights.clone().unwrap_or_else(|| vec![1.0; to.len()]);
        for (m, &w) in weights.iter().enumerate() {
            let path = [&base[..], &[Key("weights"), Index(m)]].concat();
            let whole = kind != 1 || (w.fract() == 0.0 && w <= u32::MAX as f64);
            if !((0.0..=1e9).contains(&w) && whole) {
                let expected = if kind == 1 { "a whole number >= 0" } else { "a number >= 0 and <= 1e9" };
                return self.fail(&path, format!("expected {expected}, found {}", shown(w as f32)));
            }
        }
        if weighted && weights.iter().all(|&w| w == 0.0) {
            return self.fail(&at("weights"), "expected at least one weight above 0");
        }
        let choice = match kind {
            0 => Choice::Fixed,
            1 => Choice::RoundRobin { weights: weights.iter().map(|&w| w as u32).collect() },
            2 => Choice::LeastTargeted,
            3 => Choice::Nearest,
            _ => Choice::Random { weights: weights.iter().map(|&w| w as f32).collect() },
        };
        Some(Transition { from, choice, to, sent: 0 })
    }

    /// Every stage journey `j` can reach, from its start or from any stage a transition leaves
    /// (a source may start its agents there), has a transition or is an exit, and can reach an
    /// exit: an agent never stops for ever, nor walks a loop with no way out.
    fn leads_to_exits(&mut self, j: usize, journey: &Journey, stages: &[Stage]) -> Option<()> {
        use Seg::{Index, Key};
        let is_exit = |s: u16| matches!(stages[s as usize].kind, StageKind::Exit(_));
        let next = |s: u16| journey.after(s).map(|t| journey.transitions[t].to.clone()).unwrap_or_default();
        // The stages reachable, in the order first reached.
        let mut reached = vec![journey.start];
        for t in &journey.transitions {
            if !reached.contains(&t.from) {
                reached.push(t.from);
            }
        }
        let mut k = 0;
        while k < reached.len() {
            for s in next(reached[k]) {
                if !reached.contains(&s) {
                    reached.push(s);
                }
            }
            k += 1;
        }
        if let Some(&stuck) = reached.iter().find(|&&s| !is_exit(s) && journey.after(s).is_none()) {
            let stage = &stages[stuck as usize].name;
            return self.fail(
                &[Key("journeys"), Index(j), Key("transitions")],
                format!("journey \"{}\" reaches stage \"{stage}\", which is not an exit and has no transition: agents would stop there for ever; add a transition from \"{stage}\"", journey.name),
            );
        }
        // The reached stages that lead to an exit, grown backwards from the exits.
        let mut leads: Vec<u16> = reached.iter().copied().filter(|&s| is_exit(s)).collect();
        loop {
            let more: Vec<u16> = reached
                .iter()
                .copied()
                .filter(|s| !leads.contains(s) && next(*s).iter().any(|n| leads.contains(n)))
                .collect();
            if more.is_empty() {
                break;
            }
            leads.extend(more);
        }
        let trapped: Vec<String> = reached
            .iter()
            .filter(|s| !leads.contains(s))
            .map(|&s| format!("\"{}\"", stages[s as usize].name))
            .collect();
        if !trapped.is_empty() {
            let at = if trapped.len() == reached.len() { Key("start") } else { Key("transitions") };
            let loop_ = match trapped.len() {
                1 => format!("stage {} leads only back to itself", trapped[0]),
                _ => format!("stages {} lead only to each other", trapped.join(", ")),
            };
            return self.fail(
                &[Key("journeys"), Index(j), at],
                format!("journey \"{}\" never reaches an exit from stage {}: {loop_}; let one of their transitions lead to an exit stage", journey.name, trapped[0]),
            );
        }
        Some(())
    }

    /// The journeys the groups' and sources' `journey` keys start agents on, and the sources'
    /// first stages (`stage`), into `groups` and `sources`; a group whose agents start on a journey must go to a `journey` target, or
    /// they would never walk it.
    pub(super) fn journeys_of_groups(
        &mut self,
        raw: &ScenarioToml,
        (stages, journeys): (&[Stage], &[Journey]),
        groups: &mut [GroupSpec<V>],
        sources: &mut [Source],
        targets: &[Target<V>],
    ) -> Option<()> {
        use Seg::{Index, Key};
        let mut starts: Vec<Option<Vec<Seg>>> = vec![None; groups.len()];
        for (g, group) in raw.groups.iter().enumerate() {
            if let Some(name) = &group.journey {
                let path = vec![Key("groups"), Index(g), Key("journey")];
                groups[g].group.journey = Some(self.journey_index(&path, name, journeys)?);
                starts[g] = Some(path);
            }
        }
        for (i, s) in raw.sources.iter().enumerate() {
            if let Some(name) = &s.journey {
                let path = vec![Key("sources"), Index(i), Key("journey")];
                sources[i].journey = Some(self.journey_index(&path, name, journeys)?);
                starts[sources[i].group as usize].get_or_insert(path);
            }
            if let Some(name) = &s.stage {
                let path = [Key("sources"), Index(i), Key("stage")];
                let group = &groups[sources[i].group as usize].group;
                let Some(j) = sources[i].journey.or(group.journey) else {
                    return self.fail(
                        &path,
                        format!("`stage` is where the source's agents start on their journey, but neither the source nor its group \"{}\" has a `journey`", group.name),
                    );
                };
                let journey = &journeys[j as usize];
                let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
                let stage = self.named(&path, "stage", name, &names)? as u16;
                let on = stage == journey.start
                    || journey.transitions.iter().any(|t| t.from == stage || t.to.contains(&stage));
                if !on {
                    return self.fail(
                        &path,
                        format!("stage \"{name}\" is not on journey \"{}\" (neither its start nor in its transitions)", journey.name),
                    );
                }
                sources[i].stage = Some(stage);
            }
        }
        for (g, start) in starts.into_iter().enumerate() {
            let Some(path) = start else { continue };
            let group = &groups[g].group;
            let walks = group
                .acting()
                .filter_map(|b| b.behaviour.target())
                .any(|t| matches!(targets[t as usize], Target::Journey));
            if !walks {
                return self.fail(
                    &path,
                    format!("group \"{}\" starts agents on a journey, but none of its behaviours goes to a target of kind \"journey\" (each agent's current stage), so they would never walk it: give a `seek` or `arrive` such a target", group.name),
                );
            }
        }
        Some(())
    }

    /// The index of journey `name` (for a group, source or event's `journey` key at `path`).
    pub(super) fn journey_index(&mut self, path: &[Seg], name: &str, journeys: &[Journey]) -> Option<u16> {
        let names: Vec<&str> = journeys.iter().map(|j| j.name.as_str()).collect();
        self.named(path, "journey", name, &names).map(|j| j as u16)
    }
}

/// The centre of a region: where agents walk to reach an exit's or a waiting area's stage.
fn centre(region: &Region) -> crate::math::Vec2 {
    match *region {
        Region::Rect { min, max } => (min + max) * 0.5,
        Region::Circle { centre, .. } => centre,
    }
}
