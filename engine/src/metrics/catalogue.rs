//! The tick metrics, declared once. Each entry gives a metric's name (the metrics file's
//! column, the name expectations and `throng plot --panels` take), what it means, how it is
//! read from a tick's [`TickMetrics`] and how the run's [`Summary`] keeps it; the metrics file's
//! columns, the plot's panels, the expectations' metric names, the run report and the README's
//! column table are all made from [`TICK_METRICS`]. A new tick metric is one entry here plus
//! its computation in [`MetricsCollector::observe`](super::MetricsCollector::observe).
//!
//! Gates' and measurement areas' columns are one per gate or area and are named after them
//! (`gate_NAME`, `measure_NAME_density`); they are not in this list.

use super::{Summary, TickMetrics};

/// A metric's value: a count, or a real number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reading {
    /// A whole number of agents, pairs or ticks.
    Count(u64),
    /// A real number (a speed, a length, a ratio).
    Real(f64),
}

impl Reading {
    /// The value as a real number (counts are exact below 2⁵³).
    pub fn as_f64(self) -> f64 {
        match self {
            Reading::Count(c) => c as f64,
            Reading::Real(r) => r,
        }
    }

    /// As the run report prints it: a count whole, a real number to 4 decimals.
    pub fn shown(self) -> String {
        match self {
            Reading::Count(c) => c.to_string(),
            Reading::Real(r) => format!("{r:.4}"),
        }
    }
}

/// What a row's value describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// The state at the end of the tick.
    State,
    /// A running total since tick 0.
    Total,
    /// What happened during the tick.
    DuringTick,
}

impl Span {
    /// In the README's column table.
    pub fn words(self) -> &'static str {
        match self {
            Span::State => "state",
            Span::Total => "total since tick 0",
            Span::DuringTick => "during the tick",
        }
    }
}

/// How the run's summary keeps a tick metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverRun {
    /// Its value at the last tick.
    Final,
    /// Its largest value on any observed tick.
    Largest,
    /// Its values summed over every observed tick.
    Summed,
}

impl OverRun {
    /// In the run report.
    pub fn words(self) -> &'static str {
        match self {
            OverRun::Final => "at the end",
            OverRun::Largest => "largest on any tick",
            OverRun::Summed => "summed over the run",
        }
    }
}

/// One tick metric.
#[derive(Clone, Copy, Debug)]
pub struct TickMetric {
    /// Its name: the metrics file's column, and what expectations and `--panels` call it.
    pub name: &'static str,
    /// In words, for the plot's panel and the run report.
    pub title: &'static str,
    /// Its unit, in words.
    pub unit: &'static str,
    /// What a row's value describes.
    pub span: Span,
    /// What it counts or measures, for the docs.
    pub meaning: &'static str,
    /// Its value after a tick.
    pub tick: fn(&TickMetrics) -> Reading,
    /// How the summary keeps it.
    pub over_run: OverRun,
    /// Its value in the summary.
    pub summary: fn(&Summary) -> Reading,
}

