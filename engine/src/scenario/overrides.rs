//! Parameter overrides: `--set KEY=VALUE` on `throng run`, and the `set`, `grid` and `points`
//! tables of a batch file. Both use this one mechanism.
//!
//! An override replaces (or adds) one value of the scenario's TOML document *before* it is
//! validated, so an overridden scenario is checked exactly like a file, and a problem is
//! reported at the override (`--set`, or the batch file's line:col), naming its key.
//!
//! ## Keys
//!
//! A key is a dotted path into the scenario document, e.g. `dt`, `bounds.max`,
//! `targets.beacon.speed`. An element of an array of tables is selected by its `name` (groups:
//! `groups.boids.max_speed`), else by its `kind` when only one element has it (behaviours:
//! `groups.boids.behaviours.separation.radius`), else by its 0-based index (`groups.0`,
//! `groups.boids.behaviours.2.weight`). A segment with dots or spaces is quoted:
//! `groups."my group".count`.
//!
//! A table value is split into one override per leaf (`max_speed = { min = 1, max = 2 }` sets
//! `max_speed.min` and `max_speed.max`), so TOML's own dotted keys in a batch file mean the
//! same as quoted ones. Below a number, a key turns the number into a table: this is how a
//! fixed parameter becomes a range.
//!
//! One key is not a path into the document: [`AGENTS_KEY`] (`agents = N`) scales the overridden
//! scenario to N agents at its own density ([`Scenario::scaled`], as `throng bench --agents`
//! does), after every other override. `throng run --agents N` and `throng record --agents N`
//! are this override, so checkpoints, golden files and batch run ids record it like any other.

use std::fmt;
use std::path::Path;

use crate::scenario::bulk::Placeholders;
pub use crate::scenario::error::{KeyError, ValueError};
use crate::scenario::wide::WideIntegers;
use crate::scenario::{MAX_AGENTS, Scenario, ScenarioError, nearest_word};

/// The override key that scales a scenario to a number of agents instead of setting a value.
pub const AGENTS_KEY: &str = "agents";

/// The override `agents = n`, as a program's own option gives it; its errors name `origin`.
pub fn agents_override(n: u64, origin: Origin) -> Override {
    Override { key: AGENTS_KEY.into(), value: toml::Value::Integer(n.min(i64::MAX as u64) as i64), origin }
}

/// Where an override was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A `KEY=VALUE` argument of a program, named as the program names the option.
    Arg(String),
    /// In a file (a batch file), at 1-based line and column.
    File {
        /// The file, as its path was given.
        file: String,
        /// 1-based line of the overridden value.
        line: usize,
        /// 1-based column of the overridden value.
        col: usize,
    },
    /// Somewhere else, named (a golden file's recorded overrides).
    Other(String),
}

/// One override: a dotted key and the value it sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The key in canonical form (segments re-quoted only where needed).
    pub key: String,
    /// The value it sets, as TOML (a bare word on the command line is read as a string).
    pub value: toml::Value,
    /// Where it was written, so that errors about it point there.
    pub origin: Origin,
}

impl Override {
    /// `key = value`, the value in TOML's inline syntax: the form used in run ids and outputs.
    pub fn canonical(&self) -> String {
        format!("{} = {}", self.key, inline(&self.value))
    }

