//! Targets in a picture, drawn distinct from agents: a fixed point is a crosshair with its
//! name; a moving point a crosshair where it is at the frame's time, its loop dashed; an agent
//! target a ring around that agent, named; random goals their region, dashed and named. The
//! nearest agent of a group is another agent for each seeker, so it is not drawn.

use tiny_skia::{PathBuilder, Pixmap, StrokeDash};

use throng_engine::behaviours::moving_point;
use throng_engine::math::Vec2;
use throng_engine::world::{Region, Target};

use super::colour::{TARGET, TEXT};
use super::font;
use super::layout::{Camera, push_region};
use super::pen::{outline, stroke};
use super::scene::Geometry;
use crate::output::Frame;

/// Half the size of a target's crosshair, in pixels.
const CROSS_PX: f32 = 7.0;

/// The targets' static parts, drawn with the scene: moving points' loops and random goals'
/// regions, dashed.
pub fn draw_static(pixmap: &mut Pixmap, g: &Geometry, camera: &Camera) {
    let mut dashed = stroke(1.0);
    dashed.dash = StrokeDash::new(vec![4.0, 4.0], 0.0);
    let mut pb = PathBuilder::new();
    for (_, target) in &g.targets {
        match target {
            Target::Moving { waypoints, .. } if waypoints.len() > 1 => {
                for (k, &w) in waypoints.iter().chain(waypoints.first()).enumerate() {
                    let (x, y) = camera.px(w);
                    if k == 0 { pb.move_to(x, y) } else { pb.line_to(x, y) }
                }
            }
            Target::Random { region, .. } => push_region(&mut pb, region, camera),
            _ => {}
        }
    }
    outline(pixmap, pb, TARGET, 0.5, &dashed);
}

/// The targets as they are at `frame` (`time_s`: its simulated time, when known; without it a
/// moving point is not placed), over the agents, each named.
pub fn draw_live(pixmap: &mut Pixmap, g: &Geometry, frame: &Frame, time_s: Option<f64>, camera: &Camera) {
    let mut marks = PathBuilder::new();
    let mut labels: Vec<(f32, f32, &str)> = Vec::new();
    for (name, target) in &g.targets {
        let at = match target {
            // An `opposite` target is drawn at the centre its goals mirror through.
            Target::Point(p) | Target::Opposite { centre: p } => Some(*p),
            Target::Moving { waypoints, speed } => time_s.map(|t| moving_point(waypoints, *speed, t).0),
            Target::Agent(id) => {
                if let Ok(row) = frame.id.binary_search(id) {
                    let (x, y) = camera.px(frame.position[row]);
                    let r = frame.radius[row] * camera.scale + 4.0;
                    marks.push_circle(x, y, r.max(CROSS_PX));
                    labels.push((x + r.max(CROSS_PX), y, name));
                }
                None
            }
            Target::Random { region, .. } => {
                let corner = match *region {
                    Region::Rect { min, max } => Vec2::new(min.x, max.y),
                    Region::Circle { centre, radius } => centre + Vec2::new(0.0, radius),
                };
                let (x, y) = camera.px(corner);
                labels.push((x, y - 2.0 * CROSS_PX, name));
                None
            }
            Target::NearestOf(_) | Target::Direction { .. } | Target::Own | Target::Journey => None,
        };
        if let Some(p) = at {
            let (x, y) = camera.px(p);
            marks.push_circle(x, y, CROSS_PX * 0.6);
            marks.move_to(x - CROSS_PX, y);
            marks.line_to(x + CROSS_PX, y);
            marks.move_to(x, y - CROSS_PX);
            marks.line_to(x, y + CROSS_PX);
            labels.push((x + CROSS_PX, y, name));
        }
    }
    outline(pixmap, marks, TARGET, 1.0, &stroke(1.5));
    // Above and to the right of the mark, or to its left where the picture ends; inline points
    // (`target = [x, y]`) have no name.
    for (x, y, name) in labels {
        let width = font::text_width(name, 1) as f32;
        let left =
            if x + 3.0 + width > camera.width as f32 { x - 2.0 * CROSS_PX - 3.0 - width } else { x + 3.0 };
        font::draw_text(pixmap, left as i32, (y - CROSS_PX - font::GLYPH_H as f32) as i32, 1, TEXT, name);
    }
}
