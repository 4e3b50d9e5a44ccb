//! Charts of per-tick series: panels stacked with axes, round tick labels and a legend, laid
//! out once as marks and written as SVG or painted as PNG (the same marks, so the two agree).

use std::fmt::Write as _;

use anyhow::{Context, Result};
use tiny_skia::{LineCap, LineJoin, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use super::colour::{BOUNDS, GROUP_COLOURS, Rgb, TEXT};
use super::font;

/// One panel's data.
pub(super) struct Series {
    pub(super) title: String,
    /// The unit of the y axis.
    pub(super) unit: &'static str,
    pub(super) values: Vec<f64>,
}

/// Everything plotted: the ticks (x) and one series per panel.
pub(super) struct Table {
    pub(super) name: String,
    pub(super) ticks: Vec<u64>,
    pub(super) dt: Option<f64>,
    pub(super) panels: Vec<Series>,
    /// Events that fired, by tick (ticks completed when they applied) and name: each a
    /// vertical line across the panels.
    pub(super) events: Vec<(u64, String)>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Anchor {
    Start,
    Middle,
    End,
}

pub(super) enum Mark {
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

pub(super) const GRID: Rgb = Rgb(228, 228, 224);
/// Event lines and their names.
pub(super) const EVENT: Rgb = Rgb(200, 90, 30);
/// Most event names written on a chart.
const MAX_EVENT_LABELS: usize = 8;
/// Text height in pixels (the bitmap font doubled; the SVG font size matches it).
pub(super) const TEXT_H: f32 = 14.0;

/// A number for an axis label: integers as they are, others with three significant digits.
pub(super) fn label(v: f64) -> String {
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
pub(super) fn seconds(dt: f64) -> String {
    let s = format!("{:.6}", dt as f32);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Ticks at 1, 2 or 5 × 10^k, about `target` of them across [lo, hi].
pub(super) fn nice_ticks(lo: f64, hi: f64, target: f64) -> Vec<f64> {
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
pub(super) fn decimate(points: Vec<(f32, f32)>, width: f32) -> Vec<(f32, f32)> {
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

pub(super) fn layout(table: &Table, width: f32, height: f32) -> Vec<Mark> {
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
    // Events: a line across every panel, named at the foot of the last one, staggered over
    // three rows (the first few names: an event firing every tick would bury the chart).
    let mut named = 0;
    for (k, (tick, name)) in table.events.iter().enumerate() {
        let x = x_of(*tick as f64);
        marks.push(Mark::Line { from: (x, top), to: (x, axis_y), colour: EVENT, width: 1.0 });
        if named < MAX_EVENT_LABELS && table.events[..k].iter().all(|(t, n)| t != tick || n != name) {
            let y = axis_y - (TEXT_H + 2.0) * (1 + named % 3) as f32;
            marks.push(Mark::Text {
                x: x + 3.0,
                y,
                text: name.clone(),
                anchor: Anchor::Start,
                colour: EVENT,
            });
            named += 1;
        }
    }
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

pub(super) fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub(super) fn write_svg(marks: &[Mark], width: u32, height: u32) -> String {
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

pub(super) fn paint_png(marks: &[Mark], width: u32, height: u32) -> Result<Vec<u8>> {
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
    fn labels_are_short() {
        assert_eq!(label(150.0), "150");
        assert_eq!(label(1.2345), "1.23");
        assert_eq!(label(0.04567), "0.046");
    }
}
