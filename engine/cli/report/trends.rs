//! `throng report`'s judgement of batch expectations across points (`trend` + `along`): the
//! points are split into series that differ only in the `along` key (or scenario file), each
//! series' statistics in plan order are measured (`throng_engine::batch::trend`) and judged,
//! printed under "across points", written to `trends.csv` and, asked, drawn as charts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use throng_engine::batch::{Across, BatchExpectation, trend};

use super::{fmt, metric_mean, point_stat};
use crate::batch::{Row, value_text};
use crate::render::xy_chart::{self, Line};
use throng_engine::batch::trend::PointValue;

/// One series of one expectation, judged.
pub struct SeriesVerdict {
    /// The expectation's name.
    pub name: String,
    /// What the series' points share (`key=value; ...`), empty when nothing else varies.
    pub series: String,
    /// Each point's `along` value (or its `x` metric's mean) and statistic (with its standard
    /// error), in plan order.
    pub values: Vec<(String, PointValue)>,
    /// The trend's measured number (`None` with fewer than two points).
    pub measured: Option<f64>,
    pub pass: bool,
}

/// A point's `along` value (or scenario file) and its rows.
type Labelled<'a> = (String, Vec<&'a Row>);

/// The series of `points` along `a.along`: (what they share, their points in plan order).
fn series<'a>(points: &[(String, Vec<&'a Row>)], a: &Across) -> Vec<(String, Vec<Labelled<'a>>)> {
    let mut out: Vec<(String, Vec<Labelled<'a>>)> = Vec::new();
    // The scenario file tells series apart only when the batch has more than one.
    let one_scenario = points.iter().all(|(_, rows)| rows[0].scenario_file == points[0].1[0].scenario_file);
    for (_, rows) in points {
        let first = rows[0];
        let mut shared: BTreeMap<&str, String> =
            first.overrides.iter().map(|(k, v)| (k.as_str(), value_text(v))).collect();
        let label = if a.along == "scenario" {
            first.scenario_file.clone()
        } else {
            shared.remove(a.along.as_str()).unwrap_or_else(|| "(not set)".into())
        };
        let mut key: Vec<String> = shared.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if a.along != "scenario" && !one_scenario {
            key.insert(0, first.scenario_file.clone());
        }
        let key = key.join("; ");
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push((label, rows.clone())),
            None => out.push((key, vec![(label, rows.clone())])),
        }
    }
    out
}

/// Judges every expectation with a trend over `points` (in plan order, each with its rows).
pub fn judge(points: &[(String, Vec<&Row>)], expectations: &[BatchExpectation]) -> Vec<SeriesVerdict> {
    let mut out = Vec::new();
    for e in expectations {
        let Some(a) = &e.across else { continue };
        for (shared, list) in series(points, a) {
            // `where`: only the series whose points set these keys to these values.
            let owned: Vec<String> = shared.split("; ").map(String::from).collect();
            if !a.only.iter().all(|(k, v)| owned.iter().any(|p| *p == format!("{k}={v}"))) {
                continue;
            }
            // Each point at its `along` value, or at the mean of the `x` metric over its seeds.
            let values: Vec<(String, PointValue)> = list
                .iter()
                .filter_map(|(label, rows)| {
                    let at = match &a.x {
                        Some(metric) => metric_mean(rows, metric).map(|m| format!("{m:.4}"))?,
                        None => label.clone(),
                    };
                    point_stat(e, rows).map(|v| (at, v))
                })
                .collect();
            let numbers: Vec<PointValue> = values.iter().map(|(_, v)| *v).collect();
            // A point with no finished run leaves a gap: the series cannot be judged whole.
            let complete = values.len() == list.len();
            let measured = if a.trend.needs_data() {
                // Against the data at each point's `along` value (a number) or `x`.
                let at: Option<Vec<(f64, PointValue)>> =
                    values.iter().map(|(label, v)| label.parse::<f64>().ok().map(|x| (x, *v))).collect();
                at.and_then(|at| match a.trend {
                    trend::Trend::Within => trend::outside(&at, &a.data),
                    _ => trend::deviation(&at, &a.data),
                })
            } else {
                trend::measure(a.trend, &numbers)
            };
            let pass =
                complete && measured.is_some_and(|m| trend::holds(a.trend, m, a.tolerance, e.min, e.max));
            out.push(SeriesVerdict { name: e.name.clone(), series: shared, values, measured, pass });
        }
    }
    out
}

