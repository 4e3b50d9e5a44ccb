//! The scenario's own keys (version, name, dt, ticks, index, sensing_skin, [metrics]), its
//! groups' names and counts, its gates and sources, and the checks that span several tables.

use super::{MIN_DT, Rule, Validator};
use crate::index::IndexKind;
use crate::scenario::locate::Seg;
use crate::scenario::schema::{ScenarioToml, SkinToml};
use crate::scenario::{FORMAT_VERSION, GroupSpec, MAX_AGENTS, MAX_MAGNITUDE, MetricsConfig};
use crate::world::{Exit, Gate, Source, Target};

/// How the scenario runs: its time step, index and sensing skin.
pub(super) struct Run {
    pub(super) dt: f32,
    pub(super) index: IndexKind,
    /// The skin the file sets; `None`: `"auto"` (the default), picked once the groups are
    /// known (`index::auto_skin`).
    pub(super) sensing_skin: Option<f32>,
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The format version, the name, the dimensions, `dt`, `ticks`, `index` and `sensing_skin`.
    pub(super) fn run(&mut self, raw: &ScenarioToml) -> Option<Run> {
        use Seg::Key;
        if raw.version != FORMAT_VERSION as i64 {
            return self.fail(
                &[Key("version")],
                format!("this engine reads scenario format version {FORMAT_VERSION}, found {}", raw.version),
            );
        }
        if raw.name.trim().is_empty() {
            return self.fail(&[Key("name")], "expected a non-empty name");
        }
        self.dimensions(raw)?;
        // Below 0.1 ms a step moves nothing an f32 position can show (1e-45 was accepted).
        let dt = self.num(&[Key("dt")], raw.dt, Rule::Between(MIN_DT, 10.0))?;
        if raw.ticks == 0 || raw.ticks > 1_000_000_000 {
            return self
                .fail(&[Key("ticks")], format!("expected a tick count from 1 to 1e9, found {}", raw.ticks));
        }
        let index = match &raw.index {
            None => IndexKind::Auto,
            Some(s) => self.choice(
                &[Key("index")],
                s,
                &[
                    ("auto", IndexKind::Auto),
                    ("kd", IndexKind::Kd),
                    ("brute", IndexKind::Brute),
                    ("grid", IndexKind::Grid),
                ],
            )?,
        };
        let sensing_skin = match &raw.sensing_skin {
            None => None,
            Some(SkinToml::Distance(s)) => {
                Some(self.num(&[Key("sensing_skin")], *s, Rule::NonNegative(1e4))?)
            }
            Some(SkinToml::Word(w)) => self.choice(&[Key("sensing_skin")], w, &[("auto", None)])?,
        };
        Some(Run { dt, index, sensing_skin })
    }

