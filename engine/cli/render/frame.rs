//! What a picture is made of: the scene (name, groups, static geometry), one frame of agents,
//! the view that maps world units to pixels, and the raster drawing of a frame with tiny-skia.
//!
//! Drawing order, back to front: background, bounds, spawn sources, exits, paths, obstacles,
//! gates, trails, agents, legend. Every colour is one of a few fixed constants or a group colour,
//! so the GIF palette can be fixed in advance (see `palette`).

use tiny_skia::{
    FillRule, LineCap, PathBuilder, Pixmap, PremultipliedColorU8, Rect, Stroke, StrokeDash, Transform,
};

use throng_engine::World;
use throng_engine::math::Vec2;
use throng_engine::world::{Bounds, BoundsKind, Exit, Gate, Obstacle, Path, Region, Source};

use super::colour::*;
use super::font;

/// Radius (world units) drawn for agents whose radius a trace does not give: the scenario
/// default.
pub const DEFAULT_RADIUS: f32 = 0.5;

/// Static geometry of a scenario.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub bounds: Bounds,
    pub obstacles: Vec<Obstacle>,
    pub paths: Vec<Path>,
    pub exits: Vec<Exit>,
    pub sources: Vec<Source>,
    pub gates: Vec<Gate>,
}

impl Geometry {
    pub fn of(world: &World) -> Geometry {
        Geometry {
            bounds: world.bounds,
            obstacles: world.obstacles.clone(),
            paths: world.paths.clone(),
            exits: world.exits.clone(),
            sources: world.sources.clone(),
            gates: world.gates.clone(),
        }
    }

    /// The bounds and everything drawn, as one world rectangle.
    pub fn extent(&self) -> Extent {
        let mut e = Extent::default();
        e.add(self.bounds.min);
        e.add(self.bounds.max);
        for o in &self.obstacles {
            let (lo, hi) = match *o {
                Obstacle::Circle { centre, radius } => {
                    (centre - Vec2::splat(radius), centre + Vec2::splat(radius))
                }
                Obstacle::Rect { min, max } => (min, max),
            };
            e.add(lo);
            e.add(hi);
        }
        for p in &self.paths {
            for &n in &p.nodes {
                e.add(n - Vec2::splat(p.radius));
                e.add(n + Vec2::splat(p.radius));
            }
        }
        for region in self.exits.iter().map(|x| x.region).chain(self.sources.iter().map(|s| s.region)) {
            let (lo, hi) = region.aabb();
            e.add(lo);
            e.add(hi);
        }
        for g in &self.gates {
            e.add(g.from);
            e.add(g.to);
        }
        e
    }
}

/// A growing axis-aligned box.
#[derive(Clone, Copy, Debug)]
pub struct Extent {
    pub min: Vec2,
    pub max: Vec2,
}

impl Default for Extent {
    fn default() -> Self {
        Extent { min: Vec2::splat(f32::INFINITY), max: Vec2::splat(f32::NEG_INFINITY) }
    }
}

impl Extent {
    pub fn add(&mut self, p: Vec2) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }

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

/// Everything about a run that does not change from frame to frame.
#[derive(Clone, Debug)]
pub struct Scene {
    pub name: String,
    /// Seconds per tick, when known (a scenario gives it; a trace alone does not).
    pub dt: Option<f32>,
    pub groups: Vec<String>,
    /// Static geometry, when a scenario is known.
    pub geometry: Option<Geometry>,
}

/// One traced tick: the live agents, rows in id order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub tick: u64,
    pub id: Vec<u32>,
    pub group: Vec<u16>,
    pub position: Vec<Vec2>,
    pub velocity: Vec<Vec2>,
    /// Body radius, world units.
    pub radius: Vec<f32>,
}

impl Frame {
    /// The agents of `world`, rows in id order (the pipeline may keep them in spatial order).
    pub fn of(world: &World) -> Frame {
        let a = &world.agents;
        let order = a.id_order();
        fn gather<T: Copy>(col: &[T], order: &Option<Vec<u32>>) -> Vec<T> {
            match order {
                None => col.to_vec(),
                Some(o) => o.iter().map(|&r| col[r as usize]).collect(),
            }
        }
        Frame {
            tick: world.tick,
            id: gather(&a.id, &order),
            group: gather(&a.group, &order),
            position: gather(&a.position, &order),
            velocity: gather(&a.velocity, &order),
            radius: gather(&a.radius, &order),
        }
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }
}

