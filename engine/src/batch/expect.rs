//! Expectations on a batch's statistics (`[[expect]]` in a batch file): a statistic over the
//! seeds of each parameter point (`mean`, `std`, `min` or `max` of a metric of the rows,
//! `expect.NAME` for a scenario expectation's pass rate) within bounds, or, with `trend` and
//! `along`, how that statistic changes from point to point (`trend.rs`). `throng report`
//! judges them, as the statistics are its own.

use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::DeValue;

use super::parse::{Parser, entries};
use super::trend::{Across, DataSeries, Trend};
use crate::scenario::ScenarioError;

/// A statistic over the seeds of a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stat {
    /// The mean.
    Mean,
    /// The sample standard deviation.
    Std,
    /// The lowest value.
    Min,
    /// The highest value.
    Max,
}

impl Stat {
    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::Std => "std",
            Stat::Min => "min",
            Stat::Max => "max",
        }
    }
}

/// One batch expectation, as validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchExpectation {
    /// Its `name`, or `STAT of METRIC` when it has none.
    pub name: String,
    /// A number of the result rows: a metric (`agents_exited`, `gates.door.crossings`, ...),
    /// `agents`, `wall_s`, `ms_per_tick`, or `expect.NAME` (1 for a passed scenario
    /// expectation, 0 otherwise).
    pub metric: String,
    /// The statistic judged.
    pub stat: Stat,
    /// Lower bound, inclusive.
    pub min: Option<f64>,
    /// Upper bound, inclusive.
    pub max: Option<f64>,
    /// With `trend` and `along`: judged across the points of each series, not per point.
    #[serde(default)]
    pub across: Option<Across>,
}

impl BatchExpectation {
    /// Whether `value` is within the bounds.
    pub fn holds(&self, value: f64) -> bool {
        self.min.is_none_or(|lo| value >= lo) && self.max.is_none_or(|hi| value <= hi)
    }
}

/// An override key and its value as the report writes it (a `where` entry).
type KeyValue = (String, String);

/// An expectation and where its `along` value is written (for errors found later).
pub(super) type Located = (BatchExpectation, Option<std::ops::Range<usize>>);

const KEYS: [&str; 11] =
    ["name", "metric", "stat", "min", "max", "trend", "along", "x", "tolerance", "data", "where"];
const STATS: [(&str, Stat); 4] =
    [("mean", Stat::Mean), ("std", Stat::Std), ("min", Stat::Min), ("max", Stat::Max)];

