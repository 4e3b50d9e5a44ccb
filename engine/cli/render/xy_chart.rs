//! A chart of y against x with one line per series and a legend: how a batch's statistic
//! changes along a swept key (a fundamental diagram: speed against the crowd's size, a line
//! per model), drawn with the per-tick charts' marks, as SVG or PNG.

use std::path::Path;

use anyhow::{Context, Result};

use super::chart::{Anchor, GRID, Mark, TEXT_H, label, nice_ticks, paint_png, write_svg};
use super::colour::{BOUNDS, GROUP_COLOURS, TEXT};

/// One line: its name and its points (x, y), in the order they are joined.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// The marks of the chart: `title` above, `x_label` under the x axis, `y_label` over the y
/// axis, the lines in the group colours, named in a legend right of the plot.
fn layout(title: &str, x_label: &str, y_label: &str, lines: &[Line], width: f32, height: f32) -> Vec<Mark> {
    let mut marks = Vec::new();
    let legend_w = 340.0;
    let (left, right, top, bottom) = (78.0, 28.0 + legend_w, 48.0, 48.0);
    let (plot_w, plot_h) = ((width - left - right).max(10.0), (height - top - bottom).max(10.0));
    let all = || lines.iter().flat_map(|l| l.points.iter().copied());
    let span = |v: Vec<f64>| {
        let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
        if !lo.is_finite() {
            (0.0, 1.0)
        } else if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        }
    };
    let (x0, x1) = span(all().map(|p| p.0).collect());
    // The y axis starts at 0 for values that cannot be negative (speeds, counts, flows).
    let (y0, y1) = span(all().map(|p| p.1).chain([0.0]).collect());
    let x_of = |x: f64| left + ((x - x0) / (x1 - x0)) as f32 * plot_w;
    let y_of = |y: f64| top + plot_h - ((y - y0) / (y1 - y0)) as f32 * plot_h;
    marks.push(Mark::Text { x: left, y: 12.0, text: title.to_string(), anchor: Anchor::Start, colour: TEXT });
    marks.push(Mark::Text {
        x: left,
        y: top - TEXT_H - 6.0,
        text: y_label.to_string(),
        anchor: Anchor::Start,
        colour: TEXT,
    });
    for x in nice_ticks(x0, x1, (plot_w / 90.0).max(2.0) as f64) {
        let px = x_of(x);
        marks.push(Mark::Line { from: (px, top), to: (px, top + plot_h), colour: GRID, width: 1.0 });
        marks.push(Mark::Text {
            x: px,
            y: top + plot_h + 6.0,
            text: label(x),
            anchor: Anchor::Middle,
            colour: TEXT,
        });
    }
    for y in nice_ticks(y0, y1, (plot_h / 60.0).max(2.0) as f64) {
        let py = y_of(y);
        marks.push(Mark::Line { from: (left, py), to: (left + plot_w, py), colour: GRID, width: 1.0 });
        marks.push(Mark::Text {
            x: left - 6.0,
            y: py - TEXT_H / 2.0,
            text: label(y),
            anchor: Anchor::End,
            colour: TEXT,
        });
    }
    marks.push(Mark::Frame { x: left, y: top, w: plot_w, h: plot_h, colour: BOUNDS });
    marks.push(Mark::Text {
        x: left + plot_w,
        y: top + plot_h + 6.0 + TEXT_H + 4.0,
        text: x_label.to_string(),
        anchor: Anchor::End,
        colour: TEXT,
    });
    for (k, line) in lines.iter().enumerate() {
        let colour = GROUP_COLOURS[k % GROUP_COLOURS.len()];
        let points: Vec<(f32, f32)> = line.points.iter().map(|&(x, y)| (x_of(x), y_of(y))).collect();
        // A point is a short cross, so a series of one point still shows.
        for &(px, py) in &points {
            marks.push(Mark::Line { from: (px - 3.0, py), to: (px + 3.0, py), colour, width: 2.0 });
            marks.push(Mark::Line { from: (px, py - 3.0), to: (px, py + 3.0), colour, width: 2.0 });
        }
        marks.push(Mark::Polyline { points, colour, width: 1.5 });
        let ly = top + k as f32 * (TEXT_H + 6.0);
        let lx = left + plot_w + 16.0;
        marks.push(Mark::Line {
            from: (lx, ly + TEXT_H / 2.0),
            to: (lx + 18.0, ly + TEXT_H / 2.0),
            colour,
            width: 3.0,
        });
        marks.push(Mark::Text {
            x: lx + 24.0,
            y: ly,
            text: line.name.clone(),
            anchor: Anchor::Start,
            colour: TEXT,
        });
    }
    marks
}

/// Writes the chart to `path`: PNG for a `.png` file, SVG otherwise.
pub fn write(path: &Path, title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<()> {
    let (width, height) = (1040u32, 540u32);
    let marks = layout(title, x_label, y_label, lines, width as f32, height as f32);
    let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes =
        if png { paint_png(&marks, width, height)? } else { write_svg(&marks, width, height).into_bytes() };
    throng_engine::state::files::write_atomically(path, &bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}
