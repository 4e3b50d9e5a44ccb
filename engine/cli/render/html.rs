//! The self-contained HTML player: one file, no network, no external scripts. The page
//! (`player.html`) holds its own CSS and JavaScript; the run is embedded as one JSON object in a
//! `<script type="application/json">` element.
//!
//! Data format (all integers little-endian, binary blobs base64-encoded):
//!
//! - `agents`: every agent that appears, in id order: a varint count, the ids as varint deltas
//!   (the first from 0), each agent's group as a varint, and each radius as one byte
//!   (`radius = byte / 255 · rmax`). An agent's group and radius never change.
//! - `sets`: which agents are alive, as varint pairs (skip, take) over the agent table. Frames
//!   whose agents are those of the frame before share its set.
//! - `frames`: `[set, blob]` per frame (`[set, blob, doors]` when the scene has doors: an
//!   index into `door_states`, strings of `1` (closed) and `0` (open) in door order), the blob holding `x` and `y` as int16 columns then `vx`
//!   and `vy` as int8 columns, one row per live agent in id order. World coordinates are
//!   `q[0] + x · q[2]`, `q[1] + y · q[3]`; velocities `vx · vs`, `vy · vs`. So a frame costs six
//!   bytes per agent (eight in base64) and positions resolve to 1/65,534 of the run's extent.
//! - `ticks`, `dt`, `fps`, `name`, `groups` (name, colour), `view` (the initial framing), and the
//!   scene geometry (`bounds`, `obstacles`, `paths`, `exits`, `sources`, `gates`, `stages`,
//!   `links`, `targets`) and `parties` (each party member's id and party, for the links
//!   drawn between members)
//!   when known. A target is `{name, point: [x, y]}`, `{name, moving: {waypoints, speed}}`
//!   (placed from the frame's time), `{name, agent: id}` or `{name, random: region}`. `doors`:
//!   `{name, shape}` (a shape as an obstacle's). `events`: `[tick, name]` for each firing of a
//!   scenario event, in order (the tick it applied at: before that tick ran), for the timeline.
//!
//! The same frames give the same bytes: the JSON has sorted keys and shortest round-trip floats.

use std::collections::BTreeMap;

use anyhow::Result;
use serde_json::{Value, json};
use throng_engine::math::Vec2;
use throng_engine::world::{BoundsKind, Obstacle, Region, Solid, Target};

use super::colour::group_colour;
use super::frame::{Extent, Frame, Scene};
use super::layout::View;
use super::projection::SpaceView;

const TEMPLATE: &str = include_str!("player.html");
/// The player of a run in space: the same data with z, an orbiting camera.
const TEMPLATE_SPACE: &str = include_str!("player_space.html");
const DATA_MARK: &str = "/*THRONG_DATA*/";
/// Drawing on demand and playback, the same in both players, included at this mark.
const PLAYBACK: &str = include_str!("player_playback.js");
const PLAYBACK_MARK: &str = "/*THRONG_PLAYBACK*/";
const TITLE_MARK: &str = "THRONG_TITLE";

/// A player `template` with its playback code, the run's `json` and its `title` in place (the
/// code first, so that nothing in the run's text is taken for a mark).
fn page(template: &str, json: &str, title: &str) -> String {
    template.replacen(PLAYBACK_MARK, PLAYBACK, 1).replacen(DATA_MARK, json, 1).replacen(TITLE_MARK, title, 1)
}

/// Collects frames, then writes the page.
#[derive(Default)]
pub struct HtmlBuilder {
    /// id → (group, radius), as first seen.
    agents: BTreeMap<u32, (u16, f32)>,
    frames: Vec<(u64, Vec<u32>, Vec<[f32; 4]>)>,
    /// In space, each frame's z and vz per row (empty in the plane).
    heights: Vec<Vec<[f32; 2]>>,
    /// In space, the extent of z.
    z_range: Option<(f32, f32)>,
    /// Each frame's doors, `1` closed and `0` open (empty when unknown).
    door_states: Vec<String>,
    extent: Extent,
    /// Largest |velocity component|.
    vmax: f32,
}

