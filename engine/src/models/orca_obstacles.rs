//! The obstacles as ORCA sees them: RVO2's vertex chains (each vertex with its edge's unit
//! direction, whether it is convex, and its neighbours in the chain), built from the world's
//! obstacles, and the search for the edges and discs near an agent.
//!
//! Rectangles and polygons become counter-clockwise chains as RVO2 takes them. A wall becomes
//! one two-vertex chain per segment (RVO2's line obstacle, seen from both sides) whose edges
//! are inflated by half the wall's thickness (a segment inflated by `t / 2` is exactly the
//! wall). A circle stays a disc, avoided as a standing agent would be with the obstacles' time
//! horizon and full responsibility.

use crate::index::ObstacleIndex;
use crate::math::Vec2;
use crate::world::Obstacle;

use super::linear_program::{det, normalize};

/// One vertex of a chain; the edge from it to `next` is "its" edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// Where it is (world units).
    pub point: Vec2,
    /// The unit direction of its edge, towards `next`.
    pub unit_dir: Vec2,
    /// Whether the chain turns left (or goes straight) here; a two-vertex chain's are convex.
    pub convex: bool,
    /// The next vertex of the chain (index into [`OrcaObstacles::vertices`]).
    pub next: u32,
    /// The previous vertex of the chain.
    pub prev: u32,
    /// How far the edge's obstacle reaches beyond the edge (half a wall's thickness; else 0).
    pub inflate: f32,
    /// The world obstacle it came from.
    pub obstacle: u32,
}

/// What an ORCA agent avoids near it: an edge (by its first vertex) or a disc (by obstacle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Near {
    /// The edge from vertex `.0`.
    Edge(u32),
    /// The circle obstacle `.0`, its centre and radius.
    Disc(u32, Vec2, f32),
}

/// An obstacle near an agent: what it is, its squared distance (to the edge, or to the disc's
/// surface) and the agent's position as seen from the obstacle (its minimum image on a
/// wrapped world).
#[derive(Clone, Copy, Debug)]
pub struct NearObstacle {
    /// Squared distance from the agent to the edge or the disc's surface.
    pub dist_sq: f32,
    /// The edge or disc.
    pub near: Near,
    /// The agent's position, as seen from the obstacle.
    pub local: Vec2,
}

/// The world's standing obstacles as ORCA chains.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrcaObstacles {
    /// Every chain's vertices, chain after chain.
    pub vertices: Vec<Vertex>,
    /// Per world obstacle, its vertices' range in `vertices` (empty for a circle).
    ranges: Vec<(u32, u32)>,
}

impl OrcaObstacles {
    /// The chains of `obstacles`.
    pub fn build(obstacles: &[Obstacle]) -> OrcaObstacles {
        let mut out = OrcaObstacles::default();
        for (o, obstacle) in obstacles.iter().enumerate() {
            let first = out.vertices.len() as u32;
            match obstacle {
                Obstacle::Circle { .. } => {}
                Obstacle::Rect { min, max } => {
                    let corners = [*min, Vec2::new(max.x, min.y), *max, Vec2::new(min.x, max.y)];
                    out.chain(&corners, 0.0, o);
                }
                Obstacle::Polygon { vertices } => out.chain(vertices, 0.0, o),
                Obstacle::Wall { points, thickness } => {
                    for pair in points.windows(2) {
                        out.chain(pair, 0.5 * thickness, o);
                    }
                }
            }
            out.ranges.push((first, out.vertices.len() as u32));
        }
        out
    }

    /// Adds a closed chain through `points` (counter-clockwise; two points: a segment), as
    /// RVO2's `addObstacle` does.
    fn chain(&mut self, points: &[Vec2], inflate: f32, obstacle: usize) {
        let n = points.len();
        let base = self.vertices.len() as u32;
        for i in 0..n {
            let (prev, next) = ((i + n - 1) % n, (i + 1) % n);
            // RVO2's leftOf(prev, this, next) ≥ 0.
            let convex = n == 2 || det(points[prev] - points[next], points[i] - points[prev]) >= 0.0;
            self.vertices.push(Vertex {
                point: points[i],
                unit_dir: normalize(points[next] - points[i]),
                convex,
                next: base + next as u32,
                prev: base + prev as u32,
                inflate,
                obstacle: obstacle as u32,
            });
        }
    }

