//! `throng plot`: the per-tick metrics as time series, one panel per metric, as SVG or PNG.
//! The input is a metrics CSV from `throng run --metrics`, or a scenario (run here).
//!
//! The layout is computed once as a list of marks (lines, polylines, rectangles, text) in
//! pixels; an SVG writer and a tiny-skia painter each draw the same list.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use tiny_skia::{LineCap, LineJoin, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use super::colour::{BOUNDS, GROUP_COLOURS, Rgb, TEXT};
use super::font;
use throng_engine::{RunSettings, Simulation};

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
}

/// One panel's data.
struct Series {
    title: String,
    /// The unit of the y axis.
    unit: &'static str,
    values: Vec<f64>,
}

/// Everything plotted: the ticks (x) and one series per panel.
struct Table {
    name: String,
    ticks: Vec<u64>,
    dt: Option<f64>,
    panels: Vec<Series>,
}

/// Columns of a metrics CSV that are plotted, with their panel titles and units.
const PLOTTED: [(&str, &str, &str); 5] = [
    ("agents_active", "agents active", "agents"),
    ("agents_exited", "agents exited, cumulative", "agents"),
    ("mean_speed", "mean speed", "units/s"),
    ("queue_length", "queue length", "agents"),
    ("polarisation", "polarisation", "0 to 1"),
];

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

fn read_metrics(path: &Path) -> Result<Table> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{file}: no such metrics file"),
        _ => anyhow!("{file}: cannot read the metrics: {e}"),
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        bail!("{file}: the metrics file is empty; write one with `throng run SCENARIO --metrics {file}`");
    }
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_reader(std::io::Cursor::new(&bytes));
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| anyhow!("{file}:1: {e}"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let mut needed = vec!["tick", "time_s"];
    needed.extend(PLOTTED.iter().map(|p| p.0));
    let missing: Vec<&str> = needed.iter().copied().filter(|n| col(n).is_none()).collect();
    if !missing.is_empty() {
        bail!(
            "{file}:1: not a metrics file from `throng run --metrics`: missing column{} {}",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        );
    }
    let gates: Vec<(usize, &str)> =
        header.iter().enumerate().filter_map(|(i, h)| h.strip_prefix("gate_").map(|n| (i, n))).collect();
    let (tick_col, time_col) = (col("tick").unwrap_or(0), col("time_s").unwrap_or(1));
    let plotted: Vec<usize> = PLOTTED.iter().map(|p| col(p.0).unwrap_or(0)).collect();

    let mut ticks = Vec::new();
    let mut dt = None;
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); plotted.len() + gates.len()];
    for record in reader.records() {
        let record = record.map_err(|e| match (e.kind(), e.position()) {
            (csv::ErrorKind::UnequalLengths { expected_len, len, .. }, Some(p)) => {
                anyhow!("{file}:{}: expected {expected_len} columns, found {len}", p.line())
            }
            (_, Some(p)) => anyhow!("{file}:{}: {e}", p.line()),
            _ => anyhow!("{file}: {e}"),
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let tick: u64 = record[tick_col].trim().parse().map_err(|_| {
            anyhow!(
                "{file}:{line}: column `tick`: expected a whole number >= 0, found `{}`",
                &record[tick_col]
            )
        })?;
        if ticks.last().is_some_and(|&last| last >= tick) {
            bail!(
                "{file}:{line}: tick {tick} does not follow tick {}; rows must be in increasing tick order",
                ticks[ticks.len() - 1]
            );
        }
        let number = |i: usize| -> Result<f64> {
            match record[i].trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => bail!(
                    "{file}:{line}: column `{}`: expected a finite number, found `{}`",
                    header[i],
                    &record[i]
                ),
            }
        };
        let time = number(time_col)?;
        if dt.is_none() && tick > 0 && time > 0.0 {
            dt = Some(time / tick as f64);
        }
        for (slot, &i) in columns.iter_mut().zip(plotted.iter().chain(gates.iter().map(|(i, _)| i))) {
            slot.push(number(i)?);
        }
        ticks.push(tick);
    }
    if ticks.is_empty() {
        bail!("{file}: the metrics file has a header but no rows: the run had no ticks");
    }
    let mut panels: Vec<Series> = PLOTTED
        .iter()
        .zip(columns.iter())
        .map(|(p, values)| Series { title: p.1.to_string(), unit: p.2, values: values.clone() })
        .collect();
    for ((_, name), values) in gates.iter().zip(&columns[plotted.len()..]) {
        panels.push(gate_series(name, values, dt));
    }
    let name = path.file_stem().map_or("metrics".into(), |s| s.to_string_lossy().into_owned());
    Ok(Table { name, ticks, dt, panels })
}

