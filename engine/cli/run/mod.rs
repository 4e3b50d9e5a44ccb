//! `throng run`: run one scenario, report timings, per-pass costs and hashes.

use crate::dimension::CliDimension;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;
use throng_engine::expect::{Outcome, Status};
use throng_engine::math::{Vec2, Vec3};
use throng_engine::metrics::{Summary, TICK_METRICS};
use throng_engine::pipeline::DEFAULT_REORDER_EVERY;
use throng_engine::{IndexKind, Pipeline, RunSettings, Scenario, Simulation, World, state_hash};

use crate::args::{self, IndexArg};
use crate::output::{Metrics, MetricsFormat, RunInfo, Trace, TraceFormat};
use crate::ticks::{Ended, run_ticks};

mod plan;
mod resume;

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML). With --resume it may be left out: the checkpoint names it.
    pub scenario: Option<PathBuf>,
    /// Ticks to run (default: the scenario's `ticks`).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Seed (default: the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Scale the scenario to N agents at its own density, as `throng bench --agents` does
    /// (group counts × k, bounds, regions and obstacles × √k), after any `--set`. The same as
    /// `--set agents=N`.
    #[arg(long, value_name = "N")]
    pub agents: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Neighbour index (default: the scenario's `index`, else kd). Results do not depend on it.
    #[arg(long, value_enum)]
    pub index: Option<IndexArg>,
    /// Record the state hash every K ticks (tick 0 included).
    #[arg(long, value_name = "K")]
    pub hash_every: Option<u64>,
    /// Write positions and velocities to this file, in the format its extension names (.csv,
    /// .parquet, .sqlite or .db, .txt; see docs/output.md) or --trace-format gives.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The trace's format, whatever its file's extension.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "trace")]
    pub trace_format: Option<TraceFormat>,
    /// Trace every K ticks (tick 0 included) [default: 1].
    #[arg(long, value_name = "K")]
    pub trace_every: Option<u64>,
    /// Write the per-tick metrics to this file: Parquet for .parquet (or --metrics-format
    /// parquet), CSV otherwise.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// The metrics file's format, whatever its extension.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "metrics")]
    pub metrics_format: Option<MetricsFormat>,
    /// Put rows in spatial (Morton) order every K ticks: faster for large crowds, identical
    /// results (hashes, traces, metrics and checkpoints read rows in id order). 0: never.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_REORDER_EVERY)]
    pub reorder_every: u64,
    /// Reuse each agent's candidates within its sensing radius plus D until more than a few
    /// agents have moved 0.45 × D; results are identical. 0: sense afresh every tick. Default: the
    /// scenario's `sensing_skin`.
    #[arg(long, value_name = "D", value_parser = args::parse_skin)]
    pub sensing_skin: Option<f32>,
    /// Skip the metrics (overlaps, penetrations, stuck agents, ...) entirely.
    #[arg(long, conflicts_with = "metrics")]
    pub no_metrics: bool,
    /// Print one JSON object on stdout instead of the human report.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors (and the JSON object, with --json).
    #[arg(long)]
    pub quiet: bool,
    /// Override a scenario value before validation, e.g. `--set groups.boids.max_speed=2.5`
    /// (repeatable; see docs/batches.md for keys).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Save the whole state every K ticks into --checkpoint-dir (tick-NNNNNNNNNN.ckpt).
    #[arg(long, value_name = "K")]
    pub checkpoint_every: Option<u64>,
    /// Directory for --checkpoint-every (created if missing).
    #[arg(long, value_name = "DIR")]
    pub checkpoint_dir: Option<PathBuf>,
    #[command(flatten)]
    pub max_memory: crate::memory::MaxMemory,
    /// Exit with code 1 when one of the scenario's expectations (`[[expect]]`) fails or cannot
    /// be checked (the run ended before its time). Without it they are reported only.
    #[arg(long)]
    pub expect: bool,
    /// Continue the run that wrote this checkpoint (or a checkpoint directory's latest) to its
    /// planned end: its scenario, `--set`s, `--ticks`, output files and checkpoint settings come
    /// from the checkpoint; any given again must agree. Its trace and metrics files are
    /// continued from the checkpoint's tick.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
}

