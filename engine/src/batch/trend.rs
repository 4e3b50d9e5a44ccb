//! Batch expectations across points: how a statistic changes along one swept key (`along`, an
//! override key or `"scenario"`), judged over each series of points that differ in that key
//! alone. A fundamental diagram's speed falls as density rises, an evacuation through two exits
//! takes 1.6 to 2.4 times as long as through four, a corridor turned by any angle takes the
//! same time: published criteria compare runs, not bound one.

use serde::{Deserialize, Serialize};

/// How the values of a series (in plan order) must change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trend {
    /// Each value at least the one before, less `tolerance` of it.
    Rising,
    /// Each value at most the one before, plus `tolerance` of it.
    Falling,
    /// The spread (highest − lowest) at most `tolerance` of the mean.
    Equal,
    /// The last value divided by the first within `min` and `max`.
    Ratio,
    /// Each value within `tolerance` of the `data` at its `along` value (relative).
    Matches,
    /// Each value inside the band the `data` series span at its `along` value (from the lowest
    /// series to the highest there), or outside it by at most `tolerance` (relative).
    Within,
}

impl Trend {
    /// Every trend with its name in files and reports.
    pub const ALL: [(&'static str, Trend); 6] = [
        ("rising", Trend::Rising),
        ("falling", Trend::Falling),
        ("equal", Trend::Equal),
        ("ratio", Trend::Ratio),
        ("matches", Trend::Matches),
        ("within", Trend::Within),
    ];

    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        Trend::ALL.iter().find(|(_, t)| *t == self).map(|(n, _)| *n).unwrap_or("?")
    }

    /// What the measured number of a series is, for reports.
    pub fn measures(self) -> &'static str {
        match self {
            Trend::Rising => "largest fall from one point to the next, relative",
            Trend::Falling => "largest rise from one point to the next, relative",
            Trend::Equal => "spread (highest − lowest) over the mean",
            Trend::Ratio => "last ÷ first",
            Trend::Matches => "largest difference from the data, relative",
            Trend::Within => "largest distance outside the data's band, relative",
        }
    }

    /// Whether it is judged against measured `data` (`matches`, `within`).
    pub fn needs_data(self) -> bool {
        matches!(self, Trend::Matches | Trend::Within)
    }
}

/// An expectation's comparison across points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Across {
    /// The key the series runs along: an override key of the batch, or `scenario` (the
    /// sweep's scenario files, in their order).
    pub along: String,
    /// How the values must change.
    pub trend: Trend,
    /// Relative slack for `rising`, `falling`, `equal` and `matches` (0.01 is 1 %); 0 by
    /// default.
    pub tolerance: f64,
    /// A metric whose statistic places each point instead of its `along` value: the mean of
    /// this metric over the point's seeds (a fundamental diagram's measured density, say, for
    /// a sweep along the crowd's size). `None`: the `along` value.
    #[serde(default)]
    pub x: Option<String>,
    /// Measured data to set beside the series: drawn on the chart, and what `matches` and
    /// `within` judge against.
    #[serde(default)]
    pub data: Vec<DataSeries>,
    /// Only the series whose points set these override keys to these values (as the report
    /// writes them) are judged; empty: every series.
    #[serde(default)]
    pub only: Vec<(String, String)>,
}

/// One named set of measured points, `(along value, statistic)`, in rising `along` order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataSeries {
    /// Its name (the source), for the chart's legend.
    pub name: String,
    /// Its points.
    pub points: Vec<(f64, f64)>,
}

impl DataSeries {
    /// The data's value at `x`, linear between its points; `None` outside them.
    pub fn at(&self, x: f64) -> Option<f64> {
        let first = self.points.first()?;
        let last = self.points.last()?;
        if x < first.0 || x > last.0 {
            return None;
        }
        let k = self.points.iter().position(|p| p.0 >= x)?;
        let (x1, y1) = self.points[k];
        if k == 0 || x1 == x {
            return Some(y1);
        }
        let (x0, y0) = self.points[k - 1];
        Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0))
    }
}

