//! The batch-file parser: sweeps, seeds, grids and points, located errors.

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{DEFAULT_TRACE_EVERY, FORMAT_VERSION, Keep, MAX_RUNS, Plan, PlannedRun, hex16, point_id, run_id};
use crate::scenario::overrides::{self, Origin, Override};
use crate::scenario::{AnyScenario, ScenarioError, line_col, nearest_word, value_reason};

pub(super) struct Parser<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
}

/// Entries of a table in file order (toml sorts them by key).
pub(super) fn entries<'t, 'i>(
    t: &'t DeTable<'i>,
) -> Vec<(&'t Spanned<std::borrow::Cow<'i, str>>, &'t Spanned<DeValue<'i>>)> {
    let mut v: Vec<_> = t.iter().collect();
    v.sort_by_key(|(k, _)| k.span().start);
    v
}

/// A grid key: its key, where it is written, and for each value swept the overrides it sets.
type GridKey = (String, Range<usize>, Vec<Vec<Override>>);

/// A sweep as written.
struct Sweep {
    key: String,
    span: Range<usize>,
    scenarios: Vec<(String, Range<usize>)>,
    seeds: Option<Vec<u64>>,
    set: Vec<Override>,
    grid: Vec<GridKey>,
    points: Vec<Vec<Override>>,
}

