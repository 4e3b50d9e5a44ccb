//! Drawing primitives on a pixmap: strokes, fills, outlines and pixel-aligned blocks.

use tiny_skia::{FillRule, LineCap, PathBuilder, Pixmap, PremultipliedColorU8, Stroke, Transform};

use super::colour::Rgb;

pub fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, ..Stroke::default() }
}

pub fn fill(pixmap: &mut Pixmap, pb: PathBuilder, colour: Rgb, alpha: f32) {
    if let Some(path) = pb.finish() {
        pixmap.fill_path(&path, &colour.paint(alpha), FillRule::Winding, Transform::identity(), None);
    }
}

pub fn outline(pixmap: &mut Pixmap, pb: PathBuilder, colour: Rgb, alpha: f32, stroke: &Stroke) {
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &colour.paint(alpha), stroke, Transform::identity(), None);
    }
}

/// An opaque, pixel-aligned rectangle.
pub fn fill_block(pixmap: &mut Pixmap, x: u32, y: u32, w: u32, h: u32, c: Rgb) {
    let width = pixmap.width();
    let height = pixmap.height();
    let colour = PremultipliedColorU8::from_rgba(c.0, c.1, c.2, 255).expect("opaque is premultiplied");
    let pixels = pixmap.pixels_mut();
    for yy in y..(y + h).min(height) {
        for xx in x..(x + w).min(width) {
            pixels[(yy * width + xx) as usize] = colour;
        }
    }
}