    /// Into `out`: the edges and discs of `obstacles` within `range` (plus an edge's inflation)
    /// of `p`, edges only from the side they face (RVO2 sees an edge only from its right),
    /// nearest first, ties by edge, discs after edges at equal distance.
    pub fn near(
        &self,
        index: &ObstacleIndex,
        obstacles: &[Obstacle],
        p: Vec2,
        range: f32,
        out: &mut Vec<NearObstacle>,
    ) {
        out.clear();
        let reach = range + obstacles_inflation(obstacles);
        index.candidates(p, reach, |o| {
            let obstacle = &obstacles[o as usize];
            let local = index.local(o, p);
            if let Obstacle::Circle { centre, radius } = *obstacle {
                let gap = ((local - centre).length() - radius).max(0.0);
                if gap < range {
                    out.push(NearObstacle { dist_sq: gap * gap, near: Near::Disc(o, centre, radius), local });
                }
                return;
            }
            let (first, end) = self.ranges[o as usize];
            for k in first..end {
                let a = self.vertices[k as usize];
                let b = self.vertices[a.next as usize].point;
                // RVO2's leftOf(a, b, p) < 0: the agent is on the edge's right, its outside.
                if det(a.point - local, b - a.point) >= 0.0 {
                    continue;
                }
                let reach = range + a.inflate;
                let dist_sq = dist_sq_to_segment(a.point, b, local);
                if dist_sq < reach * reach {
                    out.push(NearObstacle { dist_sq, near: Near::Edge(k), local });
                }
            }
        });
        out.sort_unstable_by(|x, y| x.dist_sq.total_cmp(&y.dist_sq).then(order(x.near).cmp(&order(y.near))));
    }
}

/// A total order among near obstacles at equal distance: edges by vertex, then discs.
fn order(n: Near) -> (u32, u32) {
    match n {
        Near::Edge(k) => (0, k),
        Near::Disc(o, ..) => (1, o),
    }
}

/// The thickest wall's half thickness: how much further than the agent's own reach an edge
/// may be and still count.
fn obstacles_inflation(obstacles: &[Obstacle]) -> f32 {
    obstacles
        .iter()
        .map(|o| match o {
            Obstacle::Wall { thickness, .. } => 0.5 * thickness,
            _ => 0.0,
        })
        .fold(0.0, f32::max)
}

/// RVO2's `distSqPointLineSegment(a, b, c)`.
pub fn dist_sq_to_segment(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    let ab = b - a;
    let r = (c - a).dot(ab) / ab.dot(ab);
    let d = if r < 0.0 {
        c - a
    } else if r > 1.0 {
        c - b
    } else {
        c - (a + r * ab)
    };
    d.dot(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_is_a_convex_counter_clockwise_chain_and_a_wall_a_two_sided_segment() {
        let built = OrcaObstacles::build(&[
            Obstacle::Rect { min: Vec2::ZERO, max: Vec2::ONE },
            Obstacle::Wall { points: vec![Vec2::new(5.0, 0.0), Vec2::new(5.0, 2.0)], thickness: 0.4 },
        ]);
        assert_eq!(built.vertices.len(), 6);
        assert!(built.vertices[..4].iter().all(|v| v.convex && v.inflate == 0.0));
        assert_eq!(built.vertices[0].unit_dir, Vec2::new(1.0, 0.0));
        assert_eq!((built.vertices[3].next, built.vertices[0].prev), (0, 3));
        let (a, b) = (built.vertices[4], built.vertices[5]);
        assert_eq!((a.next, b.next, a.inflate), (5, 4, 0.2));
        assert_eq!(b.unit_dir, Vec2::new(0.0, -1.0));
    }

    #[test]
    fn a_notch_vertex_is_not_convex() {
        // An L: the vertex at (1, 1) turns right, into the polygon.
        let l = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]];
        let built = OrcaObstacles::build(&[Obstacle::Polygon {
            vertices: l.iter().map(|&[x, y]| Vec2::new(x, y)).collect(),
        }]);
        let convex: Vec<bool> = built.vertices.iter().map(|v| v.convex).collect();
        assert_eq!(convex, [true, true, true, false, true, true]);
    }
}
