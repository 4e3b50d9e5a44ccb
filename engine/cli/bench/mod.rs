//! `throng bench`: a scenario scaled to several agent counts, timed at several thread counts,
//! side by side with the index floor (a bare kiddo build plus radius queries on the same
//! positions and radii), so a reader sees how close a tick is to the limit set by its index.

use crate::dimension::CliDimension;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;
use serde::Serialize;
use throng_engine::Scenario;
use throng_engine::pipeline::{DEFAULT_REORDER_EVERY, Pass};
use throng_engine::scenario::overrides;
use throng_engine::state::checkpoint::ENGINE_VERSION;

use crate::args::{self, IndexArg, progress_bar};

mod cases;
mod csv;
mod measure;

use cases::Sweep;
use csv::CsvOut;
use measure::{BenchResult, FLOOR_RUNS, Measuring, Schedule};

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
    /// Reuse each agent's candidates within its sensing radius plus D until more than a few
    /// agents have moved 0.45 × D; results are identical. 0: sense afresh every tick. Default: the
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

pub fn bench(args: BenchArgs) -> Result<ExitCode> {
    match args::dimensions_of(&args.scenario) {
        3 => bench_in::<throng_engine::math::Vec3>(args),
        _ => bench_in::<throng_engine::math::Vec2>(args),
    }
}

/// [`bench`] of a scenario whose points are `V`s.
fn bench_in<V: CliDimension>(args: BenchArgs) -> Result<ExitCode> {
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
    let indexes = cases::indexes(&args.index, scenario.index);
    let sweep = Sweep {
        file: &args.scenario,
        set: &args.set,
        agents: &args.agents,
        neighbours: &args.neighbours,
        models: &args.models,
        max_memory: args.max_memory.bytes,
    };
    let cases = cases::cases(&sweep, &scenario)?;
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
    let schedule = Schedule {
        warmup: args.warmup,
        ticks: args.ticks,
        repeats: args.repeats,
        reorder_every: args.reorder_every,
        sensing_skin: args.sensing_skin,
    };
    let mut measuring = Measuring::new(schedule, &progress, &interrupts);
    let mut stopped = None;
    let mut results = Vec::new();
    'measure: for (scaled, neighbours) in cases.iter().map(|(s, n)| (s, *n)) {
        for (&index, &threads) in indexes.iter().flat_map(|i| args.threads.iter().map(move |t| (i, t))) {
            let Some(result) = measuring.measure(scaled, neighbours, index, threads)? else {
                stopped = interrupts.caught();
                break 'measure;
            };
            if let Some(csv) = &mut csv {
                csv.row(&result)?;
            }
            results.push(result);
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
