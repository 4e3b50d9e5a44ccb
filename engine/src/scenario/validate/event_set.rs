//! Validating a `set` event: `set = { "groups.NAME.max_speed" = 1.8, ... }` with the keys that
//! overrides use for a group's per-agent parameters and its behaviours' parameters. A
//! behaviour's new values are checked by building it exactly as the scenario would with them;
//! a problem is reported at the event's key.

use super::Validator;
use super::events::EventNames;
use crate::scenario::locate::{Seg, line_col, path_string};
use crate::scenario::overrides::split_key;
use crate::scenario::schema::{BehaviourRef, EventToml};
use crate::scenario::{GroupSpec, overrides};
use crate::world::{Action, AgentParam, BehaviourPatch, Param, Target};

/// What `set` can change, for messages.
const SETTABLE: &str =
    "max_speed, max_force, mass, radius, behaviours.KIND.KEY (a behaviour's weight or parameter)";

/// One `set` key: where it is in the file, its segments, and its value.
struct Leaf<'a> {
    path: Vec<Seg<'a>>,
    segs: Vec<String>,
    value: &'a toml::Value,
}

/// Whether `segs` already names a whole value (so a table below it is a value, a range).
fn complete(segs: &[String]) -> bool {
    let agent = segs.len() == 3 && AgentParam::ALL.iter().any(|(_, k)| *k == segs[2]);
    agent || segs.len() >= 5
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// A `set` event's action: one group, its per-agent parameters and behaviour patches.
    pub(super) fn set_action(
        &mut self,
        i: usize,
        e: &EventToml,
        names: &EventNames,
        groups: &[GroupSpec<V>],
        targets: &[Target<V>],
    ) -> Option<Action<V>> {
        use Seg::{Index, Key};
        let Some(table) = &e.set else {
            return self.fail(&[Key("events"), Index(i)], "missing key `set` for a \"set\" event");
        };
        let leaves = self.set_leaves(i, table)?;
        if leaves.is_empty() {
            return self.fail(&[Key("events"), Index(i), Key("set")], "expected at least one key to set");
        }
        let mut group: Option<u16> = None;
        let mut params: Vec<(AgentParam, Param)> = Vec::new();
        let mut per_behaviour: Vec<(usize, Vec<&Leaf>)> = Vec::new();
        for leaf in &leaves {
            let segs = &leaf.segs;
            if segs.len() < 3 || segs[0] != "groups" {
                return self.fail(
                    &leaf.path,
                    format!(
                        "an event sets a group's keys, `groups.NAME.KEY` (KEY: {SETTABLE}); found `{}`",
                        overrides::join_key(segs)
                    ),
                );
            }
            let g = match segs[1].parse::<usize>() {
                Ok(k) if k < names.groups.len() => k as u16,
                _ => self.group_index(&leaf.path, &segs[1], names.groups)?,
            };
            match group {
                Some(first) if first != g => {
                    return self.fail(
                        &leaf.path,
                        format!(
                            "one `set` event changes one group; this one already sets \"{}\" (use another event for \"{}\")",
                            names.groups[first as usize], names.groups[g as usize]
                        ),
                    );
                }
                _ => group = Some(g),
            }
            if let Some(&(which, _)) = AgentParam::ALL.iter().find(|(_, k)| *k == segs[2]) {
                let p = self.set_param(leaf)?;
                let p = self.agent_param(&leaf.path, which, p)?;
                params.retain(|(w, _)| *w != which);
                params.push((which, p));
                continue;
            }
            if segs[2] != "behaviours" || segs.len() != 5 {
                return self.fail(
                    &leaf.path,
                    format!(
                        "`{}` cannot be changed by an event (it can set: {SETTABLE})",
                        overrides::join_key(segs)
                    ),
                );
            }
            let list = &groups[g as usize].group.behaviours;
            let by = match segs[3].parse::<u32>() {
                Ok(b) => BehaviourRef::Index(b),
                Err(_) => BehaviourRef::Kind(segs[3].clone()),
            };
            let b = self.behaviour_of(&leaf.path, names.groups[g as usize], list, &by)?;
            match per_behaviour.iter_mut().find(|(k, _)| *k == b) {
                Some((_, keys)) => keys.push(leaf),
                None => per_behaviour.push((b, vec![leaf])),
            }
        }
        params.sort_by_key(|(w, _)| *w);
        let g = group?;
        let mut behaviours = Vec::new();
        for (b, keys) in per_behaviour {
            behaviours.push(self.patch(g, b, &keys, names, targets)?);
        }
        Some(Action::Set { group: g, params, behaviours })
    }

    /// The keys of `set`, descending into tables until a key names a whole value.
    fn set_leaves<'a>(&mut self, i: usize, table: &'a toml::Table) -> Option<Vec<Leaf<'a>>> {
        use Seg::{Index, Key};
        let mut out = Vec::new();
        let base = vec![Key("events"), Index(i), Key("set")];
        let mut stack: Vec<(Vec<Seg<'a>>, Vec<String>, &'a toml::Table)> = vec![(base, Vec::new(), table)];
        while let Some((path, segs, table)) = stack.pop() {
            for (k, v) in table.iter().rev() {
                let mut path = path.clone();
                path.push(Key(k));
                let mut segs = segs.clone();
                match split_key(k) {
                    Ok(more) => segs.extend(more),
                    Err(err) => return self.fail_at_key(&path, err.to_string()),
                }
                match v {
                    toml::Value::Table(t) if !complete(&segs) => stack.push((path, segs, t)),
                    _ => out.push(Leaf { path, segs, value: v }),
                }
            }
        }
        Some(out)
    }

    /// A per-agent parameter's new value: a number or `{ min, max }`.
    fn set_param(&mut self, leaf: &Leaf) -> Option<Param> {
        let number = |v: &toml::Value| match v {
            toml::Value::Integer(i) => Some(*i as f32),
            toml::Value::Float(f) => Some(*f as f32),
            _ => None,
        };
        if let Some(x) = number(leaf.value) {
            return Some(Param::Value(x));
        }
        if let toml::Value::Table(t) = leaf.value
            && let (Some(lo), Some(hi)) = (t.get("min").and_then(number), t.get("max").and_then(number))
        {
            match (t.len(), t.get("mean").and_then(number), t.get("sd").and_then(number)) {
                (2, ..) => return Some(Param::Range { min: lo, max: hi }),
                (4, Some(mean), Some(sd)) => return Some(Param::Normal { mean, sd, min: lo, max: hi }),
                _ => {}
            }
        }
        self.fail(
            &leaf.path,
            format!(
                "expected a number, a uniform range {{ min = .., max = .. }}, or a normal distribution \
                 {{ mean = .., sd = .., min = .., max = .. }}, found {}",
                leaf.value
            ),
        )
    }

    /// Behaviour `b` of group `g` as the scenario would build it with the new values; its
    /// errors are placed at the event's key.
    fn patch(
        &mut self,
        g: u16,
        b: usize,
        keys: &[&Leaf],
        names: &EventNames,
        targets: &[Target<V>],
    ) -> Option<BehaviourPatch> {
        let raw = &names.raw_groups[g as usize].behaviours[b];
        let mut patched = raw.clone();
        let mut fields = Vec::new();
        for leaf in keys {
            let key = leaf.segs[4].as_str();
            match (key, leaf.value) {
                ("kind", _) => {
                    return self.fail(&leaf.path, "a behaviour's kind cannot be changed by an event");
                }
                ("weight", toml::Value::Integer(w)) => patched.weight = *w as f32,
                ("weight", toml::Value::Float(w)) => patched.weight = *w as f32,
                ("weight", v) => return self.fail(&leaf.path, format!("expected a number, found {v}")),
                (k, v) => {
                    patched.params.insert(k.to_string(), v.clone());
                }
            }
            fields.push(key.to_string());
        }
        let mut scratch_targets = targets.to_vec();
        let built = self.behaviour(g as usize, b, &patched, names.scenario, &mut scratch_targets);
        let Some(built) = built else {
            // Placed at the key the problem names, else at the first key.
            let named = self
                .error
                .as_ref()
                .and_then(|err| keys.iter().find(|l| err.key.ends_with(&format!(".{}", l.segs[4]))));
            let leaf = named.copied().unwrap_or(keys[0]);
            let at = line_col(self.text, self.offset_of(&leaf.path));
            if let Some(err) = self.error.as_mut() {
                err.location = Some(at);
                err.key = path_string(&leaf.path);
            }
            return None;
        };
        if scratch_targets.len() > targets.len() {
            let leaf = keys.iter().find(|l| l.value.is_array()).copied().unwrap_or(keys[0]);
            return self
                .fail(&leaf.path, "an event gives a target by name (a key of [targets]), not as a point");
        }
        let form = serde_json::to_value(&built.behaviour).ok();
        let known = form
            .as_ref()
            .and_then(|v| v.as_object())
            .and_then(|o| o.values().next())
            .and_then(|v| v.as_object());
        for leaf in keys {
            let key = leaf.segs[4].as_str();
            if key != "weight" && !known.is_some_and(|o| o.contains_key(key)) {
                return self.fail(
                    &leaf.path,
                    format!("`{key}` of `{}` cannot be changed by an event", built.behaviour.name()),
                );
            }
        }
        Some(BehaviourPatch { behaviour: b as u16, patched: built, fields })
    }
}
