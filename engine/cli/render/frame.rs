//! The raster drawing of one frame with tiny-skia: the scene's geometry (scene.rs), the agents
//! and their trails, through the camera of layout.rs, with pen.rs's strokes and fills.
//!
//! Drawing order, back to front: background, bounds, spawn sources, exits, paths, obstacles,
//! gates, targets' loops and regions, doors (filled while closed, dashed while open), trails,
//! the links between party members, agents, targets, legend. Every colour is one of a few fixed constants or a group colour,
//! so the GIF palette can be fixed in advance (see `palette`).

use throng_engine::world::{BoundsKind, Door, Obstacle};
use tiny_skia::{FillRule, PathBuilder, Pixmap, Rect, StrokeDash, Transform};

use super::colour::{
    BACKGROUND, BOUNDS, EXIT_FILL, EXIT_LINE, GATE, OBSTACLE, PATH, SOURCE_FILL, SOURCE_LINE, group_colour,
};
use super::layout::{Camera, push_region, push_world_rect};
use super::legend::{Legend, Placement, text_scale};
use super::pen::{fill, outline, stroke};
pub use super::scene::{DEFAULT_RADIUS, Extent, Geometry, Scene};
use super::targets;

pub use crate::output::Frame;

/// Smallest radius an agent is drawn with, in pixels, so a crowd seen from afar stays visible.
const MIN_AGENT_PX: f32 = 1.1;

/// What to draw besides the agents.
pub struct Style {
    /// Where the legend (name, tick, time, agents alive, groups) goes, if anywhere.
    pub legend: Placement,
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
        targets::draw_static(&mut pixmap, geometry, camera);
        super::stages::draw(&mut pixmap, &geometry.stages, &geometry.links, camera);
    }
    let legend = Legend::new(scene, frame, text_scale(camera.width, camera.height));
    // A corner is chosen over the static geometry only, so it stays put through an animation.
    let at = legend.position(&pixmap, style.legend);
    if let Some(geometry) = &scene.geometry {
        draw_doors(&mut pixmap, geometry, frame, camera);
    }
    draw_trails(&mut pixmap, frame, history, camera);
    if let Some(geometry) = &scene.geometry {
        super::parties::draw(&mut pixmap, &geometry.parties, frame, camera);
    }
    draw_agents(&mut pixmap, frame, camera);
    if let Some(geometry) = &scene.geometry {
        let time_s = scene.dt.map(|dt| frame.tick as f64 * dt as f64);
        targets::draw_live(&mut pixmap, geometry, frame, time_s, camera);
    }
    if let Some((x, y)) = at {
        legend.draw(&mut pixmap, x, y);
    }
    Some(pixmap)
}

/// The doors in the frame's state (as at tick 0 when the frame does not say): a closed door
/// filled like an obstacle, an open one as a dashed outline.
fn draw_doors(pixmap: &mut Pixmap, g: &Geometry, frame: &Frame, camera: &Camera) {
    let (mut closed, mut open) = (PathBuilder::new(), PathBuilder::new());
    let is_closed = |k: usize, door: &Door| frame.closed_doors.get(k).copied().unwrap_or(door.closed);
    for (k, door) in g.doors.iter().enumerate() {
        let pb = if is_closed(k, door) { &mut closed } else { &mut open };
        push_obstacle(pb, &door.obstacle, camera);
    }
    fill(pixmap, closed, OBSTACLE, 1.0);
    let mut dashed = stroke(1.5);
    dashed.dash = StrokeDash::new(vec![4.0, 3.0], 0.0);
    outline(pixmap, open, OBSTACLE, 1.0, &dashed);
    let doors = || g.doors.iter().enumerate();
    stroke_walls(pixmap, doors().filter(|(k, d)| is_closed(*k, d)).map(|(_, d)| &d.obstacle), camera, false);
    stroke_walls(pixmap, doors().filter(|(k, d)| !is_closed(*k, d)).map(|(_, d)| &d.obstacle), camera, true);
}

/// Adds a circle, rectangle or polygon to `pb` (to fill); a wall is drawn by [`stroke_walls`].
fn push_obstacle(pb: &mut PathBuilder, o: &Obstacle, camera: &Camera) {
    match *o {
        Obstacle::Circle { centre, radius } => {
            let (x, y) = camera.px(centre);
            pb.push_circle(x, y, (radius * camera.scale).max(0.5));
        }
        Obstacle::Rect { min, max } => push_world_rect(pb, min, max, camera),
        Obstacle::Polygon { ref vertices } => {
            for (k, v) in vertices.iter().enumerate() {
                let (x, y) = camera.px(*v);
                if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
            }
            pb.close();
        }
        Obstacle::Wall { .. } => {}
    }
}

/// Strokes the walls among `obstacles`, each as wide as it is thick (at least 1.5 pixels),
/// dashed when `dashed` (an open door).
fn stroke_walls<'a>(
    pixmap: &mut Pixmap,
    obstacles: impl Iterator<Item = &'a Obstacle>,
    camera: &Camera,
    dashed: bool,
) {
    for o in obstacles {
        let Obstacle::Wall { points, thickness } = o else { continue };
        let mut pb = PathBuilder::new();
        for (k, v) in points.iter().enumerate() {
            let (x, y) = camera.px(*v);
            if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
        }
        let mut s = stroke((thickness * camera.scale).max(1.5));
        if dashed {
            s.width = 1.5;
            s.dash = StrokeDash::new(vec![4.0, 3.0], 0.0);
        }
        outline(pixmap, pb, OBSTACLE, 1.0, &s);
    }
}

fn draw_geometry(pixmap: &mut Pixmap, g: &Geometry, camera: &Camera) {
    // Bounds: solid on an open world, dashed on a wrapped (toroidal) one.
    let mut pb = PathBuilder::new();
    if g.edges.is_empty() {
        push_world_rect(&mut pb, g.bounds.min, g.bounds.max, camera);
    }
    for &(a, b) in &g.edges {
        let ((ax, ay), (bx, by)) = (camera.px(a), camera.px(b));
        pb.move_to(ax, ay);
        pb.line_to(bx, by);
    }
    let mut s = stroke(1.0);
    if g.bounds.kind == BoundsKind::Wrap {
        s.dash = StrokeDash::new(vec![6.0, 4.0], 0.0);
    }
    outline(pixmap, pb, BOUNDS, 1.0, &s);

    for (regions, fill_c, line_c) in [
        (g.sources.iter().map(|s| s.region).collect::<Vec<_>>(), SOURCE_FILL, SOURCE_LINE),
        (
            g.exits.iter().filter(|e| !e.at_own_goal).map(|e| e.region).collect::<Vec<_>>(),
            EXIT_FILL,
            EXIT_LINE,
        ),
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
        push_obstacle(&mut pb, o, camera);
    }
    fill(pixmap, pb, OBSTACLE, 1.0);
    stroke_walls(pixmap, g.obstacles.iter(), camera, false);

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