impl Parser<'_> {
    pub(super) fn err(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: self.file.into(),
            location: Some(line_col(self.text, span.start)),
            key: key.into(),
            message: message.into(),
        }
    }

    fn origin(&self, span: &Range<usize>) -> Origin {
        let (line, col) = line_col(self.text, span.start);
        Origin::File { file: self.file.into(), line, col }
    }

    pub(super) fn unknown(
        &self,
        k: &Spanned<std::borrow::Cow<'_, str>>,
        path: &str,
        allowed: &[&str],
    ) -> ScenarioError {
        let key = k.get_ref();
        let hint = nearest_word(key, allowed.iter().copied())
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        let full = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
        self.err(
            k.span(),
            &full,
            format!("unknown key `{key}`{hint} (expected one of: {})", allowed.join(", ")),
        )
    }

    pub(super) fn table<'t, 'i>(
        &self,
        v: &'t Spanned<DeValue<'i>>,
        key: &str,
        what: &str,
    ) -> Result<&'t DeTable<'i>, ScenarioError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.err(v.span(), key, format!("expected {what}, found {}", other.type_str()))),
        }
    }

    pub(super) fn string(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<String, ScenarioError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.err(v.span(), key, format!("expected a string, found {}", other.type_str()))),
        }
    }

    fn integer(&self, v: &Spanned<DeValue<'_>>, key: &str, what: &str) -> Result<u64, ScenarioError> {
        // From the digits as written: every seed a scenario takes (to u64's largest), where a
        // TOML value holds only up to i64's.
        let parsed = match v.get_ref() {
            DeValue::Integer(n) => u64::from_str_radix(&n.as_str().replace('_', ""), n.radix()).ok(),
            _ => None,
        };
        parsed.ok_or_else(|| {
            self.err(v.span(), key, format!("expected {what}, found {}", self.text[v.span()].trim()))
        })
    }

    /// The value at `v` as a `toml::Value`, from its source text.
    pub(super) fn value(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<toml::Value, ScenarioError> {
        let src = &self.text[v.span()];
        match v.get_ref() {
            DeValue::String(s) => Ok(toml::Value::String(s.to_string())),
            _ => src.trim().parse::<toml::Value>().map_err(|e| {
                self.err(v.span(), key, format!("cannot read this value: {}", value_reason(e.message())))
            }),
        }
    }

    /// Overrides from a table of dotted keys (quoted, or TOML's own dotted keys: nested
    /// tables are flattened to their leaves).
    fn overrides(
        &self,
        t: &DeTable<'_>,
        prefix: &[String],
        path: &str,
        out: &mut Vec<Override>,
    ) -> Result<(), ScenarioError> {
        for (k, v) in entries(t) {
            let mut segs = prefix.to_vec();
            let split =
                overrides::split_key(k.get_ref()).map_err(|m| self.err(k.span(), path, m.to_string()))?;
            segs.extend(split);
            match v.get_ref() {
                DeValue::Table(inner) if !inner.is_empty() => self.overrides(inner, &segs, path, out)?,
                _ => {
                    let key = overrides::join_key(&segs);
                    if segs[0] == "seed" {
                        return Err(self.err(
                            k.span(),
                            &key,
                            "the seed is not an override: list seeds with `seeds = [...]`",
                        ));
                    }
                    let value = self.value(v, &key)?;
                    out.push(Override { key, value, origin: self.origin(&v.span()) });
                }
            }
        }
        Ok(())
    }

    /// A grid: dotted keys to lists of values; nested tables are flattened until a list.
    fn grid(
        &self,
        t: &DeTable<'_>,
        prefix: &[String],
        path: &str,
        out: &mut Vec<GridKey>,
    ) -> Result<(), ScenarioError> {
        for (k, v) in entries(t) {
            let mut segs = prefix.to_vec();
            segs.extend(
                overrides::split_key(k.get_ref()).map_err(|m| self.err(k.span(), path, m.to_string()))?,
            );
            let key = overrides::join_key(&segs);
            match v.get_ref() {
                DeValue::Table(inner) if !inner.is_empty() => self.grid(inner, &segs, path, out)?,
                DeValue::Array(items) if !items.is_empty() => {
                    if segs[0] == "seed" {
                        return Err(self.err(
                            k.span(),
                            &key,
                            "the seed is not an override: list seeds with `seeds = [...]`",
                        ));
                    }
                    let mut values = Vec::new();
                    for item in items.iter() {
                        let mut leaves = Vec::new();
                        let value = match item.get_ref() {
                            DeValue::Table(it) => {
                                self.overrides(it, &segs, path, &mut leaves)?;
                                values.push(leaves);
                                continue;
                            }
                            _ => self.value(item, &key)?,
                        };
                        leaves.push(Override { key: key.clone(), value, origin: self.origin(&item.span()) });
                        values.push(leaves);
                    }
                    out.push((key, k.span(), values));
                }
                DeValue::Array(_) => return Err(self.err(v.span(), &key, "a grid needs at least one value")),
                other => {
                    return Err(self.err(
                        v.span(),
                        &key,
                        format!(
                            "a grid lists the values to sweep: `{key} = [v1, v2, ...]`, found {}",
                            other.type_str()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn seeds(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<Vec<u64>, ScenarioError> {
        let seeds = match v.get_ref() {
            DeValue::Array(items) => {
                let mut s = Vec::new();
                for item in items.iter() {
                    s.push(self.integer(
                        item,
                        key,
                        &format!("a seed (a whole number from 0 to {})", u64::MAX),
                    )?);
                }
                s
            }
            DeValue::Table(t) => {
                let (mut from, mut count) = (None, None);
                for (k, x) in entries(t) {
                    match k.get_ref().as_ref() {
                        "from" => {
                            let what = format!("a first seed from 0 to {}", u64::MAX);
                            from = Some(self.integer(x, &format!("{key}.from"), &what)?)
                        }
                        "count" => {
                            let what = format!("a count from 1 to {MAX_RUNS}");
                            count = Some((self.integer(x, &format!("{key}.count"), &what)?, x.span()))
                        }
                        _ => return Err(self.unknown(k, key, &["from", "count"])),
                    }
                }
                let (Some(from), Some(count)) = (from, count) else {
                    return Err(self.err(
                        v.span(),
                        key,
                        "a seed range needs `from` and `count`: { from = 1, count = 10 }",
                    ));
                };
                let (count, count_span) = count;
                if count == 0 || count > MAX_RUNS as u64 {
                    return Err(self.err(
                        count_span,
                        &format!("{key}.count"),
                        format!("expected a count from 1 to {MAX_RUNS}, found {count}"),
                    ));
                }
                let Some(last) = from.checked_add(count - 1) else {
                    return Err(self.err(
                        v.span(),
                        key,
                        format!("the seed range runs past the largest seed, {}", u64::MAX),
                    ));
                };
                (from..=last).collect()
            }
            other => {
                return Err(self.err(
                    v.span(),
                    key,
                    format!(
                        "expected a list of seeds or {{ from = .., count = .. }}, found {}",
                        other.type_str()
                    ),
                ));
            }
        };
        if seeds.is_empty() {
            return Err(self.err(v.span(), key, "expected at least one seed"));
        }
        let mut seen = BTreeSet::new();
        for s in &seeds {
            if !seen.insert(s) {
                return Err(self.err(v.span(), key, format!("seed {s} is listed twice")));
            }
        }
        Ok(seeds)
    }

    fn sweep(&self, k: usize, v: &Spanned<DeValue<'_>>) -> Result<Sweep, ScenarioError> {
        let key = format!("sweep[{k}]");
        let t = self.table(v, &key, "a table ([[sweep]])")?;
        let mut s = Sweep {
            key: key.clone(),
            span: v.span(),
            scenarios: Vec::new(),
            seeds: None,
            set: Vec::new(),
            grid: Vec::new(),
            points: Vec::new(),
        };
        const ALLOWED: [&str; 6] = ["scenario", "scenarios", "seeds", "set", "grid", "points"];
        for (name, x) in entries(t) {
            let at = format!("{key}.{}", name.get_ref());
            match name.get_ref().as_ref() {
                "scenario" => s.scenarios.push((self.string(x, &at)?, x.span())),
                "scenarios" => match x.get_ref() {
                    DeValue::Array(items) if !items.is_empty() => {
                        for item in items.iter() {
                            s.scenarios.push((self.string(item, &at)?, item.span()));
                        }
                    }
                    _ => return Err(self.err(x.span(), &at, "expected a non-empty list of scenario files")),
                },
                "seeds" => s.seeds = Some(self.seeds(x, &at)?),
                "set" => self.overrides(self.table(x, &at, "a table of overrides")?, &[], &at, &mut s.set)?,
                "grid" => self.grid(self.table(x, &at, "a table of lists")?, &[], &at, &mut s.grid)?,
                "points" => match x.get_ref() {
                    DeValue::Array(items) if !items.is_empty() => {
                        for (i, item) in items.iter().enumerate() {
                            let at = format!("{at}[{i}]");
                            let mut o = Vec::new();
                            self.overrides(self.table(item, &at, "a table of overrides")?, &[], &at, &mut o)?;
                            s.points.push(o);
                        }
                    }
                    _ => return Err(self.err(x.span(), &at, "expected a non-empty list of override tables")),
                },
                _ => return Err(self.unknown(name, &key, &ALLOWED)),
            }
        }
        if s.scenarios.is_empty() {
            return Err(self.err(
                v.span(),
                &key,
                "missing key `scenario` (a scenario file, relative to the batch file)",
            ));
        }
        Ok(s)
    }

    pub(super) fn plan(&self, doc: &Spanned<DeTable<'_>>, dir: &Path) -> Result<Plan, ScenarioError> {
        let (mut version, mut name, mut ticks, mut global, mut sweeps) =
            (None, String::new(), None, Vec::new(), Vec::new());
        let mut expectations = Vec::new();
        let (mut keep, mut trace_every) = (Keep::default(), None);
        let mut keeps_trace = false;
        const ALLOWED: [&str; 9] =
            ["version", "name", "description", "ticks", "set", "sweep", "expect", "keep", "trace_every"];
        // A scenario given where a batch file is expected: say what it is.
        let has = |key: &str| doc.get_ref().iter().any(|(k, _)| k.get_ref() == key);
        if let Some((k, _)) = entries(doc.get_ref()).into_iter().find(|(k, _)| k.get_ref() == "groups")
            && !has("sweep")
        {
            return Err(self.err(
                k.span(),
                "groups",
                "this is a scenario file (it has [[groups]]), not a batch file; a batch file lists scenarios in [[sweep]] tables",
            ));
        }
        for (k, v) in entries(doc.get_ref()) {
            let key = k.get_ref().to_string();
            match key.as_str() {
                "version" => version = Some((self.integer(v, &key, "the format version 1")?, v.span())),
                "name" => name = self.string(v, &key)?,
                "description" => {
                    self.string(v, &key)?;
                }
                "ticks" => {
                    let t = self.integer(v, &key, "a tick count from 1 to 1e9")?;
                    if t == 0 || t > 1_000_000_000 {
                        return Err(self.err(
                            v.span(),
                            &key,
                            format!("expected a tick count from 1 to 1e9, found {t}"),
                        ));
                    }
                    ticks = Some(Override {
                        key: "ticks".into(),
                        value: toml::Value::Integer(t as i64),
                        origin: self.origin(&v.span()),
                    });
                }
                "set" => {
                    self.overrides(self.table(v, &key, "a table of overrides")?, &[], &key, &mut global)?
                }
                "expect" => expectations = self.expectations(v)?,
                "keep" => {
                    (keep.metrics, keeps_trace) = self.keep(v)?;
                }
                "trace_every" => {
                    let every = self.integer(v, &key, "a whole number of ticks from 1 to 1e9")?;
                    if every == 0 || every > 1_000_000_000 {
                        return Err(self.err(
                            v.span(),
                            &key,
                            format!("expected a whole number of ticks from 1 to 1e9, found {every}"),
                        ));
                    }
                    trace_every = Some((every, k.span()));
                }
                "sweep" => match v.get_ref() {
                    DeValue::Array(items) => {
                        for (i, item) in items.iter().enumerate() {
                            sweeps.push(self.sweep(i, item)?);
                        }
                    }
                    DeValue::Table(_) => sweeps.push(self.sweep(0, v)?),
                    other => {
                        return Err(self.err(
                            v.span(),
                            &key,
                            format!("expected [[sweep]] tables, found {}", other.type_str()),
                        ));
                    }
                },
                _ => return Err(self.unknown(k, "", &ALLOWED)),
            }
        }
        match version {
            None => {
                return Err(self.err(
                    0..0,
                    "version",
                    "missing key `version` (write `version = 1` at the top)",
                ));
            }
            Some((v, _)) if v as i64 == FORMAT_VERSION => {}
            Some((v, span)) => {
                return Err(self.err(
                    span,
                    "version",
                    format!("this engine reads batch format version {FORMAT_VERSION}, found {v}"),
                ));
            }
        }
        match (keeps_trace, trace_every) {
            (true, every) => keep.trace_every = Some(every.map_or(DEFAULT_TRACE_EVERY, |(e, _)| e)),
            (false, Some((_, span))) => {
                return Err(self.err(
                    span,
                    "trace_every",
                    "`trace_every` sets the interval of kept traces: add \"trace\" to `keep` (keep = [\"trace\"])",
                ));
            }
            (false, None) => {}
        }
        if sweeps.is_empty() {
            return Err(self.err(
                doc.span().end..doc.span().end,
                "sweep",
                "expected at least one [[sweep]] table",
            ));
        }

        let mut runs = Vec::new();
        let mut cache: Vec<(PathBuf, String)> = Vec::new();
        let mut seen = std::collections::BTreeMap::new();
        for s in &sweeps {
            for (file, span) in &s.scenarios {
                let path = dir.join(file);
                let at = format!("{}.scenario", s.key);
                let text = match cache.iter().find(|(p, _)| p == &path) {
                    Some((_, t)) => t.clone(),
                    None => {
                        // A bad scenario file is its own error, at its own place.
                        AnyScenario::load(&path).map_err(|e| {
                            if e.location.is_none() {
                                self.err(span.clone(), &at, format!("{}: {}", path.display(), e.message))
                            } else {
                                e
                            }
                        })?;
                        let t = std::fs::read_to_string(&path).map_err(|e| {
                            self.err(span.clone(), &at, format!("{}: cannot read: {e}", path.display()))
                        })?;
                        cache.push((path.clone(), t.clone()));
                        t
                    }
                };
                let points: Vec<Vec<Override>> =
                    if s.points.is_empty() { vec![Vec::new()] } else { s.points.clone() };
                for point in &points {
                    // Every grid combination, the first key outermost.
                    let mut combos: Vec<Vec<Override>> = vec![Vec::new()];
                    for (_, _, values) in &s.grid {
                        combos = combos
                            .iter()
                            .flat_map(|c| {
                                values.iter().map(move |v| c.iter().chain(v).cloned().collect::<Vec<_>>())
                            })
                            .collect();
                        if combos.len() > MAX_RUNS {
                            return Err(self.err(
                                s.span.clone(),
                                &s.key,
                                format!("the grid has more than {MAX_RUNS} combinations"),
                            ));
                        }
                    }
                    for combo in &combos {
                        let mut ov: Vec<Override> = Vec::new();
                        ov.extend(ticks.iter().cloned());
                        ov.extend(global.iter().cloned());
                        ov.extend(s.set.iter().cloned());
                        ov.extend(point.iter().cloned());
                        ov.extend(combo.iter().cloned());
                        overrides::check_unique(&ov)?;
                        let scenario = AnyScenario::parse(&text, &path.display().to_string(), &ov)?;
                        let canonical = overrides::canonical(&ov);
                        let point = point_id(scenario.content_hash(), &canonical);
                        let scenario = Arc::new(scenario);
                        let seeds = s.seeds.clone().unwrap_or_else(|| vec![scenario.seed()]);
                        for seed in seeds {
                            let id = run_id(scenario.content_hash(), &canonical, seed);
                            if let Some(first) = seen.insert(id.clone(), runs.len()) {
                                return Err(self.err(s.span.clone(), &s.key, format!(
                                    "run {id} (seed {seed}, {}) is listed twice (first as run {first}); every run must be distinct",
                                    if canonical.is_empty() { "no overrides".to_string() } else { canonical.join(", ") }
                                )));
                            }
                            if runs.len() >= MAX_RUNS {
                                return Err(self.err(
                                    s.span.clone(),
                                    &s.key,
                                    format!("the batch has more than {MAX_RUNS} runs"),
                                ));
                            }
                            runs.push(PlannedRun {
                                index: runs.len(),
                                id,
                                point: point.clone(),
                                scenario_file: file.clone(),
                                scenario_path: path.clone(),
                                ticks: scenario.ticks(),
                                scenario: scenario.clone(),
                                seed,
                                overrides: ov.clone(),
                                canonical: canonical.clone(),
                            });
                        }
                    }
                }
            }
        }
        let mut h = blake3::Hasher::new();
        h.update(b"throng-batch-v1\0");
        for r in &runs {
            h.update(r.id.as_bytes());
        }
        let keys: BTreeSet<String> =
            runs.iter().flat_map(|r| r.overrides.iter().map(|o| o.key.clone())).collect();
        for (i, (e, span)) in expectations.iter().enumerate() {
            if let (Some(a), Some(span)) = (&e.across, span)
                && a.along != "scenario"
                && !keys.contains(&a.along)
            {
                let mut names: Vec<&str> = vec!["scenario"];
                names.extend(keys.iter().map(String::as_str));
                let hint = crate::scenario::nearest_word(&a.along, names.iter().copied())
                    .map(|n| format!("; did you mean \"{n}\"?"))
                    .unwrap_or_default();
                return Err(self.err(
                    span.clone(),
                    &format!("expect[{i}].along"),
                    format!(
                        "no run of this batch sets \"{}\"{hint} (a series runs along one of: {})",
                        a.along,
                        names.join(", ")
                    ),
                ));
            }
        }
        let expectations = expectations.into_iter().map(|(e, _)| e).collect();
        Ok(Plan {
            file: self.file.into(),
            name,
            id: hex16(h.finalize().as_bytes()),
            runs,
            keys: keys.into_iter().collect(),
            expectations,
            keep,
        })
    }
}
