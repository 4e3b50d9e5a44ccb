//! `throng plot`: the per-tick metrics as time series, one panel per metric, as SVG or PNG.
//! The input is a metrics CSV from `throng run --metrics`, or a scenario (run here).
//!
//! This file reads or computes the series; `chart` lays them out and draws them.

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;

use throng_engine::metrics::{TICK_METRICS, TickMetric};
use throng_engine::world::Scene;
use throng_engine::{RunSettings, Simulation};

use crate::ticks::{Ended, run_ticks};

use super::chart::{Series, Table, layout, paint_png, write_svg};

#[derive(Args)]
pub struct PlotArgs {
    /// A metrics CSV (written by `throng run --metrics`) or a scenario (.toml, run here).
    input: PathBuf,
    /// Output file: .svg or .png.
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// Picture size in pixels (default: 800 wide, 150 pixels per panel).
    #[arg(long, value_name = "WxH", value_parser = super::parse_size)]
    size: Option<(u32, u32)>,
    /// Scenario input: ticks to run (default: the scenario's `ticks`).
    #[arg(long)]
    ticks: Option<u64>,
    /// Scenario input: seed (default: the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Scenario input: worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
    /// Panels to draw, in order: tick metrics (the metrics file's columns from agents_active to
    /// polarisation: the README's table lists them) and `gates` (a throughput panel per gate
    /// line). Default: agents_active,agents_exited,mean_speed,queue_length,polarisation,gates.
    #[arg(long, value_delimiter = ',', value_name = "NAME,..")]
    panels: Vec<String>,
    /// Scenario input: overrides applied before it runs.
    #[command(flatten)]
    overrides: crate::args::ScenarioOverrides,
}

/// The panels drawn without `--panels`.
const DEFAULT_PANELS: [&str; 6] =
    ["agents_active", "agents_exited", "mean_speed", "queue_length", "polarisation", GATES];

/// The `--panels` name for one throughput panel per gate line.
const GATES: &str = "gates";

/// The panels asked for, checked: tick metrics of [`TICK_METRICS`] and [`GATES`], in order.
fn chosen_panels(asked: &[String]) -> Result<Vec<&'static str>> {
    if asked.is_empty() {
        return Ok(DEFAULT_PANELS.to_vec());
    }
    let known: Vec<&'static str> = TICK_METRICS.iter().map(|t| t.name).chain([GATES]).collect();
    asked
        .iter()
        .map(|a| {
            let a = a.trim();
            known.iter().copied().find(|k| *k == a).ok_or_else(|| {
                let hint = throng_engine::scenario::nearest_word(a, known.iter().copied())
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                anyhow!("--panels: unknown panel `{a}`{hint} (panels: {})", known.join(", "))
            })
        })
        .collect()
}

/// The series of `panels` in order, from each metric's values by column name and each gate's
/// crossings per tick.
fn series(
    panels: &[&str],
    values: &dyn Fn(&TickMetric) -> Vec<f64>,
    gates: &[(String, Vec<f64>)],
    dt: Option<f64>,
) -> Vec<Series> {
    let mut out = Vec::new();
    for &name in panels {
        if name == GATES {
            out.extend(gates.iter().map(|(gate, per_tick)| gate_series(gate, per_tick, dt)));
        } else if let Some(t) = TICK_METRICS.iter().find(|t| t.name == name) {
            out.push(Series { title: t.panel_title(), unit: t.unit, values: values(t) });
        }
    }
    out
}

/// Gate throughput is averaged over this many seconds (a trailing window).
const GATE_WINDOW_S: f64 = 5.0;

fn gate_series(name: &str, per_tick: &[f64], dt: Option<f64>) -> Series {
    let dt = dt.unwrap_or(1.0);
    let window = ((GATE_WINDOW_S / dt).round() as usize).max(1);
    let mut values = Vec::with_capacity(per_tick.len());
    let mut sum = 0.0;
    for (i, c) in per_tick.iter().enumerate() {
        sum += c;
        if i >= window {
            sum -= per_tick[i - window];
        }
        values.push(sum / ((i + 1).min(window) as f64 * dt));
    }
    Series { title: format!("gate {name} throughput ({GATE_WINDOW_S:.0} s mean)"), unit: "agents/s", values }
}

/// A metrics file's header and rows as text, each row with where it stands (`file:line`, or
/// `file: row N` in Parquet), from either format `throng run --metrics` writes.
type MetricsText = (Vec<String>, Vec<(String, Vec<String>)>);

fn metrics_csv(file: &str, bytes: &[u8]) -> Result<MetricsText> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        bail!("{file}: the metrics file is empty; write one with `throng run SCENARIO --metrics {file}`");
    }
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(std::io::Cursor::new(bytes));
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| anyhow!("{file}:1: {e}"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| match (e.kind(), e.position()) {
            (csv::ErrorKind::UnequalLengths { expected_len, len, .. }, Some(p)) => {
                anyhow!("{file}:{}: expected {expected_len} columns, found {len}", p.line())
            }
            (_, Some(p)) => anyhow!("{file}:{}: {e}", p.line()),
            _ => anyhow!("{file}: {e}"),
        })?;
        let line = record.position().map_or(0, |p| p.line());
        rows.push((format!("{file}:{line}"), record.iter().map(str::to_string).collect()));
    }
    Ok((header, rows))
}