impl HtmlBuilder {
    pub fn push(&mut self, frame: &Frame) {
        let mut rows = Vec::with_capacity(frame.len());
        for i in 0..frame.len() {
            self.agents.entry(frame.id[i]).or_insert((frame.group[i], frame.radius[i]));
            let (p, v) = (frame.position[i], frame.velocity[i]);
            self.extent.add(p);
            self.vmax = self.vmax.max(v.x.abs()).max(v.y.abs());
            rows.push([p.x, p.y, v.x, v.y]);
        }
        if !frame.z.is_empty() {
            let heights: Vec<[f32; 2]> = frame.z.iter().zip(&frame.vz).map(|(&z, &vz)| [z, vz]).collect();
            for &[z, vz] in &heights {
                self.z_range = Some(self.z_range.map_or((z, z), |(lo, hi)| (lo.min(z), hi.max(z))));
                self.vmax = self.vmax.max(vz.abs());
            }
            self.heights.push(heights);
        }
        self.frames.push((frame.tick, frame.id.clone(), rows));
        self.door_states.push(frame.closed_doors.iter().map(|&c| if c { '1' } else { '0' }).collect());
    }

    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The page. `size` fixes the canvas (CSS pixels); without it the canvas fills the window.
    pub fn finish(
        self,
        scene: &Scene,
        view: View,
        fps: f32,
        size: Option<(u32, u32)>,
        fired: &[(u64, String)],
        space: Option<&SpaceView>,
    ) -> Result<String> {
        let doors = scene.geometry.as_ref().map_or(&[][..], |g| g.doors.as_slice());
        // Door states: distinct strings, each frame an index (the state at tick 0 when unknown).
        let initial: String = doors.iter().map(|d| if d.closed { '1' } else { '0' }).collect();
        let mut door_states: Vec<String> = Vec::new();
        let ids: Vec<u32> = self.agents.keys().copied().collect();
        let rmax = self.agents.values().map(|a| a.1).fold(0.0f32, f32::max).max(1e-6);
        let mut table = Vec::new();
        varint(&mut table, ids.len() as u64);
        let mut last = 0u32;
        for &id in &ids {
            varint(&mut table, (id - last) as u64);
            last = id;
        }
        for a in self.agents.values() {
            varint(&mut table, a.0 as u64);
        }
        for a in self.agents.values() {
            table.push((a.1 / rmax * 255.0).round().clamp(0.0, 255.0) as u8);
        }

        // Quantization: int16 over the extent of every position, int8 over the largest speed.
        let (centre, half) = if self.extent.is_empty() {
            (Vec2::ZERO, Vec2::ONE)
        } else {
            // Halved before adding, so extents near the f32 limit stay finite.
            let (lo, hi) = (self.extent.min * 0.5, self.extent.max * 0.5);
            (lo + hi, (hi - lo).max(Vec2::splat(1e-3)))
        };
        let step = half / 32767.0;
        let vs = if self.vmax > 0.0 { self.vmax / 127.0 } else { 1.0 };
        // In space, z too: quantized over its own extent.
        let (z_centre, z_step) = match self.z_range {
            Some((lo, hi)) => (0.5 * lo + 0.5 * hi, ((0.5 * hi - 0.5 * lo).max(1e-3)) / 32767.0),
            None => (0.0, 1.0),
        };

        let mut sets: Vec<String> = Vec::new();
        let mut last_set: Option<Vec<u8>> = None;
        let mut frames = Vec::with_capacity(self.frames.len());
        let mut ticks = Vec::with_capacity(self.frames.len());
        for (frame_no, ((tick, frame_ids, rows), doors_now)) in
            self.frames.iter().zip(&self.door_states).enumerate()
        {
            // Runs of consecutive table rows; both lists are in id order, so one merge.
            let mut set = Vec::new();
            let mut row = 0usize;
            let mut k = 0usize;
            while k < frame_ids.len() {
                let start = row + ids[row..].partition_point(|&id| id < frame_ids[k]);
                let mut take = 1;
                while k + take < frame_ids.len()
                    && start + take < ids.len()
                    && ids[start + take] == frame_ids[k + take]
                {
                    take += 1;
                }
                varint(&mut set, (start - row) as u64);
                varint(&mut set, take as u64);
                row = start + take;
                k += take;
            }
            if last_set.as_ref() != Some(&set) {
                sets.push(base64(&set));
                last_set = Some(set);
            }
            let n = rows.len();
            let quantize = |x: f32, centre: f32, step: f32| {
                ((x - centre) / step).round().clamp(-32767.0, 32767.0) as i16
            };
            let speed = |v: f32| ((v / vs).round().clamp(-127.0, 127.0) as i8) as u8;
            let blob = match self.heights.get(frame_no) {
                // The plane: x, y as int16 columns, vx, vy as int8.
                None => {
                    let mut blob = vec![0u8; 6 * n];
                    for (i, r) in rows.iter().enumerate() {
                        blob[2 * i..2 * i + 2]
                            .copy_from_slice(&quantize(r[0], centre.x, step.x).to_le_bytes());
                        blob[2 * n + 2 * i..2 * n + 2 * i + 2]
                            .copy_from_slice(&quantize(r[1], centre.y, step.y).to_le_bytes());
                        blob[4 * n + i] = speed(r[2]);
                        blob[5 * n + i] = speed(r[3]);
                    }
                    blob
                }
                // Space: x, y, z as int16 columns, vx, vy, vz as int8.
                Some(heights) => {
                    let mut blob = vec![0u8; 9 * n];
                    for (i, (r, h)) in rows.iter().zip(heights).enumerate() {
                        let q = [
                            quantize(r[0], centre.x, step.x),
                            quantize(r[1], centre.y, step.y),
                            quantize(h[0], z_centre, z_step),
                        ];
                        for (c, v) in q.iter().enumerate() {
                            blob[2 * c * n + 2 * i..2 * c * n + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
                        }
                        blob[6 * n + i] = speed(r[2]);
                        blob[7 * n + i] = speed(r[3]);
                        blob[8 * n + i] = speed(h[1]);
                    }
                    blob
                }
            };
            if doors.is_empty() {
                frames.push(json!([sets.len() - 1, base64(&blob)]));
            } else {
                let state = if doors_now.len() == doors.len() { doors_now } else { &initial };
                let k = match door_states.iter().position(|s| s == state) {
                    Some(k) => k,
                    None => {
                        door_states.push(state.clone());
                        door_states.len() - 1
                    }
                };
                frames.push(json!([sets.len() - 1, base64(&blob), k]));
            }
            ticks.push(*tick);
        }

        let mut data = serde_json::Map::new();
        data.insert("version".into(), json!(1));
        data.insert("name".into(), json!(scene.name));
        data.insert("dt".into(), json!(scene.dt));
        data.insert("fps".into(), json!(fps));
        data.insert("size".into(), json!(size.map(|(w, h)| [w, h])));
        data.insert("view".into(), json!([view.x0, view.y0, view.x1, view.y1]));
        data.insert(
            "groups".into(),
            Value::Array(
                scene
                    .groups
                    .iter()
                    .enumerate()
                    .map(|(g, name)| json!({"name": name, "colour": group_colour(g as u16).hex()}))
                    .collect(),
            ),
        );
        match space {
            None => data.insert("q".into(), json!([centre.x, centre.y, step.x, step.y])),
            Some(_) => data.insert("q".into(), json!([centre.x, centre.y, z_centre, step.x, step.y, z_step])),
        };
        data.insert("vs".into(), json!(vs));
        data.insert("rmax".into(), json!(rmax));
        data.insert("agents".into(), json!(base64(&table)));
        data.insert("sets".into(), json!(sets));
        data.insert("ticks".into(), json!(ticks));
        data.insert("frames".into(), Value::Array(frames));
        if !fired.is_empty() {
            data.insert("events".into(), json!(fired));
        }
        if !doors.is_empty() {
            data.insert("door_states".into(), json!(door_states));
            data.insert(
                "doors".into(),
                Value::Array(
                    doors.iter().map(|d| json!({"name": d.name, "shape": obstacle(&d.obstacle)})).collect(),
                ),
            );
        }
        if let Some(space) = space {
            let (bounds, solids, targets) = space.scene();
            data.insert("dimensions".into(), json!(3));
            data.insert(
                "box".into(),
                json!({
                    "kind": if bounds.kind == BoundsKind::Wrap { "wrap" } else { "open" },
                    "min": bounds.min.to_array(), "max": bounds.max.to_array(),
                }),
            );
            let solid = |s: &Solid| match *s {
                Solid::Ball { centre, radius } => json!({"ball": [centre.x, centre.y, centre.z, radius]}),
                Solid::Cuboid { min, max } => json!({"box": [min.x, min.y, min.z, max.x, max.y, max.z]}),
            };
            data.insert("solids".into(), Value::Array(solids.iter().map(solid).collect()));
            let target = |(name, t): &super::projection::NamedTarget| match t {
                Target::Point(p) | Target::Opposite { centre: p } => {
                    Some(json!({"name": name, "point": p.to_array()}))
                }
                Target::Moving { waypoints, speed } => Some(json!({"name": name, "moving": {
                    "waypoints": waypoints.iter().map(|w| w.to_array()).collect::<Vec<_>>(), "speed": speed}})),
                _ => None,
            };
            data.insert("targets".into(), Value::Array(targets.iter().filter_map(target).collect()));
            let json = serde_json::to_string(&Value::Object(data))?.replace("</", "<\\/");
            let title = escape_html(&scene.name);
            return Ok(page(TEMPLATE_SPACE, &json, &title));
        }
        if let Some(g) = &scene.geometry {
            let region = |r: &Region| match *r {
                Region::Rect { min, max } => json!({"rect": [min.x, min.y, max.x, max.y]}),
                Region::Circle { centre, radius } => json!({"circle": [centre.x, centre.y, radius]}),
            };
            data.insert(
                "bounds".into(),
                json!({
                    "kind": if g.bounds.kind == BoundsKind::Wrap { "wrap" } else { "open" },
                    "rect": [g.bounds.min.x, g.bounds.min.y, g.bounds.max.x, g.bounds.max.y],
                }),
            );
            data.insert("obstacles".into(), Value::Array(g.obstacles.iter().map(obstacle).collect()));
            data.insert(
                "paths".into(),
                Value::Array(
                    g.paths
                        .iter()
                        .map(|p| {
                            json!({"name": p.name, "radius": p.radius,
                                   "nodes": p.nodes.iter().map(|n| [n.x, n.y]).collect::<Vec<_>>()})
                        })
                        .collect(),
                ),
            );
            data.insert(
                "exits".into(),
                Value::Array(
                    g.exits
                        .iter()
                        .filter(|e| !e.at_own_goal)
                        .map(|e| json!({"name": e.name, "region": region(&e.region)}))
                        .collect(),
                ),
            );
            data.insert(
                "sources".into(),
                Value::Array(
                    g.sources.iter().map(|s| json!({"name": s.name, "region": region(&s.region)})).collect(),
                ),
            );
            data.insert(
                "gates".into(),
                Value::Array(
                    g.gates
                        .iter()
                        .map(
                            |x| json!({"name": x.name, "from": [x.from.x, x.from.y], "to": [x.to.x, x.to.y]}),
                        )
                        .collect(),
                ),
            );
            data.insert(
                "stages".into(),
                Value::Array(
                    g.stages
                        .iter()
                        .map(|s| {
                            json!({"name": s.name, "point": [s.point.x, s.point.y], "radius": s.radius,
                                   "slots": s.slots.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>()})
                        })
                        .collect(),
                ),
            );
            data.insert(
                "parties".into(),
                Value::Array(g.parties.iter().map(|&(id, party)| json!([id, party])).collect()),
            );
            data.insert(
                "links".into(),
                Value::Array(g.links.iter().map(|(a, b)| json!([a.x, a.y, b.x, b.y])).collect()),
            );
            data.insert(
                "targets".into(),
                Value::Array(g.targets.iter().filter_map(|(name, t)| target(name, t, &region)).collect()),
            );
        }
        // `</` inside a string would end the script element; JSON allows `<\/` for it.
        let json = serde_json::to_string(&Value::Object(data))?.replace("</", "<\\/");
        let title = escape_html(&scene.name);
        // The data first: the title mark (in <head>) still comes before it, whatever the data holds.
        Ok(page(TEMPLATE, &json, &title))
    }
}

/// A target as the player draws it (`None`: the nearest agent of a group, not drawn).
fn target(name: &str, t: &Target, region: &impl Fn(&Region) -> Value) -> Option<Value> {
    Some(match t {
        // An `opposite` target is drawn at the centre its goals mirror through.
        Target::Point(p) | Target::Opposite { centre: p } => json!({"name": name, "point": [p.x, p.y]}),
        Target::Moving { waypoints, speed } => json!({"name": name, "moving": {
            "waypoints": waypoints.iter().map(|w| [w.x, w.y]).collect::<Vec<_>>(), "speed": speed}}),
        Target::Agent(id) => json!({"name": name, "agent": id}),
        Target::Random { region: r, .. } => json!({"name": name, "random": region(r)}),
        Target::NearestOf(_) | Target::Direction { .. } | Target::Own | Target::Journey => return None,
    })
}

/// LEB128: seven bits per byte, low bits first, the high bit set on every byte but the last.
fn varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8 & 0x7f) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Standard base64 with padding (what `atob` reads).
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An obstacle's shape as the player reads it.
fn obstacle(o: &Obstacle) -> Value {
    match *o {
        Obstacle::Circle { centre, radius } => json!({"circle": [centre.x, centre.y, radius]}),
        Obstacle::Rect { min, max } => json!({"rect": [min.x, min.y, max.x, max.y]}),
        Obstacle::Polygon { ref vertices } => {
            json!({"polygon": vertices.iter().map(|v| [v.x, v.y]).collect::<Vec<_>>()})
        }
        Obstacle::Wall { ref points, thickness } => {
            json!({"wall": points.iter().map(|v| [v.x, v.y]).collect::<Vec<_>>(), "thickness": thickness})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (raw, encoded) in cases {
            assert_eq!(base64(raw.as_bytes()), encoded);
        }
    }

    #[test]
    fn varints_are_leb128() {
        let mut v = Vec::new();
        varint(&mut v, 0);
        varint(&mut v, 127);
        varint(&mut v, 128);
        varint(&mut v, 300);
        assert_eq!(v, [0, 127, 0x80, 1, 0xac, 2]);
    }

    #[test]
    fn the_template_has_its_marks() {
        for template in [TEMPLATE, TEMPLATE_SPACE] {
            assert_eq!(template.matches(DATA_MARK).count(), 1);
            assert_eq!(template.matches(PLAYBACK_MARK).count(), 1);
            assert_eq!(template.matches(TITLE_MARK).count(), 1);
            assert!(!template.contains("http://") && !template.contains("https://"), "no network");
        }
    }
}
