//! The legend of a picture: name, tick and time, agents alive, group swatches. It goes in a
//! strip beside the world when the picture has room, so it covers nothing; otherwise in the
//! picture corner where it covers least.

use tiny_skia::{PathBuilder, Pixmap, PremultipliedColorU8, Rect, Stroke, Transform};

use super::colour::{BACKGROUND, BOUNDS, LEGEND_BG, Rgb, TEXT, group_colour};
use super::font;
use super::pen::fill_block;
use super::scene::Scene;
use crate::output::Frame;

/// Text size for a picture: 5×7 glyphs doubled from 480 pixels up.
pub fn text_scale(width: u32, height: u32) -> u32 {
    if width.min(height) >= 480 { 2 } else { 1 }
}

/// The legend lines for a frame: name, tick, time (when known), agents alive.
pub fn legend_lines(scene: &Scene, frame: &Frame) -> Vec<String> {
    let mut lines = vec![scene.name.clone(), format!("tick {}", frame.tick)];
    if let Some(dt) = scene.dt {
        lines.push(format!("t {:.1} s", frame.tick as f64 * dt as f64));
    }
    lines.push(format!("agents {}", frame.len()));
    lines
}

/// Where a picture's legend goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// No legend.
    Off,
    /// In the strip right of pixel column `x`, beside the world: it covers nothing.
    Strip { x: u32 },
    /// In the corner of the world where it covers least (a picture too narrow for a strip).
    Corner,
}

/// The strip a legend of `scene` needs beside the world at text scale `s`: its width (with
/// room for long tick numbers) and height, margins included.
pub fn strip_size(scene: &Scene, s: u32) -> (u32, u32) {
    let legend = Legend::new(scene, &Frame::default(), s);
    (legend.probe_width + 2 * 4 * s, legend.height + 2 * 4 * s)
}

/// Groups listed in the legend; the rest are summarised as "+N more".
const LEGEND_GROUPS: usize = 8;

/// The legend box: its lines (with a colour swatch for group lines) and its size.
pub struct Legend {
    lines: Vec<(Option<Rgb>, String)>,
    scale: u32,
    width: u32,
    height: u32,
    /// The width used to choose a corner: wide enough for long tick numbers, so the choice
    /// does not change as the numbers grow.
    probe_width: u32,
}

impl Legend {
    pub fn new(scene: &Scene, frame: &Frame, s: u32) -> Legend {
        let swatch = font::GLYPH_H * s;
        let mut lines: Vec<(Option<Rgb>, String)> =
            legend_lines(scene, frame).into_iter().map(|l| (None, l)).collect();
        if scene.groups.len() > 1 {
            for (g, name) in scene.groups.iter().enumerate().take(LEGEND_GROUPS) {
                lines.push((Some(group_colour(g as u16)), name.clone()));
            }
            if scene.groups.len() > LEGEND_GROUPS {
                lines.push((None, format!("+{} more", scene.groups.len() - LEGEND_GROUPS)));
            }
        }
        let text_w = |(c, l): &(Option<Rgb>, String)| {
            font::text_width(l, s) + if c.is_some() { swatch + 4 * s } else { 0 }
        };
        let pad = 4 * s;
        let width = lines.iter().map(text_w).max().unwrap_or(0) + 2 * pad;
        let height = lines.len() as u32 * (font::LINE_H + 2) * s + 2 * pad - 2 * s;
        let probe_width = width.max(font::text_width("agents 00000000", s) + 2 * pad);
        Legend { lines, scale: s, width, height, probe_width }
    }

    /// The top-left corner of the legend placed as `placement` says (`None` for no legend), on
    /// `pixmap` holding the static scene.
    pub fn position(&self, pixmap: &Pixmap, placement: Placement) -> Option<(u32, u32)> {
        match placement {
            Placement::Off => None,
            Placement::Strip { x } => Some((x, 4 * self.scale)),
            Placement::Corner => Some(self.corner(pixmap)),
        }
    }

    /// The top-left corner of the legend: the picture corner whose box covers the fewest
    /// non-background pixels (ties: top left, top right, bottom left, bottom right).
    fn corner(&self, pixmap: &Pixmap) -> (u32, u32) {
        let m = 4 * self.scale;
        let (w, h) = (pixmap.width(), pixmap.height());
        let right = w.saturating_sub(self.width + m);
        let probe_right = w.saturating_sub(self.probe_width + m);
        let bottom = h.saturating_sub(self.height + m);
        let candidates =
            [((m, m), m), ((right, m), probe_right), ((m, bottom), m), ((right, bottom), probe_right)];
        let bg = PremultipliedColorU8::from_rgba(BACKGROUND.0, BACKGROUND.1, BACKGROUND.2, 255);
        let pixels = pixmap.pixels();
        let ink = |x0: u32, y0: u32| -> usize {
            (y0..(y0 + self.height).min(h))
                .map(|y| {
                    let row = &pixels[(y * w) as usize..((y + 1) * w) as usize];
                    row[x0.min(w) as usize..(x0 + self.probe_width).min(w) as usize]
                        .iter()
                        .filter(|p| Some(**p) != bg)
                        .count()
                })
                .sum()
        };
        let mut best = (usize::MAX, (m, m));
        for ((x, y), probe_x) in candidates {
            let count = ink(probe_x, y);
            if count < best.0 {
                best = (count, (x, y));
            }
        }
        best.1
    }

    pub fn draw(&self, pixmap: &mut Pixmap, x0: u32, y0: u32) {
        let s = self.scale;
        let (pad, swatch, line_h) = (4 * s, font::GLYPH_H * s, (font::LINE_H + 2) * s);
        if let Some(r) = Rect::from_xywh(x0 as f32, y0 as f32, self.width as f32, self.height as f32) {
            let mut paint = LEGEND_BG.paint(1.0);
            paint.anti_alias = false;
            pixmap.fill_rect(r, &paint, Transform::identity(), None);
            let mut border = BOUNDS.paint(1.0);
            border.anti_alias = false;
            let pb = PathBuilder::from_rect(r);
            pixmap.stroke_path(&pb, &border, &Stroke::default(), Transform::identity(), None);
        }
        for (k, (colour, text)) in self.lines.iter().enumerate() {
            let mut x = x0 + pad;
            let y = y0 + pad + k as u32 * line_h;
            if let Some(c) = colour {
                fill_block(pixmap, x, y, swatch, swatch, *c);
                x += swatch + 4 * s;
            }
            font::draw_text(pixmap, x as i32, y as i32, s, TEXT, text);
        }
    }
}
