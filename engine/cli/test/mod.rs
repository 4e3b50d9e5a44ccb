//! `throng test PATH...`: run every scenario with expectations under the paths, in parallel,
//! and report each expectation: one line each and a summary, `--json`, or JUnit XML
//! (`junit.rs`). Exit 0 when all pass, 1 when some fail (or cannot be checked), 2 on an error.

mod junit;

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::ProgressBar;
use serde::Serialize;
use throng_engine::expect::{Outcome, Status};
use throng_engine::scenario::AnyScenario;
use throng_engine::state::files::write_atomically;
use throng_engine::{RunSettings, Scenario, Simulation};

use crate::ticks::run_ticks;

#[derive(Args)]
pub struct TestArgs {
    /// Scenario files, or directories searched for `.toml` scenarios (recursively); files
    /// without `[[expect]]` entries and batch files are skipped.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Scenarios run at a time (default: cores / --threads-per-job).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Worker threads of each run. Verdicts do not depend on it, nor on --jobs.
    #[arg(long, default_value_t = 1, value_name = "T")]
    threads_per_job: usize,
    /// Only expectations whose `FILE: NAME` contains this text (scenarios with none are not run).
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Print one JSON object (every scenario and verdict) instead of lines.
    #[arg(long)]
    json: bool,
    /// Also write the verdicts as JUnit XML (one test suite per scenario, one case per
    /// expectation), as CI systems read them.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Print only what did not pass, and the summary.
    #[arg(long)]
    quiet: bool,
}

/// One scenario's run and verdicts.
#[derive(Serialize, Clone, Debug)]
pub struct FileResult {
    pub file: String,
    /// The scenario's name; empty when it could not be loaded.
    pub scenario: String,
    pub ticks: u64,
    pub wall_s: f64,
    pub outcomes: Vec<Outcome>,
    /// Why it could not be loaded or run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    files: &'a [FileResult],
    passed: usize,
    failed: usize,
    unchecked: usize,
    errors: usize,
}

