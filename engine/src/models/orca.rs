//! ORCA, optimal reciprocal collision avoidance (van den Berg, Guy, Lin, Manocha 2011), as
//! RVO2 2.0 computes it: one half-plane of permitted velocities per obstacle edge and per
//! neighbour, then the velocity nearest the preferred one inside them all and the speed
//! circle (`linear_program`). Each line is computed operation for operation as RVO2 does, so
//! the same state gives the same velocity to rounding (`tests/oracle/orca.rs` checks it
//! against RVO2's own outputs).

use crate::math::Vec2;
use crate::world::Orca;

use super::linear_program::{Line, det, div, linear_program2, linear_program3, normalize};
use super::orca_obstacles::{Near, NearObstacle, OrcaObstacles};
use super::surroundings::Body;

/// One agent as ORCA reads it.
#[derive(Clone, Copy, Debug)]
pub struct OrcaAgent {
    /// Its velocity now.
    pub velocity: Vec2,
    /// The velocity it would take if nothing were in the way.
    pub preferred: Vec2,
    /// Its body radius.
    pub radius: f32,
    /// Its speed limit: the speed circle's radius.
    pub max_speed: f32,
}

/// Buffers one worker reuses from agent to agent.
#[derive(Clone, Debug, Default)]
pub struct OrcaScratch {
    /// The half-planes, obstacles' first.
    pub lines: Vec<Line>,
    /// `linear_program3`'s projected lines.
    pub projected: Vec<Line>,
    /// The obstacles near the agent, nearest first.
    pub near: Vec<NearObstacle>,
}

/// The agent's new velocity: half-planes from `s.near` (filled by the caller, nearest first)
/// and from `neighbours` (nearest first, at most `orca.max_neighbours` within
/// `orca.neighbour_dist`), then the linear programs.
pub fn new_velocity(
    orca: &Orca,
    dt: f32,
    me: &OrcaAgent,
    geometry: &OrcaObstacles,
    neighbours: impl Iterator<Item = Body>,
    s: &mut OrcaScratch,
) -> Vec2 {
    s.lines.clear();
    let inv_obst = 1.0 / orca.time_horizon_obst;
    for near in &s.near {
        match near.near {
            Near::Edge(k) => {
                if let Some(line) = edge_line(geometry, k, near.local, me, inv_obst, &s.lines) {
                    s.lines.push(line);
                }
            }
            Near::Disc(_, centre, radius) => {
                let relative = Relative {
                    position: centre - near.local,
                    velocity: me.velocity,
                    radius: me.radius + radius,
                };
                s.lines.push(relative.line(me.velocity, inv_obst, 1.0 / dt, 1.0));
            }
        }
    }
    let hard = s.lines.len();
    let inv_horizon = 1.0 / orca.time_horizon;
    for other in neighbours {
        let relative = Relative {
            position: other.offset,
            velocity: me.velocity - other.velocity,
            radius: me.radius + other.radius,
        };
        s.lines.push(relative.line(me.velocity, inv_horizon, 1.0 / dt, 0.5));
    }
    let mut result = Vec2::ZERO;
    let failed = linear_program2(&s.lines, me.max_speed, me.preferred, false, &mut result);
    if failed < s.lines.len() {
        linear_program3(&s.lines, hard, failed, me.max_speed, &mut result, &mut s.projected);
    }
    result
}

/// Another body relative to the agent: its offset, the agent's velocity relative to it, and
/// the two radii together.
struct Relative {
    position: Vec2,
    velocity: Vec2,
    radius: f32,
}

