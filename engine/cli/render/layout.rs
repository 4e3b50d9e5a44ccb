//! How a picture is laid out: the world view, the camera that maps it to pixels, and the room
//! for the legend: a strip beside the world when the picture has room, so the legend covers
//! nothing; otherwise a corner of the world.

use throng_engine::math::Vec2;
use throng_engine::world::Region;
use tiny_skia::{PathBuilder, Rect};

use super::legend::{self, Placement};
use super::scene::{Extent, Scene};

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

impl Extent {
    /// The box as a view, grown by `margin` (a fraction of its size) on every side, and at
    /// least one world unit across so a single point can be framed.
    pub fn view(&self, margin: f32) -> View {
        if self.is_empty() {
            return View { x0: -1.0, y0: -1.0, x1: 1.0, y1: 1.0 };
        }
        let size = (self.max - self.min).max(Vec2::splat(1.0));
        let centre = (self.min + self.max) * 0.5;
        let half = size * (0.5 + margin);
        View { x0: centre.x - half.x, y0: centre.y - half.y, x1: centre.x + half.x, y1: centre.y + half.y }
    }
}

/// Adds `region`, mapped to pixels by `camera`, to `pb`.
pub fn push_region(pb: &mut PathBuilder, region: &Region, camera: &Camera) {
    match *region {
        Region::Rect { min, max } => push_world_rect(pb, min, max, camera),
        Region::Circle { centre, radius } => {
            let (x, y) = camera.px(centre);
            pb.push_circle(x, y, (radius * camera.scale).max(0.5));
        }
    }
}

/// Adds the world rectangle `min`–`max`, mapped to pixels by `camera` (at least half a pixel
/// across), to `pb`.
pub fn push_world_rect(pb: &mut PathBuilder, min: Vec2, max: Vec2, camera: &Camera) {
    let (x0, y1) = camera.px(min);
    let (x1, y0) = camera.px(max);
    if let Some(r) = Rect::from_ltrb(x0, y0, x1.max(x0 + 0.5), y1.max(y0 + 0.5)) {
        pb.push_rect(r);
    }
}