fn run_metrics(args: &PlotArgs) -> Result<Table> {
    let mut scenario = throng_engine::Scenario::load(&args.input)?;
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
    let mut rows = Vec::with_capacity(ticks as usize);
    for _ in 0..ticks {
        sim.step().with_context(|| format!("{} stopped", scenario.origin))?;
        rows.push(sim.metrics().expect("metrics are on").last().clone());
        progress.inc(1);
    }
    progress.finish_and_clear();
    if rows.is_empty() {
        bail!("--ticks 0: nothing to plot");
    }
    let column =
        |f: &dyn Fn(&throng_engine::metrics::TickMetrics) -> f64| rows.iter().map(f).collect::<Vec<_>>();
    let dt = Some(scenario.dt as f64);
    let mut panels = vec![
        Series {
            title: PLOTTED[0].1.into(),
            unit: PLOTTED[0].2,
            values: column(&|m| m.agents_active as f64),
        },
        Series {
            title: PLOTTED[1].1.into(),
            unit: PLOTTED[1].2,
            values: column(&|m| m.agents_exited as f64),
        },
        Series { title: PLOTTED[2].1.into(), unit: PLOTTED[2].2, values: column(&|m| m.mean_speed) },
        Series { title: PLOTTED[3].1.into(), unit: PLOTTED[3].2, values: column(&|m| m.queue_length as f64) },
        Series { title: PLOTTED[4].1.into(), unit: PLOTTED[4].2, values: column(&|m| m.polarisation) },
    ];
    for (g, gate) in sim.world().gates.iter().enumerate() {
        let per_tick = column(&|m| m.gate_crossings.get(g).copied().unwrap_or(0) as f64);
        panels.push(gate_series(&gate.name, &per_tick, dt));
    }
    Ok(Table { name: scenario.name.clone(), ticks: rows.iter().map(|m| m.tick).collect(), dt, panels })
}

