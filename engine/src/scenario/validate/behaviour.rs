//! Validating behaviours, driven by each kind's parameter table (`behaviours::KINDS`): the
//! allowed keys, the defaults, the ranges and the messages all come from the table; only what
//! reads the rest of the scenario (target and path names) is here.

use super::{Names, Rule, Validator};
use crate::behaviours::params::{Arg, Args, Context, Default, Invalid, Kind, missing_hint};
use crate::behaviours::{KINDS, WeightedBehaviour};
use crate::scenario::bulk::array_at;
use crate::scenario::locate::{Seg, nearest_word};
use crate::scenario::schema::{BehaviourToml, Pt};
use crate::world::{Target, TargetId};

/// A TOML value in words, for "found ..." in messages.
pub(super) fn found(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => crate::scenario::shown(*f),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(a) => format!("an array of {}", a.len()),
        toml::Value::Table(_) => "a table".into(),
    }
}

/// A number from a TOML integer or float.
fn number(v: &toml::Value) -> Option<f32> {
    match v {
        toml::Value::Integer(i) => Some(*i as f32),
        toml::Value::Float(f) => Some(*f as f32),
        _ => None,
    }
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// Behaviour `b` of group `g`: its kind's table checks every key; targets given as points
    /// are appended to `targets`.
    pub(super) fn behaviour(
        &mut self,
        g: usize,
        b: usize,
        raw: &BehaviourToml,
        names: &Names,
        targets: &mut Vec<Target<V>>,
    ) -> Option<WeightedBehaviour> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(k)];
        let base = [Key("groups"), Index(g), Key("behaviours"), Index(b)];
        let kinds: Vec<(&str, usize)> = KINDS.iter().enumerate().map(|(i, k)| (k.name, i)).collect();
        let spec = KINDS[self.choice(&at("kind"), &raw.kind, &kinds)?];
        let keys = spec.keys();
        for key in raw.params.keys() {
            if spec.params.iter().any(|p| p.key == key) {
                continue;
            }
            let at_key = [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(key)];
            let takes = keys.join(", ");
            // A parameter of another kind is placed at its value; a key no kind knows, at the key.
            if KINDS.iter().any(|k| k.params.iter().any(|p| p.key == key)) {
                return self.fail(
                    &at_key,
                    format!("`{key}` is not a parameter of `{}` (it takes: {takes})", spec.name),
                );
            }
            let hint = nearest_word(key, keys.iter().copied())
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return self
                .fail_at_key(&at_key, format!("unknown key `{key}`{hint} (`{}` takes: {takes})", spec.name));
        }
        let weight = self.num(&at("weight"), raw.weight, Rule::Finite(1e6))?;
        if !spec.weighted && weight != 1.0 {
            return self.fail(
                &at("weight"),
                format!(
                    "`{}` takes no weight: it acts on the weighted sum, after it (see docs/behaviours.md)",
                    spec.name
                ),
            );
        }
        let mut args = Args::default();
        for p in spec.params {
            let value = raw.params.get(p.key);
            let path = at(p.key);
            let missing = |v: &mut Self| -> Option<Arg> {
                v.fail(&base, format!("missing key `{}` for `{}` ({})", p.key, spec.name, missing_hint(p)))
            };
            let arg = match (p.kind, value) {
                (Kind::Number(range, _), Some(v)) => match number(v) {
                    Some(x) => Arg::Number(Some(self.num(&path, x, range)?)),
                    None => return self.fail(&path, format!("expected a number, found {}", found(v))),
                },
                (Kind::Number(range, default), None) => match default {
                    Default::Required => missing(self)?,
                    Default::Value(x) => Arg::Number(Some(self.num(&path, x, range)?)),
                    Default::SameAs(key) => Arg::Number(args.optional(key)),
                    Default::Absent(_) => Arg::Number(None),
                },
                (Kind::Choice(options, default), v) => {
                    let word = match v {
                        None => default,
                        Some(toml::Value::String(s)) => s.as_str(),
                        Some(v) => {
                            return self.fail(
                                &path,
                                format!("expected one of: {}; found {}", options.join(", "), found(v)),
                            );
                        }
                    };
                    let choices: Vec<(&str, &'static str)> = options.iter().map(|o| (*o, *o)).collect();
                    Arg::Choice(self.choice(&path, word, &choices)?)
                }
                (Kind::Target | Kind::AgentTarget | Kind::Path, None) => missing(self)?,
                (Kind::Target, Some(toml::Value::Array(a))) => {
                    let numbers: Vec<f32> = a.iter().filter_map(number).collect();
                    let p = match (a.len(), numbers.len() == a.len()) {
                        (2, true) => Some(Pt::plane(numbers[0], numbers[1])),
                        (3, true) => Some(Pt { coords: [numbers[0], numbers[1], numbers[2]], len: 3 }),
                        _ => None,
                    };
                    let Some(p) = p else {
                        let form = if V::DIMENSIONS == 2 { "[x, y] of two" } else { "[x, y, z] of three" };
                        return self.fail(
                            &path,
                            format!(
                                "expected a point {form} numbers, found {}",
                                found(&toml::Value::Array(a.clone()))
                            ),
                        );
                    };
                    targets.push(Target::Point(self.point(&path, p)?));
                    Arg::Target((targets.len() - 1) as TargetId)
                }
                (Kind::Target | Kind::AgentTarget, Some(toml::Value::String(name))) => {
                    Arg::Target(self.named(&path, "target", name, names.targets)? as TargetId)
                }
                (Kind::Path, Some(toml::Value::String(name))) => {
                    Arg::Path(self.named(&path, "path", name, names.paths)? as u16)
                }
                (kind, Some(v)) => {
                    let expected = match kind {
                        Kind::Target => "a target name (a key of [targets]) or a point [x, y]",
                        Kind::AgentTarget => "the name of a target of kind \"agent\"",
                        _ => "a path name (a key of [paths])",
                    };
                    return self.fail(&path, format!("expected {expected}, found {}", found(v)));
                }
            };
            args.push(p.key, arg);
        }
        let paths: Vec<(&str, usize)> = names.paths.iter().map(|n| (*n, self.path_len(n))).collect();
        // Ids are sequential over groups in file order.
        let first: u64 = names.counts[..g].iter().map(|&c| c as u64).sum();
        // The tables check a target's kind (a point; an agent and its id), never where it is.
        let kinds: Vec<Target> = targets.iter().map(kind_of).collect();
        let context = Context {
            targets: &kinds,
            target_names: names.targets,
            paths: &paths,
            group: names.groups[g],
            group_ids: first..first + names.counts[g] as u64,
        };
        match (spec.build)(&args, &context) {
            Ok(behaviour) => Some(WeightedBehaviour { weight, behaviour }),
            Err(Invalid { key, message }) => self.fail(&at(key), message),
        }
    }

    /// The index of `name` among `known` (the names of [targets] or [paths]), or an error
    /// at `path` with a suggestion.
    pub(super) fn named(&mut self, path: &[Seg], what: &str, name: &str, known: &[&str]) -> Option<usize> {
        if let Some(i) = known.iter().position(|n| *n == name) {
            return Some(i);
        }
        let hint = nearest_word(name, known.iter().copied())
            .map(|n| format!("; did you mean \"{n}\"?"))
            .unwrap_or_default();
        let list = if known.is_empty() { "none are defined".to_string() } else { known.join(", ") };
        self.fail(path, format!("no {what} is named \"{name}\"{hint} ({what}s: {list})"))
    }

    /// Number of nodes of the path called `name` in the file.
    pub(super) fn path_len(&self, name: &str) -> usize {
        match array_at(self.doc, &[Seg::Key("paths"), Seg::Key(name), Seg::Key("nodes")]) {
            Some((start, len)) => self.bulk.len_at(start).unwrap_or(len),
            None => 0,
        }
    }
}

/// `t` with its kind and ids as they are and its points seen from above (x, y): what the
/// behaviour tables read of a target.
fn kind_of<V: crate::math::Vector>(t: &Target<V>) -> Target {
    let ground = |p: V| crate::math::Vec2::new(p.axis(0), p.axis(1));
    match t {
        Target::Point(p) => Target::Point(ground(*p)),
        Target::Moving { waypoints, speed } => {
            Target::Moving { waypoints: waypoints.iter().map(|&p| ground(p)).collect(), speed: *speed }
        }
        Target::Agent(id) => Target::Agent(*id),
        Target::NearestOf(g) => Target::NearestOf(*g),
        Target::Random { region, period_ticks } => {
            let (min, max) = region.aabb();
            Target::Random {
                region: crate::world::Region::Rect { min: ground(min), max: ground(max) },
                period_ticks: *period_ticks,
            }
        }
        Target::Opposite { centre } => Target::Opposite { centre: ground(*centre) },
        Target::Direction { direction } => Target::Direction { direction: ground(*direction) },
        Target::Own => Target::Own,
        Target::Journey => Target::Journey,
    }
}
