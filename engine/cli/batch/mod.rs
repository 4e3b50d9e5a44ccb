//! `throng batch`: run a batch file's scenarios × seeds × overrides, in parallel, resumably.
//!
//! Output directory:
//!
//! - `batch.json`: which batch (its id, from the runs it expands to), which shard, which engine.
//!   A directory holding another batch's (or shard's) results is refused, never overwritten.
//! - `runs/<id>/result.json`: one finished run, written atomically. Its presence is what
//!   "done" means: re-running the same command skips it and redoes every other run.
//! - `runs/<id>/metrics.parquet`, `runs/<id>/trace.parquet`: what the batch file's `keep` asks
//!   each run to keep (kept.rs), closed before its `result.json`.
//! - `results.csv`, `results.jsonl`, `results.parquet`: one row per finished run, in plan
//!   order, rebuilt from the finished runs and replaced atomically (temporary file, then
//!   rename) after every run (results.rs). A crash (even SIGKILL) leaves the previous complete
//!   file, never a torn row; the next start rebuilds them from `runs/`.
//! - `.lock`: held (flock) while a batch writes here, so two processes cannot mix.

use crate::dimension::CliDimension;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};
use throng_engine::batch::{BatchExpectation, Keep, Plan, PlannedRun};
use throng_engine::metrics::Summary;
use throng_engine::scenario::AnyScenario;
use throng_engine::state::checkpoint::ENGINE_VERSION;
use throng_engine::state::files::write_atomically;
use throng_engine::{RunSettings, Scenario, Simulation};

use crate::ticks::run_ticks;

mod kept;
mod results;

pub use results::{OverrideValue, csv_bytes, override_columns, override_values, rows_parquet, value_text};

/// Where the run `id` of the batch output directory `out` keeps its per-tick metrics.
pub fn kept_metrics_path(out: &Path, id: &str) -> PathBuf {
    kept::metrics_path(&out.join("runs").join(id))
}
use results::write_results;

#[derive(Args)]
pub struct BatchArgs {
    /// Batch file (TOML): scenarios × seeds × overrides (see docs/batches.md).
    batch: PathBuf,
    /// Runs at a time (default: cores / --threads-per-job).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Worker threads of each run. Results do not depend on it, nor on --jobs.
    #[arg(long, default_value_t = 1, value_name = "T")]
    threads_per_job: usize,
    /// Output directory (default: `<batch file stem>.out` next to the batch file, with
    /// `/shard-I-of-N` appended for a shard).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only shard I of N (0-based): the runs whose plan index is I modulo N.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Also save each run's final state (`runs/<id>/final.ckpt`, resumable with `throng run`).
    #[arg(long)]
    save_final: bool,
    /// Print a Slurm job array script that runs the batch in N shards and merges them, instead
    /// of running it (see docs/batches.md); takes --out, --threads-per-job and --jobs.
    #[arg(long, value_name = "N", conflicts_with_all = ["shard", "save_final"])]
    slurm_script: Option<usize>,
    #[command(flatten)]
    max_memory: crate::memory::MaxMemory,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// What `batch.json` says about the directory.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    pub batch_id: String,
    pub batch_file: String,
    pub name: String,
    /// `[i, n]`: shard i of n (`[0, 1]` for a whole batch).
    pub shard: (usize, usize),
    /// Runs in this shard, and in the whole batch.
    pub runs: usize,
    pub batch_runs: usize,
    pub engine_version: String,
    /// Every override key of the batch, sorted: the `set.` columns of results.csv.
    pub keys: Vec<String>,
    /// The batch file's `[[expect]]` entries, as of the last `throng batch` here, for
    /// `throng report` to judge.
    #[serde(default)]
    pub expect: Vec<BatchExpectation>,
}

pub const MANIFEST: &str = "batch.json";
pub const MANIFEST_FORMAT: &str = "throng-batch-output";

/// One finished run: a line of results.jsonl, and `runs/<id>/result.json`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Row {
    pub index: usize,
    pub id: String,
    pub point: String,
    pub scenario: String,
    pub scenario_file: String,
    pub seed: u64,
    pub ticks: u64,
    /// Override key → value (TOML values as JSON).
    pub overrides: BTreeMap<String, serde_json::Value>,
    /// `ok`, or `failed` with `error`.
    pub status: String,
    pub error: Option<String>,
    /// Live agents at the end.
    pub agents: u64,
    pub final_hash: String,
    pub wall_s: f64,
    pub ms_per_tick: f64,
    /// Summary metrics, by name (see [`metrics_summary`]).
    pub metrics: BTreeMap<String, f64>,
    /// The scenario's expectations: name → `pass`, `fail` or `unchecked`.
    #[serde(default)]
    pub expectations: BTreeMap<String, String>,
}

