//! Expectations on a batch's statistics (`[[expect]]` in a batch file): a statistic over the
//! seeds of each parameter point (`mean`, `std`, `min` or `max` of a metric of the rows,
//! `expect.NAME` for a scenario expectation's pass rate) within bounds. `throng report` judges
//! them per point, as the statistics are its own.

use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::DeValue;

use super::parse::{Parser, entries};
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
}

impl BatchExpectation {
    /// Whether `value` is within the bounds.
    pub fn holds(&self, value: f64) -> bool {
        self.min.is_none_or(|lo| value >= lo) && self.max.is_none_or(|hi| value <= hi)
    }
}

const KEYS: [&str; 5] = ["name", "metric", "stat", "min", "max"];
const STATS: [(&str, Stat); 4] =
    [("mean", Stat::Mean), ("std", Stat::Std), ("min", Stat::Min), ("max", Stat::Max)];

impl Parser<'_> {
    /// The `[[expect]]` entries of a batch file.
    pub(super) fn expectations(
        &self,
        v: &Spanned<DeValue<'_>>,
    ) -> Result<Vec<BatchExpectation>, ScenarioError> {
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
        let mut out: Vec<BatchExpectation> = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let path = format!("expect[{i}]");
            let table = self.table(item, &path, "an [[expect]] table")?;
            let (mut name, mut metric, mut stat, mut min, mut max) = (None, None, Stat::Mean, None, None);
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
            if min.is_none() && max.is_none() {
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
            let name = name.unwrap_or_else(|| format!("{} of {metric}", stat.name()));
            if out.iter().any(|e| e.name == name) {
                return Err(self.err(
                    item.span(),
                    &path,
                    format!("expectation name \"{name}\" is used twice"),
                ));
            }
            out.push(BatchExpectation { name, metric, stat, min: min.map(|m| m.0), max: max.map(|m| m.0) });
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