impl Relative {
    /// RVO2's agent-agent half-plane: the smallest change `u` of the relative velocity that
    /// leaves the velocity obstacle truncated at `1 / inv_horizon` (or, already overlapping,
    /// at one time step), of which the agent takes the `share` (½ between agents, all of it
    /// before a standing disc).
    ///
    /// Both projections are computed and one is kept, without a branch: which one an
    /// agent's neighbours need changes from neighbour to neighbour (and the leg's side is a
    /// coin toss), so branches would mispredict on most lines. Each kept value is the same
    /// bits as RVO2's branch computes: the overlapping case is the cut-off case with one
    /// time step in place of the horizon, and the right leg is the left leg's formula with
    /// the leg's length negated (IEEE rounding is symmetric under negation).
    #[inline]
    fn line(&self, velocity: Vec2, inv_horizon: f32, inv_dt: f32, share: f32) -> Line {
        let Relative { position: p, velocity: v, radius: r } = *self;
        let dist_sq = p.dot(p);
        let r_sq = r * r;
        let apart = dist_sq > r_sq;
        // The cut-off circle: of the time horizon when apart, of one time step when
        // overlapping; w runs from its centre to the relative velocity.
        let inv = if apart { inv_horizon } else { inv_dt };
        let w = v - inv * p;
        let w_len_sq = w.dot(w);
        let dot1 = w.dot(p);
        let on_cutoff = !apart || (dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq);
        // Projected on the cut-off circle.
        let w_len = w_len_sq.sqrt();
        let unit_w = div(w, w_len);
        let cutoff_direction = Vec2::new(unit_w.y, -unit_w.x);
        let cutoff_u = (r * inv - w_len) * unit_w;
        // Projected on a leg (meaningless when overlapping, and then not kept).
        let leg = (dist_sq - r_sq).sqrt();
        let leg = if det(p, w) > 0.0 { leg } else { -leg };
        let leg_direction = div(Vec2::new(p.x * leg - p.y * r, p.x * r + p.y * leg), dist_sq);
        let leg_u = v.dot(leg_direction) * leg_direction - v;
        let (direction, u) = if on_cutoff { (cutoff_direction, cutoff_u) } else { (leg_direction, leg_u) };
        Line { point: velocity + share * u, direction }
    }
}

