//! `throng report`: merge the output directories of a batch (its shards) and aggregate every
//! metric over the seeds of each parameter point: count, mean, standard deviation, min, max;
//! a scenario expectation's mean is its pass rate. The batch file's own `[[expect]]` entries
//! are judged per point (exit 1 when one fails).
//!
//! Deterministic: points in plan order, metrics in sorted name order, sums taken serially in
//! plan (seed) order, so the same rows give the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use throng_engine::state::files::write_atomically;

use throng_engine::batch::Stat;
use throng_engine::batch::trend::PointValue;

use crate::batch::{MANIFEST, MANIFEST_FORMAT, Manifest, Row, csv_bytes, rows_parquet};

mod series;
mod trends;

#[derive(Args)]
pub struct ReportArgs {
    /// Output directories of `throng batch` (one per shard, or one for a whole batch).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Where to write summary.csv and runs.csv (default: the one directory given, or the
    /// common parent of several).
    #[arg(long, short, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Report even when runs of the batch are missing (an unfinished shard, or a shard's
    /// directory not given); without it such a report is refused, so a merge never passes a
    /// partial set off as the whole.
    #[arg(long)]
    partial: bool,
    /// Also write every run's per-tick metrics (kept by `keep = ["metrics"]` in the batch
    /// file) as one long Parquet table: run, point, scenario, seed, swept values, then the
    /// metrics of each tick.
    #[arg(long, value_name = "FILE.parquet")]
    series: Option<PathBuf>,
    /// Also draw each expectation across points (`trend` + `along`) as a chart in DIR
    /// (`trend-NAME.png`): its statistic against the swept key, a line per series.
    #[arg(long, value_name = "DIR")]
    trend_charts: Option<PathBuf>,
    /// Print nothing but errors (the CSV files are still written).
    #[arg(long)]
    quiet: bool,
}

/// The shards of the batch that no directory holds, as `I/N` (empty when the directories do
/// not agree on N, or every shard is there).
fn missing_shards(found: &BTreeSet<(usize, usize)>) -> String {
    let counts: BTreeSet<usize> = found.iter().map(|&(_, n)| n).collect();
    let [n] = counts.into_iter().collect::<Vec<_>>()[..] else { return String::new() };
    (0..n).filter(|i| !found.contains(&(*i, n))).map(|i| format!("{i}/{n}")).collect::<Vec<_>>().join(", ")
}

/// count, mean, sample standard deviation (n − 1; 0 for one value), min, max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub n: usize,
    pub mean: f64,
    pub std: f64,
    pub min: f64,
    pub max: f64,
}

/// Statistics of `values`, summed serially in the order given.
pub fn stats(values: &[f64]) -> Option<Stats> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    let mean = sum / n as f64;
    let mut sq = 0.0;
    for v in values {
        sq += (v - mean) * (v - mean);
    }
    let std = if n > 1 { (sq / (n - 1) as f64).sqrt() } else { 0.0 };
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(Stats { n, mean, std, min, max })
}

/// Expectation `e`'s statistic over the finished runs among `rows` (one point's), with its
/// standard error (`std / √n` for a mean, else 0), if any run has its metric.
fn point_stat(e: &throng_engine::batch::BatchExpectation, rows: &[&Row]) -> Option<PointValue> {
    let values: Vec<f64> =
        rows.iter().filter(|r| r.status == "ok").filter_map(|r| numbers(r).get(&e.metric).copied()).collect();
    stats(&values).map(|s| match e.stat {
        Stat::Mean => PointValue { value: s.mean, se: s.std / (s.n as f64).sqrt() },
        Stat::Std => PointValue { value: s.std, se: 0.0 },
        Stat::Min => PointValue { value: s.min, se: 0.0 },
        Stat::Max => PointValue { value: s.max, se: 0.0 },
    })
}

/// The mean of `metric` over the rows that finished; `None` when none has it.
fn metric_mean(rows: &[&Row], metric: &str) -> Option<f64> {
    let values: Vec<f64> =
        rows.iter().filter(|r| r.status == "ok").filter_map(|r| numbers(r).get(metric).copied()).collect();
    stats(&values).map(|s| s.mean)
}

/// The numbers of a row that are aggregated, by name.
fn numbers(row: &Row) -> BTreeMap<String, f64> {
    let mut m: BTreeMap<String, f64> = row.metrics.clone();
    m.insert("agents".into(), row.agents as f64);
    m.insert("wall_s".into(), row.wall_s);
    m.insert("ms_per_tick".into(), row.ms_per_tick);
    // 1 for a passed scenario expectation, 0 otherwise: the mean over seeds is its pass rate.
    for (name, status) in &row.expectations {
        m.insert(format!("expect.{name}"), if status == "pass" { 1.0 } else { 0.0 });
    }
    m
}

