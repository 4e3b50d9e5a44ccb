//! What a Python simulation keeps after each tick, for `results.rs`: the tick's metrics (when
//! metrics are on) and, once asked for, the agents' positions every so many ticks (a
//! trajectory for PedPy). Kept in Rust so a run of many ticks records at engine speed.

use throng_engine::Simulation;
use throng_engine::metrics::TickMetrics;
use throng_engine::pipeline::Passes;

use crate::values::Point;

/// The per-tick records of one simulation.
#[derive(Default)]
pub struct Recorder {
    /// Each observed tick's metrics, the state at creation first.
    pub metrics: Vec<TickMetrics>,
    /// The positions, when recording.
    pub trajectory: Option<Trajectory>,
}

/// Positions every `every` ticks from tick `start`, one row per live agent per frame.
pub struct Trajectory {
    /// Ticks between frames.
    pub every: u64,
    /// The tick of the first frame.
    pub start: u64,
    /// The tick of each row.
    pub frame: Vec<u64>,
    /// The agent of each row.
    pub id: Vec<u32>,
    /// Each row's coordinates, `dims` per row.
    pub coords: Vec<f32>,
}

impl Trajectory {
    /// A trajectory with a frame every `every` ticks from tick `start`.
    pub fn new(every: u64, start: u64) -> Trajectory {
        Trajectory { every, start, frame: Vec::new(), id: Vec::new(), coords: Vec::new() }
    }

    /// Appends the world's live agents as the frame of its tick.
    pub fn take<V: Passes + Point>(&mut self, sim: &Simulation<V>) {
        let a = &sim.world().agents;
        self.frame.extend(std::iter::repeat_n(sim.tick(), a.len()));
        self.id.extend_from_slice(&a.id);
        for p in &a.position {
            p.push_to(&mut self.coords);
        }
    }
}

impl Recorder {
    /// What a tick leaves: its metrics, and a frame when one is due.
    pub fn after_tick<V: Passes + Point>(&mut self, sim: &Simulation<V>) {
        if let Some(m) = sim.metrics() {
            self.metrics.push(m.last().clone());
        }
        if let Some(t) = self.trajectory.as_mut()
            && (sim.tick() - t.start).is_multiple_of(t.every)
        {
            t.take(sim);
        }
    }
}
