//! The validator: range checks on the TOML shapes, with located errors and warnings.

/// The [`RegionKeys`] of a table `$t` with fields `kind`, `min`, `max`, `centre` and `radius`
/// (or with `$kind` in place of its `kind`). Defined before the modules, which use it.
macro_rules! region_keys {
    ($t:expr) => {
        region_keys!(&$t.kind, $t)
    };
    ($kind:expr, $t:expr) => {
        $crate::scenario::validate::RegionKeys {
            kind: $kind,
            min: $t.min,
            max: $t.max,
            centre: $t.centre,
            radius: $t.radius,
        }
    };
}

mod behaviour;
mod event_action;
mod event_set;
mod events;
mod expect;
mod group;
mod journey;
mod measure;
mod model;
mod obstacle;
mod party;
mod scene;
mod space;
mod top_level;
mod waiting;

use toml::Spanned;
use toml::de::DeTable;

use super::bulk::{BulkLists, array_at};
use super::expectation::SceneNames;
use crate::math::{Vec2, Vector};
use crate::scenario::locate::{Seg, key_span_of, line_col, nearest_word, path_string, span_of};
use crate::scenario::schema::{Pt, ScenarioToml};
use crate::scenario::{MAX_AGENTS, MAX_MAGNITUDE, Scenario, ScenarioError, shown};
use crate::world::{Param, Region};

/// The region keys of one table: its `kind` and the optional `min`, `max`, `centre` and
/// `radius` (which of them the kind takes is checked).
#[derive(Clone, Copy)]
pub(super) struct RegionKeys<'a> {
    kind: &'a str,
    min: Option<Pt>,
    max: Option<Pt>,
    centre: Option<Pt>,
    radius: Option<f32>,
}

/// Validates a scenario whose points are `V`s: `Vec2` for a planar scenario, `Vec3` for one
/// with `dimensions = 3`. Bounds, targets, paths and spawns take the scenario's points; the
/// planar parts (walls, exits, gates, measures, sources, waiting areas, events) take the
/// plane's (`plane_point`, `plane_region`), and a scenario in space may not have them.
pub(super) struct Validator<'a, V = Vec2> {
    pub(super) origin: &'a str,
    pub(super) text: &'a str,
    pub(super) doc: &'a Spanned<DeTable<'a>>,
    /// The point lists read beside the parser; their points are not in `doc`.
    pub(super) bulk: &'a BulkLists,
    /// The first problem found; validation stops reporting after it.
    pub(super) error: Option<ScenarioError>,
    pub(super) warnings: Vec<ScenarioError>,
    pub(super) space: std::marker::PhantomData<V>,
}

/// What a number must be: the same ranges the behaviour tables use.
pub(super) use crate::behaviours::params::Range as Rule;

/// The smallest time step a scenario may take (seconds).
pub const MIN_DT: f32 = 1e-4;

impl<'a, V: crate::world::Dimension> Validator<'a, V> {
    /// Records a problem at `path` (the first one wins) and returns `None` to stop the caller.
    fn fail<T>(&mut self, path: &[Seg], message: impl Into<String>) -> Option<T> {
        let at = self.offset_of(path);
        self.fail_at(at, path, message)
    }

    /// As [`Validator::fail`], placed at the last key of `path` rather than at its value
    /// (an unknown key).
    fn fail_at_key<T>(&mut self, path: &[Seg], message: impl Into<String>) -> Option<T> {
        let at = self.bulk.original(key_span_of(self.doc, path).start);
        self.fail_at(at, path, message)
    }

    /// The byte offset in the file of the value at `path` (`doc` was parsed from the text
    /// with its point lists cut out; a point of such a list is found in the file's text).
    fn offset_of(&self, path: &[Seg]) -> usize {
        if let Some((Seg::Index(i), list)) = path.split_last()
            && let Some((start, _)) = array_at(self.doc, list)
            && let Some(at) = self.bulk.point_offset(self.text, start, *i)
        {
            return at;
        }
        self.bulk.original(span_of(self.doc, path).start)
    }

    /// Records a problem at byte `at` of the file.
    fn fail_at<T>(&mut self, at: usize, path: &[Seg], message: impl Into<String>) -> Option<T> {
        if self.error.is_none() {
            self.error = Some(ScenarioError {
                file: self.origin.into(),
                location: Some(line_col(self.text, at)),
                key: path_string(path),
                message: message.into(),
            });
        }
        None
    }

