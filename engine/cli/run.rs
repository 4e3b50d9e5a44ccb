//! `throng run`: run one scenario, report timings, per-pass costs and hashes.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use throng_engine::{IndexKind, Pipeline, Scenario, World, state_hash};

use crate::IndexArg;

#[derive(Args)]
pub struct RunArgs {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Ticks to run (default: the scenario's `ticks`).
    #[arg(long)]
    ticks: Option<u64>,
    /// Seed (default: the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Neighbour index (default: the scenario's `index`, else kd). Results do not depend on it.
    #[arg(long, value_enum)]
    index: Option<IndexArg>,
    /// Record the state hash every K ticks (tick 0 included).
    #[arg(long, value_name = "K")]
    hash_every: Option<u64>,
    /// Write positions and velocities to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    trace: Option<PathBuf>,
    /// Trace every K ticks (tick 0 included).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace")]
    trace_every: u64,
    /// Print one JSON object on stdout instead of the human report.
    #[arg(long)]
    json: bool,
    /// Print nothing but errors (and the JSON object, with --json).
    #[arg(long)]
    quiet: bool,
}

#[derive(Serialize)]
struct RunReport<'a> {
    scenario: &'a str,
    file: String,
    seed: u64,
    threads: usize,
    index: &'static str,
    agents: usize,
    ticks: u64,
    dt: f32,
    wall_s: f64,
    ticks_per_s: f64,
    ms_per_tick: f64,
    passes: serde_json::Map<String, serde_json::Value>,
    hash: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    hashes: Option<Vec<(u64, String)>>,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let mut scenario = Scenario::load(&args.scenario)?;
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    let ticks = args.ticks.unwrap_or(scenario.ticks);
    let index = args.index.map(IndexKind::from).unwrap_or(scenario.index);
    let threads = match args.threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if args.hash_every == Some(0) {
        bail!("--hash-every must be at least 1");
    }
    if args.trace_every == 0 {
        bail!("--trace-every must be at least 1");
    }

    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(threads, index)?;
    let mut trace = match &args.trace {
        Some(path) => Some(Trace::create(path)?),
        None => None,
    };
    let mut hashes = args.hash_every.map(|_| Vec::new());
    let mut observe = |world: &World, hashes: &mut Option<Vec<(u64, String)>>| -> Result<()> {
        if let (Some(every), Some(list)) = (args.hash_every, hashes.as_mut())
            && world.tick.is_multiple_of(every)
        {
            list.push((world.tick, state_hash(world).to_hex()));
        }
        if let Some(t) = trace.as_mut()
            && world.tick.is_multiple_of(args.trace_every)
        {
            t.write(world)?;
        }
        Ok(())
    };

    let progress = progress_bar(ticks, args.quiet);
    observe(&world, &mut hashes)?;
    let start = Instant::now();
    for _ in 0..ticks {
        pipeline.step(&mut world).with_context(|| format!("{} stopped", args.scenario.display()))?;
        observe(&world, &mut hashes)?;
        progress.inc(1);
    }
    let wall_s = start.elapsed().as_secs_f64();
    progress.finish_and_clear();
    if let Some(t) = trace {
        t.finish()?;
    }

    let hash = state_hash(&world).to_hex();
    let passes: serde_json::Map<_, _> =
        pipeline.timers.ms_per_tick().map(|(name, ms)| (name.to_string(), serde_json::json!(ms))).collect();
    let report = RunReport {
        scenario: &scenario.name,
        file: args.scenario.display().to_string(),
        seed: scenario.seed,
        threads,
        index: index.name(),
        agents: world.agents.len(),
        ticks,
        dt: scenario.dt,
        wall_s,
        ticks_per_s: ticks as f64 / wall_s.max(1e-12),
        ms_per_tick: wall_s * 1e3 / ticks.max(1) as f64,
        passes,
        hash,
        hashes,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else if !args.quiet {
        print_report(&report, &pipeline);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(r: &RunReport, pipeline: &Pipeline) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "scenario   {} ({})", r.scenario, r.file);
    let _ = writeln!(
        out,
        "agents     {}   threads {}   index {}   seed {}",
        r.agents, r.threads, r.index, r.seed
    );
    let _ = writeln!(
        out,
        "ticks      {} in {:.3} s: {:.1} ticks/s, {:.3} ms/tick",
        r.ticks, r.wall_s, r.ticks_per_s, r.ms_per_tick
    );
    let _ = writeln!(out, "\n{:<18} {:>10} {:>7}", "pass", "ms/tick", "share");
    let total: f64 = pipeline.timers.ms_per_tick().map(|(_, ms)| ms).sum();
    for (name, ms) in pipeline.timers.ms_per_tick() {
        let share = if total > 0.0 { 100.0 * ms / total } else { 0.0 };
        let _ = writeln!(out, "{name:<18} {ms:>10.4} {share:>6.1}%");
    }
    let _ = writeln!(out, "\nfinal hash {}", r.hash);
}

pub fn progress_bar(ticks: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(ticks), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} ticks  {per_sec}  eta {eta}")
            .expect("a valid template"),
    );
    bar
}

/// The trace CSV: one row per agent per traced tick.
struct Trace {
    path: PathBuf,
    writer: csv::Writer<std::io::BufWriter<std::fs::File>>,
}

impl Trace {
    fn create(path: &Path) -> Result<Trace> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create trace file {}", path.display()))?;
        let mut writer = csv::Writer::from_writer(std::io::BufWriter::new(file));
        writer.write_record(["tick", "id", "group", "x", "y", "vx", "vy"])?;
        Ok(Trace { path: path.to_owned(), writer })
    }

    fn write(&mut self, world: &World) -> Result<()> {
        let a = &world.agents;
        for i in 0..a.len() {
            let (p, v) = (a.position[i], a.velocity[i]);
            let g = &world.groups[a.group[i] as usize].name;
            self.writer
                .write_record(&[
                    world.tick.to_string(),
                    a.id[i].to_string(),
                    g.clone(),
                    p.x.to_string(),
                    p.y.to_string(),
                    v.x.to_string(),
                    v.y.to_string(),
                ])
                .with_context(|| format!("cannot write trace file {}", self.path.display()))?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("cannot write trace file {}", self.path.display()))
    }
}