/// The reference at `x`: the mean of the data series that cover it; `None` when none does.
pub fn reference(data: &[DataSeries], x: f64) -> Option<f64> {
    let values: Vec<f64> = data.iter().filter_map(|d| d.at(x)).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// `matches`' measured number: the largest `|value / reference − 1|` over the points whose
/// `along` value the data covers; `None` when it covers none.
pub fn deviation(points: &[(f64, PointValue)], data: &[DataSeries]) -> Option<f64> {
    points.iter().filter_map(|(x, v)| reference(data, *x).map(|r| (v.value / r - 1.0).abs())).reduce(f64::max)
}

/// The band the data span at `x`: the lowest and the highest of the series that cover it;
/// `None` when none does.
pub fn band(data: &[DataSeries], x: f64) -> Option<(f64, f64)> {
    let values: Vec<f64> = data.iter().filter_map(|d| d.at(x)).collect();
    let lo = values.iter().copied().reduce(f64::min)?;
    let hi = values.iter().copied().reduce(f64::max)?;
    Some((lo, hi))
}

/// `within`'s measured number: the largest distance of a value outside the band, relative to
/// the band's edge it passed (`(lo − value) / lo` below, `(value − hi) / hi` above, 0 inside),
/// over the points whose `along` value the data covers; `None` when it covers none.
pub fn outside(points: &[(f64, PointValue)], data: &[DataSeries]) -> Option<f64> {
    points
        .iter()
        .filter_map(|(x, v)| {
            band(data, *x).map(|(lo, hi)| {
                if v.value < lo {
                    (lo - v.value) / lo.abs()
                } else if v.value > hi {
                    (v.value - hi) / hi.abs()
                } else {
                    0.0
                }
            })
        })
        .reduce(f64::max)
}

/// One point of a series: its statistic and that statistic's standard error over the seeds
/// (`std / √n` for a mean of n > 1 runs; 0 otherwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointValue {
    /// The statistic.
    pub value: f64,
    /// Its standard error.
    pub se: f64,
}

/// The measured number of a series (in plan order) for `trend`; `None` with fewer than two
/// points. Differences are first shrunk towards zero by their noise, twice the combined
/// standard error (`2 √(se₁² + se₂²)`), so seeds' scatter does not count against a trend:
/// `rising`/`falling`, the largest step against the trend relative to the value before it (0
/// or less when the trend holds); `equal`, (highest − lowest) / |mean|; `ratio`, last / first
/// (unshrunk).
pub fn measure(trend: Trend, points: &[PointValue]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let relative = |diff: f64, base: f64| {
        if base != 0.0 {
            diff / base.abs()
        } else if diff == 0.0 {
            0.0
        } else {
            diff.signum() * f64::INFINITY
        }
    };
    let noise = |a: &PointValue, b: &PointValue| 2.0 * (a.se * a.se + b.se * b.se).sqrt();
    let against = |a: &PointValue, b: &PointValue, diff: f64| {
        let n = noise(a, b);
        relative(if diff > n { diff - n } else { diff.min(0.0) }, a.value)
    };
    let steps = points.windows(2);
    Some(match trend {
        Trend::Rising => {
            steps.map(|w| against(&w[0], &w[1], w[0].value - w[1].value)).fold(f64::NEG_INFINITY, f64::max)
        }
        Trend::Falling => {
            steps.map(|w| against(&w[0], &w[1], w[1].value - w[0].value)).fold(f64::NEG_INFINITY, f64::max)
        }
        Trend::Equal => {
            let (mut hi, mut lo, mut sum) = (points[0], points[0], 0.0);
            for p in points {
                if p.value > hi.value {
                    hi = *p;
                }
                if p.value < lo.value {
                    lo = *p;
                }
                sum += p.value;
            }
            let spread = (hi.value - lo.value - noise(&hi, &lo)).max(0.0);
            relative(spread, sum / points.len() as f64)
        }
        Trend::Ratio => relative(points[points.len() - 1].value, points[0].value),
        // Judged against data at the points' `along` values: see `deviation` and `outside`.
        Trend::Matches | Trend::Within => return None,
    })
}