/// The world rectangle a picture frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

/// World to pixels: `px = ox + x · scale`, `py = oy − y · scale` (y points up in the world and
/// down in the image). The view is fitted inside the image with its aspect ratio kept, centred.
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
    pub fn fit(view: View, width: u32, height: u32) -> Camera {
        let (w, h) = (width as f32, height as f32);
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

/// Smallest radius an agent is drawn with, in pixels, so a crowd seen from afar stays visible.
const MIN_AGENT_PX: f32 = 1.1;

/// What to draw besides the agents.
pub struct Style {
    /// Draw the legend (name, tick, time, agents alive, groups).
    pub legend: bool,
}

/// Draws one frame: the scene, the trails through `history` (older frames, oldest first, all
/// before `frame`), the agents of `frame` and the legend.
pub fn draw(
    scene: &Scene,
    frame: &Frame,
    history: &[&Frame],
    camera: &Camera,
    style: &Style,
) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(camera.width, camera.height)?;
    pixmap.fill(tiny_skia::Color::from_rgba8(BACKGROUND.0, BACKGROUND.1, BACKGROUND.2, 255));
    if let Some(geometry) = &scene.geometry {
        draw_geometry(&mut pixmap, geometry, camera);
    }
    let legend = style.legend.then(|| Legend::new(scene, frame, text_scale(camera.width, camera.height)));
    // The corner is chosen over the static geometry only, so it stays put through an animation.
    let corner = legend.as_ref().map(|l| l.corner(&pixmap));
    draw_trails(&mut pixmap, frame, history, camera);
    draw_agents(&mut pixmap, frame, camera);
    if let (Some(legend), Some((x, y))) = (legend, corner) {
        legend.draw(&mut pixmap, x, y);
    }
    Some(pixmap)
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, ..Stroke::default() }
}

fn push_region(pb: &mut PathBuilder, region: &Region, camera: &Camera) {
    match *region {
        Region::Rect { min, max } => push_world_rect(pb, min, max, camera),
        Region::Circle { centre, radius } => {
            let (x, y) = camera.px(centre);
            pb.push_circle(x, y, (radius * camera.scale).max(0.5));
        }
    }
}

fn push_world_rect(pb: &mut PathBuilder, min: Vec2, max: Vec2, camera: &Camera) {
    let (x0, y1) = camera.px(min);
    let (x1, y0) = camera.px(max);
    if let Some(r) = Rect::from_ltrb(x0, y0, x1.max(x0 + 0.5), y1.max(y0 + 0.5)) {
        pb.push_rect(r);
    }
}

fn fill(pixmap: &mut Pixmap, pb: PathBuilder, colour: Rgb, alpha: f32) {
    if let Some(path) = pb.finish() {
        pixmap.fill_path(&path, &colour.paint(alpha), FillRule::Winding, Transform::identity(), None);
    }
}

fn outline(pixmap: &mut Pixmap, pb: PathBuilder, colour: Rgb, alpha: f32, stroke: &Stroke) {
    if let Some(path) = pb.finish() {
        pixmap.stroke_path(&path, &colour.paint(alpha), stroke, Transform::identity(), None);
    }
}

