//! Seeing a run in space on a flat picture: an orthographic projection of its frames and its
//! geometry, looking down (`top`), from the front (`side`) or from above one corner
//! (`oblique`). Depth shows as size: an agent is drawn from 0.6 times its size at the far side
//! of the box to 1.4 times at the near side. The bounds box is drawn as its twelve edges, a
//! ball as its disc, a box as the outline of its projection.

use throng_engine::behaviours::moving_point;
use throng_engine::math::{Vec2, Vec3};
use throng_engine::world::{Bounds, BoundsKind, Obstacle, Solid, Target};

use super::frame::{Extent, Frame, Geometry};

/// Where the picture of a run in space looks from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Projection {
    /// From above: x across, y up the picture.
    Top,
    /// From the front (the −y side): x across, z up the picture.
    Side,
    /// From above the front-left corner: 30° round from the front and 30° down.
    Oblique,
}

/// cos and sin of 30°, the oblique view's azimuth and elevation.
const COS_30: f32 = 0.866_025_4;
const SIN_30: f32 = 0.5;
/// Size of an agent at the far and the near side of the box.
const FAR_SCALE: f32 = 0.6;
const NEAR_SCALE: f32 = 1.4;

impl Projection {
    /// A point's place on the picture and its depth (larger is nearer the viewer).
    pub fn project(self, p: Vec3) -> (Vec2, f32) {
        match self {
            Projection::Top => (Vec2::new(p.x, p.y), p.z),
            Projection::Side => (Vec2::new(p.x, p.z), -p.y),
            Projection::Oblique => {
                // Turn the world 30° about z (the viewer stands front-left), then tilt 30°.
                let across = p.x * COS_30 + p.y * SIN_30;
                let into = -p.x * SIN_30 + p.y * COS_30;
                let up = p.z * COS_30 + into * SIN_30;
                let depth = p.z * SIN_30 - into * COS_30;
                (Vec2::new(across, up), depth)
            }
        }
    }

    /// A direction (a velocity) as the picture shows it.
    pub fn direction(self, v: Vec3) -> Vec2 {
        self.project(v).0
    }
}

/// A target with its name (empty for an inline point).
pub type NamedTarget = (String, Target<Vec3>);

/// A scene in space as the picture shows it.
pub struct SpaceView {
    pub projection: Projection,
    bounds: Bounds<Vec3>,
    solids: Vec<Solid>,
    /// The targets with their names, in space.
    targets: Vec<NamedTarget>,
    /// The depth range of the bounds box: sizes scale over it.
    depth: (f32, f32),
}

impl SpaceView {
    pub fn new(
        projection: Projection,
        bounds: Bounds<Vec3>,
        solids: Vec<Solid>,
        targets: Vec<NamedTarget>,
    ) -> SpaceView {
        let depths = corners(bounds.min, bounds.max).map(|c| projection.project(c).1);
        let lo = depths.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = depths.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        SpaceView { projection, bounds, solids, targets, depth: (lo, hi) }
    }

    /// A view of a trace alone: the box its agents fill over the whole trace, no solids or
    /// targets.
    pub fn of_frames(projection: Projection, frames: &[Frame]) -> SpaceView {
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for f in frames {
            for (p, &z) in f.position.iter().zip(&f.z) {
                let q = Vec3::new(p.x, p.y, z);
                (lo, hi) = (lo.min(q), hi.max(q));
            }
        }
        if !(lo.cmple(hi).all()) {
            (lo, hi) = (Vec3::ZERO, Vec3::ONE);
        }
        SpaceView::new(
            projection,
            Bounds { kind: BoundsKind::Open, min: lo, max: hi },
            Vec::new(),
            Vec::new(),
        )
    }

    /// The box, the solids and the named targets, in space (for the HTML player, which
    /// projects them itself).
    pub fn scene(&self) -> (&Bounds<Vec3>, &[Solid], &[NamedTarget]) {
        (&self.bounds, &self.solids, &self.targets)
    }

    /// The frame as the picture shows it: positions and velocities projected, radii scaled by
    /// depth, rows still in id order.
    pub fn frame(&self, f: &Frame) -> Frame {
        let (lo, hi) = self.depth;
        let span = (hi - lo).max(1e-6);
        let mut out = Frame { tick: f.tick, id: f.id.clone(), group: f.group.clone(), ..Frame::default() };
        for i in 0..f.len() {
            let z = f.z.get(i).copied().unwrap_or(0.0);
            let vz = f.vz.get(i).copied().unwrap_or(0.0);
            let (p, depth) = self.projection.project(Vec3::new(f.position[i].x, f.position[i].y, z));
            let near = ((depth - lo) / span).clamp(0.0, 1.0);
            out.position.push(p);
            out.velocity.push(self.projection.direction(Vec3::new(f.velocity[i].x, f.velocity[i].y, vz)));
            out.radius.push(f.radius[i] * (FAR_SCALE + (NEAR_SCALE - FAR_SCALE) * near));
        }
        out
    }

