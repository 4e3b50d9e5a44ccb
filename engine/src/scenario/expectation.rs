//! What an `[[expect]]` entry asks, once validated: the value read (a metric or the agents in
//! a region), the check and its bounds, and the words reports use for it. Watching a run for
//! them and judging them is `crate::expect`'s; these are the scenario's own data, as
//! `MetricsConfig` is.

use serde::{Deserialize, Serialize};

use crate::math::{Vec2, Vector};
use crate::metrics::{TICK_METRICS, tick_metric};
use crate::world::Region;

/// One `[[expect]]` entry, validated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub struct Expectation<V = Vec2> {
    /// The entry's `name`, or a description of the check when it has none.
    pub name: String,
    /// What is read at each observed tick.
    pub subject: Subject<V>,
    /// When and how the value is judged.
    pub check: Check<V>,
    /// The value must be at least this (for `first`: the condition's lower bound).
    pub min: Option<f64>,
    /// The value must be at most this.
    pub max: Option<f64>,
}

/// What an expectation reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Subject<V = Vec2> {
    /// A metric by name (see [`Metric`]).
    Metric(Metric),
    /// Live agents inside a region after the tick, of one group or of all.
    InRegion {
        /// The region.
        region: Region<V>,
        /// Only agents of this group, when given.
        group: Option<u16>,
    },
    /// Nothing read (`reach` looks at agents itself).
    None,
    /// One metric minus another of the same kind (`metric` and `minus`): both per-tick, or
    /// both summaries read at the end.
    Difference {
        /// The metric read.
        metric: Metric,
        /// The metric taken from it.
        minus: Metric,
    },
}

/// When and how the value is judged. Ticks count ticks completed (tick 0 is the state before
/// the first step); a time `t` in the file is the first tick whose end time `tick · dt` is at
/// least `t` (to within a millionth of a tick).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "V: Vector")]
pub enum Check<V = Vec2> {
    /// The value after the last tick run.
    End,
    /// The value after tick `tick`.
    At {
        /// The tick.
        tick: u64,
    },
    /// The value at every observed tick from `from` to `to` (inclusive).
    Always {
        /// First tick of the window.
        from: u64,
        /// Last tick of the window.
        to: u64,
    },
    /// The value at some observed tick from `from` to `to`.
    Ever {
        /// First tick of the window.
        from: u64,
        /// Last tick of the window.
        to: u64,
    },
    /// The first tick the value is within bounds must come at or after `after` and at or
    /// before `before`; the outcome's value is its time in seconds.
    First {
        /// Earliest allowed tick.
        after: u64,
        /// Latest allowed tick.
        before: u64,
    },
    /// Every agent of `who` is inside `region` after some tick at or before `before`.
    Reach {
        /// Who must arrive.
        who: Who,
        /// The region.
        region: Region<V>,
        /// Latest allowed tick.
        before: u64,
    },
}

/// Who a `reach` expectation follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Who {
    /// One agent, by id.
    Agent(u32),
    /// Every agent of a group that lives at some observed tick up to the deadline.
    Group(u16),
}

/// The metrics an expectation may read. Per-tick metrics are read at every observed tick;
/// the summary-only ones (`mean_wait_s`, `queue_length_max`, `gates.NAME.per_s`) only at the
/// end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// Tick metric `i` of [`TICK_METRICS`] (`agents_active`,
    /// `mean_speed`, ...).
    Tick(usize),
    /// Crossings of gate `i` so far, either way.
    GateCrossings(usize),
    /// Seconds braking behind a blocker per agent that lived (summary only).
    MeanWait,
    /// Most agents braking at once (summary only).
    QueueLengthMax,
    /// Crossings of gate `i` per second over the run (summary only).
    GatePerSecond(usize),
    /// Gate `i`'s flow this tick: crossings per second per unit of its length.
    GateFlow(usize),
    /// Live agents inside measurement area `i`.
    AreaCount(usize),
    /// Agents per square unit inside measurement area `i`.
    AreaDensity(usize),
    /// Mean speed inside measurement area `i` (0 when empty).
    AreaSpeed(usize),
    /// SteerBench's mean collisions per agent (summary only, `[metrics] steerbench`).
    SteerBenchCollisions,
    /// SteerBench's mean seconds alive per agent (summary only).
    SteerBenchTime,
    /// SteerBench's mean energy per agent (summary only).
    SteerBenchEnergy,
    /// SteerBench's composite score (summary only).
    SteerBenchScore,
    /// The lowest, mean or highest speed of group `i`'s live agents (`groups.NAME.speed.*`).
    GroupSpeed(usize, Stat),
    /// The lowest, mean or highest speed limit drawn for group `i`'s live agents
    /// (`groups.NAME.max_speed.*`): the desired speeds the group was given.
    GroupMaxSpeed(usize, Stat),
    /// Gate `i`'s flow while the crowd passes: crossings − 1 over the time from its first
    /// crossing to its last (summary only).
    GatePassage(usize),
    /// The lowest, mean or highest distance of group `i`'s live agents from their target: the
    /// target of the group's first behaviour that has one (`groups.NAME.target_distance.*`).
    GroupTargetDistance(usize, Stat),
    /// What journey stage `i` shows (`stages.NAME.agents|queue|finished|mean_s`).
    Stage(usize, StageValue),
    /// What the walking parties show (`parties.walking|spread|angle_deg|v_depth|abreast|v|river`).
    Party(PartyValue),
}

