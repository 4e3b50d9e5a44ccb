//! The metrics state as checkpoints of format versions 2 to 5 hold it: the tick's metrics and
//! the summary before `wall_crossings` and `wall_depth`, read and brought to today's state with
//! both at 0 (those runs did not measure them), and written so for the tests of old formats.

use serde::{Deserialize, Serialize};

use super::{
    AreaReading, AreaSummary, AreaTotals, GateSummary, MetricsState, SteerBenchState, SteerBenchSummary,
};
use super::{Summary, TickMetrics};
use crate::math::Vec2;

/// [`TickMetrics`] without the wall crossings, field for field in the order it was written.
#[derive(Serialize, Deserialize)]
struct TickMetricsV5 {
    tick: u64,
    time_s: f64,
    agents_active: u64,
    agents_exited: u64,
    agents_spawned: u64,
    mean_speed: f64,
    overlap_pairs: u64,
    obstacle_penetrations: u64,
    stuck_agents: u64,
    queue_length: u32,
    polarisation: f64,
    gate_crossings: Vec<u32>,
    gate_flow: Vec<f64>,
    areas: Vec<AreaReading>,
}

/// [`Summary`] without the wall crossings.
#[derive(Serialize, Deserialize)]
struct SummaryV5 {
    time_s: f64,
    agents_active: u64,
    agents_exited: u64,
    agents_spawned: u64,
    mean_speed: f64,
    overlap_pairs: u64,
    obstacle_penetrations: u64,
    stuck_agents: u64,
    queue_length_max: u32,
    mean_wait_s: f64,
    polarisation: f64,
    gates: Vec<GateSummary>,
    areas: Vec<AreaSummary>,
    steerbench: Option<SteerBenchSummary>,
}

/// [`MetricsState`] as format versions 2 to 5 wrote it.
#[derive(Serialize, Deserialize)]
#[serde(bound(serialize = "V: Serialize", deserialize = "V: serde::de::DeserializeOwned"))]
pub(crate) struct MetricsStateV5<V = Vec2> {
    anchor: Vec<V>,
    anchored: Vec<bool>,
    stuck: u64,
    blocked_agent_ticks: u64,
    spawned: u64,
    gate_totals: Vec<u64>,
    gate_spans: Vec<Option<(u64, u64)>>,
    area_totals: Vec<AreaTotals>,
    observed_ticks: u64,
    summary: SummaryV5,
    last: TickMetricsV5,
    steerbench: SteerBenchState,
}

impl<V> From<MetricsStateV5<V>> for MetricsState<V> {
    fn from(old: MetricsStateV5<V>) -> MetricsState<V> {
        let s = old.summary;
        let t = old.last;
        MetricsState {
            anchor: old.anchor,
            anchored: old.anchored,
            stuck: old.stuck,
            blocked_agent_ticks: old.blocked_agent_ticks,
            spawned: old.spawned,
            gate_totals: old.gate_totals,
            gate_spans: old.gate_spans,
            area_totals: old.area_totals,
            stage_queue_max: Vec::new(),
            party_totals: Default::default(),
            observed_ticks: old.observed_ticks,
            summary: Summary {
                time_s: s.time_s,
                agents_active: s.agents_active,
                agents_exited: s.agents_exited,
                agents_spawned: s.agents_spawned,
                mean_speed: s.mean_speed,
                overlap_pairs: s.overlap_pairs,
                obstacle_penetrations: s.obstacle_penetrations,
                wall_crossings: 0,
                wall_depth: 0.0,
                stuck_agents: s.stuck_agents,
                queue_length_max: s.queue_length_max,
                mean_wait_s: s.mean_wait_s,
                polarisation: s.polarisation,
                gates: s.gates,
                areas: s.areas,
                stages: Vec::new(),
                parties: None,
                steerbench: s.steerbench,
            },
            last: TickMetrics {
                tick: t.tick,
                time_s: t.time_s,
                agents_active: t.agents_active,
                agents_exited: t.agents_exited,
                agents_spawned: t.agents_spawned,
                mean_speed: t.mean_speed,
                overlap_pairs: t.overlap_pairs,
                obstacle_penetrations: t.obstacle_penetrations,
                wall_crossings: 0,
                wall_depth: 0.0,
                stuck_agents: t.stuck_agents,
                queue_length: t.queue_length,
                polarisation: t.polarisation,
                gate_crossings: t.gate_crossings,
                gate_flow: t.gate_flow,
                areas: t.areas,
                stages: Vec::new(),
                parties: None,
            },
            steerbench: old.steerbench,
        }
    }
}

impl<V: Clone> From<&MetricsState<V>> for MetricsStateV5<V> {
    /// Today's state as version 5 wrote it: the wall crossings left out.
    fn from(now: &MetricsState<V>) -> MetricsStateV5<V> {
        let s = now.summary.clone();
        let t = now.last.clone();
        MetricsStateV5 {
            anchor: now.anchor.clone(),
            anchored: now.anchored.clone(),
            stuck: now.stuck,
            blocked_agent_ticks: now.blocked_agent_ticks,
            spawned: now.spawned,
            gate_totals: now.gate_totals.clone(),
            gate_spans: now.gate_spans.clone(),
            area_totals: now.area_totals.clone(),
            observed_ticks: now.observed_ticks,
            summary: SummaryV5 {
                time_s: s.time_s,
                agents_active: s.agents_active,
                agents_exited: s.agents_exited,
                agents_spawned: s.agents_spawned,
                mean_speed: s.mean_speed,
                overlap_pairs: s.overlap_pairs,
                obstacle_penetrations: s.obstacle_penetrations,
                stuck_agents: s.stuck_agents,
                queue_length_max: s.queue_length_max,
                mean_wait_s: s.mean_wait_s,
                polarisation: s.polarisation,
                gates: s.gates,
                areas: s.areas,
                steerbench: s.steerbench,
            },
            last: TickMetricsV5 {
                tick: t.tick,
                time_s: t.time_s,
                agents_active: t.agents_active,
                agents_exited: t.agents_exited,
                agents_spawned: t.agents_spawned,
                mean_speed: t.mean_speed,
                overlap_pairs: t.overlap_pairs,
                obstacle_penetrations: t.obstacle_penetrations,
                stuck_agents: t.stuck_agents,
                queue_length: t.queue_length,
                polarisation: t.polarisation,
                gate_crossings: t.gate_crossings,
                gate_flow: t.gate_flow,
                areas: t.areas,
            },
            steerbench: now.steerbench.clone(),
        }
    }
}