impl Parser<'_> {
    /// The `[[expect]]` entries of a batch file.
    /// The `[[expect]]` entries of a batch file, each with the span of its `along` value (to
    /// check it against the batch's keys once the sweeps are read).
    pub(super) fn expectations(&self, v: &Spanned<DeValue<'_>>) -> Result<Vec<Located>, ScenarioError> {
        let items: Vec<&Spanned<DeValue<'_>>> = match v.get_ref() {
            DeValue::Array(items) => items.iter().collect(),
            DeValue::Table(_) => vec![v],
            other => {
                return Err(self.err(
                    v.span(),
                    "expect",
                    format!("expected [[expect]] tables, found {}", other.type_str()),
                ));
            }
        };
        let mut out: Vec<Located> = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let path = format!("expect[{i}]");
            let table = self.table(item, &path, "an [[expect]] table")?;
            let (mut name, mut metric, mut stat, mut min, mut max) = (None, None, Stat::Mean, None, None);
            let (mut trend, mut along, mut tolerance) = (None, None, None);
            let mut data: Option<(Vec<DataSeries>, std::ops::Range<usize>)> = None;
            let mut only: Option<(Vec<KeyValue>, std::ops::Range<usize>)> = None;
            let mut x: Option<(String, std::ops::Range<usize>)> = None;
            for (k, v) in entries(table) {
                let key = format!("{path}.{}", k.get_ref());
                match k.get_ref().as_ref() {
                    "name" => name = Some(self.string(v, &key)?),
                    "metric" => metric = Some(self.string(v, &key)?),
                    "stat" => {
                        let s = self.string(v, &key)?;
                        stat = match STATS.iter().find(|(n, _)| *n == s) {
                            Some((_, st)) => *st,
                            None => {
                                let names: Vec<&str> = STATS.iter().map(|(n, _)| *n).collect();
                                let hint = crate::scenario::nearest_word(&s, names.iter().copied())
                                    .map(|n| format!("; did you mean `{n}`?"))
                                    .unwrap_or_default();
                                return Err(self.err(
                                    v.span(),
                                    &key,
                                    format!(
                                        "unknown statistic \"{s}\"{hint} (expected one of: {})",
                                        names.join(", ")
                                    ),
                                ));
                            }
                        }
                    }
                    "min" => min = Some((self.number(v, &key)?, v.span())),
                    "max" => max = Some((self.number(v, &key)?, v.span())),
                    "trend" => {
                        let t = self.string(v, &key)?;
                        match Trend::ALL.iter().find(|(n, _)| *n == t) {
                            Some((_, tr)) => trend = Some((*tr, v.span())),
                            None => {
                                let names: Vec<&str> = Trend::ALL.iter().map(|(n, _)| *n).collect();
                                let hint = crate::scenario::nearest_word(&t, names.iter().copied())
                                    .map(|n| format!("; did you mean `{n}`?"))
                                    .unwrap_or_default();
                                return Err(self.err(
                                    v.span(),
                                    &key,
                                    format!(
                                        "unknown trend \"{t}\"{hint} (expected one of: {})",
                                        names.join(", ")
                                    ),
                                ));
                            }
                        }
                    }
                    "along" => along = Some((self.string(v, &key)?, v.span())),
                    "x" => x = Some((self.string(v, &key)?, v.span())),
                    "tolerance" => {
                        let t = self.number(v, &key)?;
                        if t < 0.0 {
                            return Err(self.err(
                                v.span(),
                                &key,
                                format!(
                                    "expected a relative tolerance of 0 or more (0.01 is 1 %), found {t}"
                                ),
                            ));
                        }
                        tolerance = Some((t, v.span()));
                    }
                    "data" => data = Some((self.data(v, &key)?, v.span())),
                    "where" => only = Some((self.only(v, &key)?, v.span())),
                    _ => return Err(self.unknown(k, &path, &KEYS)),
                }
            }
            let Some(metric) = metric else {
                return Err(self.err(
                    item.span(),
                    &path,
                    "missing key `metric` (the number of the rows to judge)",
                ));
            };
            if along.is_none()
                && let Some((name, span)) = data
                    .as_ref()
                    .map(|d| ("data", d.1.clone()))
                    .or(only.as_ref().map(|o| ("where", o.1.clone())))
                    .or(x.as_ref().map(|o| ("x", o.1.clone())))
            {
                return Err(self.err(
                    span,
                    &format!("{path}.{name}"),
                    format!("`{name}` belongs to a `trend` along a swept key; this expectation has none"),
                ));
            }
            let across = match (trend, &along) {
                (None, None) => {
                    if let Some((_, span)) = tolerance {
                        return Err(self.err(
                            span,
                            &format!("{path}.tolerance"),
                            "`tolerance` belongs to a `trend` across points; this expectation has none",
                        ));
                    }
                    None
                }
                (Some((_, span)), None) => {
                    return Err(self.err(
                        span,
                        &format!("{path}.trend"),
                        "a trend needs `along`: the swept key (or \"scenario\") its points differ in",
                    ));
                }
                (None, Some((_, span))) => {
                    return Err(self.err(
                        span.clone(),
                        &format!("{path}.along"),
                        "`along` needs a `trend` (rising, falling, equal, ratio, matches or within)",
                    ));
                }
                (Some((t, span)), Some((a, _))) => {
                    if t.needs_data() {
                        let name = t.name();
                        if data.is_none() {
                            return Err(self.err(
                                span,
                                &format!("{path}.trend"),
                                format!("a \"{name}\" trend needs `data`: the measured points to judge against, `{{ \"source\" = [[x, y], ...] }}`"),
                            ));
                        }
                        if tolerance.is_none() {
                            return Err(self.err(
                                span,
                                &format!("{path}.trend"),
                                format!("a \"{name}\" trend needs `tolerance`: how far from the data a value may be, relative (0.15 is 15 %)"),
                            ));
                        }
                    }
                    if t == Trend::Ratio {
                        if tolerance.is_some() {
                            return Err(self.err(
                                span,
                                &format!("{path}.trend"),
                                "a \"ratio\" trend is bounded by `min` and `max`, not `tolerance`",
                            ));
                        }
                    } else if let Some((_, span)) = min.as_ref().or(max.as_ref()) {
                        return Err(self.err(
                            span.clone(),
                            &path,
                            format!(
                                "a \"{}\" trend takes `tolerance` (relative), not `min` or `max`",
                                t.name()
                            ),
                        ));
                    }
                    Some(Across {
                        along: a.clone(),
                        x: x.map(|x| x.0),
                        trend: t,
                        tolerance: tolerance.map_or(0.0, |t| t.0),
                        data: data.map(|d| d.0).unwrap_or_default(),
                        only: only.map(|o| o.0).unwrap_or_default(),
                    })
                }
            };
            let needs_bounds = across.as_ref().is_none_or(|a| a.trend == Trend::Ratio);
            if needs_bounds && min.is_none() && max.is_none() {
                return Err(self.err(item.span(), &path, "an expectation needs `min`, `max` or both"));
            }
            if let (Some((lo, span)), Some((hi, _))) = (&min, &max)
                && lo > hi
            {
                return Err(self.err(
                    span.clone(),
                    &format!("{path}.min"),
                    format!("expected min <= max, found min {lo} > max {hi}"),
                ));
            }
            let name = name.unwrap_or_else(|| match &across {
                Some(a) => format!("{} of {metric} {} along {}", stat.name(), a.trend.name(), a.along),
                None => format!("{} of {metric}", stat.name()),
            });
            if out.iter().any(|(e, _)| e.name == name) {
                return Err(self.err(
                    item.span(),
                    &path,
                    format!("expectation name \"{name}\" is used twice"),
                ));
            }
            let along_span = along.map(|a| a.1);
            out.push((
                BatchExpectation { name, metric, stat, min: min.map(|m| m.0), max: max.map(|m| m.0), across },
                along_span,
            ));
        }
        Ok(out)
    }

    /// `data = { "SOURCE" = [[x, y], ...], ... }`: each source at least two points of finite
    /// numbers, `x` rising.
    fn data(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<Vec<DataSeries>, ScenarioError> {
        let expected = "expected a table of measured points, `{ \"source\" = [[x, y], ...] }`";
        let DeValue::Table(table) = v.get_ref() else {
            return Err(self.err(v.span(), key, format!("{expected}, found {}", v.get_ref().type_str())));
        };
        let mut out = Vec::new();
        for (name, points) in entries(table) {
            let at = format!("{key}.{}", name.get_ref());
            let list: Vec<(f64, f64)> = match self.value(points, &at)? {
                toml::Value::Array(items) => items
                    .iter()
                    .map(|p| match p.as_array().map(|xy| xy.as_slice()) {
                        Some([x, y]) => Some((number_of(x)?, number_of(y)?)),
                        _ => None,
                    })
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        self.err(points.span(), &at, "expected a list of [x, y] pairs of finite numbers")
                    })?,
                _ => {
                    return Err(self.err(
                        points.span(),
                        &at,
                        "expected a list of [x, y] pairs of finite numbers",
                    ));
                }
            };
            if list.len() < 2 || list.windows(2).any(|w| w[1].0 <= w[0].0) {
                return Err(self.err(points.span(), &at, "expected at least two points, their x rising"));
            }
            out.push(DataSeries { name: name.get_ref().to_string(), points: list });
        }
        if out.is_empty() {
            return Err(self.err(v.span(), key, format!("{expected}, found an empty table")));
        }
        Ok(out)
    }

    /// `where = { "KEY" = value, ... }`: the override values a judged series has.
    fn only(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<Vec<(String, String)>, ScenarioError> {
        let DeValue::Table(table) = v.get_ref() else {
            return Err(self.err(
                v.span(),
                key,
                format!("expected a table of override keys and values, found {}", v.get_ref().type_str()),
            ));
        };
        let mut out = Vec::new();
        for (k, item) in entries(table) {
            let text = match self.value(item, &format!("{key}.{}", k.get_ref()))? {
                toml::Value::String(s) => s,
                toml::Value::Table(_) | toml::Value::Array(_) => {
                    return Err(self.err(
                        item.span(),
                        key,
                        "expected a single value (text, number or true/false)",
                    ));
                }
                other => other.to_string(),
            };
            out.push((k.get_ref().to_string(), text));
        }
        Ok(out)
    }

    /// A finite number (integer or float).
    fn number(&self, v: &Spanned<DeValue<'_>>, key: &str) -> Result<f64, ScenarioError> {
        let x = match self.value(v, key)? {
            toml::Value::Integer(i) => i as f64,
            toml::Value::Float(f) => f,
            other => {
                return Err(self.err(
                    v.span(),
                    key,
                    format!("expected a number, found {}", other.type_str()),
                ));
            }
        };
        if !x.is_finite() {
            return Err(self.err(v.span(), key, format!("expected a finite number, found {x}")));
        }
        Ok(x)
    }
}

/// A finite number of a TOML value, integer or float.
fn number_of(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) if f.is_finite() => Some(*f),
        _ => None,
    }
}
