//! Behaviour parameter tables. Every behaviour kind declares, in its family's file, one
//! [`KindSpec`]: its keys with unit, default, accepted values and meaning, and how the checked
//! values make a [`Behaviour`]. That one table drives the scenario validator (which keys a kind
//! takes, their defaults and ranges, the messages) and the behaviour table of
//! docs/scenarios.md ([`docs_table`], checked by a test).

use std::ops::Range as Span;

use super::Behaviour;
use crate::world::{Target, TargetId};

/// Largest magnitude accepted for lengths and speeds (world units).
pub const MAX_LENGTH: f32 = 1e7;

/// What a number must be.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// `0 < x <= max`.
    Positive(f32),
    /// `0 <= x <= max`.
    NonNegative(f32),
    /// `|x| <= max`.
    Finite(f32),
    /// `lo <= x <= hi`.
    Between(f32, f32),
}

impl Range {
    /// Does `x` (finite) lie in the range?
    pub fn holds(self, x: f32) -> bool {
        x.is_finite()
            && match self {
                Range::Positive(max) => x > 0.0 && x <= max,
                Range::NonNegative(max) => (0.0..=max).contains(&x),
                Range::Finite(max) => x.abs() <= max,
                Range::Between(lo, hi) => (lo..=hi).contains(&x),
            }
    }

    /// The range in words, for messages: "a finite number > 0 and <= 1e7".
    pub fn describe(self) -> String {
        match self {
            Range::Positive(max) => format!("a finite number > 0 and <= {max:e}"),
            Range::NonNegative(max) => format!("a finite number >= 0 and <= {max:e}"),
            Range::Finite(max) => format!("a finite number between {:e} and {max:e}", -max),
            Range::Between(lo, hi) => format!("a finite number from {lo} to {hi}"),
        }
    }

    /// The range in symbols, for the docs table: "`> 0`, `<= 1e7`".
    pub fn short(self) -> String {
        match self {
            Range::Positive(max) => format!("`> 0`, `<= {max:e}`"),
            Range::NonNegative(max) if max <= 10.0 => format!("`0` to `{max}`"),
            Range::NonNegative(max) => format!("`>= 0`, `<= {max:e}`"),
            Range::Finite(max) => format!("`{:e}` to `{max:e}`", -max),
            Range::Between(lo, hi) => format!("`{lo}` to `{hi}`"),
        }
    }
}

/// The default of a number parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    /// The key must be given.
    Required,
    /// This value.
    Value(f32),
    /// The value of another parameter of the same behaviour (declared before it).
    SameAs(&'static str),
    /// Absent means "not set"; the behaviour computes what it needs instead.
    Absent(&'static str),
}

/// What a parameter's value is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A number in a range.
    Number(Range, Default),
    /// One of a few words; the first is not necessarily the default.
    Choice(&'static [&'static str], &'static str),
    /// A target reference: the name of a `[targets]` entry or a point `[x, y]`. Required.
    Target,
    /// The name of a `[targets]` entry of kind `"agent"`. Required.
    AgentTarget,
    /// The name of a `[paths]` entry. Required.
    Path,
}

/// One parameter of a behaviour kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamSpec {
    /// The key in the scenario file.
    pub key: &'static str,
    /// Its value and default.
    pub kind: Kind,
    /// Its unit ("units", "units/s", "s", "force"), or "" for a pure number or word.
    pub unit: &'static str,
    /// What it means, in a few words (the docs table and "missing key" messages).
    pub meaning: &'static str,
}

/// A parameter's value once checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A number (`None`: absent, and absent is allowed).
    Number(Option<f32>),
    /// One of the parameter's words.
    Choice(&'static str),
    /// An index into the world's targets.
    Target(TargetId),
    /// An index into the world's paths.
    Path(u16),
}

/// A behaviour's checked parameters, by key: what [`KindSpec::build`] reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args(Vec<(&'static str, Arg)>);

impl Args {
    /// Records `key`'s value (the validator does this in table order).
    pub fn push(&mut self, key: &'static str, arg: Arg) {
        self.0.push((key, arg));
    }

    fn get(&self, key: &str) -> Arg {
        match self.0.iter().find(|(k, _)| *k == key) {
            Some((_, a)) => *a,
            None => panic!("`{key}` is not in the kind's table"),
        }
    }

    /// A number that always has a value (required, or with a default).
    pub fn number(&self, key: &str) -> f32 {
        self.optional(key).unwrap_or_else(|| panic!("`{key}` has a value"))
    }

    /// A number that may be absent.
    pub fn optional(&self, key: &str) -> Option<f32> {
        match self.get(key) {
            Arg::Number(x) => x,
            other => panic!("`{key}` is not a number: {other:?}"),
        }
    }

    /// A word parameter's value.
    pub fn choice(&self, key: &str) -> &'static str {
        match self.get(key) {
            Arg::Choice(c) => c,
            other => panic!("`{key}` is not a choice: {other:?}"),
        }
    }

    /// A target parameter's index.
    pub fn target(&self, key: &str) -> TargetId {
        match self.get(key) {
            Arg::Target(t) => t,
            other => panic!("`{key}` is not a target: {other:?}"),
        }
    }

    /// A path parameter's index.
    pub fn path(&self, key: &str) -> u16 {
        match self.get(key) {
            Arg::Path(p) => p,
            other => panic!("`{key}` is not a path: {other:?}"),
        }
    }
}