pub fn plot(args: PlotArgs) -> Result<ExitCode> {
    let ext = super::output(&args.out, &[("svg", "vector"), ("png", "raster")])?;
    let start = Instant::now();
    let is_scenario = args.input.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let table = if is_scenario {
        run_metrics(&args)?
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
        read_metrics(&args.input)?
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

#[derive(Clone, Copy, PartialEq)]
enum Anchor {
    Start,
    Middle,
    End,
}

enum Mark {
    Line {
        from: (f32, f32),
        to: (f32, f32),
        colour: Rgb,
        width: f32,
    },
    Polyline {
        points: Vec<(f32, f32)>,
        colour: Rgb,
        width: f32,
    },
    Frame {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        colour: Rgb,
    },
    /// `y` is the top of the text.
    Text {
        x: f32,
        y: f32,
        text: String,
        anchor: Anchor,
        colour: Rgb,
    },
}

const GRID: Rgb = Rgb(228, 228, 224);
/// Text height in pixels (the bitmap font doubled; the SVG font size matches it).
const TEXT_H: f32 = 14.0;

/// A number for an axis label: integers as they are, others with three significant digits.
fn label(v: f64) -> String {
    if v == v.round() && v.abs() < 1e12 {
        format!("{}", v as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Seconds per tick, shortest: 0.1 rather than 0.100 (dt is stored as f32).
fn seconds(dt: f64) -> String {
    let s = format!("{:.6}", dt as f32);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Ticks at 1, 2 or 5 × 10^k, about `target` of them across [lo, hi].
fn nice_ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
    let span = (hi - lo).max(1.0);
    let raw = span / target;
    let mut step = 1.0;
    while step * 10.0 <= raw {
        step *= 10.0;
    }
    let step = if raw <= step {
        step
    } else if raw <= 2.0 * step {
        2.0 * step
    } else if raw <= 5.0 * step {
        5.0 * step
    } else {
        10.0 * step
    };
    let mut out = Vec::new();
    let mut t = (lo / step).ceil() * step;
    while t <= hi + 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

/// At most two points (the minimum and the maximum, in their order) per pixel column.
fn decimate(points: Vec<(f32, f32)>, width: f32) -> Vec<(f32, f32)> {
    if points.len() as f32 <= 2.0 * width {
        return points;
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < points.len() {
        let column = points[k].0.floor();
        let mut end = k;
        while end < points.len() && points[end].0.floor() == column {
            end += 1;
        }
        let slice = &points[k..end];
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in slice.iter().enumerate() {
            // Screen y grows downwards: the smallest y is the largest value.
            if p.1 > slice[lo].1 {
                lo = i;
            }
            if p.1 < slice[hi].1 {
                hi = i;
            }
        }
        out.push(slice[lo.min(hi)]);
        if lo != hi {
            out.push(slice[lo.max(hi)]);
        }
        k = end;
    }
    out
}

fn layout(table: &Table, width: f32, height: f32) -> Vec<Mark> {
    let mut marks = Vec::new();
    // The right margin leaves room for half of the last tick label.
    let (left, right, top, bottom) = (78.0, 28.0, 40.0, 40.0);
    let n = table.panels.len().max(1) as f32;
    let gap = 12.0;
    let panel_h = ((height - top - bottom - gap * (n - 1.0)) / n).max(30.0);
    let plot_w = (width - left - right).max(10.0);
    let (t0, t1) = (*table.ticks.first().unwrap_or(&0) as f64, *table.ticks.last().unwrap_or(&1) as f64);
    let t1 = if t1 > t0 { t1 } else { t0 + 1.0 };
    let x_of = |t: f64| left + ((t - t0) / (t1 - t0)) as f32 * plot_w;
    let xticks = nice_ticks(t0, t1, (plot_w / 90.0).max(2.0) as f64);

    let mut title = format!("{}: metrics per tick", table.name);
    if let Some(dt) = table.dt {
        title.push_str(&format!(" (dt = {} s)", seconds(dt)));
    }
    marks.push(Mark::Text { x: left, y: 12.0, text: title, anchor: Anchor::Start, colour: TEXT });

    for (k, series) in table.panels.iter().enumerate() {
        let y0 = top + k as f32 * (panel_h + gap);
        let y1 = y0 + panel_h;
        let (lo, hi) =
            series.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        // A flat series sits in the middle of a unit-high axis.
        let (ylo, yhi) = if hi > lo { (lo, hi) } else { (lo - 0.5, lo + 0.5) };
        let pad = 4.0;
        let y_of =
            |v: f64| y1 - pad - ((v - ylo) / (yhi - ylo)) as f32 * (panel_h - 2.0 * pad - TEXT_H - 4.0);
        for &t in &xticks {
            let x = x_of(t);
            marks.push(Mark::Line { from: (x, y0), to: (x, y1), colour: GRID, width: 1.0 });
        }
        for v in [lo, hi] {
            let y = y_of(v);
            marks.push(Mark::Line { from: (left, y), to: (left + plot_w, y), colour: GRID, width: 1.0 });
            marks.push(Mark::Text {
                x: left - 6.0,
                y: y - TEXT_H / 2.0,
                text: label(v),
                anchor: Anchor::End,
                colour: TEXT,
            });
        }
        marks.push(Mark::Frame { x: left, y: y0, w: plot_w, h: panel_h, colour: BOUNDS });
        marks.push(Mark::Text {
            x: left + 6.0,
            y: y0 + 4.0,
            text: format!("{} ({})", series.title, series.unit),
            anchor: Anchor::Start,
            colour: TEXT,
        });
        let points: Vec<(f32, f32)> =
            table.ticks.iter().zip(&series.values).map(|(&t, &v)| (x_of(t as f64), y_of(v))).collect();
        let colour = GROUP_COLOURS[k % GROUP_COLOURS.len()];
        marks.push(Mark::Polyline { points: decimate(points, plot_w), colour, width: 1.5 });
    }
    // The tick axis, under the last panel.
    let axis_y = top + n * panel_h + (n - 1.0) * gap;
    for &t in &xticks {
        let x = x_of(t);
        marks.push(Mark::Line { from: (x, axis_y), to: (x, axis_y + 4.0), colour: BOUNDS, width: 1.0 });
        marks.push(Mark::Text { x, y: axis_y + 7.0, text: label(t), anchor: Anchor::Middle, colour: TEXT });
    }
    let mut axis = "tick".to_string();
    if let Some(dt) = table.dt {
        axis.push_str(&format!(" (1 tick = {} s)", seconds(dt)));
    }
    marks.push(Mark::Text {
        x: left + plot_w,
        y: axis_y + 7.0 + TEXT_H + 4.0,
        text: axis,
        anchor: Anchor::End,
        colour: TEXT,
    });
    marks
}

fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn write_svg(marks: &[Mark], width: u32, height: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="{TEXT_H}">"##
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    for m in marks {
        match m {
            Mark::Line { from, to, colour, width } => {
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="{width}"/>"#,
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    colour.hex()
                );
            }
            Mark::Polyline { points, colour, width } => {
                let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{width}" stroke-linejoin="round"/>"#,
                    pts.join(" "),
                    colour.hex()
                );
            }
            Mark::Frame { x, y, w, h, colour } => {
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="none" stroke="{}"/>"#,
                    colour.hex()
                );
            }
            Mark::Text { x, y, text, anchor, colour } => {
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                // `y` is the top of the text; the baseline is about 0.8 of the size below it.
                let _ = writeln!(
                    s,
                    r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" fill="{}">{}</text>"#,
                    y + 0.8 * TEXT_H,
                    colour.hex(),
                    escape_xml(text)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

fn paint_png(marks: &[Mark], width: u32, height: u32) -> Result<Vec<u8>> {
    let mut pixmap = Pixmap::new(width, height).context("cannot allocate the picture")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    let paint = |c: &Rgb| {
        let mut p = Paint::default();
        p.set_color_rgba8(c.0, c.1, c.2, 255);
        p.anti_alias = true;
        p
    };
    let stroke = |w: f32| Stroke {
        width: w,
        line_cap: LineCap::Butt,
        line_join: LineJoin::Round,
        ..Stroke::default()
    };
    let scale = (TEXT_H / font::GLYPH_H as f32).round() as u32;
    for m in marks {
        match m {
            Mark::Line { from, to, colour, width } => {
                // Pixel centres, so one-pixel lines stay crisp.
                let mut pb = PathBuilder::new();
                pb.move_to(from.0.floor() + 0.5, from.1.floor() + 0.5);
                pb.line_to(to.0.floor() + 0.5, to.1.floor() + 0.5);
                if let Some(path) = pb.finish() {
                    pixmap.stroke_path(&path, &paint(colour), &stroke(*width), Transform::identity(), None);
                }
            }
            Mark::Polyline { points, colour, width } => {
                let mut pb = PathBuilder::new();
                for (k, &(x, y)) in points.iter().enumerate() {
                    if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
                }
                if points.len() == 1 {
                    pb.line_to(points[0].0 + 0.5, points[0].1);
                }
                if let Some(path) = pb.finish() {
                    pixmap.stroke_path(&path, &paint(colour), &stroke(*width), Transform::identity(), None);
                }
            }
            Mark::Frame { x, y, w, h, colour } => {
                if let Some(r) = Rect::from_xywh(x.floor() + 0.5, y.floor() + 0.5, w.floor(), h.floor()) {
                    let path = PathBuilder::from_rect(r);
                    pixmap.stroke_path(&path, &paint(colour), &stroke(1.0), Transform::identity(), None);
                }
            }
            Mark::Text { x, y, text, anchor, colour } => {
                let w = font::text_width(text, scale) as f32;
                let x = match anchor {
                    Anchor::Start => *x,
                    Anchor::Middle => x - w / 2.0,
                    Anchor::End => x - w,
                };
                font::draw_text(&mut pixmap, x.round() as i32, y.round() as i32, scale, *colour, text);
            }
        }
    }
    Ok(pixmap.encode_png()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(nice_ticks(0.0, 100.0, 5.0), vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        assert_eq!(nice_ticks(1.0, 1200.0, 8.0), vec![200.0, 400.0, 600.0, 800.0, 1000.0, 1200.0]);
    }

    #[test]
    fn gate_throughput_is_a_trailing_mean_per_second() {
        // dt 1 s, a 5 s window: 1 crossing every tick is 1 agent/s once the window fills.
        let s = gate_series("door", &[1.0; 8], Some(1.0));
        assert!(s.values.iter().all(|&v| (v - 1.0).abs() < 1e-12), "{:?}", s.values);
        let s = gate_series("door", &[5.0, 0.0, 0.0, 0.0, 0.0, 0.0], Some(1.0));
        assert_eq!(s.values, vec![5.0, 2.5, 5.0 / 3.0, 1.25, 1.0, 0.0]);
    }

    #[test]
    fn labels_are_short() {
        assert_eq!(label(150.0), "150");
        assert_eq!(label(1.2345), "1.23");
        assert_eq!(label(0.04567), "0.046");
    }
}