/// Every `.toml` file under `path` (itself when it is a file), sorted.
fn toml_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    if path.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let entries =
        std::fs::read_dir(path).with_context(|| format!("{}: no such file or directory", path.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            toml_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
    Ok(())
}

/// A scenario to run, or the error that stops it.
enum Item {
    Run(PathBuf, Box<AnyScenario>),
    Broken(FileResult),
}

pub fn test(args: TestArgs) -> Result<ExitCode> {
    crate::args::check_threads(args.threads_per_job, "--threads-per-job")?;
    if let Some(jobs) = args.jobs {
        crate::args::check_threads(jobs, "--jobs")?;
        crate::args::check_threads(jobs.saturating_mul(args.threads_per_job), "--jobs × --threads-per-job")?;
    }
    let mut files = Vec::new();
    for p in &args.paths {
        toml_files(p, &mut files)?;
    }
    let wanted = |file: &Path, name: &str| {
        args.filter.as_ref().is_none_or(|f| format!("{}: {name}", file.display()).contains(f.as_str()))
    };
    let mut items = Vec::new();
    for file in files {
        match AnyScenario::load(&file) {
            // A batch file (the loader names its `sweep` key) is not a scenario to test.
            Err(e) if e.key == "sweep" => {}
            Err(e) => items.push(Item::Broken(FileResult {
                file: file.display().to_string(),
                scenario: String::new(),
                ticks: 0,
                wall_s: 0.0,
                outcomes: Vec::new(),
                error: Some(e.to_string()),
            })),
            Ok(s) if s.expectation_names().iter().any(|name| wanted(&file, name)) => {
                items.push(Item::Run(file, Box::new(s)));
            }
            Ok(_) => {}
        }
    }
    let runs: Vec<(usize, &PathBuf, &AnyScenario)> = items
        .iter()
        .enumerate()
        .filter_map(|(k, i)| match i {
            Item::Run(f, s) => Some((k, f, s.as_ref())),
            Item::Broken(_) => None,
        })
        .collect();
    let cores = crate::args::cores();
    let jobs = args.jobs.unwrap_or((cores / args.threads_per_job).max(1)).min(runs.len().max(1));
    let keep_awake = jobs * args.threads_per_job <= cores;
    let total: u64 = runs.iter().map(|(_, _, s)| s.ticks()).sum();
    let bar = crate::args::progress_bar(total, args.quiet || args.json);
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, FileResult)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (tx, next, runs, bar) = (tx.clone(), &next, &runs, &bar);
            scope.spawn(move || {
                while let Some(&(k, file, scenario)) = runs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let (threads, tick) = (args.threads_per_job, &|| bar.inc(1));
                    let result = match scenario {
                        AnyScenario::Plane(s) => run_one(file, s, threads, keep_awake, tick),
                        AnyScenario::Space(s) => run_one(file, s, threads, keep_awake, tick),
                    };
                    if tx.send((k, result)).is_err() {
                        break;
                    }
                }
            });
        }
    });
    drop(tx);
    bar.finish_and_clear();
    let mut done: Vec<Option<FileResult>> = items
        .into_iter()
        .map(|i| match i {
            Item::Broken(r) => Some(r),
            Item::Run(..) => None,
        })
        .collect();
    for (k, r) in rx {
        done[k] = Some(r);
    }
    let mut results: Vec<FileResult> = done.into_iter().flatten().collect();
    for r in &mut results {
        let file = PathBuf::from(&r.file);
        r.outcomes.retain(|o| wanted(&file, &o.name));
    }
    let count = |s: Status| results.iter().flat_map(|r| &r.outcomes).filter(|o| o.status == s).count();
    let (passed, failed, unchecked) = (count(Status::Pass), count(Status::Fail), count(Status::Unchecked));
    let errors = results.iter().filter(|r| r.error.is_some()).count();
    if let Some(path) = &args.junit {
        write_atomically(path, junit::xml(&results).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        let report = Report { files: &results, passed, failed, unchecked, errors };
        println!("{}", serde_json::to_string(&report)?);
    } else {
        for r in &results {
            if let Some(e) = &r.error {
                println!("ERROR     {e}");
            }
            for o in &r.outcomes {
                if !args.quiet || o.status != Status::Pass {
                    println!("{:<9} {}: {}", o.status.label(), r.file, o.line());
                }
            }
        }
        let scenarios = results.iter().filter(|r| r.error.is_none()).count();
        let wall: f64 = results.iter().map(|r| r.wall_s).sum();
        println!(
            "{} expectations in {scenarios} scenarios: {passed} passed, {failed} failed, {unchecked} unchecked{} ({wall:.1} s of runs)",
            passed + failed + unchecked,
            if errors > 0 { format!(", {errors} files with errors") } else { String::new() },
        );
    }
    Ok(if errors > 0 {
        ExitCode::from(2)
    } else if failed + unchecked > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Runs `scenario` to its end and judges its expectations.
fn run_one<V: CliDimension>(
    file: &Path,
    scenario: &Scenario<V>,
    threads: usize,
    keep_awake: bool,
    tick: &(dyn Fn() + Sync),
) -> FileResult {
    let start = Instant::now();
    let mut result = FileResult {
        file: file.display().to_string(),
        scenario: scenario.name.clone(),
        ticks: scenario.ticks,
        wall_s: 0.0,
        outcomes: Vec::new(),
        error: None,
    };
    let settings = RunSettings { threads, keep_awake, ..RunSettings::default() };
    let mut sim = match Simulation::new(scenario, settings) {
        Ok(sim) => sim,
        Err(e) => {
            result.error = Some(format!("{}: {e}", file.display()));
            return result;
        }
    };
    let ticked = run_ticks(&mut sim, scenario.ticks, &ProgressBar::hidden(), None, |_| {
        tick();
        Ok(())
    });
    let error = match ticked {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(e) => Some(e.to_string()),
    };
    result.wall_s = start.elapsed().as_secs_f64();
    match error {
        Some(e) => result.error = Some(format!("{}: {e}", file.display())),
        None => result.outcomes = sim.outcomes().unwrap_or_default(),
    }
    result
}
