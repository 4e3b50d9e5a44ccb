//! Validating a group's `model`: a name (`model = "orca"`) or a table with `kind` and the
//! model's parameters, checked against its table in `models::kinds`.

use super::Validator;
use super::behaviour::found;
use crate::behaviours::params::{Arg, Args, Default, Kind};
use crate::models::kinds::MODELS;
use crate::scenario::locate::{Seg, nearest_word};
use crate::world::Model;

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// Group `g`'s velocity model; steering when `raw` is absent.
    pub(super) fn model(&mut self, g: usize, raw: Option<&toml::Value>, dt: f32) -> Option<Model> {
        use Seg::{Index, Key};
        let at = [Key("groups"), Index(g), Key("model")];
        let (kind, kind_at, params) = match raw {
            None => return Some(Model::Steering),
            Some(toml::Value::String(name)) => (name.as_str(), at.to_vec(), None),
            Some(toml::Value::Table(t)) => match t.get("kind") {
                Some(toml::Value::String(name)) => {
                    (name.as_str(), [&at[..], &[Key("kind")]].concat(), Some(t))
                }
                Some(other) => {
                    return self.fail(
                        &[&at[..], &[Key("kind")]].concat(),
                        format!("expected the model's name as text, found {}", found(other)),
                    );
                }
                None => {
                    return self.fail(
                        &at,
                        "missing key `kind` (the model's name: steering, orca, cfsm or social_force)",
                    );
                }
            },
            Some(other) => {
                return self.fail(
                    &at,
                    format!(
                        "expected a model name (\"steering\", \"orca\", \"cfsm\" or \"social_force\") or a table {{ kind = .., ... }}, found {}",
                        found(other)
                    ),
                );
            }
        };
        let kinds: Vec<(&str, usize)> = MODELS.iter().enumerate().map(|(i, m)| (m.name, i)).collect();
        let spec = MODELS[self.choice(&kind_at, kind, &kinds)?];
        let empty = toml::Table::new();
        let params = params.unwrap_or(&empty);
        let preset = match params.get("preset") {
            None => None,
            Some(_) if spec.presets.is_empty() => {
                let with: Vec<String> = MODELS
                    .iter()
                    .filter(|m| !m.presets.is_empty())
                    .map(|m| {
                        format!(
                            "{} has {}",
                            m.name,
                            m.presets
                                .iter()
                                .map(|p| format!("\"{}\"", p.name))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })
                    .collect();
                return self.fail(
                    &[&at[..], &[Key("preset")]].concat(),
                    format!("model `{}` has no presets ({})", spec.name, with.join("; ")),
                );
            }
            Some(toml::Value::String(name)) => {
                let path = [&at[..], &[Key("preset")]].concat();
                let names: Vec<(&str, usize)> =
                    spec.presets.iter().enumerate().map(|(i, p)| (p.name, i)).collect();
                Some(&spec.presets[self.choice(&path, name, &names)?])
            }
            Some(other) => {
                return self.fail(
                    &[&at[..], &[Key("preset")]].concat(),
                    format!("expected a preset's name as text, found {}", found(other)),
                );
            }
        };
        for key in params.keys().filter(|k| *k != "kind" && *k != "preset") {
            if !spec.params.iter().any(|p| p.key == key) {
                let takes: Vec<&str> = spec.params.iter().map(|p| p.key).collect();
                let hint = nearest_word(key, takes.iter().copied())
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                let takes = if takes.is_empty() { "no parameters".to_string() } else { takes.join(", ") };
                return self.fail_at_key(
                    &[&at[..], &[Key(key)]].concat(),
                    format!("unknown key `{key}`{hint} (model `{}` takes: {takes})", spec.name),
                );
            }
        }
        let mut args = Args::default();
        for p in spec.params {
            let path = [&at[..], &[Key(p.key)]].concat();
            let Kind::Number(range, default) = p.kind else { unreachable!("models take numbers") };
            let from_preset = preset.and_then(|s| s.value(p.key));
            let value = match (params.get(p.key), default) {
                (Some(v), _) => match v {
                    toml::Value::Integer(i) => Some(*i as f32),
                    toml::Value::Float(f) => Some(*f as f32),
                    other => return self.fail(&path, format!("expected a number, found {}", found(other))),
                },
                (None, _) if from_preset.is_some() => from_preset,
                (None, Default::Value(x)) => Some(x),
                (None, _) => None,
            };
            if let Some(x) = value {
                if p.unit == "count" && x.fract() != 0.0 {
                    return self.fail(
                        &path,
                        format!("expected a whole number, found {}", crate::scenario::shown(x)),
                    );
                }
                self.num(&path, x, range)?;
            }
            args.push(p.key, Arg::Number(value));
        }
        let model = match (spec.build)(&args) {
            Ok(model) => model,
            Err(invalid) => return self.fail(&[&at[..], &[Key(invalid.key)]].concat(), invalid.message),
        };
        if let Model::SocialForce(sf) = model {
            let stable = crate::models::social_force::stable_dt(&sf);
            if dt > stable {
                self.warn(
                    &at,
                    format!(
                        "dt {dt} s is longer than social force's stable step with these forces ({stable:.4} s = 1 / √(body + strength / range)); bodies may pass through each other: take dt <= {stable:.4}"
                    ),
                );
            }
        }
        Some(model)
    }
}