    /// A `ScenarioError` placed at this override: at its file position, or at `--set`.
    pub fn error(&self, message: impl Into<String>) -> ScenarioError {
        match &self.origin {
            Origin::Arg(option) => ScenarioError {
                file: option.clone(),
                location: None,
                key: self.key.clone(),
                message: message.into(),
            },
            Origin::File { file, line, col } => ScenarioError {
                file: file.clone(),
                location: Some((*line, *col)),
                key: self.key.clone(),
                message: message.into(),
            },
            Origin::Other(name) => ScenarioError {
                file: name.clone(),
                location: None,
                key: self.key.clone(),
                message: message.into(),
            },
        }
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

/// A value in TOML's inline syntax (`1.5`, `"kd"`, `[1, 2]`).
pub fn inline(value: &toml::Value) -> String {
    value.to_string()
}

/// The sorted `key = value` lines of a set of overrides: equal sets give equal lists whatever
/// order they were written in.
pub fn canonical(overrides: &[Override]) -> Vec<String> {
    let mut v: Vec<String> = overrides.iter().map(Override::canonical).collect();
    v.sort();
    v
}

/// BLAKE3 of a scenario file's content hash and its overrides: what a checkpoint or a golden
/// file is tied to.
pub fn config_hash(content_hash: &[u8; 32], overrides: &[Override]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(b"throng-config-v1\0");
    h.update(content_hash);
    for line in canonical(overrides) {
        h.update(&(line.len() as u64).to_le_bytes());
        h.update(line.as_bytes());
    }
    *h.finalize().as_bytes()
}

// ---------------------------------------------------------------------------------------------
// Keys.

/// Splits a dotted key into segments; `"..."` quotes a segment holding dots or spaces.
pub fn split_key(key: &str) -> Result<Vec<String>, KeyError> {
    let mut segs = Vec::new();
    let mut chars = key.trim().chars().peekable();
    if chars.peek().is_none() {
        return Err(KeyError::Empty);
    }
    loop {
        let mut seg = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(c) => seg.push(c),
                        None => return Err(KeyError::UnterminatedQuote { key: key.into() }),
                    },
                    Some(c) => seg.push(c),
                    None => return Err(KeyError::UnterminatedQuote { key: key.into() }),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' {
                    break;
                }
                if !(c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                    return Err(KeyError::Character { c, key: key.into() });
                }
                seg.push(c);
                chars.next();
            }
            if seg.is_empty() {
                return Err(KeyError::EmptySegment { key: key.into() });
            }
        }
        segs.push(seg);
        match chars.next() {
            None => return Ok(segs),
            Some('.') => {}
            Some(c) => return Err(KeyError::AfterQuote { c, key: key.into() }),
        }
    }
}