fn draw_geometry(pixmap: &mut Pixmap, g: &Geometry, camera: &Camera) {
    // Bounds: solid on an open world, dashed on a wrapped (toroidal) one.
    let mut pb = PathBuilder::new();
    push_world_rect(&mut pb, g.bounds.min, g.bounds.max, camera);
    let mut s = stroke(1.0);
    if g.bounds.kind == BoundsKind::Wrap {
        s.dash = StrokeDash::new(vec![6.0, 4.0], 0.0);
    }
    outline(pixmap, pb, BOUNDS, 1.0, &s);

    for (regions, fill_c, line_c) in [
        (g.sources.iter().map(|s| s.region).collect::<Vec<_>>(), SOURCE_FILL, SOURCE_LINE),
        (g.exits.iter().map(|e| e.region).collect::<Vec<_>>(), EXIT_FILL, EXIT_LINE),
    ] {
        if regions.is_empty() {
            continue;
        }
        let mut pb = PathBuilder::new();
        for r in &regions {
            push_region(&mut pb, r, camera);
        }
        if let Some(path) = pb.finish() {
            pixmap.fill_path(&path, &fill_c.paint(1.0), FillRule::Winding, Transform::identity(), None);
            pixmap.stroke_path(&path, &line_c.paint(1.0), &stroke(1.0), Transform::identity(), None);
        }
    }

    for path in &g.paths {
        // The node radius (where a node counts as reached), the polyline, and the nodes.
        let mut rings = PathBuilder::new();
        let mut line = PathBuilder::new();
        let mut dots = PathBuilder::new();
        for (k, &n) in path.nodes.iter().enumerate() {
            let (x, y) = camera.px(n);
            rings.push_circle(x, y, (path.radius * camera.scale).max(0.5));
            dots.push_circle(x, y, 2.0);
            if k == 0 {
                line.move_to(x, y);
            } else {
                line.line_to(x, y);
            }
        }
        let mut dashed = stroke(1.0);
        dashed.dash = StrokeDash::new(vec![3.0, 3.0], 0.0);
        outline(pixmap, rings, PATH, 0.6, &dashed);
        if path.nodes.len() > 1 {
            outline(pixmap, line, PATH, 1.0, &stroke(1.5));
        }
        fill(pixmap, dots, PATH, 1.0);
    }

    let mut pb = PathBuilder::new();
    for o in &g.obstacles {
        match *o {
            Obstacle::Circle { centre, radius } => {
                let (x, y) = camera.px(centre);
                pb.push_circle(x, y, (radius * camera.scale).max(0.5));
            }
            Obstacle::Rect { min, max } => push_world_rect(&mut pb, min, max, camera),
        }
    }
    fill(pixmap, pb, OBSTACLE, 1.0);

    let mut pb = PathBuilder::new();
    for gate in &g.gates {
        let (x0, y0) = camera.px(gate.from);
        let (x1, y1) = camera.px(gate.to);
        pb.move_to(x0, y0);
        pb.line_to(x1, y1);
    }
    outline(pixmap, pb, GATE, 1.0, &stroke(2.5));
}

/// Rows of `older` matching the rows of `frame` by id (`None` where the agent is missing);
/// both are in id order, so one merge pass.
fn match_rows(frame: &Frame, older: &Frame) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(frame.len());
    let mut j = 0;
    for &id in &frame.id {
        while j < older.id.len() && older.id[j] < id {
            j += 1;
        }
        out.push((j < older.id.len() && older.id[j] == id).then_some(j));
    }
    out
}

fn draw_trails(pixmap: &mut Pixmap, frame: &Frame, history: &[&Frame], camera: &Camera) {
    if history.is_empty() {
        return;
    }
    let groups = frame.group.iter().copied().max().map_or(0, |g| g as usize + 1);
    // A jump longer than a third of the picture is a wrap across the seam, not a step.
    let jump_px = camera.width.min(camera.height) as f32 / 3.0;
    let mut chain: Vec<&Frame> = history.to_vec();
    chain.push(frame);
    let rows: Vec<Vec<Option<usize>>> = chain.iter().map(|f| match_rows(frame, f)).collect();
    let segments = chain.len() - 1;
    for k in 0..segments {
        // Newer segments are more opaque.
        let alpha = 0.15 + 0.55 * (k + 1) as f32 / segments as f32;
        let mut per_group: Vec<PathBuilder> = (0..groups).map(|_| PathBuilder::new()).collect();
        let (a, b) = (chain[k], chain[k + 1]);
        for (i, &g) in frame.group.iter().enumerate() {
            let (Some(ra), Some(rb)) = (rows[k][i], rows[k + 1][i]) else { continue };
            let (x0, y0) = camera.px(a.position[ra]);
            let (x1, y1) = camera.px(b.position[rb]);
            if (x1 - x0).abs() > jump_px || (y1 - y0).abs() > jump_px {
                continue;
            }
            let pb = &mut per_group[g as usize];
            pb.move_to(x0, y0);
            pb.line_to(x1, y1);
        }
        for (g, pb) in per_group.into_iter().enumerate() {
            outline(pixmap, pb, group_colour(g as u16), alpha, &stroke(1.0));
        }
    }
}

