//! `throng bench`: a scenario scaled to several agent counts, timed at several thread counts,
//! side by side with the index floor (a bare kiddo build plus radius queries on the same
//! positions and radii), so a reader sees how close a tick is to the limit set by its index.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;
use throng_engine::index::Point;
use throng_engine::pipeline::{DEFAULT_REORDER_EVERY, NonFinite, Pass};
use throng_engine::probes::{ideal_pass, kd_floor};
use throng_engine::scenario::overrides;
use throng_engine::state::checkpoint::ENGINE_VERSION;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

use crate::args::{self, IndexArg, progress_bar};

mod csv;
use csv::CsvOut;

#[derive(Args)]
pub struct BenchArgs {
    /// Scenario file (TOML), e.g. scenarios/bench/crowd.toml.
    scenario: PathBuf,
    /// Override a scenario value before scaling, e.g. `--set groups.crowd.max_neighbours=32`
    /// (repeatable; the same keys as `throng run --set` and batch files, except `agents`: the
    /// sizes are `--agents`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Agent counts to scale the scenario to, keeping its density (default: as written).
    #[arg(long, value_delimiter = ',', value_name = "N,N,..")]
    agents: Vec<u64>,
    /// Density sweep: also rescale the geometry so that, at uniform density, each agent expects
    /// this many others within its sensing radius (default: the scenario's own density).
    #[arg(long, value_delimiter = ',', value_name = "N,N,..")]
    neighbours: Vec<f64>,
    /// Velocity models, each measured in turn on every size, index and thread count of this
    /// run with every group's `model` set to it, e.g. `steering,orca,cfsm,social_force`
    /// (default: the scenario's own models).
    #[arg(long, value_delimiter = ',', value_name = "MODEL,..")]
    models: Vec<String>,
    /// Thread counts to run each size at.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_name = "T,T,..")]
    threads: Vec<usize>,
    /// Ticks per repeat.
    #[arg(long, default_value_t = 20)]
    ticks: u64,
    /// Ticks run before timing (neighbourhoods and queues form; buffers reach their size).
    #[arg(long, default_value_t = 10)]
    warmup: u64,
    /// Timed repeats; ms per tick is reported as the median (and min, max) over them.
    #[arg(long, default_value_t = 5)]
    repeats: u64,
    /// Put rows in spatial (Morton) order every K ticks (0: never); results are identical.
    #[arg(long, value_name = "K", default_value_t = DEFAULT_REORDER_EVERY)]
    reorder_every: u64,
    /// Reuse each agent's candidates within its sensing radius plus D until some agent has
    /// moved 0.45 × D; results are identical. 0: sense afresh every tick. Default: the
    /// scenario's `sensing_skin`.
    #[arg(long, value_name = "D", value_parser = args::parse_skin)]
    sensing_skin: Option<f32>,
    #[command(flatten)]
    max_memory: crate::memory::MaxMemory,
    /// Neighbour indexes, each measured in turn on every size and thread count of this run,
    /// e.g. `kd,grid` (default: the scenario's).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "INDEX,..")]
    index: Vec<IndexArg>,
    /// Also write the results as CSV.
    #[arg(long, value_name = "FILE.csv")]
    csv: Option<PathBuf>,
    /// Print one JSON object on stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

#[derive(Serialize, Clone)]
struct BenchResult {
    agents: usize,
    index: &'static str,
    /// The groups' velocity models (`+`-joined where they differ).
    model: String,
    threads: usize,
    /// Expected neighbours within the sensing radius at uniform density:
    /// `agents / bounds area · π · sensing_radius²`.
    neighbours: f64,
    /// Median over repeats.
    ms_per_tick: f64,
    ms_per_tick_min: f64,
    ms_per_tick_max: f64,
    /// Median of the bare kiddo build + radius queries, [`FLOOR_RUNS`] after each repeat.
    floor_ms: f64,
    ratio_to_floor: f64,
    /// [`ideal_pass`] over as many rows on the same pool, ms per pass: after each repeat, as
    /// many passes back to back as the repeat had ticks; the median over repeats. What a pass
    /// with nothing in the way of threads takes, to judge the thread scaling against the
    /// machine's own.
    ideal_pass_ms: f64,
    passes: serde_json::Map<String, serde_json::Value>,
    /// The candidate-reuse margin the run used (`sensing_skin`, or `--sensing-skin`).
    sensing_skin: f32,
    /// Share of the measured ticks whose neighbour lists were sensed with the index rather than
    /// from reused candidates (1 with no skin).
    sensed_fraction: f64,
    ticks_per_s: f64,
    agent_ticks_per_s: f64,
    peak_rss_mb: f64,
    /// The scenario's memory estimate (`Scenario::memory_estimate`), beside the measured peak,
    /// so the estimate that refuses runs stays honest.
    estimated_mb: f64,
}

#[derive(Serialize)]
struct BenchReport {
    scenario: String,
    file: String,
    /// The `--set` overrides, canonical (`key = value`, sorted).
    overrides: Vec<String>,
    /// The indexes measured, comma-separated (each result names its own).
    index: String,
    reorder_every: u64,
    ticks: u64,
    warmup: u64,
    repeats: u64,
    /// Index floors measured after each repeat (`floor_ms` is their median).
    floor_runs: usize,
    machine: String,
    engine_version: &'static str,
    /// "release", or "debug" for a build with debug assertions (its figures mean little).
    build: &'static str,
    results: Vec<BenchResult>,
}

/// Index floors measured after each repeat; `floor_ms` is the median of all of them. Five
/// floors back to back at 100k vary by 13.5–16.4 ms on this machine with no first-run effect
/// (docs/benchmarks.md), so more samples steady the median without biasing it.
const FLOOR_RUNS: usize = 3;

fn median(v: &mut [f64]) -> f64 {
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

/// Cores and model name, for the report.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = args::cores();
    format!("{cores} cores, {cpu}")
}

/// Others each agent expects within its sensing radius at uniform density:
/// `agents / bounds area · π · r²`, with the largest sensing radius of any group.
fn expected_neighbours<V: Point>(s: &Scenario<V>) -> f64 {
    let r = s.groups.iter().map(|g| g.group.sensing_radius).fold(0.0f32, f32::max) as f64;
    let size = s.bounds.size();
    let volume: f64 = (0..V::DIMENSIONS).map(|a| size.axis(a) as f64).product();
    // Agents per unit of area (volume) times the disc's area (the ball's volume).
    let reach = if V::DIMENSIONS == 3 {
        4.0 / 3.0 * std::f64::consts::PI * r * r * r
    } else {
        std::f64::consts::PI * r * r
    };
    s.agent_count() as f64 / volume * reach
}

pub fn bench(args: BenchArgs) -> Result<ExitCode> {
    match args::dimensions_of(&args.scenario) {
        3 => bench_in::<throng_engine::math::Vec3>(args),
        _ => bench_in::<throng_engine::math::Vec2>(args),
    }
}

/// [`bench`] of a scenario whose points are `V`s.
fn bench_in<V: Point>(args: BenchArgs) -> Result<ExitCode> {
    let sets = args::parse_sets(&args.set, None)?;
    if sets.iter().any(|o| o.key == overrides::AGENTS_KEY) {
        bail!("--set agents=...: throng bench scales the scenario with --agents N,N,..");
    }
    let scenario: Scenario<V> = overrides::load_as(&args.scenario, &sets)?;
    let canonical = overrides::canonical(&sets);
    if args.ticks == 0 || args.repeats == 0 {
        bail!("--ticks and --repeats must be at least 1");
    }
    for &t in &args.threads {
        crate::args::check_threads(t, "--threads")?;
    }
    let mut indexes: Vec<IndexKind> = Vec::new();
    for i in args.index.iter().map(|&i| IndexKind::from(i)) {
        if !indexes.contains(&i) {
            indexes.push(i);
        }
    }
    if indexes.is_empty() {
        indexes.push(scenario.index);
    }
    let mut sizes = if args.agents.is_empty() { vec![scenario.agent_count()] } else { args.agents.clone() };
    sizes.sort_unstable();
    sizes.dedup();

    let densities: Vec<Option<f64>> = if args.neighbours.is_empty() {
        vec![None]
    } else {
        args.neighbours.iter().map(|&n| Some(n)).collect()
    };
    if args.neighbours.iter().any(|&n| !(n > 0.0 && n.is_finite())) {
        bail!("--neighbours must be positive");
    }
    // Every size and density is scaled before anything runs, so a bad one is reported at once
    // rather than after the sizes before it have been timed.
    // With `--models`, the scenario once per model, every group's `model` set to it (through the
    // overrides, so the model's checks and its neighbour reach apply).
    let known: Vec<&str> = throng_engine::models::kinds::MODELS.iter().map(|k| k.name).collect();
    if let Some(m) = args.models.iter().find(|m| !known.contains(&m.as_str())) {
        bail!("--models: unknown model `{m}` (expected some of: {})", known.join(", "));
    }
    let mut variants = Vec::new();
    for m in &args.models {
        let mut with = args.set.clone();
        with.extend(scenario.groups.iter().map(|g| format!("groups.{}.model=\"{m}\"", g.group.name)));
        variants.push(overrides::load_as::<V>(&args.scenario, &args::parse_sets(&with, None)?)?);
    }
    if variants.is_empty() {
        variants.push(scenario.clone());
    }
    let mut cases = Vec::new();
    let (sizes, densities) = (&sizes, &densities);
    for (variant, &agents, density) in
        variants.iter().flat_map(|v| sizes.iter().flat_map(move |a| densities.iter().map(move |d| (v, a, d))))
    {
        let mut scaled = variant.scaled(agents).with_context(|| format!("{}", args.scenario.display()))?;
        if let Some(n) = density {
            let now = expected_neighbours(&scaled);
            if now <= 0.0 {
                bail!("{}: no sensing radius, so no density to sweep", args.scenario.display());
            }
            // Neighbours go with the square (the cube, in space) of the spacing.
            let factor = if V::DIMENSIONS == 3 { (now / n).cbrt() } else { (now / n).sqrt() };
            scaled.scale_geometry(factor as f32);
        }
        let neighbours = expected_neighbours(&scaled);
        crate::memory::check(
            &scaled,
            args.max_memory.bytes,
            &format!("{} at {} agents", args.scenario.display(), scaled.agent_count()),
        )?;
        cases.push((scaled, neighbours));
    }
    // The CSV is created before the first size runs (a bad path fails at once) and gets each
    // row as soon as it is measured, so a long sweep that is stopped keeps what it finished.
    let mut csv = match &args.csv {
        Some(path) => Some(CsvOut::create(path, &scenario.name, &canonical)?),
        None => None,
    };
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; time a release build (`cargo run --release -- bench ...`)");
    }
    let cores = args::cores();
    if let Some(&t) = args.threads.iter().find(|&&t| t > cores) {
        eprintln!("warning: {t} threads on {cores} cores: those figures measure threads sharing cores");
    }
    let total = cases.len() as u64
        * indexes.len() as u64
        * args.threads.len() as u64
        * (args.warmup + args.ticks * args.repeats);
    let progress = progress_bar(total, args.quiet || args.json);
    // A signal stops the benchmark between ticks; what was measured is kept and reported.
    let interrupts = crate::interrupt::Interrupts::catch();
    let mut stopped = None;
    let mut results = Vec::new();
    let mut points = Vec::new();
    let (mut ideal_in, mut ideal_out): (Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new());
    'measure: for (scaled, neighbours) in cases.iter().map(|(s, n)| (s, *n)) {
        for (&index, &threads) in indexes.iter().flat_map(|i| args.threads.iter().map(move |t| (i, t))) {
            reset_peak_rss();
            let settings = RunSettings {
                threads,
                index: Some(index),
                reorder_every: args.reorder_every,
                sensing_skin: args.sensing_skin,
                metrics: false,
                keep_awake: true,
            };
            let mut sim = Simulation::new(scaled, settings)?;
            // `ticks` ticks on the pipeline's workers (see `Simulation::enter`), counted on the
            // bar; false when a signal stopped them.
            let run_ticks = |sim: &mut Simulation<V>, ticks: u64| {
                sim.enter(|sim| {
                    for _ in 0..ticks {
                        sim.step()?;
                        progress.inc(1);
                        if interrupts.caught().is_some() {
                            return Ok(false);
                        }
                    }
                    Ok::<_, NonFinite>(true)
                })
            };
            if !run_ticks(&mut sim, args.warmup)? {
                stopped = interrupts.caught();
                break 'measure;
            }
            sim.pipeline_mut().timers = Default::default();
            let (reused_before, sensed_before) = sim.pipeline().sensing_counts();
            let mut per_tick = Vec::new();
            let mut floors = Vec::new();
            let mut ideals = Vec::new();
            for _ in 0..args.repeats {
                let start = Instant::now();
                if !run_ticks(&mut sim, args.ticks)? {
                    stopped = interrupts.caught();
                    break 'measure;
                }
                per_tick.push(start.elapsed().as_secs_f64() * 1e3 / args.ticks as f64);
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
                    ideal_pass(&ideal_in, &mut ideal_out);
                    // The ideal pass, back to back as often as the ticks.
                    let start = Instant::now();
                    for _ in 0..args.ticks {
                        ideal_pass(&ideal_in, &mut ideal_out);
                    }
                    ideals.push(start.elapsed().as_secs_f64() * 1e3 / args.ticks as f64);
                    std::hint::black_box(&ideal_out);
                    for _ in 0..FLOOR_RUNS {
                        let start = Instant::now();
                        // The planar floor probe; none in space.
                        let Some(plane) = sim.world().as_plane() else { break };
                        let hits = kd_floor(&mut points, &plane.agents.position, &radius);
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
            results.push(BenchResult {
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
            });
            if let (Some(csv), Some(result)) = (&mut csv, results.last()) {
                csv.row(result)?;
            }
        }
    }
    progress.finish_and_clear();

    let report = BenchReport {
        scenario: scenario.name.clone(),
        file: args.scenario.display().to_string(),
        overrides: canonical,
        index: indexes.iter().map(|i| i.name()).collect::<Vec<_>>().join(","),
        reorder_every: args.reorder_every,
        ticks: args.ticks,
        warmup: args.warmup,
        repeats: args.repeats,
        floor_runs: FLOOR_RUNS,
        machine: machine(),
        engine_version: ENGINE_VERSION,
        build: if cfg!(debug_assertions) { "debug" } else { "release" },
        results,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_table(&report);
    }
    if let Some(signal) = stopped {
        eprintln!(
            "stopped by {}: {} of {} measurements finished{}",
            signal.name(),
            report.results.len(),
            cases.len() * indexes.len() * args.threads.len(),
            args.csv.as_ref().map_or(String::new(), |p| format!(", each a whole row of {}", p.display()))
        );
        return Ok(ExitCode::from(signal.exit_code()));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(r: &BenchReport) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "scenario {} ({}), index {}, reorder every {} ticks, {}",
        r.scenario, r.file, r.index, r.reorder_every, r.machine
    );
    if !r.overrides.is_empty() {
        let _ = writeln!(out, "overrides: {}", r.overrides.join(", "));
    }
    let _ = writeln!(
        out,
        "{} warm-up ticks, then {} repeats of {} ticks; ms per tick: median (min-max); floor: median of {} after each repeat\n",
        r.warmup, r.repeats, r.ticks, FLOOR_RUNS
    );
    let _ = writeln!(
        out,
        "{:>9} {:>5} {:>5} {:>12} {:>3} {:>24} {:>9} {:>7} {:>7} {:>9} {:>14} {:>8}",
        "agents",
        "nbrs",
        "index",
        "model",
        "thr",
        "ms/tick",
        "floor ms",
        "÷floor",
        "sensed",
        "ticks/s",
        "agent-ticks/s",
        "RSS MB"
    );
    for x in &r.results {
        let range = format!("{:.3} ({:.3}-{:.3})", x.ms_per_tick, x.ms_per_tick_min, x.ms_per_tick_max);
        let _ = writeln!(
            out,
            "{:>9} {:>5.1} {:>5} {:>12} {:>3} {:>24} {:>9.3} {:>7.2} {:>6.0}% {:>9.1} {:>14.3e} {:>8.1}",
            x.agents,
            x.neighbours,
            x.index,
            x.model,
            x.threads,
            range,
            x.floor_ms,
            x.ratio_to_floor,
            100.0 * x.sensed_fraction,
            x.ticks_per_s,
            x.agent_ticks_per_s,
            x.peak_rss_mb
        );
    }
    // Thread scaling, where the same size and index ran at 1 thread and more.
    let same = |x: &BenchResult, y: &BenchResult| x.agents == y.agents && x.neighbours == y.neighbours;
    let same_model = |x: &BenchResult, y: &BenchResult| same(x, y) && x.model == y.model;
    for x in &r.results {
        if x.threads > 1
            && let Some(one) =
                r.results.iter().find(|y| same_model(x, y) && y.index == x.index && y.threads == 1)
        {
            let _ = writeln!(
                out,
                "  {} agents, {:.1} neighbours, {}: {} threads are {:.2}x faster than 1 (an ideal pass over as many rows: {:.2}x)",
                x.agents,
                x.neighbours,
                x.index,
                x.threads,
                one.ms_per_tick / x.ms_per_tick,
                one.ideal_pass_ms / x.ideal_pass_ms
            );
        }
    }
    // Each index against the first one measured, at the same size and thread count.
    for x in &r.results {
        if let Some(first) = r.results.iter().find(|y| same_model(x, y) && y.threads == x.threads)
            && first.index != x.index
        {
            let _ = writeln!(
                out,
                "  {} agents, {:.1} neighbours, {} threads: {} takes {:.2}x the time of {}",
                x.agents,
                x.neighbours,
                x.threads,
                x.index,
                x.ms_per_tick / first.ms_per_tick,
                first.index
            );
        }
    }
    // Each model against the first one measured, at the same size, index and thread count
    // (the models' neighbour reaches differ, so not at the same density).
    for x in &r.results {
        if let Some(first) =
            r.results.iter().find(|y| y.agents == x.agents && y.index == x.index && y.threads == x.threads)
            && first.model != x.model
        {
            let _ = writeln!(
                out,
                "  {} agents, {} threads, {}: {} takes {:.2}x the time of {}",
                x.agents,
                x.threads,
                x.index,
                x.model,
                x.ms_per_tick / first.ms_per_tick,
                first.model
            );
        }
    }
    let _ = writeln!(
        out,
        "\nms per tick by pass (build_index and find_threats run side by side; their times overlap):"
    );
    let _ = write!(out, "{:>9} {:>5} {:>12} {:>3}", "agents", "index", "model", "thr");
    for p in Pass::ALL {
        let _ = write!(out, " {:>10}", truncate(p.name(), 10));
    }
    let _ = writeln!(out);
    for x in &r.results {
        let _ = write!(out, "{:>9} {:>5} {:>12} {:>3}", x.agents, x.index, x.model, x.threads);
        for p in Pass::ALL {
            let _ = write!(out, " {:>10.3}", x.passes.get(p.name()).and_then(|v| v.as_f64()).unwrap_or(0.0));
        }
        let _ = writeln!(out);
    }
}

fn truncate(s: &str, n: usize) -> &str {
    &s[..s.len().min(n)]
}
