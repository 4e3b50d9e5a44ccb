//! Validating behaviours: each kind's keys and ranges.

use toml::de::DeValue;

use super::*;
use crate::behaviours::{Behaviour, EvadePrediction, SeparationVariant, WeightedBehaviour};
use crate::scenario::locate::*;
use crate::scenario::schema::*;
use crate::world::TargetId;
use crate::world::{PathMode, Target};

impl Validator<'_> {
    pub(super) fn behaviour(
        &mut self,
        g: usize,
        b: usize,
        raw: &BehaviourToml,
        names: &Names,
        targets: &mut Vec<Target>,
    ) -> Option<WeightedBehaviour> {
        use Seg::{Index, Key};
        let at = |k: &'static str| [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(k)];
        let base = [Key("groups"), Index(g), Key("behaviours"), Index(b)];
        let kinds: Vec<(&str, usize)> =
            BEHAVIOUR_KINDS.iter().enumerate().map(|(i, (n, _))| (*n, i)).collect();
        let k = self.choice(&at("kind"), &raw.kind, &kinds)?;
        let (kind, allowed) = BEHAVIOUR_KINDS[k];
        for key in raw.present() {
            if !allowed.contains(&key) {
                let path = [Key("groups"), Index(g), Key("behaviours"), Index(b), Key(key)];
                return self.fail(
                    &path,
                    format!(
                        "`{key}` is not a parameter of `{kind}` (it takes: weight, {})",
                        allowed.join(", ")
                    ),
                );
            }
        }
        let weight = self.num(&at("weight"), raw.weight, Rule::Finite(1e6))?;
        if kind == "queue" && weight != 1.0 {
            return self.fail(
                &at("weight"),
                "`queue` takes no weight: it brakes after the weighted sum (see docs/behaviours.md)",
            );
        }
        let named_target =
            |v: &mut Self, key: &'static str, name: &str, targets: &[Target]| -> Option<TargetId> {
                let _ = targets;
                match names.targets.iter().position(|n| *n == name) {
                    Some(i) => Some(i as TargetId),
                    None => {
                        let hint = nearest_word(name, names.targets.iter().copied())
                            .map(|n| format!("; did you mean \"{n}\"?"))
                            .unwrap_or_default();
                        let known = if names.targets.is_empty() {
                            "none are defined".to_string()
                        } else {
                            names.targets.join(", ")
                        };
                        v.fail(&at(key), format!("no target is named \"{name}\"{hint} (targets: {known})"))
                    }
                }
            };
        let target = |v: &mut Self, targets: &mut Vec<Target>| -> Option<TargetId> {
            let Some(t) = &raw.target else {
                return v.fail(
                    &base,
                    format!("missing key `target` for `{kind}` (a name from [targets] or a point [x, y])"),
                );
            };
            match t {
                TargetRef::Point(p) => {
                    let p = v.point(&at("target"), *p)?;
                    targets.push(Target::Point(p));
                    Some((targets.len() - 1) as TargetId)
                }
                TargetRef::Named(name) => named_target(v, "target", name, targets),
            }
        };
        // An optional parameter with a default, checked against its rule.
        let opt = |v: &mut Self, key: &'static str, value: Option<f32>, default: f32, rule: Rule| {
            v.num(&at(key), value.unwrap_or(default), rule)
        };
        let required_radius = |v: &mut Self| -> Option<f32> {
            match raw.radius {
                None => v.fail(
                    &base,
                    format!("missing key `radius` for `{kind}` (the neighbour radius, world units)"),
                ),
                Some(r) => v.num(&at("radius"), r, Rule::Positive(MAX_MAGNITUDE)),
            }
        };
        let look_ahead = |v: &mut Self| -> Option<Option<f32>> {
            match raw.look_ahead_s {
                None => Some(None),
                Some(t) => v.num(&at("look_ahead_s"), t, Rule::NonNegative(3600.0)).map(Some),
            }
        };
        const LEN: Rule = Rule::Positive(MAX_MAGNITUDE);
        const LEN0: Rule = Rule::NonNegative(MAX_MAGNITUDE);
        let behaviour = match kind {
            "seek" => Behaviour::Seek { target: target(self, targets)? },
            "flee" => Behaviour::Flee { target: target(self, targets)? },
            "arrive" => Behaviour::Arrive {
                target: target(self, targets)?,
                slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 5.0, LEN)?,
            },
            "wander" => Behaviour::Wander {
                radius: opt(self, "radius", raw.radius, 1.0, LEN)?,
                distance: opt(self, "distance", raw.distance, 2.0, LEN0)?,
                jitter: opt(self, "jitter", raw.jitter, 1.0, LEN0)?,
            },
            "pursuit" => {
                Behaviour::Pursuit { target: target(self, targets)?, look_ahead_s: look_ahead(self)? }
            }
            "evade" => Behaviour::Evade {
                target: target(self, targets)?,
                look_ahead_s: look_ahead(self)?,
                prediction: match &raw.prediction {
                    None => EvadePrediction::TargetSpeed,
                    Some(p) => self.choice(
                        &at("prediction"),
                        p,
                        &[
                            ("target_speed", EvadePrediction::TargetSpeed),
                            ("own_speed", EvadePrediction::OwnSpeed),
                        ],
                    )?,
                },
            },
            "separation" => Behaviour::Separation {
                radius: required_radius(self)?,
                max_force: opt(self, "max_separation", raw.max_separation, 1.0, Rule::NonNegative(1e9))?,
                variant: match &raw.variant {
                    None => SeparationVariant::Mean,
                    Some(p) => self.choice(
                        &at("variant"),
                        p,
                        &[
                            ("mean", SeparationVariant::Mean),
                            ("inverse_distance", SeparationVariant::InverseDistance),
                        ],
                    )?,
                },
            },
            "alignment" => Behaviour::Alignment { radius: required_radius(self)? },
            "cohesion" => Behaviour::Cohesion { radius: required_radius(self)? },
            "flock_target" => Behaviour::FlockTarget {
                target: target(self, targets)?,
                speed: opt(self, "speed", raw.speed, 1.0, LEN0)?,
            },
            "avoid_obstacles" => Behaviour::AvoidObstacles {
                see_ahead: opt(self, "see_ahead", raw.see_ahead, 5.0, LEN)?,
                max_avoid_force: opt(
                    self,
                    "max_avoid_force",
                    raw.max_avoid_force,
                    1.0,
                    Rule::NonNegative(1e9),
                )?,
            },
            "follow_path" => {
                let Some(name) = &raw.path else {
                    return self.fail(&base, "missing key `path` for `follow_path` (a name from [paths])");
                };
                let Some(path) = names.paths.iter().position(|p| p == name) else {
                    let hint = nearest_word(name, names.paths.iter().copied())
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    let known = if names.paths.is_empty() {
                        "none are defined".to_string()
                    } else {
                        names.paths.join(", ")
                    };
                    return self
                        .fail(&at("path"), format!("no path is named \"{name}\"{hint} (paths: {known})"));
                };
                let mode = match &raw.mode {
                    None => PathMode::Loop,
                    Some(m) => self.choice(
                        &at("mode"),
                        m,
                        &[("once", PathMode::Once), ("loop", PathMode::Loop), ("patrol", PathMode::Patrol)],
                    )?,
                };
                let nodes = self.path_len(name);
                if mode != PathMode::Once && nodes < 2 {
                    return self.fail(
                        &at("mode"),
                        format!(
                            "path \"{name}\" has {nodes} node; mode \"{}\" needs at least 2",
                            raw.mode.as_deref().unwrap_or("loop")
                        ),
                    );
                }
                Behaviour::FollowPath {
                    path: path as u16,
                    mode,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 3.0, LEN)?,
                }
            }
            "follow_leader" => {
                let Some(name) = &raw.leader else {
                    return self.fail(
                        &base,
                        "missing key `leader` for `follow_leader` (a target of kind \"agent\")",
                    );
                };
                let leader = named_target(self, "leader", name, targets)?;
                let Target::Agent(id) = targets[leader as usize] else {
                    return self.fail(
                        &at("leader"),
                        format!("the leader must be a target of kind \"agent\"; \"{name}\" is not"),
                    );
                };
                // Ids are sequential over groups in file order.
                let first: u64 = names.counts[..g].iter().map(|&c| c as u64).sum();
                if (first..first + names.counts[g] as u64).contains(&(id as u64)) {
                    return self.fail(
                        &at("leader"),
                        format!(
                            "agent {id} belongs to group \"{}\" itself: a leader cannot follow itself; put the leader in a group of its own",
                            names.groups[g]
                        ),
                    );
                }
                Behaviour::FollowLeader {
                    leader,
                    behind_dist: opt(self, "behind_dist", raw.behind_dist, 2.0, LEN0)?,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 5.0, LEN)?,
                    sight_radius: opt(self, "sight_radius", raw.sight_radius, 3.0, LEN0)?,
                    separation_radius: opt(self, "separation_radius", raw.separation_radius, 1.0, LEN)?,
                    max_separation: opt(
                        self,
                        "max_separation",
                        raw.max_separation,
                        1.0,
                        Rule::NonNegative(1e9),
                    )?,
                }
            }
            "queue" => {
                let queue_radius = opt(self, "queue_radius", raw.queue_radius, 1.0, LEN)?;
                Behaviour::Queue {
                    queue_ahead: opt(self, "queue_ahead", raw.queue_ahead, 2.0, LEN0)?,
                    queue_radius,
                    brake_factor: opt(self, "brake_factor", raw.brake_factor, 0.8, Rule::NonNegative(10.0))?,
                    hard_stop_factor: opt(
                        self,
                        "hard_stop_factor",
                        raw.hard_stop_factor,
                        0.3,
                        Rule::NonNegative(1.0),
                    )?,
                    separation_radius: opt(
                        self,
                        "separation_radius",
                        raw.separation_radius,
                        queue_radius,
                        LEN,
                    )?,
                    max_separation: opt(
                        self,
                        "max_separation",
                        raw.max_separation,
                        1.0,
                        Rule::NonNegative(1e9),
                    )?,
                }
            }
            "random_walk" => {
                let min_step = opt(self, "min_step", raw.min_step, 1.0, LEN)?;
                let max_step = opt(self, "max_step", raw.max_step, 10.0, LEN)?;
                if min_step > max_step {
                    return self
                        .fail(&at("max_step"), format!("max_step {max_step} is below min_step {min_step}"));
                }
                Behaviour::RandomWalk {
                    target: target(self, targets)?,
                    aggro_radius: opt(self, "aggro_radius", raw.aggro_radius, 30.0, LEN)?,
                    min_step,
                    max_step,
                    reach_radius: opt(self, "reach_radius", raw.reach_radius, 0.5, LEN)?,
                    slowing_radius: opt(self, "slowing_radius", raw.slowing_radius, 3.0, LEN)?,
                }
            }
            _ => unreachable!("kinds come from BEHAVIOUR_KINDS"),
        };
        Some(WeightedBehaviour { weight, behaviour })
    }

    /// Number of nodes of the path called `name` in the file.
    pub(super) fn path_len(&self, name: &str) -> usize {
        match self.doc.get_ref().get("paths").map(|p| p.get_ref()) {
            Some(DeValue::Table(t)) => match t.get(name).map(|p| p.get_ref()) {
                Some(DeValue::Table(p)) => match p.get("nodes").map(|n| n.get_ref()) {
                    Some(DeValue::Array(a)) => a.len(),
                    _ => 0,
                },
                _ => 0,
            },
            _ => 0,
        }
    }
}