/// Every tick metric, in the metrics file's column order.
pub const TICK_METRICS: [TickMetric; 11] = [
    TickMetric {
        name: "agents_active",
        title: "agents active",
        unit: "agents",
        span: Span::State,
        meaning: "live agents",
        tick: |m| Reading::Count(m.agents_active),
        over_run: OverRun::Final,
        summary: |s| Reading::Count(s.agents_active),
    },
    TickMetric {
        name: "agents_exited",
        title: "agents exited",
        unit: "agents",
        span: Span::Total,
        meaning: "removed by exits",
        tick: |m| Reading::Count(m.agents_exited),
        over_run: OverRun::Final,
        summary: |s| Reading::Count(s.agents_exited),
    },
    TickMetric {
        name: "agents_spawned",
        title: "agents spawned",
        unit: "agents",
        span: Span::Total,
        meaning: "added by spawn sources",
        tick: |m| Reading::Count(m.agents_spawned),
        over_run: OverRun::Final,
        summary: |s| Reading::Count(s.agents_spawned),
    },
    TickMetric {
        name: "mean_speed",
        title: "mean speed",
        unit: "units/s",
        span: Span::State,
        meaning: "mean \\|v\\| over live agents",
        tick: |m| Reading::Real(m.mean_speed),
        over_run: OverRun::Final,
        summary: |s| Reading::Real(s.mean_speed),
    },
    TickMetric {
        name: "overlap_pairs",
        title: "overlapping pairs",
        unit: "pairs",
        span: Span::State,
        meaning: "pairs of live agents closer than the sum of their radii",
        tick: |m| Reading::Count(m.overlap_pairs),
        over_run: OverRun::Largest,
        summary: |s| Reading::Count(s.overlap_pairs),
    },
    TickMetric {
        name: "obstacle_penetrations",
        title: "obstacle penetrations",
        unit: "agents",
        span: Span::State,
        meaning: "bodies more than 0.001 inside an obstacle after `collide` pushed them out",
        tick: |m| Reading::Count(m.obstacle_penetrations),
        over_run: OverRun::Largest,
        summary: |s| Reading::Count(s.obstacle_penetrations),
    },
    TickMetric {
        name: "wall_crossings",
        title: "steps through a wall",
        unit: "agents",
        span: Span::DuringTick,
        meaning: "agents whose step went into or through an obstacle",
        tick: |m| Reading::Count(m.wall_crossings),
        over_run: OverRun::Summed,
        summary: |s| Reading::Count(s.wall_crossings),
    },
    TickMetric {
        name: "wall_depth",
        title: "deepest reach into a wall before the push-out",
        unit: "units",
        span: Span::DuringTick,
        meaning: "the deepest reach of a body into an obstacle before `collide` pushed it out",
        tick: |m| Reading::Real(m.wall_depth),
        over_run: OverRun::Largest,
        summary: |s| Reading::Real(s.wall_depth),
    },
    TickMetric {
        name: "stuck_agents",
        title: "stuck agents",
        unit: "agents",
        span: Span::State,
        meaning: "agents with a goal that moved less than `stuck_distance` over the last complete stuck window, away from their goal (0 until the first window ends)",
        tick: |m| Reading::Count(m.stuck_agents),
        over_run: OverRun::Largest,
        summary: |s| Reading::Count(s.stuck_agents),
    },
    TickMetric {
        name: "queue_length",
        title: "queue length",
        unit: "agents",
        span: Span::DuringTick,
        meaning: "agents that braked behind a blocker",
        tick: |m| Reading::Count(m.queue_length as u64),
        over_run: OverRun::Largest,
        summary: |s| Reading::Count(s.queue_length_max as u64),
    },
    TickMetric {
        name: "polarisation",
        title: "polarisation",
        unit: "0 to 1",
        span: Span::State,
        meaning: "\\|mean of normalised velocities\\| over moving agents: 1 when all head the same way",
        tick: |m| Reading::Real(m.polarisation),
        over_run: OverRun::Final,
        summary: |s| Reading::Real(s.polarisation),
    },
];

impl TickMetric {
    /// Its panel's title in `throng plot`: its title, and for a running total, that it is one.
    pub fn panel_title(&self) -> String {
        match self.span {
            Span::Total => format!("{}, cumulative", self.title),
            _ => self.title.to_string(),
        }
    }
}

/// The index in [`TICK_METRICS`] of the metric called `name`.
pub fn tick_metric(name: &str) -> Option<usize> {
    TICK_METRICS.iter().position(|m| m.name == name)
}

/// The README's table of the metrics file's columns: `tick` and `time_s`, every tick metric,
/// then the per-gate, per-area and events columns.
pub fn docs_table() -> String {
    let mut out = String::from("| column | kind | unit | meaning |\n|---|---|---|---|\n");
    out.push_str(
        "| `tick`, `time_s` | | s | ticks completed, and `tick · dt` in seconds, written to `dt`'s decimals |\n",
    );
    for m in &TICK_METRICS {
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", m.name, m.span.words(), m.unit, m.meaning));
    }
    out.push_str(concat!(
        "| `gate_NAME`, `gate_NAME_flow` | during the tick | crossings; per s per unit | crossings of gate `NAME` (either way); crossings per second per unit of its length |\n",
        "| `measure_NAME_count`, `_density`, `_speed` | state | agents; per square unit; units/s | agents inside measurement area `NAME`, per square unit, their mean speed |\n",
        "| `events` | before the tick | | with `[[events]]`: the names of those that fired before this tick ran (`; `-separated); `throng plot` draws them as lines |\n",
    ));
    out
}

/// docs/render.md's table of `throng plot`'s panels: every tick metric, then `gates`.
pub fn panels_table() -> String {
    let mut out = String::from("| `--panels` name | panel | unit |\n|---|---|---|\n");
    for m in &TICK_METRICS {
        out.push_str(&format!("| `{}` | {} | {} |\n", m.name, m.panel_title(), m.unit));
    }
    out.push_str("| `gates` | gate NAME throughput, one panel per gate | agents/s, the mean over a trailing 5 s window (`round(5 / dt)` ticks) |\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (k, m) in TICK_METRICS.iter().enumerate() {
            assert_eq!(tick_metric(m.name), Some(k), "{}", m.name);
        }
        assert_eq!(tick_metric("nothing"), None);
    }

    #[test]
    fn each_reads_its_own_field() {
        let t =
            TickMetrics { agents_spawned: 7, wall_depth: 0.25, queue_length: 3, ..TickMetrics::default() };
        let read = |name| (TICK_METRICS[tick_metric(name).unwrap()].tick)(&t);
        assert_eq!(read("agents_spawned"), Reading::Count(7));
        assert_eq!(read("wall_depth"), Reading::Real(0.25));
        assert_eq!(read("queue_length"), Reading::Count(3));
        assert_eq!(read("agents_active"), Reading::Count(0));
    }
}
