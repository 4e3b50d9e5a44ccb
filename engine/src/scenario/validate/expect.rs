//! Validating `[[expect]]` entries: the check's keys, the metric or region read, the bounds
//! and the times (turned into ticks with the scenario's `dt`).

use super::Validator;
use crate::scenario::expectation::{Check, Expectation, Metric, SceneNames, Subject, Who, describe, tick_at};
use crate::scenario::locate::{Seg, nearest_word};
use crate::scenario::schema::ExpectToml;

/// Largest time accepted in an expectation (seconds), as for sources' `start_s`.
const MAX_TIME_S: f64 = 1e9;

/// The checks and the keys each takes besides `name` and `check`.
const CHECKS: [(&str, &[&str]); 6] = [
    ("end", &["metric", "minus", "region", "group", "min", "max"]),
    ("at", &["metric", "minus", "region", "group", "min", "max", "at_s"]),
    ("always", &["metric", "minus", "region", "group", "min", "max", "from_s", "to_s"]),
    ("ever", &["metric", "minus", "region", "group", "min", "max", "from_s", "to_s"]),
    ("first", &["metric", "minus", "region", "group", "min", "max", "after_s", "before_s"]),
    ("reach", &["region", "group", "agent", "before_s"]),
];

/// What the expectations may name (groups, gates, measurement areas), and how many agent ids
/// a run can issue.
pub(super) struct ExpectNames<'a> {
    pub(super) scene: SceneNames<'a>,
    pub(super) ids: u64,
    /// Whether `[metrics] steerbench` keeps SteerBench's measures.
    pub(super) steerbench: bool,
}

