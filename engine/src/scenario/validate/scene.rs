//! Validating scene items: paths, exits, sources, bounds and targets.

use super::{Rule, Validator};
use crate::math::Vec2;
use crate::scenario::locate::{Seg, nearest_word};
use crate::scenario::schema::{BoundsToml, ExitToml, PathToml, SourceToml, TargetToml};
use crate::scenario::{MAX_AGENTS, MAX_MAGNITUDE};
use crate::world::{Bounds, BoundsKind, Exit, Path as PathDef, Region, Source, Target};

impl<V: crate::world::Dimension> Validator<'_, V> {
    pub(super) fn path(&mut self, name: &str, p: &PathToml) -> Option<PathDef<V>> {
        use Seg::Key;
        let at = |k: &'static str| [Key("paths"), Key(name), Key(k)];
        if p.nodes.is_empty() {
            return self.fail(&at("nodes"), "expected at least one node [x, y]");
        }
        let mut nodes = Vec::new();
        for (i, n) in p.nodes.iter().enumerate() {
            nodes.push(self.point(&[Key("paths"), Key(name), Key("nodes"), Seg::Index(i)], *n)?);
        }
        let radius = self.num(&at("radius"), p.radius, Rule::Positive(MAX_MAGNITUDE))?;
        Some(PathDef { name: name.into(), nodes, radius })
    }

    pub(super) fn group_index(&mut self, path: &[Seg], name: &str, groups: &[&str]) -> Option<u16> {
        match groups.iter().position(|g| *g == name) {
            Some(g) => Some(g as u16),
            None => {
                let hint = nearest_word(name, groups.iter().copied())
                    .map(|n| format!("; did you mean \"{n}\"?"))
                    .unwrap_or_default();
                self.fail(path, format!("no group is named \"{name}\"{hint} (groups: {})", groups.join(", ")))
            }
        }
    }

    pub(super) fn exits(&mut self, raw: &[ExitToml], groups: &[&str], bounds: &Bounds) -> Option<Vec<Exit>> {
        use Seg::{Index, Key};
        let mut exits = Vec::new();
        for (i, e) in raw.iter().enumerate() {
            let base = [Key("exits"), Index(i)];
            let at_own_goal = e.kind == "goal";
            let region = if at_own_goal {
                let present =
                    [("min", e.min.is_some()), ("max", e.max.is_some()), ("centre", e.centre.is_some())];
                self.only_allowed(
                    &base,
                    &present,
                    &[],
                    "a \"goal\" exit (it takes `radius`: the reach of each agent's own goal)",
                )?;
                let Some(r) = e.radius else {
                    return self.fail(
                        &base,
                        "missing key `radius` for a \"goal\" exit (how near its own goal an agent leaves)",
                    );
                };
                let radius =
                    self.num(&[Key("exits"), Index(i), Key("radius")], r, Rule::Positive(MAX_MAGNITUDE))?;
                Region::Circle { centre: Vec2::ZERO, radius }
            } else {
                self.plane_region(&base, region_keys!(e), "exit")?
            };
            if raw[..i].iter().any(|x| x.name == e.name) {
                return self.fail(
                    &[Key("exits"), Index(i), Key("name")],
                    format!("exit name \"{}\" is used twice", e.name),
                );
            }
            let mut gs = Vec::new();
            for (k, g) in e.groups.iter().enumerate() {
                gs.push(self.group_index(&[Key("exits"), Index(i), Key("groups"), Index(k)], g, groups)?);
            }
            let (lo, hi) = region.aabb();
            let overlaps = at_own_goal
                || lo.x <= bounds.max.x
                    && hi.x >= bounds.min.x
                    && lo.y <= bounds.max.y
                    && hi.y >= bounds.min.y;
            if !overlaps {
                let hint = if bounds.kind == BoundsKind::Wrap {
                    "no agent can reach it"
                } else {
                    "agents must leave the bounds to reach it"
                };
                self.warn(&base, format!("exit \"{}\" lies outside the bounds; {hint}", e.name));
            }
            exits.push(Exit { name: e.name.clone(), region, groups: gs, open: true, at_own_goal });
        }
        Some(exits)
    }

    pub(super) fn source(&mut self, i: usize, s: &SourceToml, groups: &[&str], run_s: f32) -> Option<Source> {
        use Seg::{Index, Key};
        let base = [Key("sources"), Index(i)];
        let at = |k: &'static str| [Key("sources"), Index(i), Key(k)];
        let group = self.group_index(&at("group"), &s.group, groups)?;
        let region = self.plane_region(&base, region_keys!(s), "spawn source")?;
        let rate_per_s = self.num(&at("rate"), s.rate, Rule::NonNegative(1e7))?;
        let start_s = self.num(&at("start_s"), s.start_s, Rule::NonNegative(1e9))?;
        let end_s = match s.end_s {
            None => run_s.max(start_s),
            Some(e) => self.num(&at("end_s"), e, Rule::NonNegative(1e9))?,
        };
        if end_s < start_s {
            return self.fail(&at("end_s"), format!("end_s {end_s} is before start_s {start_s}"));
        }
        if s.max_agents > MAX_AGENTS {
            return self
                .fail(&at("max_agents"), format!("expected at most {MAX_AGENTS}, found {}", s.max_agents));
        }
        let spacing = self.spacing_keys(&base, s.min_distance, s.wall_distance)?;
        Some(Source {
            name: s.name.clone(),
            group,
            region,
            rate_per_s,
            start_s,
            end_s,
            max: s.max_agents as u32,
            spawned: 0,
            open: s.open.unwrap_or(true),
            closed_ticks: 0,
            spacing,
            journey: None,
            stage: None,
        })
    }

    pub(super) fn bounds(&mut self, b: &BoundsToml) -> Option<Bounds<V>> {
        use Seg::Key;
        let kind = match &b.kind {
            None => BoundsKind::Open,
            Some(s) => self.choice(
                &[Key("bounds"), Key("kind")],
                s,
                &[("open", BoundsKind::Open), ("wrap", BoundsKind::Wrap)],
            )?,
        };
        let min = self.point(&[Key("bounds"), Key("min")], b.min)?;
        let max = self.point(&[Key("bounds"), Key("max")], b.max)?;
        if !(0..V::DIMENSIONS).all(|a| min.axis(a) < max.axis(a)) {
            let axes = if V::DIMENSIONS == 2 { "both axes" } else { "every axis" };
            return self.fail(
                &[Key("bounds"), Key("max")],
                format!("expected max > min on {axes}, found min {min} and max {max}"),
            );
        }
        Some(Bounds { kind, min, max })
    }

    pub(super) fn target(
        &mut self,
        name: &str,
        t: &TargetToml,
        groups: &[&str],
        agents: u64,
        dt: f32,
    ) -> Option<Target<V>> {
        use Seg::Key;
        let base = [Key("targets"), Key(name)];
        let at = |k: &'static str| [Key("targets"), Key(name), Key(k)];
        let kind = self.choice(
            &at("kind"),
            &t.kind,
            &[
                ("point", 0),
                ("moving", 1),
                ("agent", 2),
                ("nearest", 3),
                ("random", 4),
                ("opposite", 5),
                ("direction", 6),
                ("own", 7),
                ("journey", 8),
            ],
        )?;
        let allowed: &[&str] = match kind {
            0 => &["position"],
            1 => &["waypoints", "speed"],
            2 => &["agent"],
            3 => &["group"],
            5 => &["centre"],
            6 => &["direction"],
            7 | 8 => &[],
            _ => &["min", "max", "centre", "radius", "every_s"],
        };
        let present = [
            ("position", t.position.is_some()),
            ("waypoints", t.waypoints.is_some()),
            ("speed", t.speed.is_some()),
            ("agent", t.agent.is_some()),
            ("group", t.group.is_some()),
            ("min", t.min.is_some()),
            ("max", t.max.is_some()),
            ("centre", t.centre.is_some()),
            ("radius", t.radius.is_some()),
            ("every_s", t.every_s.is_some()),
            ("direction", t.direction.is_some()),
        ];
        let article = if t.kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        self.only_allowed(&base, &present, allowed, &format!("{article} \"{}\" target", t.kind))?;
        let missing = |v: &mut Self, key: &str| {
            v.fail::<Target<V>>(&base, format!("missing key `{key}` for a \"{}\" target", t.kind))
        };
        match kind {
            0 => {
                let Some(p) = t.position else { return missing(self, "position") };
                Some(Target::Point(self.point(&at("position"), p)?))
            }
            1 => {
                let Some(wps) = &t.waypoints else { return missing(self, "waypoints") };
                let Some(speed) = t.speed else { return missing(self, "speed") };
                if wps.is_empty() {
                    return self.fail(&at("waypoints"), "expected at least one waypoint [x, y]");
                }
                let mut waypoints = Vec::new();
                for (i, p) in wps.iter().enumerate() {
                    waypoints
                        .push(self.point(&[Key("targets"), Key(name), Key("waypoints"), Seg::Index(i)], *p)?);
                }
                let speed = self.num(&at("speed"), speed, Rule::NonNegative(MAX_MAGNITUDE))?;
                Some(Target::Moving { waypoints, speed })
            }
            2 => {
                let Some(id) = t.agent else { return missing(self, "agent") };
                if id as u64 >= agents {
                    return self.fail(
                        &at("agent"),
                        format!("no agent has id {id}: the scenario spawns ids 0 to {}", agents - 1),
                    );
                }
                Some(Target::Agent(id))
            }
            3 => {
                let Some(group) = &t.group else { return missing(self, "group") };
                self.group_index(&at("group"), group, groups).map(Target::NearestOf)
            }
            5 => {
                let Some(c) = t.centre else { return missing(self, "centre") };
                Some(Target::Opposite { centre: self.point(&at("centre"), c)? })
            }
            6 => {
                let Some(d) = t.direction else { return missing(self, "direction") };
                let d = self.point(&at("direction"), d)?;
                if d.length() < 1e-6 {
                    return self
                        .fail(&at("direction"), format!("expected a direction that is not zero, found {d}"));
                }
                Some(Target::Direction { direction: crate::math::norm(d) })
            }
            7 => Some(Target::Own),
            8 => Some(Target::Journey),
            _ => {
                let kind = if t.centre.is_some() || t.radius.is_some() { "circle" } else { "rect" };
                let region = self.region(&base, region_keys!(kind, t), "random target")?;
                let Some(every_s) = t.every_s else { return missing(self, "every_s") };
                let every_s = self.num(&at("every_s"), every_s, Rule::Positive(1e7))?;
                let period_ticks = ((every_s / dt).round() as u32).max(1);
                Some(Target::Random { region, period_ticks })
            }
        }
    }
}