fn metrics_parquet(file: &str, opened: std::fs::File) -> Result<MetricsText> {
    use parquet::file::reader::FileReader;
    use parquet::record::Field;
    let reader = crate::output::parquet::open_whole(file, opened)?;
    let header = crate::output::parquet::column_names(&reader);
    let mut rows = Vec::new();
    for (k, row) in reader.get_row_iter(None).map_err(|e| anyhow!("{file}: {e}"))?.enumerate() {
        let row = row.map_err(|e| anyhow!("{file}: row {}: {e}", k + 1))?;
        let values = row
            .get_column_iter()
            .map(|(_, f)| match f {
                Field::Long(x) => x.to_string(),
                Field::Double(x) => x.to_string(),
                Field::Str(x) => x.clone(),
                Field::Null => String::new(),
                other => other.to_string(),
            })
            .collect();
        rows.push((format!("{file}: row {}", k + 1), values));
    }
    Ok((header, rows))
}

fn read_metrics(path: &Path, panels: &[&str]) -> Result<Table> {
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{file}: no such metrics file"),
        _ => anyhow!("{file}: cannot read the metrics: {e}"),
    };
    let mut opened = std::fs::File::open(path).map_err(cannot)?;
    let parquet = crate::output::parquet::starts_as_parquet(&mut opened);
    let (header, rows) = if parquet {
        metrics_parquet(&file, opened)?
    } else {
        metrics_csv(&file, &std::fs::read(path).map_err(cannot)?)?
    };
    let col = |name: &str| header.iter().position(|h| h == name);
    let mut needed = vec!["tick", "time_s"];
    needed.extend(panels.iter().copied().filter(|p| *p != GATES));
    let missing: Vec<&str> = needed.iter().copied().filter(|n| col(n).is_none()).collect();
    if !missing.is_empty() {
        bail!(
            "{file}:1: not a metrics file from `throng run --metrics`: missing column{} {}",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        );
    }
    // Each gate's crossings column `gate_NAME` is followed by its `gate_NAME_flow`.
    let is_flow = |i: usize| {
        i > 0 && header[i] == format!("{}_flow", header[i - 1]) && header[i - 1].starts_with("gate_")
    };
    let gates: Vec<(usize, &str)> = header
        .iter()
        .enumerate()
        .filter(|&(i, _)| !is_flow(i))
        .filter_map(|(i, h)| h.strip_prefix("gate_").map(|n| (i, n)))
        .collect();
    let (tick_col, time_col) = (col("tick").unwrap_or(0), col("time_s").unwrap_or(1));
    let metrics: Vec<&str> = panels.iter().copied().filter(|p| *p != GATES).collect();
    let plotted: Vec<usize> = metrics.iter().map(|m| col(m).unwrap_or(0)).collect();

    let mut ticks = Vec::new();
    let mut dt = None;
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); plotted.len() + gates.len()];
    // With events: each row names those that fired before its tick ran, at the tick before.
    let events_col = col("events");
    let mut events: Vec<(u64, String)> = Vec::new();
    for (place, record) in &rows {
        let tick: u64 = record[tick_col].trim().parse().map_err(|_| {
            anyhow!("{place}: column `tick`: expected a whole number >= 0, found `{}`", &record[tick_col])
        })?;
        if ticks.last().is_some_and(|&last| last >= tick) {
            bail!(
                "{place}: tick {tick} does not follow tick {}; rows must be in increasing tick order",
                ticks[ticks.len() - 1]
            );
        }
        let number = |i: usize| -> Result<f64> {
            match record[i].trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => {
                    bail!("{place}: column `{}`: expected a finite number, found `{}`", header[i], &record[i])
                }
            }
        };
        let time = number(time_col)?;
        if dt.is_none() && tick > 0 && time > 0.0 {
            dt = Some(time / tick as f64);
        }
        for (slot, &i) in columns.iter_mut().zip(plotted.iter().chain(gates.iter().map(|(i, _)| i))) {
            slot.push(number(i)?);
        }
        if let Some(names) = events_col.and_then(|i| record.get(i)).filter(|n| !n.is_empty()) {
            events.extend(names.split("; ").map(|n| (tick.saturating_sub(1), n.to_string())));
        }
        ticks.push(tick);
    }
    if ticks.is_empty() {
        bail!("{file}: the metrics file has a header but no rows: the run had no ticks");
    }
    let by_column = |t: &TickMetric| {
        metrics.iter().position(|m| *m == t.name).map_or_else(Vec::new, |k| columns[k].clone())
    };
    let gates: Vec<(String, Vec<f64>)> = gates
        .iter()
        .zip(&columns[plotted.len()..])
        .map(|((_, name), values)| (name.to_string(), values.clone()))
        .collect();
    let panels = series(panels, &by_column, &gates, dt);
    let name = path.file_stem().map_or("metrics".into(), |s| s.to_string_lossy().into_owned());
    Ok(Table { name, ticks, dt, panels, events })
}