/// RVO2's obstacle half-plane for the edge from vertex `k`, seen from `p`; `None` when the
/// edge adds nothing (already covered by `lines`, behind a non-convex vertex, or a leg that
/// belongs to the neighbouring edge).
fn edge_line(g: &OrcaObstacles, k: u32, p: Vec2, me: &OrcaAgent, inv: f32, lines: &[Line]) -> Option<Line> {
    let mut o1 = g.vertices[k as usize];
    let mut o2 = g.vertices[o1.next as usize];
    let radius = me.radius + o1.inflate;
    let velocity = me.velocity;
    let rel1 = o1.point - p;
    let rel2 = o2.point - p;
    // Already covered by an earlier obstacle's half-plane?
    let covered = |l: &Line, rel: Vec2| {
        det(inv * rel - l.point, l.direction) - inv * radius >= -super::linear_program::EPSILON
    };
    if lines.iter().any(|l| covered(l, rel1) && covered(l, rel2)) {
        return None;
    }
    let dist_sq1 = rel1.dot(rel1);
    let dist_sq2 = rel2.dot(rel2);
    let r_sq = radius * radius;
    let edge = o2.point - o1.point;
    let s = (-rel1).dot(edge) / edge.dot(edge);
    let off = -rel1 - s * edge;
    let dist_sq_line = off.dot(off);
    let at_origin = |direction: Vec2| Some(Line { point: Vec2::ZERO, direction });
    if s < 0.0 && dist_sq1 <= r_sq {
        // Touching the left vertex (ignored when it is not convex).
        return if o1.convex { at_origin(normalize(Vec2::new(-rel1.y, rel1.x))) } else { None };
    } else if s > 1.0 && dist_sq2 <= r_sq {
        // Touching the right vertex (ignored when not convex, or left to the next edge).
        return if o2.convex && det(rel2, o2.unit_dir) >= 0.0 {
            at_origin(normalize(Vec2::new(-rel2.y, rel2.x)))
        } else {
            None
        };
    } else if (0.0..1.0).contains(&s) && dist_sq_line <= r_sq {
        // Touching the edge.
        return at_origin(-o1.unit_dir);
    }
    // No collision: the legs. Seen obliquely, both legs come from one vertex; at a non-convex
    // vertex a leg extends the cut-off line.
    let left_leg = |rel: Vec2, dist_sq: f32| {
        let leg = (dist_sq - r_sq).sqrt();
        div(Vec2::new(rel.x * leg - rel.y * radius, rel.x * radius + rel.y * leg), dist_sq)
    };
    let right_leg = |rel: Vec2, dist_sq: f32| {
        let leg = (dist_sq - r_sq).sqrt();
        div(Vec2::new(rel.x * leg + rel.y * radius, -rel.x * radius + rel.y * leg), dist_sq)
    };
    let (mut left_dir, mut right_dir);
    let same;
    if s < 0.0 && dist_sq_line <= r_sq {
        if !o1.convex {
            return None;
        }
        o2 = o1;
        same = true;
        (left_dir, right_dir) = (left_leg(rel1, dist_sq1), right_leg(rel1, dist_sq1));
    } else if s > 1.0 && dist_sq_line <= r_sq {
        if !o2.convex {
            return None;
        }
        o1 = o2;
        same = true;
        (left_dir, right_dir) = (left_leg(rel2, dist_sq2), right_leg(rel2, dist_sq2));
    } else {
        same = false;
        left_dir = if o1.convex { left_leg(rel1, dist_sq1) } else { -o1.unit_dir };
        right_dir = if o2.convex { right_leg(rel2, dist_sq2) } else { o1.unit_dir };
    }
    // A leg never points into the neighbouring edge at a convex vertex: it takes that edge's
    // cut-off line instead, and a velocity projected on such a "foreign" leg adds nothing.
    let left_neighbour = g.vertices[o1.prev as usize];
    let mut left_foreign = false;
    let mut right_foreign = false;
    if o1.convex && det(left_dir, -left_neighbour.unit_dir) >= 0.0 {
        left_dir = -left_neighbour.unit_dir;
        left_foreign = true;
    }
    if o2.convex && det(right_dir, o2.unit_dir) <= 0.0 {
        right_dir = o2.unit_dir;
        right_foreign = true;
    }
    // The cut-off centres, and where the velocity projects.
    let left_cutoff = inv * (o1.point - p);
    let right_cutoff = inv * (o2.point - p);
    let cutoff = right_cutoff - left_cutoff;
    let t = if same { 0.5 } else { (velocity - left_cutoff).dot(cutoff) / cutoff.dot(cutoff) };
    let t_left = (velocity - left_cutoff).dot(left_dir);
    let t_right = (velocity - right_cutoff).dot(right_dir);
    let on_circle = |centre: Vec2| {
        let unit_w = normalize(velocity - centre);
        Some(Line { point: centre + radius * inv * unit_w, direction: Vec2::new(unit_w.y, -unit_w.x) })
    };
    if (t < 0.0 && t_left < 0.0) || (same && t_left < 0.0 && t_right < 0.0) {
        return on_circle(left_cutoff);
    } else if t > 1.0 && t_right < 0.0 {
        return on_circle(right_cutoff);
    }
    // The nearest of the left leg, the right leg and the cut-off line.
    let gap = |q: Vec2| (velocity - q).dot(velocity - q);
    let d_cutoff =
        if !(0.0..=1.0).contains(&t) || same { f32::INFINITY } else { gap(left_cutoff + t * cutoff) };
    let d_left = if t_left < 0.0 { f32::INFINITY } else { gap(left_cutoff + t_left * left_dir) };
    let d_right = if t_right < 0.0 { f32::INFINITY } else { gap(right_cutoff + t_right * right_dir) };
    let line_from = |centre: Vec2, direction: Vec2| {
        Some(Line { point: centre + radius * inv * Vec2::new(-direction.y, direction.x), direction })
    };
    if d_cutoff <= d_left && d_cutoff <= d_right {
        line_from(left_cutoff, -o1.unit_dir)
    } else if d_left <= d_right {
        if left_foreign { None } else { line_from(left_cutoff, left_dir) }
    } else if right_foreign {
        None
    } else {
        line_from(right_cutoff, -right_dir)
    }
}