/// What a walking parties' metric reads (see `metrics::PartyReading`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartyValue {
    /// Walking parties.
    Walking,
    /// Their mean spread (m).
    Spread,
    /// Their mean angle to the walking direction (degrees).
    Angle,
    /// The mean V depth of those of three or more (m).
    VDepth,
    /// The share in line abreast.
    Abreast,
    /// The share in a V.
    V,
    /// The share walking river-like.
    River,
}

impl PartyValue {
    /// Every one, with its name (`parties.NAME` in expectations, `party_NAME` in the metrics
    /// file).
    pub const ALL: [(PartyValue, &'static str); 7] = [
        (PartyValue::Walking, "walking"),
        (PartyValue::Spread, "spread"),
        (PartyValue::Angle, "angle_deg"),
        (PartyValue::VDepth, "v_depth"),
        (PartyValue::Abreast, "abreast"),
        (PartyValue::V, "v"),
        (PartyValue::River, "river"),
    ];

    /// Its name in metric names.
    pub fn name(self) -> &'static str {
        PartyValue::ALL.iter().find(|(v, _)| *v == self).map_or("?", |(_, n)| n)
    }

    /// Its value in a tick's reading.
    pub fn of(self, r: &crate::metrics::PartyReading) -> f64 {
        match self {
            PartyValue::Walking => r.walking as f64,
            PartyValue::Spread => r.spread,
            PartyValue::Angle => r.angle_deg,
            PartyValue::VDepth => r.v_depth,
            PartyValue::Abreast => r.abreast,
            PartyValue::V => r.v,
            PartyValue::River => r.river,
        }
    }
}

/// What a journey stage's metric reads (see `metrics::StageReading`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StageValue {
    /// Agents heading to it.
    Agents,
    /// Agents its waiting area holds.
    Queue,
    /// Visits finished.
    Finished,
    /// Mean time of the finished visits (s).
    MeanTime,
}

impl StageValue {
    /// Every one, with its name.
    pub const ALL: [(StageValue, &'static str); 4] = [
        (StageValue::Agents, "agents"),
        (StageValue::Queue, "queue"),
        (StageValue::Finished, "finished"),
        (StageValue::MeanTime, "mean_s"),
    ];

    /// Its name in metric names.
    pub fn name(self) -> &'static str {
        StageValue::ALL.iter().find(|(v, _)| *v == self).map_or("?", |(_, n)| n)
    }
}

/// Which statistic of a group's agents a metric reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stat {
    /// The lowest value.
    Min,
    /// The mean, summed in id order.
    Mean,
    /// The highest value.
    Max,
}

impl Stat {
    /// Every statistic, with its name.
    pub const ALL: [(Stat, &'static str); 3] = [(Stat::Min, "min"), (Stat::Mean, "mean"), (Stat::Max, "max")];

    /// Its name in metric names.
    pub fn name(self) -> &'static str {
        match self {
            Stat::Min => "min",
            Stat::Mean => "mean",
            Stat::Max => "max",
        }
    }
}

/// The names expectations refer to: gates (and measurement lines), groups, measurement areas.
#[derive(Clone, Copy, Debug, Default)]
pub struct SceneNames<'a> {
    /// Gate names, in gate order.
    pub gates: &'a [&'a str],
    /// Group names, in group order.
    pub groups: &'a [&'a str],
    /// Measurement area names, in `[[measure]]` order.
    pub areas: &'a [&'a str],
    /// Journey stage names, in `[[stages]]` order.
    pub stages: &'a [&'a str],
    /// Whether some group walks in parties (then `parties.*` metrics exist).
    pub parties: bool,
}

