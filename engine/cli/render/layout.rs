//! How a picture is laid out: the world view, the camera that maps it to pixels, and the room
//! for the legend: a strip beside the world when the picture has room, so the legend covers
//! nothing; otherwise a corner of the world.

use throng_engine::math::Vec2;

use super::frame::Scene;
use super::legend::{self, Placement};

/// The world rectangle a picture frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

/// World to pixels: `px = ox + x · scale`, `py = oy − y · scale` (y points up in the world and
/// down in the image). The view is fitted, with its aspect ratio kept and centred, inside the
/// image's left `area_width` pixels (the rest is the legend's strip).
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub width: u32,
    pub height: u32,
    pub scale: f32,
    pub ox: f32,
    pub oy: f32,
}

/// Pixels kept clear around the view.
const MARGIN_PX: f32 = 6.0;

impl Camera {
    pub fn fit(view: View, width: u32, height: u32, area_width: u32) -> Camera {
        let (w, h) = (area_width.min(width) as f32, height as f32);
        let (vw, vh) = (view.x1 - view.x0, view.y1 - view.y0);
        let scale = ((w - 2.0 * MARGIN_PX).max(1.0) / vw).min((h - 2.0 * MARGIN_PX).max(1.0) / vh);
        let cx = 0.5 * (view.x0 + view.x1);
        let cy = 0.5 * (view.y0 + view.y1);
        Camera { width, height, scale, ox: 0.5 * w - cx * scale, oy: 0.5 * h + cy * scale }
    }

    #[inline]
    pub fn px(&self, p: Vec2) -> (f32, f32) {
        (self.ox + p.x * self.scale, self.oy - p.y * self.scale)
    }
}

/// The default image size for a view: 800 pixels wide, the height from the view's aspect ratio
/// (between 240 and 1200).
pub fn default_size(view: View) -> (u32, u32) {
    let aspect = (view.y1 - view.y0) / (view.x1 - view.x0);
    let h = (800.0 * aspect).round().clamp(240.0, 1200.0) as u32;
    (800, h)
}

/// A picture's size, its camera, and where its legend goes.
pub struct Layout {
    pub camera: Camera,
    pub legend: Placement,
}

/// Lays out a picture of `view`: `size` if given (else the default for the view, widened by the
/// legend strip), the world fitted in what the legend leaves.
pub fn layout(view: View, size: Option<(u32, u32)>, scene: &Scene, with_legend: bool) -> Layout {
    if !with_legend {
        let (w, h) = size.unwrap_or_else(|| default_size(view));
        return Layout { camera: Camera::fit(view, w, h, w), legend: Placement::Off };
    }
    match size {
        None => {
            let (w, h) = default_size(view);
            let (strip_w, strip_h) = legend::strip_size(scene, legend::text_scale(w, h));
            let height = h.max(strip_h);
            Layout { camera: Camera::fit(view, w + strip_w, height, w), legend: Placement::Strip { x: w } }
        }
        Some((w, h)) => {
            let (strip_w, strip_h) = legend::strip_size(scene, legend::text_scale(w, h));
            if strip_w <= w / 3 && strip_h <= h {
                Layout {
                    camera: Camera::fit(view, w, h, w - strip_w),
                    legend: Placement::Strip { x: w - strip_w },
                }
            } else {
                Layout { camera: Camera::fit(view, w, h, w), legend: Placement::Corner }
            }
        }
    }
}