fn read_dir(dir: &Path) -> Result<(Manifest, Vec<Row>)> {
    let mpath = dir.join(MANIFEST);
    if !mpath.exists() {
        bail!("{}: not a batch output directory (no {MANIFEST})", dir.display());
    }
    let text = std::fs::read_to_string(&mpath).with_context(|| format!("cannot read {}", mpath.display()))?;
    let manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a throng batch manifest", mpath.display()))?;
    if manifest.format != MANIFEST_FORMAT {
        bail!("{}: not a throng batch manifest", mpath.display());
    }
    let rpath = dir.join("results.jsonl");
    let text = match std::fs::read_to_string(&rpath) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", rpath.display())),
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let row: Row = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not a result row", rpath.display(), i + 1))?;
        rows.push(row);
    }
    Ok((manifest, rows))
}

/// The deepest directory holding every path.
fn common_parent(dirs: &[PathBuf]) -> PathBuf {
    let abs: Vec<PathBuf> =
        dirs.iter().map(|d| std::path::absolute(d).unwrap_or_else(|_| d.clone())).collect();
    let mut common: Vec<std::path::Component> = abs[0].components().collect();
    for d in &abs[1..] {
        let c: Vec<_> = d.components().collect();
        let k = common.iter().zip(&c).take_while(|(a, b)| a == b).count();
        common.truncate(k);
    }
    if common.is_empty() { PathBuf::from(".") } else { common.iter().collect() }
}

fn fmt(x: f64) -> String {
    if x == 0.0 || (x.abs() >= 1e-3 && x.abs() < 1e7) { format!("{x:.4}") } else { format!("{x:.4e}") }
}