/// The run's summary metrics as named numbers: the hook through which rows and reports get
/// their metrics. Every number of `throng_engine::metrics::Summary` is kept, nested fields as
/// dotted names, list items by their `name` (gates: `gates.door.crossings`). A metric added to
/// the summary appears in the results without a change here.
pub fn metrics_summary(summary: &Summary) -> BTreeMap<String, f64> {
    fn flatten(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, f64>) {
        let join = |k: &str| if prefix.is_empty() { k.to_string() } else { format!("{prefix}.{k}") };
        match v {
            serde_json::Value::Number(n) => {
                if let Some(x) = n.as_f64() {
                    out.insert(prefix.to_string(), x);
                }
            }
            serde_json::Value::Bool(b) => {
                out.insert(prefix.to_string(), if *b { 1.0 } else { 0.0 });
            }
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    flatten(&join(k), x, out);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let key = item.get("name").and_then(|n| n.as_str()).map_or(i.to_string(), str::to_owned);
                    let mut inner = item.clone();
                    if let Some(m) = inner.as_object_mut() {
                        m.remove("name");
                    }
                    flatten(&join(&key), &inner, out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    flatten("", &serde_json::to_value(summary).unwrap_or_default(), &mut out);
    out
}

fn jobs_default(threads_per_job: usize) -> usize {
    (crate::args::cores() / threads_per_job).max(1)
}

/// The default output directory: `<batch file stem>.out` beside the batch file.
fn default_out(batch: &Path, shard: Option<(usize, usize)>) -> PathBuf {
    let stem = batch.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "batch".into());
    let dir = batch.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let out = dir.join(format!("{stem}.out"));
    match shard {
        Some((i, n)) if n > 1 => out.join(format!("shard-{i}-of-{n}")),
        _ => out,
    }
}

/// `--slurm-script N`: prints the array script for the batch (loaded, so a bad file is refused
/// here and not in N array tasks).
fn print_slurm_script(args: &BatchArgs, shards: usize) -> Result<ExitCode> {
    use crate::slurm_script::{MAX_SHARDS, ScriptPlan, script};
    let plan = Plan::load(&args.batch)?;
    if shards == 0 || shards > MAX_SHARDS {
        bail!(
            "--slurm-script: expected a number of shards from 1 to {MAX_SHARDS} (Slurm's default array size), found {shards}"
        );
    }
    if shards > plan.runs.len() {
        bail!(
            "--slurm-script: {shards} shards for {} runs would leave shards with nothing to run; take at most {}",
            plan.runs.len(),
            plan.runs.len()
        );
    }
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.batch, None));
    let text = script(&ScriptPlan {
        batch: &args.batch,
        name: &plan.name,
        runs: plan.runs.len(),
        out: &out,
        shards,
        threads_per_job: args.threads_per_job,
        jobs: args.jobs,
    });
    std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())
        .context("cannot write the script")?;
    Ok(ExitCode::SUCCESS)
}

/// Checks that `out` is empty, absent, or holds this very batch and shard (by this engine).
fn check_out_dir(out: &Path, manifest: &Manifest) -> Result<()> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        bail!("{}: exists and is not a directory", out.display());
    }
    let path = out.join(MANIFEST);
    if !path.exists() {
        let mut entries = std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))?;
        if entries.next().is_some() {
            bail!(
                "{}: not empty and not a batch output directory (no {MANIFEST}); nothing was written: use another --out",
                out.display()
            );
        }
        return Ok(());
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let found: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a throng batch manifest; nothing was written", path.display()))?;
    if found.format != MANIFEST_FORMAT {
        bail!("{}: not a throng batch manifest; nothing was written", path.display());
    }
    if found.batch_id != manifest.batch_id {
        bail!(
            "{}: holds the results of another batch ({}, batch id {}); this batch ({}) is {}: use another --out (a batch whose file or scenarios changed is another batch); nothing was written",
            out.display(),
            found.batch_file,
            found.batch_id,
            manifest.batch_file,
            manifest.batch_id
        );
    }
    if found.shard != manifest.shard {
        bail!(
            "{}: holds shard {}/{} of this batch, not {}/{}: give each shard its own --out; nothing was written",
            out.display(),
            found.shard.0,
            found.shard.1,
            manifest.shard.0,
            manifest.shard.1
        );
    }
    if found.engine_version != manifest.engine_version {
        bail!(
            "{}: its runs were made by throng-engine {}; this is {}: use another --out; nothing was written",
            out.display(),
            found.engine_version,
            manifest.engine_version
        );
    }
    Ok(())
}