    /// The geometry at `time_s` (moving targets placed then, when it is known): the box's edges,
    /// the solids and the targets, projected.
    pub fn geometry(&self, time_s: Option<f64>) -> Geometry {
        let p = |q: Vec3| self.projection.project(q).0;
        let c = corners(self.bounds.min, self.bounds.max);
        // The twelve edges: corners differing in one coordinate (bit k of the corner index).
        let mut edges = Vec::with_capacity(12);
        for a in 0..8 {
            for bit in [1, 2, 4] {
                if a & bit == 0 {
                    edges.push((p(c[a]), p(c[a | bit])));
                }
            }
        }
        let obstacles = self
            .solids
            .iter()
            .map(|s| match *s {
                Solid::Ball { centre, radius } => Obstacle::Circle { centre: p(centre), radius },
                // Clockwise on the picture's world axes, as the discs are pushed, so overlaps
                // fill rather than cancel.
                Solid::Cuboid { min, max } => {
                    Obstacle::Polygon { vertices: hull(corners(min, max).map(p)).into_iter().rev().collect() }
                }
            })
            .collect();
        let targets = self
            .targets
            .iter()
            .filter_map(|(name, t)| {
                let at = match t {
                    Target::Point(q) | Target::Opposite { centre: q } => p(*q),
                    Target::Moving { waypoints, speed } => p(moving_point(waypoints, *speed, time_s?).0),
                    _ => return None,
                };
                Some((name.clone(), Target::Point(at)))
            })
            .collect();
        let mut extent = Extent::default();
        for &(a, b) in &edges {
            extent.add(a);
            extent.add(b);
        }
        let frame = |k: usize| if k == 0 { extent.min } else { extent.max };
        Geometry {
            bounds: Bounds { kind: self.bounds.kind, min: frame(0), max: frame(1) },
            edges,
            obstacles,
            doors: Vec::new(),
            paths: Vec::new(),
            exits: Vec::new(),
            sources: Vec::new(),
            gates: Vec::new(),
            targets,
            stages: Vec::new(),
            links: Vec::new(),
            parties: Vec::new(),
        }
    }
}

/// The eight corners of the box `[min, max]`, corner `k` taking max on axis `a` when bit `a`
/// of `k` is set.
fn corners(min: Vec3, max: Vec3) -> [Vec3; 8] {
    std::array::from_fn(|k| {
        Vec3::new(
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        )
    })
}

/// The convex hull of `points`, counter-clockwise (Andrew's monotone chain); repeated points
/// (a box seen square-on) fall away.
fn hull(points: [Vec2; 8]) -> Vec<Vec2> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut out: Vec<Vec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let start = out.len();
        let points: Box<dyn Iterator<Item = &Vec2>> =
            if pass == 0 { Box::new(p.iter()) } else { Box::new(p.iter().rev()) };
        for &q in points {
            while out.len() >= start + 2 && cross(out[out.len() - 2], out[out.len() - 1], q) <= 0.0 {
                out.pop();
            }
            out.push(q);
        }
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_projections_look_from_where_they_say() {
        let p = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(Projection::Top.project(p), (Vec2::new(1.0, 2.0), 3.0));
        assert_eq!(Projection::Side.project(p), (Vec2::new(1.0, 3.0), -2.0));
        // Oblique: up is up (z gains height), and a point further back (+y) is further away.
        let (a, da) = Projection::Oblique.project(Vec3::ZERO);
        let (b, _) = Projection::Oblique.project(Vec3::Z);
        let (_, dc) = Projection::Oblique.project(Vec3::Y);
        assert!(b.y > a.y && dc < da);
    }

    #[test]
    fn a_box_seen_square_on_is_a_rectangle_and_obliquely_a_hexagon() {
        let c = corners(Vec3::ZERO, Vec3::new(2.0, 3.0, 4.0));
        let top = hull(c.map(|q| Projection::Top.project(q).0));
        assert_eq!(
            top,
            vec![Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0), Vec2::new(2.0, 3.0), Vec2::new(0.0, 3.0)]
        );
        assert_eq!(hull(c.map(|q| Projection::Oblique.project(q).0)).len(), 6);
    }
}