impl<V: crate::world::Dimension> Validator<'_, V> {
    pub(super) fn expectations(
        &mut self,
        raw: &[ExpectToml],
        names: &ExpectNames,
        dt: f32,
        ticks: u64,
    ) -> Option<Vec<Expectation<V>>> {
        let mut out: Vec<Expectation<V>> = Vec::new();
        for (i, e) in raw.iter().enumerate() {
            let expectation = self.expectation(i, e, names, dt, ticks)?;
            if out.iter().any(|o| o.name == expectation.name) {
                let path = [Seg::Key("expect"), Seg::Index(i), Seg::Key("name")];
                return self.fail(&path, format!("expectation name \"{}\" is used twice", expectation.name));
            }
            out.push(expectation);
        }
        Some(out)
    }

    fn expectation(
        &mut self,
        i: usize,
        e: &ExpectToml,
        names: &ExpectNames,
        dt: f32,
        ticks: u64,
    ) -> Option<Expectation<V>> {
        use Seg::{Index, Key};
        let base = [Key("expect"), Index(i)];
        let at = |k: &'static str| [Key("expect"), Index(i), Key(k)];
        let kind = e.check.as_deref().unwrap_or("end");
        let options: Vec<(&str, usize)> = CHECKS.iter().enumerate().map(|(k, (n, _))| (*n, k)).collect();
        let k = self.choice(&at("check"), kind, &options)?;
        let present = [
            ("metric", e.metric.is_some()),
            ("minus", e.minus.is_some()),
            ("region", e.region.is_some()),
            ("group", e.group.is_some()),
            ("agent", e.agent.is_some()),
            ("min", e.min.is_some()),
            ("max", e.max.is_some()),
            ("at_s", e.at_s.is_some()),
            ("from_s", e.from_s.is_some()),
            ("to_s", e.to_s.is_some()),
            ("after_s", e.after_s.is_some()),
            ("before_s", e.before_s.is_some()),
        ];
        let article = if kind.starts_with(['a', 'e']) { "an" } else { "a" };
        self.only_allowed(&base, &present, CHECKS[k].1, &format!("{article} \"{kind}\" expectation"))?;
        // The run's end in seconds (as the engine counts it, with the 32-bit `dt`).
        let end_s = ticks as f64 * dt as f64;
        let end_shown = crate::scenario::expectation::run_end_shown(ticks, dt);
        let time = |v: &mut Self, key: &'static str, t: Option<f64>| -> Option<Option<u64>> {
            let Some(t) = t else { return Some(None) };
            if !(t.is_finite() && (0.0..=MAX_TIME_S).contains(&t)) {
                return v.fail(&at(key), format!("expected a time from 0 to 1e9 seconds, found {t}"));
            }
            if t > end_s + 1e-9 {
                v.warn(
                    &at(key),
                    format!(
                        "{key} = {t} is after the run's end ({end_shown} s): the expectation cannot be checked"
                    ),
                );
            }
            Some(Some(tick_at(t, dt)))
        };
        let region = match &e.region {
            Some(r) => Some(self.region(&at("region"), region_keys!(r), "region")?),
            None => None,
        };
        let group = match &e.group {
            Some(name) => Some(self.group_index(&at("group"), name, names.scene.groups)?),
            None => None,
        };
        let min = self.bound(&at("min"), e.min)?;
        let max = self.bound(&at("max"), e.max)?;
        if let (Some(lo), Some(hi)) = (min, max)
            && lo > hi
        {
            return self.fail(&at("min"), format!("expected min <= max, found min {lo} > max {hi}"));
        }

        let check = if kind == "reach" {
            let Some(region) = region else {
                return self.fail(&base, "missing key `region` for a \"reach\" expectation");
            };
            let who = match (e.agent, group) {
                (Some(id), None) => {
                    if id as u64 >= names.ids {
                        return self.fail(
                            &at("agent"),
                            format!(
                                "no agent has id {id}: this scenario's ids run from 0 to {}",
                                names.ids.saturating_sub(1)
                            ),
                        );
                    }
                    Who::Agent(id)
                }
                (None, Some(g)) => Who::Group(g),
                (Some(_), Some(_)) => {
                    return self.fail(&at("agent"), "give `agent` or `group`, not both");
                }
                (None, None) => {
                    return self.fail(&base, "missing key `agent` or `group` for a \"reach\" expectation");
                }
            };
            let Some(before) = time(self, "before_s", e.before_s)? else {
                return self.fail(&base, "missing key `before_s` for a \"reach\" expectation");
            };
            Check::Reach { who, region, before }
        } else {
            if min.is_none() && max.is_none() {
                return self
                    .fail(&base, format!("{article} \"{kind}\" expectation needs `min`, `max` or both"));
            }
            match kind {
                "end" => Check::End,
                "at" => match time(self, "at_s", e.at_s)? {
                    Some(tick) => Check::At { tick },
                    None => return self.fail(&base, "missing key `at_s` for an \"at\" expectation"),
                },
                "always" | "ever" => {
                    let from = time(self, "from_s", e.from_s)?.unwrap_or(0);
                    let to = time(self, "to_s", e.to_s)?.unwrap_or(u64::MAX);
                    if from > to {
                        return self.fail(&at("from_s"), "expected from_s <= to_s");
                    }
                    if kind == "always" { Check::Always { from, to } } else { Check::Ever { from, to } }
                }
                _ => {
                    let after = time(self, "after_s", e.after_s)?.unwrap_or(0);
                    let before = time(self, "before_s", e.before_s)?.unwrap_or(u64::MAX);
                    if after > before {
                        return self.fail(&at("after_s"), "expected after_s <= before_s");
                    }
                    Check::First { after, before }
                }
            }
        };
        let subject = match (kind, &e.metric, region) {
            ("reach", _, _) => Subject::None,
            (_, Some(_), Some(_)) => return self.fail(&at("region"), "give `metric` or `region`, not both"),
            (_, Some(name), None) => {
                if group.is_some() {
                    return self
                        .fail(&at("group"), "`group` goes with `region` (the agents of a group inside it)");
                }
                let metric = self.metric(&at("metric"), name, names, kind)?;
                match &e.minus {
                    None => Subject::Metric(metric),
                    Some(other) => {
                        let minus = self.metric(&at("minus"), other, names, kind)?;
                        if metric.summary_only() != minus.summary_only() {
                            return self.fail(
                                &at("minus"),
                                format!(
                                    "\"{name}\" and \"{other}\" are not read alike (one is a summary of the whole run, the other is read at every tick): `minus` takes two of the same kind"
                                ),
                            );
                        }
                        Subject::Difference { metric, minus }
                    }
                }
            }
            (_, None, Some(region)) => {
                if e.minus.is_some() {
                    return self.fail(&at("minus"), "`minus` goes with `metric` (one metric minus another)");
                }
                Subject::InRegion { region, group }
            }
            (_, None, None) => {
                return self.fail(
                    &base,
                    format!("missing key `metric` or `region` for {article} \"{kind}\" expectation"),
                );
            }
        };
        let mut expectation = Expectation { name: String::new(), subject, check, min, max };
        expectation.name = match &e.name {
            Some(n) if n.trim().is_empty() => return self.fail(&at("name"), "expected a non-empty name"),
            Some(n) => n.clone(),
            None => describe(&expectation, &names.scene, dt as f64),
        };
        Some(expectation)
    }

    /// A metric an expectation reads, by name, checked against what the scenario keeps and
    /// what the check `kind` can read.
    fn metric(&mut self, path: &[Seg], name: &str, names: &ExpectNames, kind: &str) -> Option<Metric> {
        let Some(metric) = Metric::parse(name, &names.scene) else {
            let known = Metric::names(&names.scene);
            let hint = nearest_word(name, known.iter().map(String::as_str))
                .map(|n| format!("; did you mean \"{n}\"?"))
                .unwrap_or_default();
            return self
                .fail(path, format!("unknown metric \"{name}\"{hint} (metrics: {})", known.join(", ")));
        };
        if metric.steerbench() && !names.steerbench {
            return self.fail(
                path,
                format!("\"{name}\" is kept only with `steerbench = true` in the scenario's [metrics] table"),
            );
        }
        if metric.summary_only() && kind != "end" {
            return self.fail(
                path,
                format!("\"{name}\" is a summary of the whole run: it can only be checked at the end (check = \"end\")"),
            );
        }
        Some(metric)
    }

    /// A bound of an expectation: any finite number.
    fn bound(&mut self, path: &[Seg], v: Option<f64>) -> Option<Option<f64>> {
        match v {
            Some(x) if !x.is_finite() => {
                self.fail(path, format!("expected a finite number, found {}", crate::scenario::shown(x)))
            }
            v => Some(v),
        }
    }
}