#[derive(Serialize)]
struct RunReport<'a> {
    scenario: &'a str,
    file: String,
    seed: u64,
    threads: usize,
    index: &'static str,
    /// The overrides the scenario was run with (`--set`, `--agents`), as `key = value`.
    overrides: &'a [String],
    /// Live agents at the end (the same as `agents_active`).
    agents: usize,
    /// Agents at tick 0, added by spawn sources since, removed by exits since, alive now.
    agents_initial: u64,
    agents_spawned: u64,
    agents_exited: u64,
    agents_active: usize,
    /// The tick the run ends at (ticks count from tick 0, resumed or not).
    ticks: u64,
    /// Ticks this invocation ran: `ticks` minus the checkpoint's tick when it resumed.
    ticks_run: u64,
    dt: f32,
    wall_s: f64,
    ticks_per_s: f64,
    ms_per_tick: f64,
    passes: serde_json::Map<String, serde_json::Value>,
    /// Time spent observing metrics, outside the ticks.
    metrics_ms_per_tick: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Summary>,
    hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    hashes: Option<Vec<(u64, String)>>,
    /// The tick of the checkpoint this run resumed from.
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_from: Option<u64>,
    /// The verdict of each `[[expect]]` entry, when the scenario has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    expectations: Option<Vec<Outcome>>,
    /// Each `[[events]]` entry: how often it fired, and when first and last.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    events: Vec<EventRecord>,
    /// Whether a `stop` event ended the run (at tick `ticks_run` after the start).
    stopped_by_event: bool,
}

/// What an event did in the run.
#[derive(Serialize)]
struct EventRecord {
    name: String,
    fired: u32,
    /// Ticks completed when it first and last fired (it applies before the next tick), and
    /// the same in seconds.
    first_tick: Option<u64>,
    last_tick: Option<u64>,
    first_s: Option<f64>,
    last_s: Option<f64>,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let settings = RunSettings {
        threads: args::threads(args.threads, "--threads")?,
        index: args.index.map(IndexKind::from),
        reorder_every: args.reorder_every,
        sensing_skin: args.sensing_skin,
        metrics: !args.no_metrics,
        keep_awake: true,
    };
    if args.hash_every == Some(0) {
        bail!("--hash-every must be at least 1");
    }
    if args.trace_every == Some(0) {
        bail!("--trace-every must be at least 1");
    }
    args::ticks(args.ticks)?;
    match resume::dimensions(&args)? {
        3 => run_in::<Vec3>(args, settings),
        _ => run_in::<Vec2>(args, settings),
    }
}

