//! Validating `obstacles`: circles and rectangles (region keys), polygons (`vertices`) and
//! walls (`points`, `thickness`); named ones are doors, which events open and close. In space:
//! balls (`sphere`, or `circle`) and boxes (`box`, or `rect`), never doors.

use super::{Rule, Validator};
use crate::scenario::MAX_MAGNITUDE;
use crate::scenario::locate::Seg;
use crate::scenario::schema::ObstacleToml;
use crate::world::outline::{double_area, self_intersection};
use crate::world::{Door, Obstacle, Region};

/// The obstacle kinds and the keys each takes (besides `kind`, `name` and `open`).
const KINDS: [(&str, &[&str]); 4] = [
    ("rect", &["min", "max"]),
    ("circle", &["centre", "radius"]),
    ("polygon", &["vertices"]),
    ("wall", &["points", "thickness"]),
];

impl<V: crate::world::Dimension> Validator<'_, V> {
    /// The obstacles of a scenario in space: balls and axis-aligned boxes, in file order.
    pub(super) fn solids(&mut self, raw: &[ObstacleToml]) -> Option<Vec<crate::world::Solid>> {
        use Seg::{Index, Key};
        let mut solids = Vec::new();
        for (o, raw_o) in raw.iter().enumerate() {
            let base = [Key("obstacles"), Index(o)];
            let at = |k: &'static str| [Key("obstacles"), Index(o), Key(k)];
            if raw_o.name.is_some() || raw_o.open.is_some() {
                let key = if raw_o.name.is_some() { "name" } else { "open" };
                return self.fail(
                    &at(key),
                    "doors are planar: an obstacle in space has no `name` or `open` (events cannot open or close it)",
                );
            }
            let options =
                [("sphere", 1), ("circle", 1), ("box", 0), ("rect", 0), ("polygon", 2), ("wall", 2)];
            let k = self.choice(&at("kind"), &raw_o.kind, &options)?;
            if k == 2 {
                return self.fail(&at("kind"), format!("a \"{}\" obstacle is planar: in space an obstacle is a \"sphere\" (centre, radius) or a \"box\" (min, max)", raw_o.kind));
            }
            let present = [
                ("vertices", raw_o.vertices.is_some()),
                ("points", raw_o.points.is_some()),
                ("thickness", raw_o.thickness.is_some()),
            ];
            let allowed: &[&str] = if k == 0 { &["min", "max"] } else { &["centre", "radius"] };
            self.only_allowed(&base, &present, allowed, &format!("a \"{}\" obstacle", raw_o.kind))?;
            let r = self.region_in::<crate::math::Vec3>(&base, region_keys!(raw_o), "obstacle")?;
            solids.push(match r {
                Region::Rect { min, max } => crate::world::Solid::Cuboid { min, max },
                Region::Circle { centre, radius } => crate::world::Solid::Ball { centre, radius },
            });
        }
        Some(solids)
    }

    /// The unnamed obstacles, and the named ones as doors, in file order.
    pub(super) fn obstacles(&mut self, raw: &[ObstacleToml]) -> Option<(Vec<Obstacle>, Vec<Door>)> {
        use Seg::{Index, Key};
        let (mut obstacles, mut doors) = (Vec::new(), Vec::<Door>::new());
        for (o, raw_o) in raw.iter().enumerate() {
            let obstacle = self.obstacle(o, raw_o)?;
            match &raw_o.name {
                None if raw_o.open.is_some() => {
                    return self.fail(
                        &[Key("obstacles"), Index(o), Key("open")],
                        "`open` is for a door: give the obstacle a `name` (events open and close named obstacles)",
                    );
                }
                None => obstacles.push(obstacle),
                Some(name) => {
                    let at = [Key("obstacles"), Index(o), Key("name")];
                    if name.trim().is_empty() {
                        return self.fail(&at, "expected a non-empty name");
                    }
                    if doors.iter().any(|d| d.name == *name) {
                        return self.fail(&at, format!("obstacle name \"{name}\" is used twice"));
                    }
                    doors.push(Door { name: name.clone(), obstacle, closed: !raw_o.open.unwrap_or(false) });
                }
            }
        }
        Some((obstacles, doors))
    }

    fn obstacle(&mut self, o: usize, raw: &ObstacleToml) -> Option<Obstacle> {
        use Seg::{Index, Key};
        let base = [Key("obstacles"), Index(o)];
        let at = |k: &'static str| [Key("obstacles"), Index(o), Key(k)];
        let options: Vec<(&str, usize)> = KINDS.iter().enumerate().map(|(k, (n, _))| (*n, k)).collect();
        let k = self.choice(&at("kind"), &raw.kind, &options)?;
        if k < 2 {
            let present = [
                ("vertices", raw.vertices.is_some()),
                ("points", raw.points.is_some()),
                ("thickness", raw.thickness.is_some()),
            ];
            self.only_allowed(&base, &present, KINDS[k].1, &format!("a \"{}\" obstacle", raw.kind))?;
            let region = self.plane_region(&base, region_keys!(raw), "obstacle")?;
            return Some(match region {
                Region::Rect { min, max } => Obstacle::Rect { min, max },
                Region::Circle { centre, radius } => Obstacle::Circle { centre, radius },
            });
        }
        let present = [
            ("min", raw.min.is_some()),
            ("max", raw.max.is_some()),
            ("centre", raw.centre.is_some()),
            ("radius", raw.radius.is_some()),
            ("vertices", raw.vertices.is_some()),
            ("points", raw.points.is_some()),
            ("thickness", raw.thickness.is_some()),
        ];
        self.only_allowed(&base, &present, KINDS[k].1, &format!("a \"{}\" obstacle", raw.kind))?;
        let (key, list, closed, least) =
            if k == 2 { ("vertices", &raw.vertices, true, 3) } else { ("points", &raw.points, false, 2) };
        let Some(list) = list else {
            return self.fail(&base, format!("missing key `{key}` for a \"{}\" obstacle", raw.kind));
        };
        if list.len() < least {
            return self.fail(
                &at(key),
                format!("a {} needs at least {least} points, found {}", raw.kind, list.len()),
            );
        }
        let mut points = Vec::with_capacity(list.len());
        for (i, p) in list.iter().enumerate() {
            points.push(self.plane_point(&[Key("obstacles"), Index(o), Key(key), Index(i)], *p)?);
        }
        let n = points.len();
        let edges = if closed { n } else { n - 1 };
        if let Some(e) = (0..edges).find(|&e| points[e] == points[(e + 1) % n]) {
            let next = (e + 1) % n;
            return self.fail(
                &[Key("obstacles"), Index(o), Key(key), Index(next)],
                format!(
                    "points {e} and {next} are the same ({}): an edge needs two different ends",
                    points[e]
                ),
            );
        }
        // A wall whose last point is its first is a closed outline (a room's): its last edge
        // neighbours its first, so the shared point is a corner, not a crossing.
        let loops = !closed && n >= 4 && points[0] == points[n - 1];
        let crossing = if loops {
            self_intersection(&points[..n - 1], true)
        } else {
            self_intersection(&points, closed)
        };
        if let Some((i, j)) = crossing {
            return self.fail(
                &at(key),
                format!(
                    "the {} crosses itself: edge {i} ({} to {}) meets edge {j} ({} to {})",
                    raw.kind,
                    points[i],
                    points[(i + 1) % n],
                    points[j],
                    points[(j + 1) % n]
                ),
            );
        }
        if closed {
            // Counter-clockwise, whichever way the file lists it.
            if double_area(&points) < 0.0 {
                points.reverse();
            }
            return Some(Obstacle::Polygon { vertices: points });
        }
        let thickness = match raw.thickness {
            Some(t) => self.num(&at("thickness"), t, Rule::NonNegative(MAX_MAGNITUDE))?,
            None => 0.0,
        };
        Some(Obstacle::Wall { points, thickness })
    }
}
