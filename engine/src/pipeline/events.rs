//! `TickEvents`: what happened during the last tick, for metrics.

/// What happened during the last tick, for metrics. All counts are integers, so they are
/// the same whatever the thread count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickEvents {
    /// Agents removed by exits.
    pub exited: u32,
    /// Agents added by spawn sources.
    pub spawned: u32,
    /// Agents that had a blocker in `queue_brake`.
    pub queue_length: u32,
    /// Crossings of each gate line (either direction), in gate order.
    pub gate_crossings: Vec<u32>,
    /// Agents whose step went into or through an obstacle (`passes::collide`).
    pub wall_crossings: u32,
    /// The deepest reach of a body into an obstacle before `collide` pushed it out (units).
    pub wall_depth: f32,
}

impl TickEvents {
    /// Zero counts; the `gates` pass sizes the gate counters.
    pub(super) fn reset(&mut self) {
        self.exited = 0;
        self.spawned = 0;
        self.queue_length = 0;
        self.wall_crossings = 0;
        self.wall_depth = 0.0;
        self.gate_crossings.clear();
    }
}