    /// Records a warning at `path`.
    fn warn(&mut self, path: &[Seg], message: impl Into<String>) {
        let at = self.offset_of(path);
        self.warnings.push(ScenarioError {
            file: self.origin.into(),
            location: Some(line_col(self.text, at)),
            key: path_string(path),
            message: message.into(),
        });
    }

    /// Rejects a key present in the table at `base` that its kind does not take (`what`
    /// names the kind, e.g. `a "rect" spawn`).
    fn only_allowed(
        &mut self,
        base: &[Seg],
        present: &[(&'static str, bool)],
        allowed: &[&str],
        what: &str,
    ) -> Option<()> {
        for &(key, is) in present {
            if is && !allowed.contains(&key) {
                let path = [base, &[Seg::Key(key)]].concat();
                return self.fail(
                    &path,
                    match allowed {
                        [] => format!("`{key}` is not a parameter of {what} (it takes none)"),
                        _ => {
                            format!("`{key}` is not a parameter of {what} (it takes: {})", allowed.join(", "))
                        }
                    },
                );
            }
        }
        Some(())
    }

    /// A region of the scenario's own dimension (a box or a ball in space).
    fn region(&mut self, base: &[Seg], keys: RegionKeys, what: &str) -> Option<Region<V>> {
        self.region_in(base, keys, what)
    }

    /// A region of the plane (the planar parts: exits, measures, sources, waiting areas,
    /// events, walls).
    fn plane_region(&mut self, base: &[Seg], keys: RegionKeys, what: &str) -> Option<Region> {
        self.region_in(base, keys, what)
    }

    /// A region from its keys, of `W`s; `base` is the table holding them.
    fn region_in<W: Vector>(&mut self, base: &[Seg], keys: RegionKeys, what: &str) -> Option<Region<W>> {
        let RegionKeys { kind, min, max, centre, radius } = keys;
        let at = |k: &'static str| [base, &[Seg::Key(k)]].concat();
        // In space a rectangle is a box and a circle a ball, by either name.
        let kinds: &[(&str, usize)] = match W::DIMENSIONS {
            3 => &[("rect", 0), ("circle", 1), ("box", 0), ("sphere", 1)],
            _ => &[("rect", 0), ("circle", 1)],
        };
        let k = self.choice(&at("kind"), kind, kinds)?;
        let present = [
            ("min", min.is_some()),
            ("max", max.is_some()),
            ("centre", centre.is_some()),
            ("radius", radius.is_some()),
        ];
        let allowed: &[&str] = if k == 0 { &["min", "max"] } else { &["centre", "radius"] };
        self.only_allowed(base, &present, allowed, &format!("a \"{kind}\" {what}"))?;
        if let Some((key, _)) = present.iter().find(|(k, is)| !is && allowed.contains(k)) {
            return self.fail(base, format!("missing key `{key}` for a \"{kind}\" {what}"));
        }
        if k == 0 {
            let min = self.point_in::<W>(&at("min"), min?)?;
            let max = self.point_in::<W>(&at("max"), max?)?;
            if !(0..W::DIMENSIONS).all(|a| min.axis(a) < max.axis(a)) {
                let (shape, axes) =
                    if W::DIMENSIONS == 2 { ("rectangle", "both axes") } else { ("box", "every axis") };
                return self.fail(&at("max"), format!("an inverted or empty {shape}: expected max > min on {axes}, found min {min} and max {max}"));
            }
            Some(Region::Rect { min, max })
        } else {
            let centre = self.point_in::<W>(&at("centre"), centre?)?;
            let radius = self.num(&at("radius"), radius?, Rule::Positive(MAX_MAGNITUDE))?;
            Some(Region::Circle { centre, radius })
        }
    }

    /// A spawn's `min_distance` and `wall_distance` (each `>= 0`; absent keeps none), the
    /// keys under `base` (a group's spawn table, a source, a `spawn` event).
    fn spacing_keys(
        &mut self,
        base: &[Seg],
        min: Option<f32>,
        wall: Option<f32>,
    ) -> Option<crate::world::Spacing> {
        let mut spacing = crate::world::Spacing::default();
        for (key, value, into) in [
            ("min_distance", min, &mut spacing.min_distance),
            ("wall_distance", wall, &mut spacing.wall_distance),
        ] {
            if let Some(d) = value {
                let path: Vec<Seg> = base.iter().cloned().chain([Seg::Key(key)]).collect();
                *into = self.num(&path, d, Rule::NonNegative(MAX_MAGNITUDE))?;
            }
        }
        Some(spacing)
    }

    fn num(&mut self, path: &[Seg], x: f32, rule: Rule) -> Option<f32> {
        if rule.holds(x) {
            Some(x)
        } else {
            self.fail(path, format!("expected {}, found {}", rule.describe(), shown(x)))
        }
    }

    /// A point of the scenario's own dimension.
    fn point(&mut self, path: &[Seg], p: Pt) -> Option<V> {
        self.point_in(path, p)
    }

    /// A point of the plane (the planar parts).
    fn plane_point(&mut self, path: &[Seg], p: Pt) -> Option<Vec2> {
        self.point_in(path, p)
    }

    /// A point of `W`: as many coordinates as it has, each finite and within ±1e7.
    fn point_in<W: Vector>(&mut self, path: &[Seg], p: Pt) -> Option<W> {
        let rule = Rule::Finite(MAX_MAGNITUDE);
        let form = if W::DIMENSIONS == 2 { "[x, y]" } else { "[x, y, z]" };
        if p.len != W::DIMENSIONS {
            let hint = match (V::DIMENSIONS, W::DIMENSIONS) {
                (2, _) => " (three coordinates need `dimensions = 3` at the top of the scenario)",
                (3, 3) => ", as `dimensions = 3` asks",
                _ => " (this part of a scenario is planar)",
            };
            let count = if W::DIMENSIONS == 2 { "two" } else { "three" };
            return self.fail(
                path,
                format!("expected a point {form} of {count} numbers{hint}, found {}", p.shown()),
            );
        }
        if p.coords[..p.len].iter().all(|&c| rule.holds(c)) {
            Some(W::from_fn(|a| p.coords[a]))
        } else {
            self.fail(path, format!("expected a point {form} of {}, found {}", rule.describe(), p.shown()))
        }
    }

    fn param(&mut self, path: &[Seg], p: Param, rule: Rule) -> Option<Param> {
        match p {
            Param::Value(v) => self.num(path, v, rule).map(Param::Value),
            Param::Range { min, max } => {
                let lo = [path, &[Seg::Key("min")]].concat();
                let hi = [path, &[Seg::Key("max")]].concat();
                self.num(&lo, min, rule)?;
                self.num(&hi, max, rule)?;
                if min > max {
                    return self.fail(
                        &lo,
                        format!("a range needs min <= max, found min {} > max {}", shown(min), shown(max)),
                    );
                }
                Some(p)
            }
            Param::Normal { mean, sd, min, max } => {
                let at = |k: &'static str| [path, &[Seg::Key(k)]].concat();
                self.num(&at("min"), min, rule)?;
                self.num(&at("max"), max, rule)?;
                if min > max {
                    return self.fail(
                        &at("min"),
                        format!("a range needs min <= max, found min {} > max {}", shown(min), shown(max)),
                    );
                }
                if !(min..=max).contains(&mean) {
                    return self.fail(
                        &at("mean"),
                        format!(
                            "expected a mean between min {} and max {}, found {}",
                            shown(min),
                            shown(max),
                            shown(mean)
                        ),
                    );
                }
                self.num(&at("sd"), sd, Rule::Positive(MAX_MAGNITUDE))?;
                Some(p)
            }
        }
    }

    fn choice<T: Copy>(&mut self, path: &[Seg], value: &str, options: &[(&str, T)]) -> Option<T> {
        if let Some((_, t)) = options.iter().find(|(name, _)| *name == value) {
            return Some(*t);
        }
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let hint = nearest_word(value, names.iter().copied())
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        self.fail(path, format!("unknown value \"{value}\"{hint} (expected one of: {})", names.join(", ")))
    }

    pub(super) fn scenario(&mut self, raw: ScenarioToml, text: &str) -> Option<Scenario<V>> {
        use Seg::Key;
        let top_level::Run { dt, index, sensing_skin } = self.run(&raw)?;
        let bounds = self.bounds(&raw.bounds)?;
        let group_names = self.group_names(&raw)?;
        let (counts, total) = self.counts(&raw)?;
        // Named targets, in name order (BTreeMap), then anonymous points appended by behaviours.
        let mut targets = Vec::new();
        let mut target_names: Vec<&str> = Vec::new();
        for (name, t) in &raw.targets {
            targets.push(self.target(name, t, &group_names, total, dt)?);
            target_names.push(name);
        }

        let mut paths = Vec::new();
        for (name, p) in &raw.paths {
            paths.push(self.path(name, p)?);
        }
        let path_names: Vec<&str> = raw.paths.keys().map(|k| k.as_str()).collect();
        let (obstacles, doors, solids) = match V::DIMENSIONS {
            3 => (Vec::new(), Vec::new(), self.solids(&raw.obstacles)?),
            _ => {
                let (obstacles, doors) = self.obstacles(&raw.obstacles)?;
                (obstacles, doors, Vec::new())
            }
        };
        let names =
            Names { groups: &group_names, targets: &target_names, paths: &path_names, counts: &counts };

        let mut groups = Vec::new();
        for (g, group) in raw.groups.iter().enumerate() {
            let world = group::GroupWorld { bounds: &bounds, dt, names: &names };
            let spec = self.group(g, group, counts[g], &world, &mut targets)?;
            groups.push(spec);
        }
        let exits = self.exits(&raw.exits, &group_names, &space::ground(&bounds))?;
        let mut gates = self.gates(&raw)?;
        let sources = self.sources(&raw, &group_names, dt)?;
        let mut capacity = total + sources.iter().map(|s| s.max as u64).sum::<u64>();
        if capacity > MAX_AGENTS {
            return self.fail(
                &[Key("sources")],
                format!(
                    "up to {capacity} agents with the sources' max_agents; at most {MAX_AGENTS} are supported"
                ),
            );
        }
        let door_names: Vec<&str> = doors.iter().map(|d| d.name.as_str()).collect();
        let exit_names: Vec<&str> = exits.iter().map(|e| e.name.as_str()).collect();
        let diversions = self.diversions(&raw.groups, &door_names, &exit_names, &target_names)?;
        let measures = self.measures(&raw.measure, &mut gates, dt)?;
        let waiting = self.waiting(&raw.waiting, &group_names)?;
        let stages = self.stages(&raw.stages, (&exits, &waiting), dt)?;
        let journeys = self.journeys(&raw.journeys, &stages)?;
        let mut sources = sources;
        self.journeys_of_groups(&raw, (&stages, &journeys), &mut groups, &mut sources, &targets)?;
        let gate_names: Vec<&str> = gates.iter().map(|g| g.name.as_str()).collect();
        let event_names = events::EventNames {
            doors: &door_names,
            exits: &exit_names,
            gates: &gate_names,
            groups: &group_names,
            targets: &target_names,
            sources: &sources.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            waiting: &waiting.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
            measures: &measures.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
            journeys: &journeys.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(),
            stages: &stages.iter().map(|s| (s.name.as_str(), s.queue.is_some())).collect::<Vec<_>>(),
            scenario: &names,
            raw_groups: &raw.groups,
        };
        let tables = events::EventTables { groups: &groups, targets: &targets, dt, ticks: raw.ticks };
        let events = self.events(&raw.events, &event_names, &tables, &mut capacity)?;
        let area_names: Vec<&str> = measures.iter().map(|m| m.name.as_str()).collect();
        let stage_names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
        let scene = SceneNames {
            groups: &group_names,
            gates: &gate_names,
            areas: &area_names,
            stages: &stage_names,
            parties: groups.iter().any(|g| g.group.parties.is_some()),
        };
        let metrics = self.metrics(&raw)?;
        let expect_names = expect::ExpectNames { scene, ids: capacity, steerbench: metrics.steerbench };
        let expectations = self.expectations(&raw.expect, &expect_names, dt, raw.ticks)?;
        self.no_nearest_of_own_group(&groups, &targets)?;
        self.goal_exits_take_groups_with_goals(&exits, &groups, &targets)?;
        // `"auto"` (or no key): a skin picked from the groups' reach and speed and the time step.
        let sensing_skin_auto = sensing_skin.is_none();
        let sensing_skin =
            sensing_skin.unwrap_or_else(|| crate::index::auto_skin(groups.iter().map(|g| &g.group), dt));
        Some(Scenario {
            origin: self.origin.into(),
            name: raw.name,
            description: raw.description,
            seed: raw.seed,
            dt,
            ticks: raw.ticks,
            index,
            sensing_skin,
            sensing_skin_auto,
            bounds,
            targets,
            target_names: raw.targets.keys().cloned().collect(),
            groups,
            obstacles: V::own_obstacles(obstacles, solids),
            solid_obstacles: raw.solid_obstacles,
            paths,
            exits,
            gates,
            sources,
            metrics,
            expectations,
            measures,
            waiting,
            stages,
            journeys,
            diversions,
            doors,
            events,
            warnings: Vec::new(),
            content_hash: *blake3::hash(text.as_bytes()).as_bytes(),
            overrides: Vec::new(),
        })
    }
}

/// Names a group's behaviours may refer to, and the group sizes (ids are sequential).
pub(super) struct Names<'a> {
    groups: &'a [&'a str],
    targets: &'a [&'a str],
    paths: &'a [&'a str],
    counts: &'a [u32],
}