    /// The groups' names, in file order: at least one group, at most 65,535, each named once.
    pub(super) fn group_names<'r>(&mut self, raw: &'r ScenarioToml) -> Option<Vec<&'r str>> {
        use Seg::Key;
        if raw.groups.is_empty() {
            return self.fail(&[Key("groups")], "expected at least one [[groups]] entry");
        }
        if raw.groups.len() > u16::MAX as usize {
            return self.fail(&[Key("groups")], format!("at most {} groups", u16::MAX));
        }
        let mut names: Vec<&str> = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            let path = [Key("groups"), Seg::Index(g), Key("name")];
            if group.name.trim().is_empty() {
                return self.fail(&path, "expected a non-empty group name");
            }
            if names.contains(&group.name.as_str()) {
                return self.fail(&path, format!("group name \"{}\" is used twice", group.name));
            }
            names.push(&group.name);
        }
        Some(names)
    }

    /// Each group's agent count at the start, and their total (at most `MAX_AGENTS`). A group a
    /// source or an event fills may start empty, and so may one that steers by an `own` target
    /// (a program running the simulation spawns its agents and gives them goals).
    pub(super) fn counts(&mut self, raw: &ScenarioToml) -> Option<(Vec<u32>, u64)> {
        let mut counts = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            // Filled by a source or by an event (a burst, agents regrouped into it).
            let sourced = raw.sources.iter().any(|src| src.group == group.name)
                || raw.events.iter().any(|e| match e.action.as_str() {
                    "spawn" => e.group.as_ref() == Some(&group.name),
                    "regroup" => e.into.as_ref() == Some(&group.name),
                    _ => false,
                })
                || group.behaviours.iter().any(|b| {
                    let named = b.params.get("target").and_then(|t| t.as_str());
                    named.and_then(|t| raw.targets.get(t)).is_some_and(|t| t.kind == "own")
                });
            counts.push(self.count(g, group, sourced)?);
        }
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        if total > MAX_AGENTS {
            return self.fail(
                &[Seg::Key("groups")],
                format!("{total} agents in all; at most {MAX_AGENTS} are supported"),
            );
        }
        Some((counts, total))
    }

    /// The `[[gates]]`: two different end points each, every name once.
    pub(super) fn gates(&mut self, raw: &ScenarioToml) -> Option<Vec<Gate>> {
        let mut gates = Vec::new();
        for (i, gate) in raw.gates.iter().enumerate() {
            let at = |k: &'static str| [Seg::Key("gates"), Seg::Index(i), Seg::Key(k)];
            let from = self.plane_point(&at("from"), gate.from)?;
            let to = self.plane_point(&at("to"), gate.to)?;
            if from == to {
                return self.fail(&at("to"), "a gate needs two different end points");
            }
            if raw.gates[..i].iter().any(|g| g.name == gate.name) {
                return self.fail(&at("name"), format!("gate name \"{}\" is used twice", gate.name));
            }
            gates.push(Gate { name: gate.name.clone(), from, to, open: true });
        }
        Some(gates)
    }

    /// The `[[sources]]`, every name once.
    pub(super) fn sources(&mut self, raw: &ScenarioToml, groups: &[&str], dt: f32) -> Option<Vec<Source>> {
        let mut sources = Vec::new();
        for (i, raw_s) in raw.sources.iter().enumerate() {
            if raw.sources[..i].iter().any(|o| o.name == raw_s.name) {
                return self.fail(
                    &[Seg::Key("sources"), Seg::Index(i), Seg::Key("name")],
                    format!("source name \"{}\" is used twice", raw_s.name),
                );
            }
            sources.push(self.source(i, raw_s, groups, dt * raw.ticks as f32)?);
        }
        Some(sources)
    }

    /// The `[metrics]` table, each key defaulted.
    pub(super) fn metrics(&mut self, raw: &ScenarioToml) -> Option<MetricsConfig> {
        let d = MetricsConfig::default();
        let Some(m) = &raw.metrics else { return Some(d) };
        let at = |k: &'static str| [Seg::Key("metrics"), Seg::Key(k)];
        Some(MetricsConfig {
            stuck_distance: self.num(
                &at("stuck_distance"),
                m.stuck_distance.unwrap_or(d.stuck_distance),
                Rule::NonNegative(MAX_MAGNITUDE),
            )?,
            stuck_window_s: self.num(
                &at("stuck_window_s"),
                m.stuck_window_s.unwrap_or(d.stuck_window_s),
                Rule::Positive(1e6),
            )?,
            goal_radius: self.num(
                &at("goal_radius"),
                m.goal_radius.unwrap_or(d.goal_radius),
                Rule::NonNegative(MAX_MAGNITUDE),
            )?,
            steerbench: m.steerbench.unwrap_or(d.steerbench),
        })
    }

    /// A nearest-of-group target cannot be used by a member of that same group.
    pub(super) fn no_nearest_of_own_group(
        &mut self,
        groups: &[GroupSpec<V>],
        targets: &[Target<V>],
    ) -> Option<()> {
        use Seg::Key;
        for (g, spec) in groups.iter().enumerate() {
            for (b, wb) in spec.group.behaviours.iter().enumerate() {
                if let Some(t) = wb.behaviour.target()
                    && targets[t as usize] == Target::NearestOf(g as u16)
                {
                    let path =
                        [Key("groups"), Seg::Index(g), Key("behaviours"), Seg::Index(b), Key("target")];
                    return self.fail(&path, format!("the target is the nearest agent of group \"{}\", this behaviour's own group; a group cannot target the nearest of its own members", spec.group.name));
                }
            }
        }
        Some(())
    }

    /// An exit at each agent's own goal takes only groups that have one.
    pub(super) fn goal_exits_take_groups_with_goals(
        &mut self,
        exits: &[Exit],
        groups: &[GroupSpec<V>],
        targets: &[Target<V>],
    ) -> Option<()> {
        for (i, e) in exits.iter().enumerate().filter(|(_, e)| e.at_own_goal) {
            for (g, spec) in groups.iter().enumerate() {
                if !(e.groups.is_empty() || e.groups.contains(&(g as u16))) {
                    continue;
                }
                let own = spec.group.behaviours.iter().filter_map(|wb| wb.behaviour.target()).any(|t| {
                    matches!(
                        targets[t as usize],
                        Target::Random { .. } | Target::Opposite { .. } | Target::Own
                    )
                });
                if !own {
                    let key = if e.groups.is_empty() { "kind" } else { "groups" };
                    return self.fail(
                        &[Seg::Key("exits"), Seg::Index(i), Seg::Key(key)],
                        format!(
                            "group \"{}\" has no goal of its own (a \"random\" or \"opposite\" target), so a \"goal\" exit cannot take it; list the groups it takes in `groups`",
                            spec.group.name
                        ),
                    );
                }
            }
        }
        Some(())
    }
}