/// The metrics of a run of the scenario `args` name, in the plane or in space as it declares.
fn run_metrics(args: &PlotArgs, panels: &[&str]) -> Result<Table> {
    match crate::args::dimensions_of(&args.input) {
        3 => run_metrics_in::<throng_engine::math::Vec3>(args, panels),
        _ => run_metrics_in::<throng_engine::math::Vec2>(args, panels),
    }
}

fn run_metrics_in<V: CliDimension>(args: &PlotArgs, panels: &[&str]) -> Result<Table> {
    let mut scenario = args.overrides.load_for::<V>(&args.input, args.ticks)?;
    if !args.quiet {
        for w in &scenario.warnings {
            eprintln!("warning: {w}");
        }
    }
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    let ticks = args.ticks.unwrap_or(scenario.ticks);
    let threads = crate::args::threads(args.threads, "--threads")?;
    let mut sim = Simulation::new(&scenario, RunSettings { threads, ..RunSettings::default() })?;
    let progress = crate::args::progress_bar(ticks, args.quiet);
    let mut rows = Vec::with_capacity(ticks as usize + 1);
    // The starting state first, as `throng run --metrics` writes it.
    rows.extend(sim.initial_metrics());
    let mut events: Vec<(u64, String)> = Vec::new();
    // The events that fired before tick `t` ran.
    let fired_at = |sim: &Simulation<V>, t: u64, events: &mut Vec<(u64, String)>| {
        let fired = sim.world().events.iter().filter(|e| e.last_tick == Some(t));
        events.extend(fired.map(|e| (t, e.name.clone())));
    };
    let ended = run_ticks(&mut sim, ticks, &progress, None, |sim| {
        fired_at(sim, sim.tick() - 1, &mut events);
        rows.push(sim.metrics().expect("metrics are on").last().clone());
        Ok(())
    })?
    .with_context(|| format!("{} stopped", scenario.origin))?;
    // A `stop` event ended the run before the tick it fired at.
    if ended == Ended::StoppedByEvent {
        fired_at(&sim, sim.tick(), &mut events);
    }
    progress.finish_and_clear();
    if rows.len() < 2 {
        bail!("--ticks 0: nothing to plot");
    }
    let dt = Some(scenario.dt as f64);
    let gates: Vec<(String, Vec<f64>)> = sim
        .world()
        .scene
        .parts()
        .gates
        .iter()
        .enumerate()
        .map(|(g, gate)| {
            let per_tick =
                rows.iter().map(|m| m.gate_crossings.get(g).copied().unwrap_or(0) as f64).collect();
            (gate.name.clone(), per_tick)
        })
        .collect();
    let panels =
        series(panels, &|t: &TickMetric| rows.iter().map(|m| (t.tick)(m).as_f64()).collect(), &gates, dt);
    Ok(Table {
        name: scenario.name.clone(),
        ticks: rows.iter().map(|m| m.tick).collect(),
        dt,
        panels,
        events,
    })
}

pub fn plot(args: PlotArgs) -> Result<ExitCode> {
    let ext = super::output(&args.out, &[("svg", "vector"), ("png", "raster")])?;
    let start = Instant::now();
    let is_scenario = args.input.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let panels = chosen_panels(&args.panels)?;
    let table = if is_scenario {
        run_metrics(&args, &panels)?
    } else {
        for (given, name) in [
            (args.ticks.is_some(), "--ticks"),
            (args.seed.is_some(), "--seed"),
            (args.threads.is_some(), "--threads"),
        ] {
            if given {
                bail!("{name} applies to a scenario input; {} is a metrics file", args.input.display());
            }
        }
        read_metrics(&args.input, &panels)?
    };
    let (width, height) = args.size.unwrap_or((800, 44 + 150 * table.panels.len() as u32 + 36));
    let png = ext == "png";
    let marks = layout(&table, width as f32, height as f32);
    let bytes =
        if png { paint_png(&marks, width, height)? } else { write_svg(&marks, width, height).into_bytes() };
    std::fs::write(&args.out, &bytes).with_context(|| format!("cannot write {}", args.out.display()))?;
    if !args.quiet {
        println!(
            "wrote {} ({width}x{height}, {} panels, {} ticks, {} bytes) in {:.2} s",
            args.out.display(),
            table.panels.len(),
            table.ticks.len(),
            bytes.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_throughput_is_a_trailing_mean_per_second() {
        // dt 1 s, a 5 s window: 1 crossing every tick is 1 agent/s once the window fills.
        let s = gate_series("door", &[1.0; 8], Some(1.0));
        assert!(s.values.iter().all(|&v| (v - 1.0).abs() < 1e-12), "{:?}", s.values);
        let s = gate_series("door", &[5.0, 0.0, 0.0, 0.0, 0.0, 0.0], Some(1.0));
        assert_eq!(s.values, vec![5.0, 2.5, 5.0 / 3.0, 1.25, 1.0, 0.0]);
    }
}