pub fn report(args: ReportArgs) -> Result<ExitCode> {
    let merged = merge(&args.dirs)?;
    let manifest = &merged.manifest;
    let rows: Vec<&Row> = merged.runs.values().map(|(r, _)| r).collect();
    check_complete(&merged, rows.len(), args.partial)?;
    let points = points_of(&rows);
    let names: BTreeSet<String> =
        rows.iter().filter(|r| r.status == "ok").flat_map(|r| numbers(r).into_keys()).collect();

    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&summary_header(manifest, &names)?)?;
    let title = if manifest.name.is_empty() { manifest.batch_file.clone() } else { manifest.name.clone() };
    let mut table = format!(
        "batch {title} (id {}): {} of {} runs, {} points, from {} director{}\n",
        manifest.batch_id,
        rows.len(),
        manifest.batch_runs,
        points.len(),
        args.dirs.len(),
        if args.dirs.len() == 1 { "y" } else { "ies" }
    );
    let mut tally = Tally::default();
    for (k, (point, list)) in points.iter().enumerate() {
        let rec = summarise_point(manifest, &names, (k, points.len()), point, list, &mut table, &mut tally);
        w.write_record(&rec)?;
    }
    let summary = w.into_inner().map_err(|e| anyhow::anyhow!("cannot write CSV: {e}"))?;
    let across = trends::judge(&points, &manifest.expect);
    let charts = match &args.trend_charts {
        Some(dir) => trends::charts(dir, &across, &manifest.expect)?,
        None => Vec::new(),
    };
    if !across.is_empty() {
        table.push_str("\nacross points\n");
        table.push_str(&trends::lines(&across, &manifest.expect));
    }
    for v in &across {
        tally.count(v.pass);
    }

    let out = args.out.clone().unwrap_or_else(|| {
        if args.dirs.len() == 1 { args.dirs[0].clone() } else { common_parent(&args.dirs) }
    });
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join("summary.csv");
    write_atomically(&path, &summary).with_context(|| format!("cannot write {}", path.display()))?;
    let trends_path = out.join("trends.csv");
    if !across.is_empty() {
        write_atomically(&trends_path, &trends::csv(&across)?)
            .with_context(|| format!("cannot write {}", trends_path.display()))?;
    }
    let runs_path = out.join("runs.csv");
    write_atomically(&runs_path, &csv_bytes(&rows, &manifest.keys)?)
        .with_context(|| format!("cannot write {}", runs_path.display()))?;
    rows_parquet(&out.join("runs.parquet"), &rows, &manifest.keys)?;
    let series = match &args.series {
        Some(path) => {
            let runs: Vec<(&Row, &PathBuf)> = merged.runs.values().map(|(r, d)| (r, d)).collect();
            Some((path, series::write(path, &runs, &manifest.keys)?))
        }
        None => None,
    };

    if !args.quiet {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(table.as_bytes());
        if !manifest.expect.is_empty() {
            let _ = writeln!(
                stdout,
                "\nbatch expectations: {} passed, {} failed (over {} points{})",
                tally.passed,
                tally.failed,
                points.len(),
                if across.is_empty() { String::new() } else { format!(" and {} series", across.len()) }
            );
        }
        let _ = writeln!(
            stdout,
            "\nsummary    {}\nruns       {} (and runs.parquet)",
            path.display(),
            runs_path.display()
        );
        for chart in &charts {
            let _ = writeln!(stdout, "chart      {}", chart.display());
        }
        if let Some((path, rows)) = series {
            let _ = writeln!(stdout, "series     {} ({rows} rows)", path.display());
        }
        if !across.is_empty() {
            let _ = writeln!(stdout, "trends     {}", trends_path.display());
        }
    }
    if tally.failed > 0 {
        if args.quiet {
            eprintln!("{} batch expectations failed", tally.failed);
        }
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The runs of one batch, merged from the directories its shards wrote.
struct Merged {
    /// The batch's manifest (every directory's names the same batch).
    manifest: Manifest,
    /// Each run by its index in the plan, with the directory it came from.
    runs: BTreeMap<usize, (Row, PathBuf)>,
    /// The shards found, as (index, count).
    shards: BTreeSet<(usize, usize)>,
}

/// Reads every directory's results and merges them: they must be shards of one batch, and a run
/// found twice must have the same final hash in both.
fn merge(dirs: &[PathBuf]) -> Result<Merged> {
    let mut manifest: Option<Manifest> = None;
    let mut runs: BTreeMap<usize, (Row, PathBuf)> = BTreeMap::new();
    let mut shards = BTreeSet::new();
    for dir in dirs {
        let (m, rows) = read_dir(dir)?;
        if let Some(first) = &manifest
            && first.batch_id != m.batch_id
        {
            bail!(
                "{} holds batch {} ({}), but {} holds batch {} ({}): a report merges the shards of one batch",
                dirs[0].display(),
                first.batch_id,
                first.batch_file,
                dir.display(),
                m.batch_id,
                m.batch_file
            );
        }
        shards.insert(m.shard);
        for row in rows {
            match runs.get(&row.index) {
                Some((other, from)) => {
                    if other.id != row.id || other.final_hash != row.final_hash {
                        bail!(
                            "run {} (index {}) differs between {} (hash {}) and {} (hash {}): results must not depend on where they ran",
                            row.id,
                            row.index,
                            from.display(),
                            other.final_hash,
                            dir.display(),
                            row.final_hash
                        );
                    }
                }
                None => {
                    runs.insert(row.index, (row, dir.clone()));
                }
            }
        }
        manifest.get_or_insert(m);
    }
    let manifest = manifest.expect("at least one directory");
    Ok(Merged { manifest, runs, shards })
}

/// Refuses a batch with runs missing (naming the shards not given), unless `partial`, when a
/// note says what is missing.
fn check_complete(merged: &Merged, found: usize, partial: bool) -> Result<()> {
    let manifest = &merged.manifest;
    let missing = manifest.batch_runs - found.min(manifest.batch_runs);
    if missing == 0 {
        return Ok(());
    }
    let shards = &merged.shards;
    let found = shards.iter().map(|(i, n)| format!("{i}/{n}")).collect::<Vec<_>>().join(", ");
    let absent = missing_shards(shards);
    let why = if absent.is_empty() {
        format!("shards found: {found}; some are unfinished or were stopped")
    } else {
        format!("shards found: {found}; not given: {absent}")
    };
    if !partial {
        bail!(
            "{missing} of {} runs of batch {} are missing from these directories ({why}); nothing was written. \
             Finish or re-run those shards (a re-run resumes) and report again, or pass --partial to report what is there",
            manifest.batch_runs,
            manifest.batch_id
        );
    }
    eprintln!("note: {missing} of {} runs are not in these directories ({why})", manifest.batch_runs);
    Ok(())
}

/// The points in plan order, each with its rows in plan (seed) order.
fn points_of<'r>(rows: &[&'r Row]) -> Vec<(String, Vec<&'r Row>)> {
    let mut points: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in rows {
        match points.iter_mut().find(|(p, _)| *p == r.point) {
            Some((_, list)) => list.push(r),
            None => points.push((r.point.clone(), vec![r])),
        }
    }
    points
}

