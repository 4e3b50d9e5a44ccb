//! Parties (social groups) in a picture: on every frame, a thin line joins each party's
//! members in id order, so who walks with whom shows. Membership is the world's at tick 0
//! (parties are dealt at spawn and never change).

use tiny_skia::{PathBuilder, Pixmap};

use throng_engine::World;
use throng_engine::world::NO_PARTY;

use super::colour::PATH;
use super::layout::Camera;
use super::pen::{outline, stroke};
use crate::output::Frame;

/// Every party member of `world` as (id, party), in id order.
pub fn of(world: &World) -> Vec<(u32, u32)> {
    let w = world.id_ordered();
    w.agents
        .id
        .iter()
        .zip(&w.agents.party)
        .filter(|(_, p)| **p != NO_PARTY)
        .map(|(&id, &p)| (id, p))
        .collect()
}

/// Draws the links between the members of each party alive in `frame` (its rows in id order).
pub fn draw(pixmap: &mut Pixmap, parties: &[(u32, u32)], frame: &Frame, camera: &Camera) {
    if parties.is_empty() {
        return;
    }
    let mut last: Vec<(u32, (f32, f32))> = Vec::new();
    let mut lines = PathBuilder::new();
    for i in 0..frame.len() {
        let Ok(k) = parties.binary_search_by_key(&frame.id[i], |&(id, _)| id) else { continue };
        let party = parties[k].1;
        let here = camera.px(frame.position[i]);
        match last.iter_mut().find(|(p, _)| *p == party) {
            Some((_, at)) => {
                lines.move_to(at.0, at.1);
                lines.line_to(here.0, here.1);
                *at = here;
            }
            None => last.push((party, here)),
        }
    }
    outline(pixmap, lines, PATH, 0.9, &stroke(1.2));
}