/// What [`KindSpec::build`] may check its values against: the rest of the scenario.
#[derive(Clone, Debug)]
pub struct Context<'a> {
    /// The scenario's targets, by index.
    pub targets: &'a [Target],
    /// The names of the `[targets]` entries, by index (targets given as points follow them).
    pub target_names: &'a [&'a str],
    /// The scenario's paths: name and node count, by index.
    pub paths: &'a [(&'a str, usize)],
    /// The group the behaviour belongs to.
    pub group: &'a str,
    /// The ids the group's agents get at tick 0.
    pub group_ids: Span<u64>,
}

/// A problem [`KindSpec::build`] found: at which key, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    /// The parameter the message is about.
    pub key: &'static str,
    /// What is wrong, in words.
    pub message: String,
}

/// One behaviour kind: its key, its force in the docs' notation, its parameters, and how it
/// is made from them.
#[derive(Clone, Copy, Debug)]
pub struct KindSpec {
    /// The `kind` key's value.
    pub name: &'static str,
    /// The force, as docs/scenarios.md states it.
    pub force: &'static str,
    /// Whether it takes a `weight` (every kind but `queue`, which brakes after the sum).
    pub weighted: bool,
    /// Its parameters, in the order they are checked and documented.
    pub params: &'static [ParamSpec],
    /// The behaviour from checked values; cross-parameter checks fail at a key.
    pub build: fn(&Args, &Context) -> Result<Behaviour, Invalid>,
}

impl KindSpec {
    /// The keys this kind takes, `weight` first where it takes one.
    pub fn keys(&self) -> Vec<&'static str> {
        let weight = self.weighted.then_some("weight");
        weight.into_iter().chain(self.params.iter().map(|p| p.key)).collect()
    }
}

/// A length in world units, greater than zero.
pub const fn length(key: &'static str, default: Default, meaning: &'static str) -> ParamSpec {
    ParamSpec { key, kind: Kind::Number(Range::Positive(MAX_LENGTH), default), unit: "units", meaning }
}

/// A length in world units, zero allowed.
pub const fn length0(key: &'static str, default: Default, meaning: &'static str) -> ParamSpec {
    ParamSpec { key, kind: Kind::Number(Range::NonNegative(MAX_LENGTH), default), unit: "units", meaning }
}

/// A force magnitude, zero allowed.
pub const fn force(key: &'static str, default: f32, meaning: &'static str) -> ParamSpec {
    ParamSpec {
        key,
        kind: Kind::Number(Range::NonNegative(1e9), Default::Value(default)),
        unit: "force",
        meaning,
    }
}

/// The `target` every seeking kind takes.
pub const fn target(meaning: &'static str) -> ParamSpec {
    ParamSpec { key: "target", kind: Kind::Target, unit: "", meaning }
}

/// Why a required key is needed, for "missing key" messages.
pub fn missing_hint(p: &ParamSpec) -> String {
    match p.kind {
        Kind::Target => "a name from [targets] or a point [x, y]".into(),
        Kind::AgentTarget => "a target of kind \"agent\"".into(),
        Kind::Path => "a name from [paths]".into(),
        _ => match p.unit {
            "units" => format!("{}, world units", p.meaning),
            "" => p.meaning.into(),
            unit => format!("{}, {unit}", p.meaning),
        },
    }
}

/// The docs' behaviour table (Markdown), one row per kind with its force, then one per
/// parameter. docs/scenarios.md holds it between markers; a test keeps the two equal.
pub fn docs_table(kinds: &[&KindSpec]) -> String {
    let mut out =
        String::from("| `kind` | parameter | default | accepted | meaning |\n|---|---|---|---|---|\n");
    for k in kinds {
        let weight = if k.weighted { "" } else { " (takes no `weight`)" };
        out.push_str(&format!("| `{}` | | | | force: {}{weight} |\n", k.name, k.force));
        for p in k.params {
            let (default, accepted) = match p.kind {
                Kind::Number(range, default) => {
                    let d = match default {
                        Default::Required => "required".to_string(),
                        Default::Value(v) => format!("`{v:?}`"),
                        Default::SameAs(key) => format!("`{key}`"),
                        Default::Absent(computed) => computed.to_string(),
                    };
                    let unit = if p.unit.is_empty() { String::new() } else { format!(" ({})", p.unit) };
                    (d, format!("{}{unit}", range.short()))
                }
                Kind::Choice(options, default) => {
                    let words: Vec<String> = options.iter().map(|o| format!("`\"{o}\"`")).collect();
                    (format!("`\"{default}\"`"), words.join(", "))
                }
                Kind::Target => ("required".into(), "a [target reference](#target-references)".into()),
                Kind::AgentTarget => ("required".into(), "the name of a target of kind `\"agent\"`".into()),
                Kind::Path => ("required".into(), "a key of `[paths]`".into()),
            };
            out.push_str(&format!("| | `{}` | {default} | {accepted} | {} |\n", p.key, p.meaning));
        }
    }
    out
}
