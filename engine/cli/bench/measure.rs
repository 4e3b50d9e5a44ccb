//! One `throng bench` measurement: a scaled scenario on one index and thread count, warmed up,
//! then timed over repeats beside the machine's own probes (the index floor, the ideal pass).

use crate::dimension::CliDimension;
use std::time::Instant;

use anyhow::Result;
use indicatif::ProgressBar;
use serde::Serialize;
use throng_engine::probes::{ideal_pass, kd_floor};
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::interrupt::Interrupts;

#[derive(Serialize, Clone)]
pub(super) struct BenchResult {
    pub(super) agents: usize,
    pub(super) index: &'static str,
    /// The groups' velocity models (`+`-joined where they differ).
    pub(super) model: String,
    pub(super) threads: usize,
    /// Expected neighbours within the sensing radius at uniform density:
    /// `agents / bounds area · π · sensing_radius²`.
    pub(super) neighbours: f64,
    /// Median over repeats.
    pub(super) ms_per_tick: f64,
    pub(super) ms_per_tick_min: f64,
    pub(super) ms_per_tick_max: f64,
    /// Median of the bare kiddo build + radius queries, [`FLOOR_RUNS`] after each repeat.
    pub(super) floor_ms: f64,
    pub(super) ratio_to_floor: f64,
    /// [`ideal_pass`] over as many rows on the same pool, ms per pass: after each repeat, as
    /// many passes back to back as the repeat had ticks; the median over repeats. What a pass
    /// with nothing in the way of threads takes, to judge the thread scaling against the
    /// machine's own.
    pub(super) ideal_pass_ms: f64,
    pub(super) passes: serde_json::Map<String, serde_json::Value>,
    /// The candidate-reuse margin the run used (`sensing_skin`, or `--sensing-skin`).
    pub(super) sensing_skin: f32,
    /// Share of the measured ticks whose neighbour lists were sensed with the index rather than
    /// from reused candidates (1 with no skin).
    pub(super) sensed_fraction: f64,
    pub(super) ticks_per_s: f64,
    pub(super) agent_ticks_per_s: f64,
    pub(super) peak_rss_mb: f64,
    /// The scenario's memory estimate (`Scenario::memory_estimate`), beside the measured peak,
    /// so the estimate that refuses runs stays honest.
    pub(super) estimated_mb: f64,
}

/// Index floors measured after each repeat; `floor_ms` is the median of all of them. Five
/// floors back to back at 100k vary by 13.5–16.4 ms on this machine with no first-run effect
/// (docs/benchmarks.md), so more samples steady the median without biasing it.
pub(super) const FLOOR_RUNS: usize = 3;

pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

/// Peak resident set size of this process so far (VmHWM), in MB; 0 where /proc is missing.
fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Resets the peak so each size reports its own (Linux `clear_refs`; ignored elsewhere).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// How each measurement runs: `warmup` ticks, then `repeats` timed runs of `ticks` ticks.
pub(super) struct Schedule {
    pub(super) warmup: u64,
    pub(super) ticks: u64,
    pub(super) repeats: u64,
    /// `--reorder-every`.
    pub(super) reorder_every: u64,
    /// `--sensing-skin` (none: the scenario's).
    pub(super) sensing_skin: Option<f32>,
}

/// What every measurement of one `throng bench` shares: the schedule, the progress bar, the
/// signals looked for between ticks, and the probes' buffers, reused from one to the next.
pub(super) struct Measuring<'a> {
    schedule: Schedule,
    progress: &'a ProgressBar,
    interrupts: &'a Interrupts,
    points: Vec<[f32; 2]>,
    ideal_in: Vec<f32>,
    ideal_out: Vec<f32>,
}