/// [`run`] of a scenario whose points are `V`s.
fn run_in<V: CliDimension>(args: RunArgs, settings: RunSettings) -> Result<ExitCode> {
    let resume::Start { mut sim, scenario, plan, resumed } = resume::start::<V>(&args, settings)?;
    let checkpointer = resume::Checkpointer::new(plan.checkpoint_every, plan.checkpoint_dir.as_deref())?;
    warn_at_start(&sim, &scenario, resumed.as_deref());
    let ticks = plan.ticks;
    let first_tick = sim.tick();
    let resumed_at = resumed.as_ref().map(|_| first_tick);
    let info = RunInfo::of(&scenario, &plan.scenario);
    let mut trace = match &plan.trace {
        Some(path) => {
            let format = TraceFormat::of(path, plan.trace_format);
            Some(Trace::open(path, format, sim.world(), &info, plan.trace_every, resumed_at)?)
        }
        None => None,
    };
    let mut hashes = args.hash_every.map(|_| Vec::new());
    let observe = |world: &World<V>, hashes: &mut Option<Vec<(u64, String)>>, trace: &mut Option<Trace>| {
        if let (Some(every), Some(list)) = (args.hash_every, hashes.as_mut())
            && world.tick.is_multiple_of(every)
        {
            list.push((world.tick, state_hash(world).to_hex()));
        }
        // A resumed run's trace already holds the checkpoint's tick.
        if let Some(t) = trace.as_mut()
            && world.tick.is_multiple_of(plan.trace_every)
            && Some(world.tick) != resumed_at
        {
            t.write(world)?;
        }
        anyhow::Ok(())
    };
    let mut metrics_csv = match (&plan.metrics, sim.metrics()) {
        (Some(path), Some(_)) => {
            let format = MetricsFormat::of(path, plan.metrics_format);
            Some(Metrics::open(path, format, sim.world(), &info, resumed_at)?)
        }
        _ => None,
    };
    // A run from tick 0 writes the starting state as the metrics file's first row.
    if let (Some(csv), 0) = (metrics_csv.as_mut(), first_tick)
        && let Some(m) = sim.initial_metrics()
    {
        csv.write(&m, sim.world())?;
    }

    let progress = args::progress_bar(ticks - first_tick, args.quiet);
    let interrupts = crate::interrupt::Interrupts::catch();
    observe(sim.world(), &mut hashes, &mut trace)?;
    let ended = run_ticks(&mut sim, ticks, &progress, Some(&interrupts), |sim| {
        if let (Some(csv), Some(m)) = (metrics_csv.as_mut(), sim.metrics()) {
            csv.write(m.last(), sim.world())?;
        }
        observe(sim.world(), &mut hashes, &mut trace)?;
        if let Some(c) = &checkpointer
            && c.due(sim.tick())
        {
            // The files first: a checkpoint never runs ahead of them.
            if let Some(t) = trace.as_mut() {
                t.flush()?;
            }
            if let Some(m) = metrics_csv.as_mut() {
                m.flush()?;
            }
            c.after_tick(sim)?;
        }
        Ok(())
    })?
    .with_context(|| format!("{} stopped", plan.scenario.display()))?;
    let stopped = match ended {
        Ended::Interrupted(signal) => Some(signal),
        Ended::Done | Ended::StoppedByEvent => None,
    };
    progress.finish_and_clear();
    if let Some(t) = trace {
        t.finish()?;
    }
    if let Some(csv) = metrics_csv {
        csv.finish()?;
    }
    if let Some(signal) = stopped {
        let resume = match &plan.checkpoint_dir {
            Some(dir) => {
                format!("; `throng run --resume {}` continues from its last checkpoint", dir.display())
            }
            None => String::new(),
        };
        eprintln!(
            "stopped by {} after tick {} of {ticks}: the trace and metrics files hold every tick up to it, whole{resume}",
            signal.name(),
            sim.tick()
        );
        return Ok(ExitCode::from(signal.exit_code()));
    }

    let file = args.scenario.as_ref().unwrap_or(&plan.scenario).display().to_string();
    let resumed_from = resumed.map(|_| first_tick);
    let report = run_report(&sim, &scenario, file, (first_tick, ticks), hashes, resumed_from);
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else if !args.quiet {
        print_report(&report, sim.pipeline());
    }
    let failed: Vec<&Outcome> =
        report.expectations.iter().flatten().filter(|o| o.status != Status::Pass).collect();
    if args.expect
        && (!failed.is_empty() || (!scenario.expectations.is_empty() && report.expectations.is_none()))
    {
        if args.quiet {
            for o in &failed {
                eprintln!("{o}");
            }
        }
        eprintln!(
            "{} of {} expectations did not pass",
            if report.expectations.is_none() { scenario.expectations.len() } else { failed.len() },
            scenario.expectations.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Warnings before the first tick: the scenario's own, and what a resumed run or one without
/// metrics leaves out.
fn warn_at_start<V: CliDimension>(sim: &Simulation<V>, scenario: &Scenario<V>, resumed: Option<&Path>) {
    for w in &scenario.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(file) = resumed
        && sim.metrics_restarted()
    {
        eprintln!(
            "warning: {} holds no metrics (its run had --no-metrics): the metrics cover the resumed ticks only",
            file.display()
        );
    }
    if let Some(file) = resumed
        && sim.expectations_restarted()
    {
        eprintln!(
            "warning: {} holds no state of the expectations: they judge the resumed ticks only",
            file.display()
        );
    }
    if !scenario.expectations.is_empty() && sim.metrics().is_none() {
        eprintln!(
            "warning: the scenario's expectations read the metrics: with --no-metrics they are not checked"
        );
    }
}

/// What `throng run` reports of the run of `scenario` (from `file`) that `sim` made, from tick
/// `first_tick` (a resumed run's checkpoint) to `ticks`.
fn run_report<'a, V: CliDimension>(
    sim: &Simulation<V>,
    scenario: &'a Scenario<V>,
    file: String,
    (first_tick, ticks): (u64, u64),
    hashes: Option<Vec<(u64, String)>>,
    resumed_from: Option<u64>,
) -> RunReport<'a> {
    let wall_s = sim.step_time().as_secs_f64();
    let world = sim.world();
    let pipeline = sim.pipeline();
    let passes: serde_json::Map<_, _> =
        pipeline.timers.ms_per_tick().map(|(name, ms)| (name.to_string(), serde_json::json!(ms))).collect();
    let done = (sim.tick() - first_tick).max(1) as f64;
    RunReport {
        scenario: &scenario.name,
        file,
        seed: scenario.seed,
        threads: pipeline.threads(),
        index: pipeline.index_kind().name(),
        overrides: &scenario.overrides,
        agents: world.agents.len(),
        agents_initial: scenario.agent_count(),
        agents_spawned: world.next_id as u64 - scenario.agent_count(),
        agents_exited: world.exited,
        agents_active: world.agents.len(),
        ticks,
        ticks_run: sim.tick() - first_tick,
        dt: scenario.dt,
        wall_s,
        ticks_per_s: (sim.tick() - first_tick) as f64 / wall_s.max(1e-12),
        ms_per_tick: wall_s * 1e3 / done,
        passes,
        metrics_ms_per_tick: sim.metrics_time().as_secs_f64() * 1e3 / done,
        metrics: sim.metrics().map(|m| m.summary(world)),
        hash: sim.hash().to_hex(),
        hashes,
        resumed_from,
        expectations: sim.outcomes(),
        events: world
            .events
            .iter()
            .map(|e| EventRecord {
                name: e.name.clone(),
                fired: e.fired,
                first_tick: e.first_tick,
                last_tick: e.last_tick,
                first_s: e.first_tick.map(|t| t as f64 * world.dt as f64),
                last_s: e.last_tick.map(|t| t as f64 * world.dt as f64),
            })
            .collect(),
        stopped_by_event: world.stopped,
    }
}

fn print_report<V: CliDimension>(r: &RunReport, pipeline: &Pipeline<V>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "scenario   {} ({})", r.scenario, r.file);
    if !r.overrides.is_empty() {
        let _ = writeln!(out, "overrides  {}", r.overrides.join(", "));
    }
    let _ = writeln!(
        out,
        "agents     {} at tick 0, {} spawned, {} exited, {} active   threads {}   index {}   seed {}",
        r.agents_initial, r.agents_spawned, r.agents_exited, r.agents_active, r.threads, r.index, r.seed
    );
    let resumed = match r.resumed_from {
        Some(t) => format!(" (resumed from tick {t}, to tick {})", r.ticks),
        None => String::new(),
    };
    let _ = writeln!(
        out,
        "ticks      {}{resumed} in {:.3} s: {:.1} ticks/s, {:.3} ms/tick",
        r.ticks_run, r.wall_s, r.ticks_per_s, r.ms_per_tick
    );
    // The sensing skin in use at the end (the scenario's, `"auto"`'s pick, or `--sensing-skin`;
    // an automatic one may have been dropped), and how often it saved a sensing tick.
    let (reused, sensed) = pipeline.sensing_counts();
    if reused > 0 || pipeline.sensing_skin() > 0.0 {
        let _ = writeln!(
            out,
            "sensing    skin {} at the end: candidates reused on {reused} of {} ticks",
            pipeline.sensing_skin(),
            reused + sensed
        );
    }
    let _ = writeln!(out, "\n{:<18} {:>10} {:>7}", "pass", "ms/tick", "share");
    // build_index and find_threats run side by side: shares are of the summed pass times.
    let total: f64 = pipeline.timers.ms_per_tick().map(|(_, ms)| ms).sum();
    for (name, ms) in pipeline.timers.ms_per_tick() {
        let share = if total > 0.0 { 100.0 * ms / total } else { 0.0 };
        let _ = writeln!(out, "{name:<18} {ms:>10.4} {share:>6.1}%");
    }
    if let Some(m) = &r.metrics {
        let _ = writeln!(out, "\nmetrics");
        let width = TICK_METRICS.iter().map(|t| t.title.len()).max().unwrap_or(0);
        for t in &TICK_METRICS {
            let value = (t.summary)(m).shown();
            let _ = writeln!(out, "  {:<width$}  {value:>10}  {} ({})", t.title, t.unit, t.over_run.words());
        }
        let _ = writeln!(
            out,
            "  {:<width$}  {:>10.4}  s per agent that lived",
            "mean wait behind a blocker", m.mean_wait_s
        );
        for g in &m.gates {
            let _ = writeln!(
                out,
                "  gate {}: {} crossings, {:.3} per s, {:.3} per s per unit width, {:.3} per s while passing",
                g.name, g.crossings, g.per_s, g.flow, g.passage_per_s
            );
        }
        for a in &m.areas {
            let _ = writeln!(
                out,
                "  area {}: density {:.3} mean, {:.3} max (per unit²), speed {:.3} mean",
                a.name, a.density_mean, a.density_max, a.speed_mean
            );
        }
        for s in &m.stages {
            let _ = writeln!(
                out,
                "  stage {}: {} finished in {:.2} s on average, {} heading to it at the end, at most {} waiting",
                s.name, s.finished, s.mean_s, s.agents, s.queue_max
            );
        }
        if let Some(p) = &m.parties {
            let _ = writeln!(
                out,
                "  parties: over {} ticks walking, spread {:.3} m, angle {:.1}° to the walking direction, V depth {:.3} m; {:.0} % line abreast, {:.0} % V, {:.0} % river-like",
                p.ticks,
                p.spread,
                p.angle_deg,
                p.v_depth,
                100.0 * p.abreast,
                100.0 * p.v,
                100.0 * p.river
            );
        }
    }
    if !r.events.is_empty() {
        let _ = writeln!(out, "\nevents");
        for e in &r.events {
            let when = match (e.first_s, e.last_s, e.fired) {
                (_, _, 0) => "never fired".to_string(),
                (Some(a), _, 1) => format!("fired at {a:.2} s (after tick {})", e.first_tick.unwrap_or(0)),
                (Some(a), Some(b), n) => format!("fired {n} times, {a:.2} s to {b:.2} s"),
                _ => String::new(),
            };
            let _ = writeln!(out, "  {}: {when}", e.name);
        }
        if r.stopped_by_event {
            let _ = writeln!(out, "  the run was stopped by an event after {} ticks", r.ticks_run);
        }
    }
    if let Some(list) = &r.expectations {
        let passed = list.iter().filter(|o| o.status == Status::Pass).count();
        let _ = writeln!(out, "\nexpectations: {passed} of {} passed", list.len());
        for o in list {
            let _ = writeln!(out, "  {o}");
        }
    }
    let _ = writeln!(out, "\nfinal hash {}", r.hash);
}
