//! Journeys in a picture: each transition a thin dashed line from its stage to each stage it
//! may choose, each waypoint its reach as a dashed ring, each queue's slots as small dots, and
//! every stage a dot with its name.

use tiny_skia::{PathBuilder, Pixmap, StrokeDash};

use throng_engine::World;
use throng_engine::math::Vec2;
use throng_engine::world::StageKind;

use super::colour::{PATH, TEXT};
use super::font;
use super::layout::Camera;
use super::pen::{fill, outline, stroke};

/// A stage as drawn: its name, its point and a waypoint's reach (0 for exits and waiting areas).
#[derive(Clone, Debug)]
pub struct StageMark {
    pub name: String,
    pub point: Vec2,
    pub radius: f32,
    /// A queue's slots (empty for the other kinds).
    pub slots: Vec<Vec2>,
}

/// The stages of `world`, and the links of its journeys' transitions (each pair once).
pub fn of(world: &World) -> (Vec<StageMark>, Vec<(Vec2, Vec2)>) {
    let stages = &world.scene.stages;
    let marks = stages
        .iter()
        .map(|s| StageMark {
            name: s.name.clone(),
            point: s.point,
            radius: match s.kind {
                StageKind::Waypoint { radius, .. } => radius,
                _ => 0.0,
            },
            slots: s.queue.as_ref().map_or_else(Vec::new, |q| q.slots.clone()),
        })
        .collect();
    let mut links: Vec<(Vec2, Vec2)> = Vec::new();
    for t in world.scene.journeys.iter().flat_map(|j| &j.transitions) {
        for &to in &t.to {
            let link = (stages[t.from as usize].point, stages[to as usize].point);
            if !links.contains(&link) {
                links.push(link);
            }
        }
    }
    (marks, links)
}

/// Draws the links, the waypoints' rings, the stages' dots and names.
pub fn draw(pixmap: &mut Pixmap, stages: &[StageMark], links: &[(Vec2, Vec2)], camera: &Camera) {
    if stages.is_empty() {
        return;
    }
    let mut dashed = stroke(1.0);
    dashed.dash = StrokeDash::new(vec![3.0, 3.0], 0.0);
    let mut lines = PathBuilder::new();
    for &(a, b) in links {
        let ((ax, ay), (bx, by)) = (camera.px(a), camera.px(b));
        lines.move_to(ax, ay);
        lines.line_to(bx, by);
    }
    outline(pixmap, lines, PATH, 0.7, &dashed);
    let mut rings = PathBuilder::new();
    let mut dots = PathBuilder::new();
    for s in stages {
        let (x, y) = camera.px(s.point);
        if s.radius > 0.0 {
            rings.push_circle(x, y, (s.radius * camera.scale).max(0.5));
        }
        dots.push_circle(x, y, 2.5);
        for &slot in &s.slots {
            let (x, y) = camera.px(slot);
            rings.push_circle(x, y, 1.5);
        }
    }
    outline(pixmap, rings, PATH, 0.8, &dashed);
    fill(pixmap, dots, PATH, 1.0);
    for s in stages {
        let (x, y) = camera.px(s.point);
        font::draw_text(pixmap, x as i32 + 4, y as i32 + 4, 1, TEXT, &s.name);
    }
}