/// The verdicts as report lines.
pub fn lines(verdicts: &[SeriesVerdict], expectations: &[BatchExpectation]) -> String {
    let mut text = String::new();
    for v in verdicts {
        let Some(e) = expectations.iter().find(|e| e.name == v.name) else { continue };
        let Some(a) = &e.across else { continue };
        let values: Vec<String> = v
            .values
            .iter()
            .map(|(l, x)| {
                if x.se > 0.0 {
                    format!("{} ± {} at {l}", fmt(x.value), fmt(x.se))
                } else {
                    format!("{} at {l}", fmt(x.value))
                }
            })
            .collect();
        let bound = match (a.trend, e.min, e.max) {
            (trend::Trend::Ratio, Some(lo), Some(hi)) => format!("between {} and {}", fmt(lo), fmt(hi)),
            (trend::Trend::Ratio, Some(lo), None) => format!(">= {}", fmt(lo)),
            (trend::Trend::Ratio, _, Some(hi)) => format!("<= {}", fmt(hi)),
            _ => format!("<= tolerance {}", fmt(a.tolerance)),
        };
        let measured = match v.measured {
            Some(m) => format!("{} = {} ({bound})", a.trend.measures(), fmt(m)),
            None if a.trend.needs_data() => {
                "no point at an `along` value the data covers (or one that is not a number)".into()
            }
            None => "fewer than two points with finished runs".into(),
        };
        text.push_str(&format!(
            "  {:<9} {}: {} of {} along {}{}: {}; {measured}\n",
            if v.pass { "PASS" } else { "FAIL" },
            v.name,
            e.stat.name(),
            e.metric,
            match &a.x {
                Some(x) => format!("{}, each point at the mean of {x}", a.along),
                None => a.along.clone(),
            },
            if v.series.is_empty() { String::new() } else { format!(" [{}]", v.series) },
            values.join(", "),
        ));
    }
    text
}

/// The verdicts as CSV: `expectation, series, along_values, values, standard_errors, measured,
/// verdict` (lists joined by `; `).
pub fn csv(verdicts: &[SeriesVerdict]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "expectation",
        "series",
        "along_values",
        "values",
        "standard_errors",
        "measured",
        "verdict",
    ])?;
    for v in verdicts {
        let labels: Vec<&str> = v.values.iter().map(|(l, _)| l.as_str()).collect();
        let values: Vec<String> = v.values.iter().map(|(_, x)| x.value.to_string()).collect();
        let errors: Vec<String> = v.values.iter().map(|(_, x)| x.se.to_string()).collect();
        w.write_record([
            v.name.clone(),
            v.series.clone(),
            labels.join("; "),
            values.join("; "),
            errors.join("; "),
            v.measured.map(|m| m.to_string()).unwrap_or_default(),
            if v.pass { "pass".into() } else { "fail".into() },
        ])?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("cannot write CSV: {e}"))
}

/// A file name made of `name`'s letters and digits (others become `-`).
fn slug(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    s.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-")
}

/// A series' name in a legend: what its points share, short: one override by its value alone
/// (`cfsm`, not `groups.walkers.model=cfsm`), several by each value alone when it is a word and
/// by the last part of its key with it when it is a number (`orca, neighbour_dist=5`).
fn legend(series: &str) -> String {
    if series.is_empty() {
        return "all points".into();
    }
    let parts: Vec<&str> = series.split("; ").collect();
    match parts[..] {
        [one] => one.split_once('=').map_or(one, |(_, v)| v).to_string(),
        _ => parts
            .iter()
            .map(|p| match p.split_once('=') {
                Some((_, v)) if v.parse::<f64>().is_err() => v.to_string(),
                Some((k, v)) => format!("{}={v}", k.rsplit('.').next().unwrap_or(k)),
                None => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// Draws each expectation across points as a chart in `dir` (`trend-NAME.png`): its statistic
/// against the `along` key's value, a line per series. Returns the files written.
pub fn charts(
    dir: &Path,
    verdicts: &[SeriesVerdict],
    expectations: &[BatchExpectation],
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for e in expectations {
        let Some(a) = &e.across else { continue };
        let series: Vec<&SeriesVerdict> = verdicts.iter().filter(|v| v.name == e.name).collect();
        if series.is_empty() {
            continue;
        }
        // x: the along key's values when they are numbers, else the points' order.
        let numeric = series.iter().all(|s| s.values.iter().all(|(x, _)| x.parse::<f64>().is_ok()));
        let lines: Vec<Line> = series
            .iter()
            .map(|s| Line {
                name: legend(&s.series),
                points: s
                    .values
                    .iter()
                    .enumerate()
                    .map(|(k, (x, v))| {
                        (if numeric { x.parse().unwrap_or(k as f64) } else { k as f64 }, v.value)
                    })
                    .collect(),
            })
            .collect();
        let mut lines = lines;
        if numeric {
            lines.extend(
                a.data.iter().map(|d| Line { name: format!("data: {}", d.name), points: d.points.clone() }),
            );
        }
        let x_label = match (&a.x, numeric) {
            (Some(x), _) => x.clone(),
            (None, true) => a.along.clone(),
            (None, false) => format!("{} (points in plan order)", a.along),
        };
        let y_label = format!("{} of {} over the seeds", e.stat.name(), e.metric);
        let path = dir.join(format!("trend-{}.png", slug(&e.name)));
        xy_chart::write(&path, &e.name, &x_label, &y_label, &lines)?;
        written.push(path);
    }
    Ok(written)
}