/// Each agent is a triangle inscribed in its body circle, pointing along its velocity; an agent
/// at rest is an octagon. One path per group, filled once.
fn draw_agents(pixmap: &mut Pixmap, frame: &Frame, camera: &Camera) {
    let groups = frame.group.iter().copied().max().map_or(0, |g| g as usize + 1);
    let mut per_group: Vec<PathBuilder> = (0..groups).map(|_| PathBuilder::new()).collect();
    let (w, h) = (camera.width as f32, camera.height as f32);
    // The back corners of the triangle, at ±140° from the heading: (cos, sin).
    const BACK: (f32, f32) = (-0.766_044_4, 0.642_787_6);
    const S: f32 = std::f32::consts::FRAC_1_SQRT_2;
    const OCTAGON: [(f32, f32); 8] =
        [(1.0, 0.0), (S, S), (0.0, 1.0), (-S, S), (-1.0, 0.0), (-S, -S), (0.0, -1.0), (S, -S)];
    for i in 0..frame.len() {
        let (x, y) = camera.px(frame.position[i]);
        let r = (frame.radius[i] * camera.scale).max(MIN_AGENT_PX);
        if x < -r || y < -r || x > w + r || y > h + r {
            continue;
        }
        let pb = &mut per_group[frame.group[i] as usize];
        let v = frame.velocity[i];
        let speed = v.length();
        if r < 2.0 {
            // Too small for a heading to show: a square of the body's size.
            if let Some(rect) = Rect::from_xywh(x - r, y - r, 2.0 * r, 2.0 * r) {
                pb.push_rect(rect);
            }
        } else if speed > 1e-6 && speed.is_finite() {
            let (dx, dy) = (v.x / speed, -v.y / speed);
            pb.move_to(x + dx * r, y + dy * r);
            pb.line_to(x + (dx * BACK.0 - dy * BACK.1) * r, y + (dy * BACK.0 + dx * BACK.1) * r);
            pb.line_to(x + (dx * BACK.0 + dy * BACK.1) * r, y + (dy * BACK.0 - dx * BACK.1) * r);
            pb.close();
        } else {
            for (k, (c, s)) in OCTAGON.iter().enumerate() {
                let (px, py) = (x + c * r, y + s * r);
                if k == 0 { pb.move_to(px, py) } else { pb.line_to(px, py) }
            }
            pb.close();
        }
    }
    for (g, pb) in per_group.into_iter().enumerate() {
        fill(pixmap, pb, group_colour(g as u16), 1.0);
    }
}

/// Text size for a picture: 5×7 glyphs doubled from 480 pixels up.
pub fn text_scale(width: u32, height: u32) -> u32 {
    if width.min(height) >= 480 { 2 } else { 1 }
}

/// The legend lines for a frame: name, tick and time, agents alive.
pub fn legend_lines(scene: &Scene, frame: &Frame) -> Vec<String> {
    let mut tick = format!("tick {}", frame.tick);
    if let Some(dt) = scene.dt {
        tick.push_str(&format!("  t {:.1} s", frame.tick as f64 * dt as f64));
    }
    vec![scene.name.clone(), tick, format!("agents {}", frame.len())]
}

/// Groups listed in the legend; the rest are summarised as "+N more".
const LEGEND_GROUPS: usize = 8;

/// The legend box: its lines (with a colour swatch for group lines) and its size.
struct Legend {
    lines: Vec<(Option<Rgb>, String)>,
    scale: u32,
    width: u32,
    height: u32,
    /// The width used to choose a corner: wide enough for long tick numbers, so the choice
    /// does not change as the numbers grow.
    probe_width: u32,
}

impl Legend {
    fn new(scene: &Scene, frame: &Frame, s: u32) -> Legend {
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
        let probe_width = width.max(font::text_width("tick 0000000  t 000000.0 s", s) + 2 * pad);
        Legend { lines, scale: s, width, height, probe_width }
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

    fn draw(&self, pixmap: &mut Pixmap, x0: u32, y0: u32) {
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