/// Whether a series' measured number passes: at most `tolerance` for `rising`, `falling`,
/// `equal`, `matches` and `within`, within `min` and `max` for `ratio`.
pub fn holds(trend: Trend, measured: f64, tolerance: f64, min: Option<f64>, max: Option<f64>) -> bool {
    match trend {
        Trend::Ratio => min.is_none_or(|lo| measured >= lo) && max.is_none_or(|hi| measured <= hi),
        _ => measured <= tolerance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(values: &[f64]) -> Vec<PointValue> {
        values.iter().map(|&value| PointValue { value, se: 0.0 }).collect()
    }

    #[test]
    fn steps_against_the_trend_are_measured_relative_to_the_value_before() {
        // 10 → 8 → 8.2 → 5: the one rise is 0.2 / 8 = 2.5 %.
        let falling = [10.0, 8.0, 8.2, 5.0];
        assert_eq!(measure(Trend::Falling, &exact(&falling)), Some((8.2 - 8.0) / 8.0));
        assert!(holds(Trend::Falling, 0.025, 0.03, None, None));
        assert!(!holds(Trend::Falling, 0.025, 0.02, None, None));
        // Strictly rising: the largest "fall" is negative, the smallest rise (10 → 12: −20 %).
        assert_eq!(measure(Trend::Rising, &exact(&[10.0, 12.0, 18.0])), Some(-0.2));
        // The same series read as rising: falls of 20 % (10 → 8) and 39 % (8.2 → 5); the larger.
        assert_eq!(measure(Trend::Rising, &exact(&falling)), Some((8.2 - 5.0) / 8.2));
    }

    #[test]
    fn equal_is_the_spread_over_the_mean_and_ratio_is_last_over_first() {
        // 99, 100, 101: spread 2 over mean 100.
        assert_eq!(measure(Trend::Equal, &exact(&[99.0, 100.0, 101.0])), Some(0.02));
        assert_eq!(measure(Trend::Ratio, &exact(&[50.0, 60.0, 100.0])), Some(2.0));
        assert!(holds(Trend::Ratio, 2.0, 0.0, Some(1.6), Some(2.4)));
        assert!(!holds(Trend::Ratio, 2.5, 0.0, Some(1.6), Some(2.4)));
        assert_eq!(measure(Trend::Ratio, &exact(&[0.0, 1.0])), Some(f64::INFINITY));
        assert_eq!(measure(Trend::Equal, &exact(&[0.0, 0.0])), Some(0.0));
        assert_eq!(measure(Trend::Rising, &exact(&[3.0])), None);
    }

    #[test]
    fn matches_reads_the_data_between_its_points_and_averages_the_sources() {
        let a = DataSeries { name: "a".into(), points: vec![(0.8, 1.0), (1.2, 2.0)] };
        let b = DataSeries { name: "b".into(), points: vec![(1.0, 2.0), (2.0, 4.0)] };
        assert_eq!(a.at(1.0), Some(1.5), "halfway between 1 and 2");
        assert_eq!((a.at(0.7), a.at(0.8), a.at(1.2), a.at(1.3)), (None, Some(1.0), Some(2.0), None));
        let data = [a, b];
        assert_eq!(reference(&data, 0.8), Some(1.0), "only a covers 0.8");
        assert_eq!(reference(&data, 1.0), Some(1.75), "the mean of 1.5 and 2");
        assert_eq!(reference(&data, 2.5), None);
        // 1.1 against 1.0 (+10 %), 1.75 against 1.75, and 9 at 2.5, which no data covers.
        let p = |value| PointValue { value, se: 0.0 };
        let points = [(0.8, p(1.1)), (1.0, p(1.75)), (2.5, p(9.0))];
        let d = deviation(&points, &data).expect("covered points");
        assert!((d - 0.1).abs() < 1e-12, "{d}");
        assert_eq!(deviation(&[(3.0, p(1.0))], &data), None);
    }

    #[test]
    fn within_measures_how_far_a_value_lies_outside_the_band_the_sources_span() {
        // Two sources over 1..3: a low one (1 → 0.5) and a high one (1.5 → 0.7), both linear.
        let low = DataSeries { name: "low".into(), points: vec![(1.0, 1.0), (3.0, 0.5)] };
        let high = DataSeries { name: "high".into(), points: vec![(1.0, 1.5), (3.0, 0.7)] };
        let data = [low, high];
        assert_eq!(band(&data, 2.0), Some((0.75, 1.1)), "halfway along both lines");
        assert_eq!(band(&data, 4.0), None);
        let p = |value| PointValue { value, se: 0.0 };
        // Inside at 1 (1.2 in 1..1.5), 20 % above 1.1 at 2 (1.32), 10 % below 0.5 at 3 (0.45).
        assert_eq!(outside(&[(1.0, p(1.2))], &data), Some(0.0));
        let d = outside(&[(1.0, p(1.2)), (2.0, p(1.32)), (3.0, p(0.45))], &data).expect("covered");
        assert!((d - 0.2).abs() < 1e-12, "{d}");
        let d = outside(&[(3.0, p(0.45)), (9.0, p(100.0))], &data).expect("covered");
        assert!((d - 0.1).abs() < 1e-12, "9 is not covered: {d}");
        assert_eq!(outside(&[(9.0, p(1.0))], &data), None);
    }

    #[test]
    fn the_seeds_noise_is_taken_off_a_step_before_it_counts() {
        // 10 → 10.5 falling, each with standard error 0.1: noise 2 √0.02 ≈ 0.283, so the rise
        // counts as 0.5 − 0.283 = 0.217, 2.17 % of 10.
        let p = |value, se| PointValue { value, se };
        let m = measure(Trend::Falling, &[p(10.0, 0.1), p(10.5, 0.1)]).expect("two points");
        assert!((m - (0.5 - 2.0 * 0.02f64.sqrt()) / 10.0).abs() < 1e-12);
        // A rise within the noise is no rise at all.
        assert_eq!(measure(Trend::Falling, &[p(10.0, 0.2), p(10.5, 0.2)]), Some(0.0));
        // Equal: 99 ± 0.5 and 101 ± 0.5: spread 2 less 2 √0.5 ≈ 1.414.
        let m = measure(Trend::Equal, &[p(99.0, 0.5), p(101.0, 0.5)]).expect("two points");
        assert!((m - (2.0 - 2.0 * 0.5f64.sqrt()) / 100.0).abs() < 1e-12);
    }
}