/// The summary-only metric names (judged at the end only).
pub const SUMMARY_METRICS: [&str; 6] = [
    "mean_wait_s",
    "queue_length_max",
    "steerbench.collisions",
    "steerbench.time_s",
    "steerbench.energy",
    "steerbench.score",
];

impl Metric {
    /// The metric called `name`: a plain one, `gates.NAME.crossings|per_s|passage_per_s|flow`,
    /// `measures.NAME.count|density|speed`, `stages.NAME.agents|queue|finished|mean_s`, or
    /// `groups.NAME.speed|max_speed|target_distance.min|mean|max`.
    pub fn parse(name: &str, names: &SceneNames) -> Option<Metric> {
        if let Some(i) = tick_metric(name) {
            return Some(Metric::Tick(i));
        }
        let plain = [
            Metric::MeanWait,
            Metric::QueueLengthMax,
            Metric::SteerBenchCollisions,
            Metric::SteerBenchTime,
            Metric::SteerBenchEnergy,
            Metric::SteerBenchScore,
        ];
        if let Some(m) = plain.iter().find(|m| m.name(names) == name) {
            return Some(*m);
        }
        if let Some((gate, what)) = name.strip_prefix("gates.").and_then(|r| r.rsplit_once('.')) {
            let g = names.gates.iter().position(|n| *n == gate)?;
            return match what {
                "crossings" => Some(Metric::GateCrossings(g)),
                "per_s" => Some(Metric::GatePerSecond(g)),
                "passage_per_s" => Some(Metric::GatePassage(g)),
                "flow" => Some(Metric::GateFlow(g)),
                _ => None,
            };
        }
        if let Some((stage, what)) = name.strip_prefix("stages.").and_then(|r| r.rsplit_once('.')) {
            let s = names.stages.iter().position(|n| *n == stage)?;
            let what = StageValue::ALL.iter().find(|(_, n)| *n == what)?.0;
            return Some(Metric::Stage(s, what));
        }
        if let Some(what) = name.strip_prefix("parties.").filter(|_| names.parties) {
            return Some(Metric::Party(PartyValue::ALL.iter().find(|(_, n)| *n == what)?.0));
        }
        if let Some((rest, stat)) = name.strip_prefix("groups.").and_then(|r| r.rsplit_once('.')) {
            let (group, what) = rest.rsplit_once('.')?;
            let g = names.groups.iter().position(|n| *n == group)?;
            let stat = Stat::ALL.iter().find(|(_, n)| *n == stat)?.0;
            return match what {
                "speed" => Some(Metric::GroupSpeed(g, stat)),
                "max_speed" => Some(Metric::GroupMaxSpeed(g, stat)),
                "target_distance" => Some(Metric::GroupTargetDistance(g, stat)),
                _ => None,
            };
        }
        let (area, what) = name.strip_prefix("measures.")?.rsplit_once('.')?;
        let a = names.areas.iter().position(|n| *n == area)?;
        match what {
            "count" => Some(Metric::AreaCount(a)),
            "density" => Some(Metric::AreaDensity(a)),
            "speed" => Some(Metric::AreaSpeed(a)),
            _ => None,
        }
    }

    /// Every name a scenario with these names accepts (for "did you mean").
    pub fn names(names: &SceneNames) -> Vec<String> {
        let mut out: Vec<String> =
            TICK_METRICS.iter().map(|m| m.name).chain(SUMMARY_METRICS).map(|s| s.to_string()).collect();
        for g in names.gates {
            for what in ["crossings", "per_s", "passage_per_s", "flow"] {
                out.push(format!("gates.{g}.{what}"));
            }
        }
        for a in names.areas {
            for what in ["count", "density", "speed"] {
                out.push(format!("measures.{a}.{what}"));
            }
        }
        for s in names.stages {
            for (_, what) in StageValue::ALL {
                out.push(format!("stages.{s}.{what}"));
            }
        }
        if names.parties {
            out.extend(PartyValue::ALL.iter().map(|(_, what)| format!("parties.{what}")));
        }
        for g in names.groups {
            for what in ["speed", "max_speed", "target_distance"] {
                for (_, stat) in Stat::ALL {
                    out.push(format!("groups.{g}.{what}.{stat}"));
                }
            }
        }
        out
    }

