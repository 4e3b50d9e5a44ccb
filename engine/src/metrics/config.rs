//! What a scenario's `[metrics]` table sets: when an agent counts as stuck, and whether
//! SteerBench's measures are kept.

/// Settings of the metrics `throng run` reports (see `metrics`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricsConfig {
    /// An agent that moved less than this (world units) over a window is stuck.
    pub stuck_distance: f32,
    /// The window, in seconds.
    pub stuck_window_s: f32,
    /// An agent this close to its goal is at its goal, not stuck.
    pub goal_radius: f32,
    /// Keep SteerBench's per-agent measures and composite score (`metrics::SteerBenchSummary`).
    pub steerbench: bool,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig { stuck_distance: 0.5, stuck_window_s: 10.0, goal_radius: 2.0, steerbench: false }
    }
}
