//! The walls near an agent as JuPedSim's pedestrian models read them: one repulsion term per
//! edge of a polygon or rectangle and per segment of a wall (so both edges push at a corner),
//! and the pieces that hide a neighbour from sight (the collision-free speed model ignores a
//! neighbour behind a wall).

use crate::math::Vec2;
use crate::world::Obstacle;
use crate::world::outline::{nearest_on_segment, right_normal, segments_meet};

use super::surroundings::WallNear;

/// A piece of obstacle that can hide a neighbour: every point within `half_width` of the
/// segment from `from` to `to`, both relative to the agent (a circle is a segment of length 0).
#[derive(Clone, Copy, Debug)]
pub struct SightBlock {
    from: Vec2,
    to: Vec2,
    half_width: f32,
}

impl SightBlock {
    /// Does the piece lie across the line of sight from the agent to a neighbour at `offset`?
    /// A thin piece hides it when the two segments meet, a thick one when they pass nearer
    /// than its half width.
    pub fn hides(&self, offset: Vec2) -> bool {
        if self.half_width == 0.0 {
            segments_meet(Vec2::ZERO, offset, self.from, self.to)
        } else {
            segment_gap(Vec2::ZERO, offset, self.from, self.to) < self.half_width
        }
    }
}

/// The smallest distance between the segments `ab` and `cd`.
fn segment_gap(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f32 {
    if segments_meet(a, b, c, d) {
        return 0.0;
    }
    let gap = |p: Vec2, s: Vec2, e: Vec2| (p - nearest_on_segment(s, e, p)).length();
    gap(a, c, d).min(gap(b, c, d)).min(gap(c, a, b)).min(gap(d, a, b))
}

/// The walls near one agent: the repulsion terms, in obstacle order and edge order within an
/// obstacle, and the pieces that can hide a neighbour.
#[derive(Clone, Debug, Default)]
pub struct WallsNear {
    /// One term per edge or segment whose surface lies within reach (one per circle, and one
    /// per polygon or rectangle the agent's centre is inside: its nearest surface point).
    pub terms: Vec<WallNear>,
    /// Every edge or segment within reach, and every circle.
    pub blocks: Vec<SightBlock>,
}

impl WallsNear {
    /// Forgets the last agent's walls.
    pub fn clear(&mut self) {
        self.terms.clear();
        self.blocks.clear();
    }

    /// Adds what `obstacle` gives an agent at `p` (in the obstacle's frame, the minimum image
    /// on a wrapped world): its pieces whose surface lies within `reach`.
    pub fn add(&mut self, obstacle: &Obstacle, p: Vec2, reach: f32) {
        match *obstacle {
            Obstacle::Circle { centre, radius } => {
                let distance = obstacle.signed_distance(p);
                if distance < reach {
                    self.terms.push(WallNear { normal: obstacle.boundary(p).1, distance });
                    self.blocks.push(SightBlock { from: centre - p, to: centre - p, half_width: radius });
                }
            }
            Obstacle::Rect { min, max } => {
                let corners = [min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)];
                self.add_edges(obstacle, &corners, true, 0.0, p, reach);
            }
            Obstacle::Polygon { ref vertices } => self.add_edges(obstacle, vertices, true, 0.0, p, reach),
            Obstacle::Wall { ref points, thickness } => {
                self.add_edges(obstacle, points, false, 0.5 * thickness, p, reach);
            }
        }
    }

    /// The edges of a closed counter-clockwise outline or the segments of an open chain of
    /// half width `half`. An agent whose centre is inside a closed outline is pushed out
    /// through its nearest surface point alone (every edge pushing from inside would add
    /// terms that grow, not fade, with distance).
    fn add_edges(
        &mut self,
        obstacle: &Obstacle,
        points: &[Vec2],
        closed: bool,
        half: f32,
        p: Vec2,
        reach: f32,
    ) {
        let inside = closed && obstacle.signed_distance(p) < 0.0;
        if inside {
            let distance = obstacle.signed_distance(p);
            self.terms.push(WallNear { normal: obstacle.boundary(p).1, distance });
        }
        let n = points.len();
        let segments = if closed { n } else { n.saturating_sub(1) };
        for k in 0..segments {
            let (a, b) = (points[k], points[(k + 1) % n]);
            let q = nearest_on_segment(a, b, p);
            let d = (p - q).length();
            if d - half >= reach {
                continue;
            }
            self.blocks.push(SightBlock { from: a - p, to: b - p, half_width: half });
            if !inside {
                let normal = if d > 0.0 {
                    (p - q) / d
                } else if closed {
                    right_normal(a, b)
                } else {
                    -right_normal(a, b)
                };
                self.terms.push(WallNear { normal, distance: d - half });
            }
        }
    }

    /// Is a neighbour at `offset` in sight (no piece across the line to it)?
    pub fn in_sight(&self, offset: Vec2) -> bool {
        !self.blocks.iter().any(|b| b.hides(offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(obstacle: &Obstacle, p: Vec2) -> WallsNear {
        let mut w = WallsNear::default();
        w.add(obstacle, p, 3.0);
        w
    }

    #[test]
    fn at_a_convex_corner_both_edges_push_from_the_corner() {
        // A unit square and an agent at (1.5, 1.5): the right and top edges are both nearest at
        // the corner (1, 1), √0.5 away along (1, 1)/√2; the bottom edge at (1, 0) and the left
        // at (0, 1), √2.5 away.
        let square = Obstacle::Rect { min: Vec2::ZERO, max: Vec2::ONE };
        let w = near(&square, Vec2::new(1.5, 1.5));
        assert_eq!(w.terms.len(), 4, "every edge within 3");
        let corner: Vec<_> = w.terms.iter().filter(|t| (t.distance - 0.5f32.sqrt()).abs() < 1e-6).collect();
        assert_eq!(corner.len(), 2, "{:?}", w.terms);
        for t in corner {
            assert!((t.normal - Vec2::splat(0.5f32.sqrt())).length() < 1e-6);
        }
        let bottom = w.terms[0];
        assert!((bottom.distance - 2.5f32.sqrt()).abs() < 1e-6, "{bottom:?}");
    }

    #[test]
    fn a_thick_wall_counts_its_half_width_and_far_segments_are_left_out() {
        // Two segments: (0,0)–(10,0) and (10,0)–(10,10), 0.2 thick. From (5, 1): the first is
        // 1 − 0.1 = 0.9 away, the second 5 − 0.1 = 4.9, beyond the reach of 3.
        let wall = Obstacle::Wall {
            points: vec![Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::splat(10.0)],
            thickness: 0.2,
        };
        let w = near(&wall, Vec2::new(5.0, 1.0));
        assert_eq!(w.terms.len(), 1);
        assert!((w.terms[0].distance - 0.9).abs() < 1e-6 && w.terms[0].normal == Vec2::Y);
        assert_eq!(w.blocks.len(), 1);
    }

    #[test]
    fn inside_a_polygon_one_term_pushes_out_through_the_nearest_edge() {
        let square = Obstacle::Polygon {
            vertices: vec![Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::splat(2.0), Vec2::new(0.0, 2.0)],
        };
        let w = near(&square, Vec2::new(1.0, 0.25));
        assert_eq!(w.terms.len(), 1);
        assert!(
            (w.terms[0].distance + 0.25).abs() < 1e-6 && w.terms[0].normal == Vec2::NEG_Y,
            "{:?}",
            w.terms
        );
        assert_eq!(w.blocks.len(), 4);
    }

    #[test]
    fn a_wall_between_hides_a_neighbour_and_one_beside_does_not() {
        let wall = Obstacle::Wall { points: vec![Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0)], thickness: 0.0 };
        let w = near(&wall, Vec2::ZERO);
        assert!(!w.in_sight(Vec2::new(2.0, 0.0)), "straight through the wall");
        assert!(w.in_sight(Vec2::new(2.0, 3.0)), "past its end");
        assert!(w.in_sight(Vec2::new(0.5, 0.0)), "this side of it");
        let pillar = Obstacle::Circle { centre: Vec2::new(1.0, 0.0), radius: 0.3 };
        let w = near(&pillar, Vec2::ZERO);
        assert!(!w.in_sight(Vec2::new(2.0, 0.2)), "the line passes 0.0995 from the centre");
        assert!(w.in_sight(Vec2::new(2.0, 0.8)), "the line passes 0.371 from the centre");
    }
}