    /// The metric's name in files and reports.
    pub fn name(&self, names: &SceneNames) -> String {
        let gate = |i: usize| names.gates.get(i).copied().unwrap_or("?");
        let area = |i: usize| names.areas.get(i).copied().unwrap_or("?");
        let group = |i: usize| names.groups.get(i).copied().unwrap_or("?");
        match self {
            Metric::Tick(i) => TICK_METRICS.get(*i).map_or("?", |m| m.name).into(),
            Metric::MeanWait => "mean_wait_s".into(),
            Metric::QueueLengthMax => "queue_length_max".into(),
            Metric::GateCrossings(i) => format!("gates.{}.crossings", gate(*i)),
            Metric::GatePerSecond(i) => format!("gates.{}.per_s", gate(*i)),
            Metric::GatePassage(i) => format!("gates.{}.passage_per_s", gate(*i)),
            Metric::GateFlow(i) => format!("gates.{}.flow", gate(*i)),
            Metric::AreaCount(i) => format!("measures.{}.count", area(*i)),
            Metric::AreaDensity(i) => format!("measures.{}.density", area(*i)),
            Metric::AreaSpeed(i) => format!("measures.{}.speed", area(*i)),
            Metric::SteerBenchCollisions => "steerbench.collisions".into(),
            Metric::SteerBenchTime => "steerbench.time_s".into(),
            Metric::SteerBenchEnergy => "steerbench.energy".into(),
            Metric::SteerBenchScore => "steerbench.score".into(),
            Metric::GroupSpeed(i, s) => format!("groups.{}.speed.{}", group(*i), s.name()),
            Metric::GroupMaxSpeed(i, s) => format!("groups.{}.max_speed.{}", group(*i), s.name()),
            Metric::GroupTargetDistance(i, s) => {
                format!("groups.{}.target_distance.{}", group(*i), s.name())
            }
            Metric::Stage(i, what) => {
                format!("stages.{}.{}", names.stages.get(*i).copied().unwrap_or("?"), what.name())
            }
            Metric::Party(what) => format!("parties.{}", what.name()),
        }
    }

    /// Whether it is read from the summary, at the end only.
    pub fn summary_only(&self) -> bool {
        matches!(
            self,
            Metric::MeanWait | Metric::QueueLengthMax | Metric::GatePerSecond(_) | Metric::GatePassage(_)
        ) || self.steerbench()
    }

    /// Whether it is one of SteerBench's measures (kept with `[metrics] steerbench = true`).
    pub fn steerbench(&self) -> bool {
        matches!(
            self,
            Metric::SteerBenchCollisions
                | Metric::SteerBenchTime
                | Metric::SteerBenchEnergy
                | Metric::SteerBenchScore
        )
    }
}

/// The tick at which time `t` seconds is reached with step `dt`: the first tick whose end
/// time `tick · dt` is at least `t`, to within a millionth of a tick (so `at_s = 0.3` with
/// `dt = 0.1` is tick 3, not 4, whatever the rounding of 0.3 / 0.1).
pub fn tick_at(t: f64, dt: f32) -> u64 {
    let ticks = t / dt as f64 - 1e-6;
    if ticks <= 0.0 { 0 } else { ticks.ceil() as u64 }
}

/// The end of a run of `ticks` ticks of `dt`, in seconds as a message shows it: with the step
/// as written (0.05, not the 32-bit 0.0500000007), to the microsecond, so 1,200 ticks of 0.05 s
/// read "60 s", not "60.000001 s".
pub fn run_end_shown(ticks: u64, dt: f32) -> f64 {
    let written: f64 = dt.to_string().parse().unwrap_or(f64::from(dt));
    (ticks as f64 * written * 1e6).round() / 1e6
}

impl<V> Expectation<V> {
    /// Whether `value` is within the bounds.
    pub fn holds(&self, value: f64) -> bool {
        self.min.is_none_or(|lo| value >= lo) && self.max.is_none_or(|hi| value <= hi)
    }
}

/// A number as reports print it: whole numbers without a fraction, others to at most 4
/// decimals.
pub fn number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A time in seconds, to the hundredth.
pub fn seconds(t: f64) -> String {
    format!("{t:.2} s")
}