/// Removes temporary files left by a crash in `dir` (not recursive).
fn remove_temporaries(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_name().to_str().is_some_and(throng_engine::state::files::is_temporary) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

fn result_path(out: &Path, id: &str) -> PathBuf {
    out.join("runs").join(id).join("result.json")
}

/// A finished run's row, if its result file is there and is this run's, and the files the
/// batch keeps are there too (a run finished before `keep` asked for them is run again).
fn finished(out: &Path, run: &PlannedRun, keep: Keep) -> Option<Row> {
    let text = std::fs::read_to_string(result_path(out, &run.id)).ok()?;
    let row: Row = serde_json::from_str(&text).ok()?;
    let dir = out.join("runs").join(&run.id);
    (row.id == run.id && row.index == run.index && kept::complete(&dir, keep)).then_some(row)
}

/// How each run is run: threads, and what it writes besides its result.
#[derive(Clone, Copy)]
struct RunOptions {
    threads: usize,
    keep_awake: bool,
    save_final: bool,
    keep: Keep,
}

/// Runs one planned run to the end, in the plane or in space as its scenario is.
fn execute(run: &PlannedRun, out: &Path, options: RunOptions) -> Result<Row> {
    let mut scenario = (*run.scenario).clone();
    // The run's checkpoint is tied to its canonical overrides, as its id is.
    scenario.set_run(run.seed, run.canonical.clone());
    match scenario {
        AnyScenario::Plane(s) => execute_in(run, s, out, options),
        AnyScenario::Space(s) => execute_in(run, s, out, options),
    }
}

/// [`execute`] of `scenario`, whose points are `V`s.
fn execute_in<V: CliDimension>(
    run: &PlannedRun,
    scenario: Scenario<V>,
    out: &Path,
    options: RunOptions,
) -> Result<Row> {
    let start = Instant::now();
    let settings =
        RunSettings { threads: options.threads, keep_awake: options.keep_awake, ..RunSettings::default() };
    let mut sim = Simulation::new(&scenario, settings)?;
    let dir = out.join("runs").join(&run.id);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut kept = kept::Kept::open(&dir, run, &scenario, &mut sim, options.keep)?;
    // The whole run on a worker thread of the pipeline: no hand-over to the pool per tick.
    // A failed step fails the run; a file that cannot be written stops the batch.
    let error = match run_ticks(&mut sim, run.ticks, &ProgressBar::hidden(), None, |sim| kept.observe(sim))? {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    };
    kept.finish()?;
    let wall_s = start.elapsed().as_secs_f64();
    if options.save_final && error.is_none() {
        let path = dir.join("final.ckpt");
        sim.save_checkpoint(&path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let (world, metrics) = (sim.world(), sim.metrics().expect("batch runs observe metrics"));
    let overrides = run
        .overrides
        .iter()
        .map(|o| (o.key.clone(), serde_json::to_value(&o.value).unwrap_or(serde_json::Value::Null)))
        .collect();
    let row = Row {
        index: run.index,
        id: run.id.clone(),
        point: run.point.clone(),
        scenario: scenario.name.clone(),
        scenario_file: run.scenario_file.clone(),
        seed: run.seed,
        ticks: run.ticks,
        overrides,
        status: if error.is_none() { "ok".into() } else { "failed".into() },
        error,
        agents: world.agents.len() as u64,
        final_hash: sim.hash().to_hex(),
        wall_s,
        ms_per_tick: wall_s * 1e3 / run.ticks.max(1) as f64,
        metrics: metrics_summary(&metrics.summary(world)),
        expectations: sim
            .outcomes()
            .unwrap_or_default()
            .into_iter()
            .map(|o| (o.name, o.status.word().to_string()))
            .collect(),
    };
    let mut json = serde_json::to_string_pretty(&row)?;
    json.push('\n');
    let path = dir.join("result.json");
    write_atomically(&path, json.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(row)
}

fn progress(runs: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs  {elapsed_precise}  eta {eta}  {msg}")
            .expect("a valid template"),
    );
    bar
}

pub fn batch(args: BatchArgs) -> Result<ExitCode> {
    let shard = match &args.shard {
        Some(s) => Some(crate::args::parse_shard(s).map_err(anyhow::Error::msg)?),
        None => None,
    };
    crate::args::check_threads(args.threads_per_job, "--threads-per-job")?;
    if let Some(jobs) = args.jobs {
        crate::args::check_threads(jobs, "--jobs")?;
        let all = jobs.saturating_mul(args.threads_per_job);
        crate::args::check_threads(all, "--jobs × --threads-per-job")?;
    }
    if let Some(shards) = args.slurm_script {
        return print_slurm_script(&args, shards);
    }
    let jobs = args.jobs.unwrap_or_else(|| jobs_default(args.threads_per_job));
    let plan = Plan::load(&args.batch)?;
    let (i, n) = shard.unwrap_or((0, 1));
    let runs = plan.shard(i, n);
    // Before anything is written: the runs that would go at once must fit together.
    let estimates: Vec<(String, u64)> =
        runs.iter().map(|r| (r.id.clone(), r.scenario.memory_estimate().bytes)).collect();
    let jobs = crate::memory::batch_jobs(&estimates, jobs, args.jobs.is_some(), args.max_memory.bytes)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.batch, shard));
    let manifest = Manifest {
        format: MANIFEST_FORMAT.into(),
        format_version: 1,
        batch_id: plan.id.clone(),
        batch_file: args.batch.display().to_string(),
        name: plan.name.clone(),
        shard: (i, n),
        runs: runs.len(),
        batch_runs: plan.runs.len(),
        engine_version: ENGINE_VERSION.into(),
        keys: plan.keys.clone(),
        expect: plan.expectations.clone(),
    };
    check_out_dir(&out, &manifest)?;

    std::fs::create_dir_all(out.join("runs")).with_context(|| format!("cannot create {}", out.display()))?;
    let lock = std::fs::File::create(out.join(".lock"))
        .with_context(|| format!("cannot create {}", out.display()))?;
    if lock.try_lock().is_err() {
        bail!("{}: another throng batch is writing here", out.display());
    }
    // Written again on every start (its identity checked above): the batch file's
    // expectations may have changed since, and the report judges the latest.
    {
        let mut json = serde_json::to_string_pretty(&manifest)?;
        json.push('\n');
        write_atomically(&out.join(MANIFEST), json.as_bytes())
            .with_context(|| format!("cannot write {}", out.join(MANIFEST).display()))?;
    }
    remove_temporaries(&out);

    // What a previous (perhaps killed) invocation finished stays finished.
    let mut rows: BTreeMap<usize, Row> = BTreeMap::new();
    let mut pending = Vec::new();
    for run in &runs {
        let dir = out.join("runs").join(&run.id);
        remove_temporaries(&dir);
        match finished(&out, run, plan.keep) {
            Some(row) => {
                rows.insert(run.index, row);
            }
            None => pending.push(*run),
        }
    }
    let already = rows.len();
    write_results(&out, &rows, &plan.keys)?;

    let bar = progress(pending.len() as u64, args.quiet);
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<Result<Row>>();
    let mut failures = Vec::new();
    let mut first_error = None;
    let threads = args.threads_per_job;
    let options = RunOptions {
        threads,
        // Helpers kept awake between passes only while the runs' threads fit the cores.
        keep_awake: jobs.min(pending.len()) * threads <= crate::args::cores(),
        save_final: args.save_final,
        keep: plan.keep,
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(pending.len()) {
            let tx = tx.clone();
            let (next, pending, out) = (&next, &pending, &out);
            scope.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(run) = pending.get(k) else { break };
                    let result = execute(run, out, options)
                        .with_context(|| format!("run {} ({})", run.id, run.scenario_path.display()));
                    let stop = result.is_err();
                    if tx.send(result).is_err() || stop {
                        // An I/O error: let the others finish what they hold, start nothing new.
                        next.store(pending.len(), Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
        drop(tx);
        while let Ok(first) = rx.recv() {
            // Write once for every row that is ready, so a fast batch does not rewrite the
            // files once per run.
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            for result in batch {
                match result {
                    Ok(row) => {
                        if row.status != "ok" {
                            failures.push(format!(
                                "run {} (index {}): {}",
                                row.id,
                                row.index,
                                row.error.clone().unwrap_or_default()
                            ));
                        }
                        rows.insert(row.index, row);
                        bar.inc(1);
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            if let Err(e) = write_results(&out, &rows, &plan.keys) {
                first_error.get_or_insert(e);
                next.store(pending.len(), Ordering::Relaxed);
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = first_error {
        return Err(e);
    }
    let ran = rows.len() - already;
    if !args.quiet {
        let shard_text = if n > 1 { format!(" (shard {i}/{n})") } else { String::new() };
        println!(
            "batch {}{shard_text}: {} runs, {already} already done, {ran} run now in {:.1} s with {jobs} jobs x {} threads",
            if plan.name.is_empty() { args.batch.display().to_string() } else { plan.name.clone() },
            runs.len(),
            start.elapsed().as_secs_f64(),
            args.threads_per_job
        );
        println!("results    {}", out.join("results.csv").display());
    }
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("error: {f}");
        }
        bail!(
            "{} of {} runs failed (status `failed` in {})",
            failures.len(),
            runs.len(),
            out.join("results.csv").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
