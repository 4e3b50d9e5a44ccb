//! Validating groups: agent counts, spawn regions and per-agent parameters.

use super::{Names, Rule, Validator};
use crate::scenario::locate::Seg;
use crate::scenario::schema::{GroupToml, SpawnToml};
use crate::scenario::{GroupSpec, MAX_AGENTS, MAX_MAGNITUDE, MAX_NEIGHBOURS, Spawn};
use crate::world::{
    AgentParam, AgentParams, Bounds, BoundsKind, Diversion, Group, Model, Param, Spacing, Switch, Target,
    WeightedBehaviour,
};

/// What a group is checked against: the world's bounds (a sensing radius must fit a wrapped
/// world), its time step (the models' limits) and the names its behaviours may use.
pub(super) struct GroupWorld<'a, V> {
    pub(super) bounds: &'a Bounds<V>,
    pub(super) dt: f32,
    pub(super) names: &'a Names<'a>,
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// Agents of group `g` at tick 0: 1 or more, or 0 for a group a spawn source fills
    /// (`sourced`).
    pub(super) fn count(&mut self, g: usize, group: &GroupToml, sourced: bool) -> Option<u32> {
        use Seg::{Index, Key};
        let points = match &group.spawn.points {
            Some(p) if group.spawn.kind == "points" => Some(p.len() as u64),
            _ => None,
        };
        let count = match (group.count, points) {
            (None, Some(n)) => n,
            (None, None) => {
                return self.fail(
                    &[Key("groups"), Index(g)],
                    "missing key `count` (the number of agents in the group)",
                );
            }
            (Some(c), Some(n)) if c != n => {
                return self.fail(
                    &[Key("groups"), Index(g), Key("count")],
                    format!("count is {c} but spawn.points lists {n} points"),
                );
            }
            (Some(c), _) => c,
        };
        if count == 0 && !sourced || count > MAX_AGENTS {
            let message = if count == 0 {
                format!(
                    "expected an agent count from 1 to {MAX_AGENTS}, found 0 (0 is allowed only for a group a [[sources]] entry or an event fills, or one steered by an `own` target, whose agents a program spawns)"
                )
            } else {
                format!("expected an agent count from 1 to {MAX_AGENTS}, found {count}")
            };
            return self.fail(&[Key("groups"), Index(g), Key("count")], message);
        }
        Some(count as u32)
    }

    pub(super) fn group(
        &mut self,
        g: usize,
        raw: &GroupToml,
        count: u32,
        world: &GroupWorld<V>,
        targets: &mut Vec<Target<V>>,
    ) -> Option<GroupSpec<V>> {
        let GroupWorld { bounds, dt, names } = *world;
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key(k)];
        let spawn = self.spawn(g, &raw.spawn)?;
        let spacing = self.spacing(g, &raw.spawn, &spawn, count)?;
        let params = AgentParams {
            max_speed: self.agent_param(&at("max_speed"), AgentParam::MaxSpeed, raw.max_speed.0)?,
            max_force: self.agent_param(&at("max_force"), AgentParam::MaxForce, raw.max_force.0)?,
            mass: self.agent_param(&at("mass"), AgentParam::Mass, raw.mass.0)?,
            radius: self.agent_param(&at("radius"), AgentParam::Radius, raw.radius.0)?,
            initial_speed: self.param(
                &at("initial_speed"),
                raw.initial_speed.0,
                Rule::NonNegative(MAX_MAGNITUDE),
            )?,
        };

        let mut behaviours = Vec::new();
        for (b, raw_b) in raw.behaviours.iter().enumerate() {
            behaviours.push(self.behaviour(g, b, raw_b, names, targets)?);
        }
        // Behaviours whose per-agent state has one column may appear once per group.
        let singles = ["avoid_obstacles", "follow_path", "queue", "random_walk", "tie_break"];
        for (b, wb) in behaviours.iter().enumerate() {
            let name = wb.behaviour.name();
            if singles.contains(&name) && behaviours[..b].iter().any(|o| o.behaviour.name() == name) {
                return self.fail(
                    &[Key("groups"), Index(g), Key("behaviours"), Index(b), Key("kind")],
                    format!("a group may have only one `{name}` behaviour"),
                );
            }
        }
        let mut random_target = None;
        for (b, wb) in behaviours.iter().enumerate() {
            if let Some(t) = wb.behaviour.target()
                && matches!(
                    targets[t as usize],
                    Target::Random { .. } | Target::Opposite { .. } | Target::Own | Target::Journey
                )
            {
                if random_target.is_some_and(|r| r != t) {
                    return self.fail(
                        &[Key("groups"), Index(g), Key("behaviours"), Index(b), Key("target")],
                        "a group may use only one target of kind \"random\", \"opposite\", \"own\" or \"journey\" (each agent keeps one goal of its own)",
                    );
                }
                random_target = Some(t);
            }
        }
        let model = self.model(g, raw.model.as_ref(), dt)?;
        // A velocity model avoids collisions itself: the group's avoidance behaviours are not
        // used under it (`Group::acting`), which the user hears of here.
        let acting = |b: &WeightedBehaviour| model == Model::Steering || !b.behaviour.avoids_collisions();
        for (b, wb) in behaviours.iter().enumerate().filter(|(_, b)| !acting(b)) {
            self.warn(
                &[Key("groups"), Index(g), Key("behaviours"), Index(b), Key("kind")],
                format!(
                    "`{}` is not used under model \"{}\", which keeps agents apart itself and takes its preferred velocity from the goal behaviours alone; remove the entry, or use model = \"steering\"",
                    wb.behaviour.name(),
                    model.name()
                ),
            );
        }
        // A velocity model reads the first of the group's neighbours: the list reaches as far
        // and holds as many as the model needs (its neighbour_dist and max_neighbours).
        let (model_radius, model_neighbours) = model.neighbour_needs();
        let behaviours_need = behaviours
            .iter()
            .filter(|b| acting(b))
            .filter_map(|b| b.behaviour.neighbour_radius())
            .fold(0.0, f32::max);
        let needed = behaviours_need.max(model_radius);
        let sensing_radius = match raw.sensing_radius {
            None => needed,
            Some(r) => {
                let r = self.num(&at("sensing_radius"), r, Rule::NonNegative(MAX_MAGNITUDE))?;
                if r < needed {
                    return self.fail(
                        &at("sensing_radius"),
                        format!(
                            "sensing_radius {r} is smaller than a behaviour's or the model's neighbour radius ({needed}); it must cover every neighbour behaviour (for queue: queue_ahead + queue_radius) and the model's neighbour_dist"
                        ),
                    );
                }
                r
            }
        };
        let max_neighbours =
            raw.max_neighbours.unwrap_or(if behaviours_need > 0.0 { 16 } else { 0 }).max(model_neighbours);
        if max_neighbours > MAX_NEIGHBOURS {
            return self.fail(
                &at("max_neighbours"),
                format!("expected at most {MAX_NEIGHBOURS} neighbours, found {max_neighbours}"),
            );
        }
        if needed > 0.0 && max_neighbours == 0 {
            return self.fail(
                &at("max_neighbours"),
                "a group with a neighbour behaviour (separation, alignment, cohesion, follow_leader, queue) needs max_neighbours >= 1",
            );
        }
        if bounds.kind == BoundsKind::Wrap && 2.0 * sensing_radius >= bounds.size().min_element() {
            return self.fail(
                &at("sensing_radius"),
                format!(
                    "a wrapped world must be wider than twice the sensing radius ({sensing_radius}); it is {}",
                    (0..V::DIMENSIONS).map(|a| bounds.size().axis(a).to_string()).collect::<Vec<_>>().join(" x ")
                ),
            );
        }
        let interval =
            self.num(&at("flocking_interval"), raw.flocking_interval, Rule::NonNegative(3600.0))?;
        let flocking_interval_ticks = ((interval / dt).round() as u32).max(1);

        let parties = match &raw.parties {
            Some(p) => Some(self.parties(g, p, count)?),
            None => None,
        };
        Some(GroupSpec {
            group: Group {
                journey: None,
                parties,
                name: raw.name.clone(),
                behaviours,
                sensing_radius,
                max_neighbours,
                flocking_interval_ticks,
                params,
                model,
            },
            count,
            spawn,
            spacing,
        })
    }

    /// The groups' `on_closed` entries: one door or exit each, and a target by name.
    pub(super) fn diversions(
        &mut self,
        raw: &[GroupToml],
        doors: &[&str],
        exits: &[&str],
        targets: &[&str],
    ) -> Option<Vec<Diversion>> {
        use Seg::{Index, Key};
        let mut out = Vec::new();
        for (g, group) in raw.iter().enumerate() {
            for (k, entry) in group.on_closed.iter().enumerate() {
                let base = [Key("groups"), Index(g), Key("on_closed"), Index(k)];
                let at = |key: &'static str| [Key("groups"), Index(g), Key("on_closed"), Index(k), Key(key)];
                let switch = match (&entry.door, &entry.exit) {
                    (Some(d), None) => Switch::Door(self.named(&at("door"), "door", d, doors)? as u32),
                    (None, Some(x)) => Switch::Exit(self.named(&at("exit"), "exit", x, exits)? as u32),
                    _ => return self.fail(&base, "an `on_closed` entry names one `door` or one `exit`"),
                };
                if out.iter().any(|d: &Diversion| d.group == g as u16 && d.switch == switch) {
                    return self
                        .fail(&base, "this door or exit already has an `on_closed` entry in this group");
                }
                let target = self.named(&at("target"), "target", &entry.target, targets)? as u16;
                out.push(Diversion { group: g as u16, switch, target, saved: None });
            }
        }
        Some(out)
    }

    /// A per-agent parameter that `set` events may change too, with its range.
    pub(super) fn agent_param(&mut self, path: &[Seg], which: AgentParam, p: Param) -> Option<Param> {
        let rule = match which {
            AgentParam::MaxSpeed | AgentParam::Radius => Rule::Positive(MAX_MAGNITUDE),
            AgentParam::MaxForce | AgentParam::Mass => Rule::Positive(1e9),
        };
        let p = self.param(path, p, rule)?;
        if let (
            AgentParam::Mass,
            Param::Value(m) | Param::Range { min: m, .. } | Param::Normal { min: m, .. },
        ) = (which, p)
            && m < 1e-6
        {
            return self.fail(path, format!("expected a mass >= 1e-6, found {m}"));
        }
        Some(p)
    }

    pub(super) fn spawn(&mut self, g: usize, s: &SpawnToml) -> Option<Spawn<V>> {
        use Seg::{Index, Key};
        let base = [Key("groups"), Index(g), Key("spawn")];
        let at = |k: &'static str| [Key("groups"), Index(g), Key("spawn"), Key(k)];
        let kinds: &[(&str, usize)] = match V::DIMENSIONS {
            3 => &[("rect", 0), ("circle", 1), ("points", 2), ("box", 0), ("sphere", 1)],
            _ => &[("rect", 0), ("circle", 1), ("points", 2)],
        };
        let kind = self.choice(&at("kind"), &s.kind, kinds)?;
        let (required, allowed): (&[&str], &[&str]) = match kind {
            0 => (&["min", "max"], &["min", "max", "min_distance", "wall_distance"]),
            1 => (&["centre", "radius"], &["centre", "radius", "min_distance", "wall_distance"]),
            _ => (&["points"], &["points", "min_distance", "wall_distance"]),
        };
        let present = [
            ("min", s.min.is_some()),
            ("max", s.max.is_some()),
            ("centre", s.centre.is_some()),
            ("radius", s.radius.is_some()),
            ("points", s.points.is_some()),
            ("min_distance", s.min_distance.is_some()),
            ("wall_distance", s.wall_distance.is_some()),
        ];
        self.only_allowed(&base, &present, allowed, &format!("a \"{}\" spawn", s.kind))?;
        for key in required {
            let is = present.iter().any(|(k, p)| k == key && *p);
            if !is {
                return self.fail(&base, format!("missing key `{key}` for a \"{}\" spawn", s.kind));
            }
        }
        match kind {
            0 => {
                let min = self.point(&at("min"), s.min?)?;
                let max = self.point(&at("max"), s.max?)?;
                if !(0..V::DIMENSIONS).all(|a| min.axis(a) <= max.axis(a)) {
                    let axes = if V::DIMENSIONS == 2 { "both axes" } else { "every axis" };
                    return self.fail(
                        &at("max"),
                        format!("expected max >= min on {axes}, found min {min} and max {max}"),
                    );
                }
                Some(Spawn::Rect { min, max })
            }
            1 => {
                let centre = self.point(&at("centre"), s.centre?)?;
                let radius = self.num(&at("radius"), s.radius?, Rule::NonNegative(MAX_MAGNITUDE))?;
                Some(Spawn::Circle { centre, radius })
            }
            _ => {
                let listed = s.points.as_ref()?;
                let mut points = Vec::with_capacity(listed.len());
                for (i, p) in listed.iter().enumerate() {
                    points.push(
                        self.point(&[Key("groups"), Index(g), Key("spawn"), Key("points"), Index(i)], *p)?,
                    );
                }
                Some(Spawn::Points(points))
            }
        }
    }

    /// The distances group `g`'s spawn keeps (`min_distance`, `wall_distance`), refused at
    /// `min_distance` when the region cannot hold `count` agents that far apart even packed
    /// as densely as discs can be (a random placement holds far fewer; `Scenario::
    /// try_build_world` then says so).
    pub(super) fn spacing(
        &mut self,
        g: usize,
        s: &SpawnToml,
        spawn: &Spawn<V>,
        count: u32,
    ) -> Option<Spacing> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key("spawn"), Key(k)];
        let spacing =
            self.spacing_keys(&[Key("groups"), Index(g), Key("spawn")], s.min_distance, s.wall_distance)?;
        let d = spacing.min_distance as f64;
        if d == 0.0 || count < 2 {
            return Some(spacing);
        }
        // Centres `d` apart: discs of radius d/2 that do not overlap, inside the region grown
        // by d/2.
        let (region, what) = match spawn {
            Spawn::Rect { min, max } => (
                (0..V::DIMENSIONS).map(|a| (max.axis(a) - min.axis(a)) as f64 + d).product::<f64>(),
                "rectangle",
            ),
            Spawn::Circle { radius, .. } => {
                let r = *radius as f64 + d / 2.0;
                (
                    if V::DIMENSIONS == 2 {
                        std::f64::consts::PI * r * r
                    } else {
                        4.0 / 3.0 * std::f64::consts::PI * r * r * r
                    },
                    "disc",
                )
            }
            Spawn::Points(_) => return Some(spacing),
        };
        let disc = if V::DIMENSIONS == 2 {
            std::f64::consts::PI * d * d / 4.0
        } else {
            std::f64::consts::PI * d * d * d / 6.0
        };
        let most = (region / disc).floor();
        if (count as f64) > most {
            return self.fail(
                &at("min_distance"),
                format!(
                    "the spawn's {what} holds at most {most} agents {} apart, fewer than the group's {count} (place fewer, widen the region, or lower min_distance)",
                    crate::scenario::shown(spacing.min_distance)
                ),
            );
        }
        Some(spacing)
    }
}