/// Joins segments into a key, quoting those that need it.
pub fn join_key<S: AsRef<str>>(segs: &[S]) -> String {
    segs.iter()
        .map(|s| {
            let s = s.as_ref();
            if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                s.to_string()
            } else {
                format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// One override per leaf of `value` under `key` (a non-table value is its own leaf).
pub fn leaves(key: &[String], value: toml::Value, origin: &Origin, out: &mut Vec<Override>) {
    match value {
        toml::Value::Table(t) if !t.is_empty() => {
            for (k, v) in t {
                let mut sub = key.to_vec();
                sub.push(k);
                leaves(&sub, v, origin, out);
            }
        }
        value => out.push(Override { key: join_key(key), value, origin: origin.clone() }),
    }
}

/// Parses a `KEY=VALUE` argument of the option named `option` (errors name it). VALUE is a
/// TOML value (`1.5`, `[0, 0]`, `{ min = 1, max = 2 }`, `"text"`); a bare word such as
/// `brute` is taken as a string.
pub fn parse_set(arg: &str, option: &str) -> Result<Vec<Override>, ScenarioError> {
    let err = |key: &str, message: String| ScenarioError {
        file: option.into(),
        location: None,
        key: key.to_string(),
        message,
    };
    let Some((key, value)) = arg.split_once('=') else {
        return Err(err("", format!("expected KEY=VALUE, found `{arg}`")));
    };
    let segs = split_key(key).map_err(|m| err(key.trim(), m.to_string()))?;
    let canonical = join_key(&segs);
    let value = parse_value(value.trim()).map_err(|m| err(&canonical, m.to_string()))?;
    let mut out = Vec::new();
    leaves(&segs, value, &Origin::Arg(option.into()), &mut out);
    Ok(out)
}

/// A TOML value from text; a bare word (letters, digits, `_`, `-`, starting with a letter) is a
/// string.
pub fn parse_value(text: &str) -> Result<toml::Value, ValueError> {
    let bare = text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match text.parse::<toml::Value>() {
        Ok(v) => Ok(v),
        Err(_) if bare => Ok(toml::Value::String(text.to_string())),
        Err(e) => Err(ValueError { text: text.into(), reason: super::locate::value_reason(e.message()) }),
    }
}

/// Rejects a key set twice, at its second place.
pub fn check_unique(overrides: &[Override]) -> Result<(), ScenarioError> {
    for (i, o) in overrides.iter().enumerate() {
        if let Some(first) = overrides[..i].iter().find(|p| p.key == o.key) {
            let at = match &first.origin {
                Origin::Arg(option) => format!("by another {option}"),
                Origin::File { file, line, col } => format!("at {file}:{line}:{col}"),
                Origin::Other(name) => format!("in {name}"),
            };
            return Err(o.error(format!("`{}` is already set {at}", o.key)));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Applying overrides to a scenario.

/// Reads a scenario file and applies `overrides` before validation. With no overrides this is
/// exactly [`Scenario::load`]. The scenario's `content_hash` is always that of the file.
pub fn load(path: &Path, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
    load_as(path, overrides)
}

/// [`load`] for a scenario whose points are `V`s (`Vec3`: a scenario in space).
pub fn load_as<V: crate::world::Dimension>(
    path: &Path,
    overrides: &[Override],
) -> Result<Scenario<V>, ScenarioError> {
    // Read once: the file is validated alone, then with the overrides applied to its text.
    let (file, text) = crate::scenario::read_source(path, "a scenario file (.toml)")?;
    parse_as(&text, &file, overrides)
}

/// Validates planar scenario `text` (named `origin`) with `overrides` applied.
pub fn parse(text: &str, origin: &str, overrides: &[Override]) -> Result<Scenario, ScenarioError> {
    parse_as(text, origin, overrides)
}

/// [`parse`] for a scenario whose points are `V`s (`Vec3`: a scenario in space).
pub fn parse_as<V: crate::world::Dimension>(
    text: &str,
    origin: &str,
    overrides: &[Override],
) -> Result<Scenario<V>, ScenarioError> {
    let base = Scenario::<V>::parse_as(text, origin)?;
    if overrides.is_empty() {
        return Ok(base);
    }
    apply(&base, text, overrides)
}

/// `base` is `text` validated without overrides: a file must be valid on its own, so every
/// problem found after applying the overrides is theirs.
fn apply<V: crate::world::Dimension>(
    base: &Scenario<V>,
    text: &str,
    overrides: &[Override],
) -> Result<Scenario<V>, ScenarioError> {
    check_unique(overrides)?;
    let origin = base.origin.as_str();
    // Long point lists stand aside as placeholders while the document is edited, so that an
    // override costs no more memory than loading the file (see `bulk`); so do whole numbers
    // wider than a TOML value holds (a seed beyond `i64`, see `wide`).
    let lists = Placeholders::new(text);
    let text = lists.as_ref().map_or(text, |l| l.text.as_str());
    let wide = WideIntegers::new(text);
    let text = wide.as_ref().map_or(text, |w| w.text.as_str());
    let mut doc = toml::Value::Table(text.parse::<toml::Table>().map_err(|e| ScenarioError {
        file: origin.into(),
        location: None,
        key: String::new(),
        message: format!("cannot re-read the TOML document: {}", e.message().trim()),
    })?);
    // The path of each override in the validator's notation (`groups[0].max_speed`).
    let mut paths = vec![String::new(); overrides.len()];
    let mut scale: Option<(u64, &Override)> = None;
    // A model's `kind` first: setting it starts the model's table afresh (see `set`), and the
    // same override's other keys (`{ kind = "cfsm", preset = "corridor" }`) go in after it.
    let is_model_kind = |o: &Override| o.key.ends_with("model.kind") || o.key == "model.kind";
    let order = (0..overrides.len())
        .filter(|&k| is_model_kind(&overrides[k]))
        .chain((0..overrides.len()).filter(|&k| !is_model_kind(&overrides[k])));
    for k in order {
        let o = &overrides[k];
        if o.key == AGENTS_KEY {
            let n = o.value.as_integer().filter(|&n| n >= 1 && n as u64 <= MAX_AGENTS).ok_or_else(|| {
                o.error(format!(
                    "expected a whole number of agents from 1 to {MAX_AGENTS} to scale the scenario to, found `{}`",
                    inline(&o.value)
                ))
            })?;
            scale = Some((n as u64, o));
            continue; // no path: validation errors are never this override's
        }
        let segs = split_key(&o.key).map_err(|m| o.error(m.to_string()))?;
        paths[k] =
            set(&mut doc, &segs, o.value.clone()).map_err(|m| o.error(format!("{m} (in {origin})")))?;
    }
    let toml::Value::Table(table) = doc else { unreachable!("the document stays a table") };
    let written = toml::to_string(&table).map_err(|e| ScenarioError {
        file: origin.into(),
        location: None,
        key: String::new(),
        message: format!("cannot write the overridden document: {e}"),
    })?;
    let written = if let Some(w) = &wide { w.restore(&written) } else { written };
    let new_text = if let Some(l) = &lists { l.restore(&written) } else { written };
    match Scenario::<V>::parse_as(&new_text, origin) {
        Ok(mut s) => {
            s.content_hash = base.content_hash;
            s.overrides = canonical(overrides);
            // A warning the file already had keeps its place in the file; a new one is the
            // overrides' and has no place there.
            for w in &mut s.warnings {
                match base.warnings.iter().find(|b| b.key == w.key && b.message == w.message) {
                    Some(b) => w.location = b.location,
                    None => {
                        w.location = None;
                        w.message = format!("{} (with overrides)", w.message);
                    }
                }
            }
            // Scaled last, so it scales the overridden counts and geometry.
            match scale {
                Some((n, o)) => s.scaled(n).map_err(|e| o.error(format!("{e} (scaling {origin})"))),
                None => Ok(s),
            }
        }
        Err(e) => Err(attribute(e, origin, overrides, &paths)),
    }
}

/// Places a validation error of the overridden document at the override it concerns: the one
/// whose path contains the error's key or is contained in it (the deepest such). An error that
/// no override's path explains (a cross-field check) is placed at the first override.
fn attribute(e: ScenarioError, origin: &str, overrides: &[Override], paths: &[String]) -> ScenarioError {
    let related = |a: &str, b: &str| {
        a == b
            || (a.starts_with(b) && matches!(a.as_bytes().get(b.len()), Some(b'.' | b'[')))
            || (b.starts_with(a) && matches!(b.as_bytes().get(a.len()), Some(b'.' | b'[')))
    };
    let best = paths
        .iter()
        .enumerate()
        .filter(|(_, p)| !e.key.is_empty() && !p.is_empty() && related(&e.key, p))
        .max_by_key(|(i, p)| (p.len(), usize::MAX - i))
        .map(|(i, _)| i)
        // A cross-field check of one item (`obstacles[1].max` below `min`) is the doing of an
        // override of a sibling key: the one sharing the longest item path with the error.
        .or_else(|| {
            let parent = |k: &str| k.rfind(['.', '[']).map(|at| k[..at].to_string());
            let error_item = parent(&e.key)?;
            paths
                .iter()
                .enumerate()
                .filter(|(_, p)| parent(p).is_some_and(|item| item == error_item))
                .max_by_key(|(i, _)| usize::MAX - i)
                .map(|(i, _)| i)
        });
    match best {
        Some(i) => {
            let o = &overrides[i];
            let mut message = e.message;
            if e.key != paths[i] {
                message = format!("`{}`: {message}", e.key);
            }
            o.error(format!("{message} (overriding {origin})"))
        }
        None => {
            let list: Vec<String> = overrides.iter().map(Override::canonical).collect();
            let key = if e.key.is_empty() { String::new() } else { format!("`{}`: ", e.key) };
            let mut err = overrides[0].error(format!(
                "{key}{} (in {origin} with overrides {})",
                e.message,
                list.join(", ")
            ));
            err.key = String::new();
            err
        }
    }
}

/// Sets `value` at `segs` in `doc`; returns the path in the validator's notation. A model's
/// `kind` (`groups.NAME.model.kind`) replaces the whole model table: the old model's
/// parameters and preset do not carry over to the one the override names, even of the same
/// kind (a batch sweeping `{ kind = "cfsm" }` against a file's `{ kind = "cfsm", preset =
/// "bottleneck" }` means JuPedSim's defaults).
fn set(doc: &mut toml::Value, segs: &[String], value: toml::Value) -> Result<String, String> {
    let mut cur = doc;
    let mut vpath = String::new();
    let mut value = Some(value);
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let here = if i == 0 { "the scenario".to_string() } else { format!("`{}`", join_key(&segs[..i])) };
        if !matches!(cur, toml::Value::Table(_) | toml::Value::Array(_)) {
            // A key below a plain value: the value becomes a table (a number becomes a range).
            *cur = toml::Value::Table(toml::Table::new());
        }
        cur = match cur {
            toml::Value::Table(t) => {
                if !t.contains_key(seg.as_str()) && !last {
                    if let Some(near) = nearest_word(seg, t.keys().map(String::as_str)) {
                        return Err(format!("{here} has no key `{seg}`; did you mean `{near}`?"));
                    }
                    t.insert(seg.clone(), toml::Value::Table(toml::Table::new()));
                }
                if !vpath.is_empty() {
                    vpath.push('.');
                }
                vpath.push_str(seg);
                if last {
                    if seg == "kind" && i > 0 && segs[i - 1] == "model" {
                        t.clear();
                    }
                    t.insert(seg.clone(), value.take().expect("set once"));
                    return Ok(vpath);
                }
                t.get_mut(seg.as_str()).expect("present or inserted")
            }
            toml::Value::Array(items) => {
                let k = select(items, seg, &here)?;
                vpath.push_str(&format!("[{k}]"));
                if last {
                    items[k] = value.take().expect("set once");
                    return Ok(vpath);
                }
                &mut items[k]
            }
            _ => unreachable!("made a table above"),
        };
    }
    Err("empty key".into())
}

/// The element of an array that `seg` names: by `name`, by `kind` (when unique), or by index.
fn select(items: &[toml::Value], seg: &str, here: &str) -> Result<usize, String> {
    let field = |item: &toml::Value, key: &str| item.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let names: Vec<String> = items.iter().filter_map(|v| field(v, "name")).collect();
    if let Some(k) = items.iter().position(|v| field(v, "name").as_deref() == Some(seg)) {
        return Ok(k);
    }
    let kinds: Vec<usize> =
        (0..items.len()).filter(|&k| field(&items[k], "kind").as_deref() == Some(seg)).collect();
    match kinds.len() {
        1 => return Ok(kinds[0]),
        0 => {}
        _ => {
            let list: Vec<String> = kinds.iter().map(|k| k.to_string()).collect();
            return Err(format!(
                "{here} has {} elements of kind `{seg}`; select one by index ({})",
                kinds.len(),
                list.join(", ")
            ));
        }
    }
    if let Ok(k) = seg.parse::<usize>() {
        if k < items.len() {
            return Ok(k);
        }
        return Err(format!("{here} has {} elements; index {k} is out of range", items.len()));
    }
    let all_kinds: Vec<String> = items.iter().filter_map(|v| field(v, "kind")).collect();
    let candidates = names.iter().chain(&all_kinds).map(String::as_str);
    let hint = nearest_word(seg, candidates).map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
    let mut known = Vec::new();
    if !names.is_empty() {
        known.push(format!("names: {}", names.join(", ")));
    }
    if !all_kinds.is_empty() {
        known.push(format!("kinds: {}", all_kinds.join(", ")));
    }
    known.push(format!("or an index below {}", items.len()));
    Err(format!("no element of {here} is named `{seg}`{hint} ({})", known.join("; ")))
}

#[cfg(test)]
mod tests;