/// `between 1 and 2`, `>= 1`, `<= 2`.
fn bounds(min: Option<f64>, max: Option<f64>) -> String {
    match (min, max) {
        (Some(lo), Some(hi)) => format!("between {} and {}", number(lo), number(hi)),
        (Some(lo), None) => format!(">= {}", number(lo)),
        (None, Some(hi)) => format!("<= {}", number(hi)),
        (None, None) => "anything".into(),
    }
}

/// A window of ticks in words: empty for the whole run.
fn window(from: u64, to: u64, dt: f64) -> String {
    match (from, to) {
        (0, u64::MAX) => String::new(),
        (f, u64::MAX) => format!(" from {}", seconds(f as f64 * dt)),
        (f, t) => format!(" from {} to {}", seconds(f as f64 * dt), seconds(t as f64 * dt)),
    }
}

/// What `e` checks, in words (`names`: the scenario's, `dt` its step).
pub fn describe<V>(e: &Expectation<V>, names: &SceneNames, dt: f64) -> String {
    let group = |g: u16| names.groups.get(g as usize).copied().unwrap_or("?");
    let subject = match &e.subject {
        Subject::Metric(m) => m.name(names),
        Subject::InRegion { group: None, .. } => "agents in the region".into(),
        Subject::InRegion { group: Some(g), .. } => format!("agents of \"{}\" in the region", group(*g)),
        Subject::None => String::new(),
        Subject::Difference { metric, minus } => {
            format!("{} minus {}", metric.name(names), minus.name(names))
        }
    };
    let b = bounds(e.min, e.max);
    match &e.check {
        Check::End => format!("{subject} at the end {b}"),
        Check::At { tick } => format!("{subject} at {} {b}", seconds(*tick as f64 * dt)),
        Check::Always { from, to } => format!("{subject} {b} at every tick{}", window(*from, *to, dt)),
        Check::Ever { from, to } => format!("{subject} {b} at some tick{}", window(*from, *to, dt)),
        Check::First { after, before } => {
            let when = match (*after, *before) {
                (0, u64::MAX) => "ever".to_string(),
                (0, b) => format!("by {}", seconds(b as f64 * dt)),
                (a, u64::MAX) => format!("not before {}", seconds(a as f64 * dt)),
                (a, b) => format!("between {} and {}", seconds(a as f64 * dt), seconds(b as f64 * dt)),
            };
            format!("{subject} first {b} {when}")
        }
        Check::Reach { who, before, .. } => {
            let who = match who {
                Who::Agent(id) => format!("agent {id}"),
                Who::Group(g) => format!("every agent of \"{}\"", group(*g)),
            };
            format!("{who} in the region by {}", seconds(*before as f64 * dt))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_ticks_reached() {
        assert_eq!(tick_at(0.3, 0.1), 3);
        assert_eq!(tick_at(0.0, 0.1), 0);
        assert_eq!(tick_at(0.25, 0.1), 3);
        assert_eq!(tick_at(300.0, 0.05), 6000);
        assert_eq!(tick_at(1.0, 0.3), 4);
    }

    #[test]
    fn the_runs_end_is_shown_with_the_step_as_written() {
        // 1200 × 0.05f32 = 60.0000009; 3 × 0.1f32 = 0.3000000045.
        assert_eq!(run_end_shown(1200, 0.05), 60.0);
        assert_eq!(run_end_shown(3, 0.1), 0.3);
        assert_eq!(run_end_shown(7, 0.3), 2.1);
        assert_eq!(run_end_shown(0, 0.1), 0.0);
    }

    #[test]
    fn metric_names_round_trip() {
        let names = SceneNames {
            gates: &["door", "side"],
            groups: &["crowd", "a.b"],
            areas: &["hall"],
            stages: &["stairs"],
            parties: true,
        };
        for name in Metric::names(&names) {
            let m = Metric::parse(&name, &names).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(m.name(&names), name);
        }
        assert_eq!(Metric::parse("gates.nowhere.crossings", &names), None);
        assert_eq!(Metric::parse("measures.hall.flow", &names), None);
        assert_eq!(Metric::parse("speed", &names), None);
        assert_eq!(Metric::parse("groups.a.b.speed.min", &names), Some(Metric::GroupSpeed(1, Stat::Min)));
        assert_eq!(Metric::parse("groups.crowd.speed.median", &names), None);
        assert_eq!(Metric::parse("groups.nobody.max_speed.max", &names), None);
    }
}