/// The summary's columns: the point, its overrides, then mean, std, min and max of every
/// number the rows have, then a verdict per batch expectation judged per point. Fails when an
/// expectation reads a number no row has.
fn summary_header(manifest: &Manifest, names: &BTreeSet<String>) -> Result<Vec<String>> {
    let mut header =
        vec!["point".to_string(), "scenario".into(), "overrides".into(), "seeds".into(), "failed".into()];
    header.extend(manifest.keys.iter().map(|k| format!("set.{k}")));
    for n in names {
        for s in ["mean", "std", "min", "max"] {
            header.push(format!("{n}.{s}"));
        }
    }
    // The batch's own expectations: every metric they read must be one the rows have.
    for e in &manifest.expect {
        if !names.contains(&e.metric) {
            let hint = throng_engine::scenario::nearest_word(&e.metric, names.iter().map(String::as_str))
                .map(|n| format!("; did you mean \"{n}\"?"))
                .unwrap_or_default();
            bail!(
                "{}: expectation \"{}\": no result row has a number \"{}\"{hint} (they have: {})",
                manifest.batch_file,
                e.name,
                e.metric,
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            );
        }
        if e.across.is_none() {
            header.push(format!("check.{}", e.name));
        }
    }
    Ok(header)
}

/// Batch expectations passed and failed.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
}

impl Tally {
    fn count(&mut self, pass: bool) {
        if pass {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
    }
}

/// Point `k` of `of`: its summary row (the columns of [`summary_header`]); its lines appended
/// to `table`, and its expectations' verdicts counted in `tally`.
fn summarise_point(
    manifest: &Manifest,
    names: &BTreeSet<String>,
    (k, of): (usize, usize),
    point: &str,
    list: &[&Row],
    table: &mut String,
    tally: &mut Tally,
) -> Vec<String> {
    let ok: Vec<&&Row> = list.iter().filter(|r| r.status == "ok").collect();
    let first = list[0];
    let overrides: Vec<String> =
        first.overrides.iter().map(|(key, v)| format!("{key}={}", crate::batch::value_text(v))).collect();
    let mut rec = vec![
        point.to_string(),
        first.scenario.clone(),
        overrides.join("; "),
        ok.len().to_string(),
        (list.len() - ok.len()).to_string(),
    ];
    rec.extend(
        manifest
            .keys
            .iter()
            .map(|key| first.overrides.get(key).map(crate::batch::value_text).unwrap_or_default()),
    );
    table.push_str(&format!(
        "\npoint {}/{}  {}  {}  ({} seeds{})\n",
        k + 1,
        of,
        first.scenario,
        if overrides.is_empty() { "(no overrides)".to_string() } else { overrides.join(", ") },
        ok.len(),
        if ok.len() < list.len() { format!(", {} failed", list.len() - ok.len()) } else { String::new() }
    ));
    table.push_str(&format!("  {:<32} {:>12} {:>12} {:>12} {:>12}\n", "metric", "mean", "std", "min", "max"));
    for n in names {
        let values: Vec<f64> = ok.iter().filter_map(|r| numbers(r).get(n).copied()).collect();
        match stats(&values) {
            Some(s) => {
                rec.extend([s.mean, s.std, s.min, s.max].iter().map(|x| x.to_string()));
                table.push_str(&format!(
                    "  {:<32} {:>12} {:>12} {:>12} {:>12}\n",
                    n,
                    fmt(s.mean),
                    fmt(s.std),
                    fmt(s.min),
                    fmt(s.max)
                ));
            }
            None => rec.extend(std::iter::repeat_n(String::new(), 4)),
        }
    }
    for e in manifest.expect.iter().filter(|e| e.across.is_none()) {
        let verdict = point_stat(e, list).map(|v| (e.holds(v.value), v.value));
        let (word, line) = match verdict {
            Some((true, v)) => {
                ("pass", format!("PASS      {}: {} of {} = {}", e.name, e.stat.name(), e.metric, fmt(v)))
            }
            Some((false, v)) => {
                ("fail", format!("FAIL      {}: {} of {} = {}", e.name, e.stat.name(), e.metric, fmt(v)))
            }
            None => ("fail", format!("FAIL      {}: no finished run has {}", e.name, e.metric)),
        };
        tally.count(word == "pass");
        let bounds = match (e.min, e.max) {
            (Some(lo), Some(hi)) => format!(" (between {} and {})", fmt(lo), fmt(hi)),
            (Some(lo), None) => format!(" (>= {})", fmt(lo)),
            (None, Some(hi)) => format!(" (<= {})", fmt(hi)),
            (None, None) => String::new(),
        };
        table.push_str(&format!("  {line}{bounds}\n"));
        rec.push(word.into());
    }
    rec
}