impl<'a> Measuring<'a> {
    pub(super) fn new(
        schedule: Schedule,
        progress: &'a ProgressBar,
        interrupts: &'a Interrupts,
    ) -> Measuring<'a> {
        Measuring {
            schedule,
            progress,
            interrupts,
            points: Vec::new(),
            ideal_in: Vec::new(),
            ideal_out: Vec::new(),
        }
    }

    /// `scaled` (whose agents expect `neighbours` others within their sensing radius) on
    /// `threads` threads with `index`; `None` when a signal stopped it.
    pub(super) fn measure<V: CliDimension>(
        &mut self,
        scaled: &Scenario<V>,
        neighbours: f64,
        index: IndexKind,
        threads: usize,
    ) -> Result<Option<BenchResult>> {
        let Measuring { schedule, progress, interrupts, points, ideal_in, ideal_out } = self;
        reset_peak_rss();
        let settings = RunSettings {
            threads,
            index: Some(index),
            reorder_every: schedule.reorder_every,
            sensing_skin: schedule.sensing_skin,
            metrics: false,
            keep_awake: true,
        };
        let mut sim = Simulation::new(scaled, settings)?;
        // `ticks` ticks on the pipeline's workers (see `Simulation::enter`), counted on the
        // bar; false when a signal stopped them.
        let run_ticks = |sim: &mut Simulation<V>, ticks: u64| -> Result<bool> {
            let last = sim.tick() + ticks;
            let ended = crate::ticks::run_ticks(sim, last, progress, Some(*interrupts), |_| Ok(()))??;
            Ok(!matches!(ended, crate::ticks::Ended::Interrupted(_)))
        };
        if !run_ticks(&mut sim, schedule.warmup)? {
            return Ok(None);
        }
        sim.pipeline_mut().timers = Default::default();
        let (reused_before, sensed_before) = sim.pipeline().sensing_counts();
        let mut per_tick = Vec::new();
        let mut floors = Vec::new();
        let mut ideals = Vec::new();
        for _ in 0..schedule.repeats {
            let start = Instant::now();
            if !run_ticks(&mut sim, schedule.ticks)? {
                return Ok(None);
            }
            per_tick.push(start.elapsed().as_secs_f64() * 1e3 / schedule.ticks as f64);
            // The floor on this repeat's positions, with each agent's own sensing radius,
            // [`FLOOR_RUNS`] times: one floor is a single build and query sweep, far
            // shorter than a repeat's ticks, so alone it would be the noisier figure.
            let world = sim.world();
            let radius: Vec<f32> =
                world.agents.group.iter().map(|&g| world.groups[g as usize].sensing_radius).collect();
            ideal_in.resize(world.agents.len(), 1.0);
            ideal_out.resize(world.agents.len(), 0.0);
            // Inside `enter`, as the ticks are: on a worker, with the other workers awake.
            sim.enter(|sim| {
                // Untimed, so that the other workers are awake, as through the ticks.
                ideal_pass(ideal_in, ideal_out);
                // The ideal pass, back to back as often as the ticks.
                let start = Instant::now();
                for _ in 0..schedule.ticks {
                    ideal_pass(ideal_in, ideal_out);
                }
                ideals.push(start.elapsed().as_secs_f64() * 1e3 / schedule.ticks as f64);
                std::hint::black_box(&ideal_out);
                for _ in 0..FLOOR_RUNS {
                    let start = Instant::now();
                    // The planar floor probe; none in space.
                    let Some(plane) = V::plane(sim.world()) else { break };
                    let hits = kd_floor(points, &plane.agents.position, &radius);
                    floors.push(start.elapsed().as_secs_f64() * 1e3);
                    std::hint::black_box(hits);
                }
            });
        }
        let (world, pipeline) = (sim.world(), sim.pipeline());
        let ms_min = per_tick.iter().copied().fold(f64::INFINITY, f64::min);
        let ms_max = per_tick.iter().copied().fold(0.0, f64::max);
        let ms = median(&mut per_tick);
        // The floor probe is planar: in space there is none, and both columns say 0.
        let floor_ms = if floors.is_empty() { 0.0 } else { median(&mut floors) };
        let (reused, sensed) = pipeline.sensing_counts();
        let (reused, sensed) = (reused - reused_before, sensed - sensed_before);
        let passes =
            pipeline.timers.ms_per_tick().map(|(n, ms)| (n.to_string(), serde_json::json!(ms))).collect();
        let n = world.agents.len();
        let mut models: Vec<&str> = Vec::new();
        for g in &world.groups {
            if !models.contains(&g.model.name()) {
                models.push(g.model.name());
            }
        }
        Ok(Some(BenchResult {
            agents: n,
            index: index.name(),
            model: models.join("+"),
            threads,
            neighbours,
            ms_per_tick: ms,
            ms_per_tick_min: ms_min,
            ms_per_tick_max: ms_max,
            floor_ms,
            ratio_to_floor: if floor_ms > 0.0 { ms / floor_ms } else { 0.0 },
            ideal_pass_ms: median(&mut ideals),
            passes,
            sensing_skin: pipeline.sensing_skin(),
            sensed_fraction: sensed as f64 / (sensed + reused).max(1) as f64,
            ticks_per_s: 1e3 / ms.max(1e-9),
            agent_ticks_per_s: n as f64 * 1e3 / ms.max(1e-9),
            peak_rss_mb: peak_rss_mb(),
            estimated_mb: scaled.memory_estimate().mib(),
        }))
    }
}
