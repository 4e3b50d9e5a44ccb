//! Routing around walls: a distance field per goal (`route = "field"` on `seek` and `arrive`,
//! a field per target, or per stage for a `journey` target; on `follow_path`, a field per
//! node). The field is the walking distance to the target over a grid of the world's
//! bounds, cells whose centre is closer to an obstacle than the largest body radius being
//! walls; it is solved by fast marching (the eikonal equation, so Euclidean in every direction, no
//! corner cutting) from the cells around the target, and an agent's desired direction is the field's descending gradient where it
//! stands (bilinear over the four cells around it). A field depends only on the standing
//! obstacles, the target's position and the largest radius, so it is derived data: rebuilt,
//! serially and deterministically, whenever one of them changes (a door opening or closing, a
//! point target moving), never stored in a checkpoint or hashed. On a wrapped world the grid
//! wraps too, so the way across a seam is found like any other.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::index::ObstacleIndex;
use crate::math::{Vec2, norm};
use crate::world::{Behaviour, Bounds, BoundsKind, Obstacle, Target, World};

/// Cell size of a field (world units), unless the grid would exceed [`MAX_CELLS`]: a tenth of
/// a metre, a quarter of a walker's width. At 0.25 the way through a door 1.5 m wide for
/// bodies of radius 0.5 was two cells across, and round its corners the descent bent up to
/// 21° off the straight way (10° at 0.1): two walkers crossing it met head-on on its axis.
pub const CELL: f32 = 0.1;
/// Most cells in one field; a larger world gets coarser cells.
pub const MAX_CELLS: f32 = 4.0e6;
/// The radius, in cells, within which cells that see the goal start at their straight
/// distance (cells within two of it always do, as before any wall could lie between).
const SEED_CELLS: f32 = 8.0;

/// The walking distance to one target over a grid.
#[derive(Clone, Debug)]
pub struct Field {
    origin: Vec2,
    /// Cell width and height (equal on an open world; on a wrapped one, what tiles it).
    cell: Vec2,
    nx: usize,
    ny: usize,
    /// Whether the grid wraps (a wrapped world).
    wrap: bool,
    /// Per cell (row-major, `y · nx + x`), the distance from its centre to the target; infinite
    /// for a wall cell or one the target cannot be reached from.
    dist: Vec<f32>,
}

impl Field {
    /// The field of `goal` over `bounds`, with the obstacles inflated by `clearance`. On a
    /// wrapped world the cells tile the world exactly and the grid wraps: the way across a seam
    /// counts like any other.
    pub fn build(
        bounds: &Bounds,
        obstacles: &[Obstacle],
        index: Option<&ObstacleIndex>,
        goal: Vec2,
        clearance: f32,
    ) -> Field {
        let size = bounds.max - bounds.min;
        let side = CELL.max((size.x * size.y / MAX_CELLS).sqrt());
        let (nx, ny) = ((size.x / side).ceil().max(1.0) as usize, (size.y / side).ceil().max(1.0) as usize);
        let wrap = bounds.kind == BoundsKind::Wrap;
        let cell = if wrap { Vec2::new(size.x / nx as f32, size.y / ny as f32) } else { Vec2::splat(side) };
        let origin = bounds.min;
        let centre =
            |x: usize, y: usize| origin + Vec2::new((x as f32 + 0.5) * cell.x, (y as f32 + 0.5) * cell.y);
        let mut walkable = vec![true; nx * ny];
        for y in 0..ny {
            for x in 0..nx {
                let c = centre(x, y);
                let mut free = true;
                if let Some(index) = index {
                    index.candidates(c, clearance, |o| {
                        free &= obstacles[o as usize].signed_distance(index.local(o, c)) > clearance;
                    });
                }
                walkable[y * nx + x] = free;
            }
        }
        let field = Field { origin, cell, nx, ny, wrap, dist: Vec::new() };
        let mut dist = vec![f32::INFINITY; nx * ny];
        let mut heap = BinaryHeap::new();
        // Seeds: the walkable cells within `SEED_CELLS` of the goal that see it (every cell
        // the straight line crosses is walkable), at their straight distance; the marching
        // front's error is largest near a point source, so it starts a few cells out.
        let g = (goal - origin) / cell;
        let (gx, gy) = (g.x.floor() as i64, g.y.floor() as i64);
        let reach = SEED_CELLS as i64;
        // The seeds' straight distances are exact: the march settles them but never lowers them.
        let mut seeded = vec![false; nx * ny];
        for y in gy - reach..=gy + reach {
            for x in gx - reach..=gx + reach {
                let Some(k) = field.cell_at(x, y) else { continue };
                let c = centre(k % nx, k / nx);
                let to_goal = bounds.offset(c, goal);
                let near = (x - gx).abs().max((y - gy).abs()) <= 2;
                if !walkable[k] || (!near && (to_goal / cell).length() > SEED_CELLS) {
                    continue;
                }
                let steps = ((to_goal / cell).length() * 4.0).ceil() as usize;
                let sees = (1..steps).all(|s| {
                    let p = (c + to_goal * (s as f32 / steps as f32) - origin) / cell;
                    field.cell_at(p.x.floor() as i64, p.y.floor() as i64).is_none_or(|k| walkable[k])
                });
                if near || sees {
                    seeded[k] = true;
                    dist[k] = to_goal.length();
                    heap.push((Reverse(dist[k].to_bits()), k));
                }
            }
        }
        // Fast marching (J. A. Sethian, "A fast marching level set method for monotonically
        // advancing fronts", PNAS 93, 1996; second order where two cells in a row are settled):
        // the eikonal equation |∇T| = 1 solved upwind, cell by cell in order of distance, so
        // the distance is Euclidean up to the grid's error in every direction (a grid graph's shortest paths are octile: their descent
        // leans to the nearest axis or diagonal, up to 22.5° off the way to the goal). Walls
        // and cells outside the grid never count as a side, so fronts turn round corners
        // without cutting them.
        let mut known = vec![false; nx * ny];
        while let Some((Reverse(bits), k)) = heap.pop() {
            if known[k] || f32::from_bits(bits) > dist[k] {
                continue;
            }
            known[k] = true;
            let (x, y) = ((k % nx) as i64, (k / nx) as i64);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (x2, y2) = (x + dx, y + dy);
                let Some(k2) = field.cell_at(x2, y2).filter(|&k2| walkable[k2] && !known[k2] && !seeded[k2])
                else {
                    continue;
                };
                let settled = |x: i64, y: i64| {
                    field.cell_at(x, y).filter(|&k| known[k]).map_or(f32::INFINITY, |k| dist[k])
                };
                // Per axis, the upwind side: its settled distance and, second order, the one
                // beyond it when that is settled and no larger.
                let upwind = |step: (i64, i64)| {
                    let near = |s: i64| settled(x2 + s * step.0, y2 + s * step.1);
                    let (before, after) = (near(-1), near(1));
                    let (t1, t2) = if before <= after { (before, near(-2)) } else { (after, near(2)) };
                    Upwind { t1, t2: if t2 <= t1 { t2 } else { f32::INFINITY } }
                };
                let nd = eikonal(upwind((1, 0)), upwind((0, 1)), cell);
                if nd < dist[k2] {
                    dist[k2] = nd;
                    heap.push((Reverse(nd.to_bits()), k2));
                }
            }
        }
        Field { dist, ..field }
    }

    /// The index of cell (`x`, `y`): wrapped into the grid on a wrapped world, `None` outside
    /// it on an open one.
    fn cell_at(&self, x: i64, y: i64) -> Option<usize> {
        let (nx, ny) = (self.nx as i64, self.ny as i64);
        let (x, y) = if self.wrap { (x.rem_euclid(nx), y.rem_euclid(ny)) } else { (x, y) };
        (x >= 0 && y >= 0 && x < nx && y < ny).then(|| (y * nx + x) as usize)
    }

    /// At `p`: the unit direction of steepest descent and the walking distance left. The
    /// distance is interpolated bilinearly between the four cell centres around `p` (a wall or
    /// unreached centre counts as the largest reached one plus a cell). The direction is the
    /// bilinear blend of those centres' own gradients (central differences, one-sided beside a
    /// wall or an unreached cell, never into it: see `slope`), so it turns continuously as an agent
    /// crosses from one square of centres to the next: the gradient of the interpolated
    /// distance itself jumps there, and an agent standing on such a line, pressed by a
    /// neighbour, flipped between the two directions every tick. `None` outside the grid,
    /// where nothing around is reached, or where the field is flat.
    pub fn descent(&self, p: Vec2) -> Option<(Vec2, f32)> {
        let f = (p - self.origin) / self.cell - Vec2::splat(0.5);
        let (x0, y0) = (f.x.floor(), f.y.floor());
        let (tx, ty) = (f.x - x0, f.y - y0);
        let at = |x: f32, y: f32| self.cell_at(x as i64, y as i64).map_or(f32::INFINITY, |k| self.dist[k]);
        let mut v = [at(x0, y0), at(x0 + 1.0, y0), at(x0, y0 + 1.0), at(x0 + 1.0, y0 + 1.0)];
        let reached = v.iter().copied().filter(|d| d.is_finite()).fold(f32::NEG_INFINITY, f32::max);
        if !reached.is_finite() {
            return None;
        }
        let uphill = self.cell.max_element();
        for d in &mut v {
            if !d.is_finite() {
                *d = reached + uphill;
            }
        }
        let weights = [(1.0 - tx) * (1.0 - ty), tx * (1.0 - ty), (1.0 - tx) * ty, tx * ty];
        let mut grad = Vec2::ZERO;
        for (k, w) in weights.into_iter().enumerate() {
            let (cx, cy) = (x0 + (k % 2) as f32, y0 + (k / 2) as f32);
            let centre = at(cx, cy);
            if !centre.is_finite() || w == 0.0 {
                continue;
            }
            let gx = slope(centre, at(cx - 1.0, cy), at(cx + 1.0, cy), self.cell.x);
            let gy = slope(centre, at(cx, cy - 1.0), at(cx, cy + 1.0), self.cell.y);
            grad += w * Vec2::new(gx, gy);
        }
        let [a, b, c, d] = v;
        if grad == Vec2::ZERO {
            // Only walls or unreached centres carry weight here: the interpolated distance's
            // own slope, which leads off them.
            let gx = ((1.0 - ty) * (b - a) + ty * (d - c)) / self.cell.x;
            let gy = ((1.0 - tx) * (c - a) + tx * (d - b)) / self.cell.y;
            grad = Vec2::new(gx, gy);
        }
        if grad == Vec2::ZERO {
            return None;
        }
        let here = weights[0] * a + weights[1] * b + weights[2] * c + weights[3] * d;
        Some((-norm(grad), here))
    }
}

/// The field's slope at a centre of distance `centre` along one axis, from its neighbours
/// `before` and `after` one cell of `h` away: the central difference; where a side is a wall
/// or unreached, the one-sided slope along the open side, but never one whose descent leads
/// into that side (then 0: the way runs along the wall, as the distance does); 0 between two
/// walls. (Counting a wall as a cell uphill, as before, turned the way off every wall: at a
/// door 1 m wide it held two walkers side by side before the door, each led along the wall
/// towards the middle and neither into the door.)
fn slope(centre: f32, before: f32, after: f32, h: f32) -> f32 {
    match (before.is_finite(), after.is_finite()) {
        (true, true) => (after - before) / (2.0 * h),
        // The descent, −slope, must not point to the wall after: slope ≥ 0.
        (true, false) => ((centre - before) / h).max(0.0),
        // Nor to the wall before: slope ≤ 0.
        (false, true) => ((after - centre) / h).min(0.0),
        (false, false) => 0.0,
    }
}

/// One axis's upwind neighbours of a cell: the settled distance beside it (`t1`) and the one
/// beyond that (`t2`, infinite when unsettled or larger), infinite when there is none.
#[derive(Clone, Copy)]
struct Upwind {
    t1: f32,
    t2: f32,
}

/// The upwind solution `t` at a cell of `Σ α (t − β)² = 1` over the axes with a settled side:
/// second order (`α = 9 / 4h²`, `β = (4 t1 − t2) / 3`) where the axis has two settled cells in
/// a row, first order (`α = 1 / h²`, `β = t1`) where it has one. Where the two-axis solution
/// does not exist or falls below an axis's `t1`, the first-order one, then the one-sided step
/// `min(t1 + h)`.
fn eikonal(x: Upwind, y: Upwind, cell: Vec2) -> f32 {
    let one_sided = (x.t1 + cell.x).min(y.t1 + cell.y);
    let solve = |terms: &[(f32, f32)]| -> Option<f32> {
        let (mut a, mut b, mut c) = (0.0f32, 0.0f32, -1.0f32);
        for &(alpha, beta) in terms {
            a += alpha;
            b -= 2.0 * alpha * beta;
            c += alpha * beta * beta;
        }
        let disc = b * b - 4.0 * a * c;
        (a > 0.0 && disc >= 0.0).then(|| (-b + disc.sqrt()) / (2.0 * a))
    };
    let term = |u: Upwind, h: f32, second: bool| {
        if second && u.t2.is_finite() {
            (9.0 / (4.0 * h * h), (4.0 * u.t1 - u.t2) / 3.0)
        } else {
            (1.0 / (h * h), u.t1)
        }
    };
    let floor = x.t1.min(y.t1);
    let both = x.t1.is_finite() && y.t1.is_finite();
    for second in [true, false] {
        let mut terms = [(0.0, 0.0); 2];
        let mut n = 0;
        if x.t1.is_finite() {
            terms[n] = term(x, cell.x, second);
            n += 1;
        }
        if y.t1.is_finite() {
            terms[n] = term(y, cell.y, second);
            n += 1;
        }
        if let Some(t) = solve(&terms[..n]) {
            // Upwind: the new value lies above every side it was made from.
            if t >= if both { x.t1.max(y.t1) } else { floor } && t <= one_sided {
                return t;
            }
        }
    }
    one_sided
}

/// What a field leads to: a target, or a node of a path (routed path following).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A `point` target, by id.
    Target(u16),
    /// Node `node` of path `path`.
    Node {
        /// The path's index.
        path: u16,
        /// The node's index.
        node: u32,
    },
    /// A stage of journeys, by index: its point.
    Stage(u16),
}

/// The fields of the goals that routed behaviours use, each with what it was built from.
#[derive(Clone, Debug, Default)]
pub struct Router {
    /// The fields, in the order their goals were first wanted: goal, its position, the
    /// clearance, the field.
    fields: Vec<(Goal, Vec2, f32, Field)>,
    /// The obstacles the fields were built around.
    obstacles: Vec<Obstacle>,
}

impl Router {
    /// Rebuilds the fields whose inputs changed; returns how many it built.
    pub fn refresh(&mut self, world: &World, index: Option<&ObstacleIndex>) -> usize {
        let mut wanted: Vec<(Goal, Vec2)> = Vec::new();
        for g in &world.groups {
            for b in &g.behaviours {
                match b.behaviour {
                    Behaviour::SeekField { target } | Behaviour::ArriveField { target, .. } => {
                        match world.targets[target as usize] {
                            Target::Point(p) => wanted.push((Goal::Target(target), p)),
                            // A queue's agents walk straight to their own slots: no field.
                            Target::Journey => {
                                let stages = world.scene.stages.iter().enumerate().filter(|(_, s)| s.queue.is_none());
                                wanted.extend(stages.map(|(k, s)| (Goal::Stage(k as u16), s.point)));
                            }
                            _ => {}
                        }
                    }
                    Behaviour::FollowPathField { path, .. } => {
                        let nodes = &world.paths[path as usize].nodes;
                        wanted.extend(
                            nodes.iter().enumerate().map(|(k, n)| (Goal::Node { path, node: k as u32 }, *n)),
                        );
                    }
                    _ => {}
                }
            }
        }
        if wanted.is_empty() {
            return 0;
        }
        let clearance = world.groups.iter().map(|g| g.params.radius.max()).fold(0.0f32, f32::max);
        if self.obstacles != world.obstacles {
            self.fields.clear();
            self.obstacles = world.obstacles.clone();
        }
        let mut built = 0;
        for (goal, at) in wanted {
            match self.fields.iter().position(|f| f.0 == goal) {
                Some(k) if self.fields[k].1 == at && self.fields[k].2 == clearance => {}
                found => {
                    let field = Field::build(&world.bounds, &world.obstacles, index, at, clearance);
                    match found {
                        Some(k) => self.fields[k] = (goal, at, clearance, field),
                        None => self.fields.push((goal, at, clearance, field)),
                    }
                    built += 1;
                }
            }
        }
        built
    }

    /// The routed offset to `goal` from `p`: the field's direction times the walking distance
    /// left; `None` where the field gives none (then the straight line serves).
    pub fn offset(&self, goal: Goal, p: Vec2) -> Option<Vec2> {
        let (_, _, _, field) = self.fields.iter().find(|f| f.0 == goal)?;
        let (dir, left) = field.descent(p)?;
        Some(dir * left)
    }

    /// The walking distance left to `goal` from `p`; `None` where the goal has no field or
    /// the field gives none.
    pub fn walk(&self, goal: Goal, p: Vec2) -> Option<f32> {
        let (_, _, _, field) = self.fields.iter().find(|f| f.0 == goal)?;
        field.descent(p).map(|(_, left)| left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOOR: &str = "version = 1\nname = \"r\"\nseed = 1\ndt = 0.1\nticks = 5\nobstacles = [{ name = \"door\", kind = \"wall\", points = [[5, 0], [5, 10]], thickness = 0.2 }]\n[bounds]\nmin = [0, 0]\nmax = [10, 10]\n[targets.goal]\nkind = \"point\"\nposition = [9, 5]\n[[groups]]\nname = \"g\"\ncount = 1\nspawn = { kind = \"points\", points = [[1, 5]] }\nmax_speed = 1\nmax_force = 1\nradius = 0.3\n[[groups.behaviours]]\nkind = \"seek\"\ntarget = \"goal\"\nroute = \"field\"\n";

    #[test]
    fn a_field_is_rebuilt_only_when_the_obstacles_or_its_target_change() {
        let mut world = crate::Scenario::parse(DOOR, "r.toml").expect("valid").build_world();
        let index = |w: &World| ObstacleIndex::build(&w.obstacles, &w.bounds);
        let mut router = Router::default();
        assert_eq!(router.refresh(&world, Some(&index(&world))), 1);
        assert_eq!(router.refresh(&world, Some(&index(&world))), 0, "nothing changed");
        // The closed door (a wall across the room) cuts the goal off: no way from the west.
        assert!(router.offset(Goal::Target(0), Vec2::new(1.0, 5.0)).is_none());
        world.scene.doors[0].closed = false;
        world.refresh_obstacles();
        assert_eq!(router.refresh(&world, Some(&index(&world))), 1, "the door opened");
        let o = router.offset(Goal::Target(0), Vec2::new(1.0, 5.0)).expect("a way now");
        assert!((o.length() - 8.0).abs() < 0.3 && o.x > 0.99 * o.length(), "straight east, about 8: {o}");
        world.targets[0] = Target::Point(Vec2::new(9.0, 8.0));
        assert_eq!(router.refresh(&world, Some(&index(&world))), 1, "the target moved");
    }

    #[test]
    fn the_direction_turns_continuously_across_a_line_of_cell_centres() {
        // A door 1.5 wide in a wall across the room, routed with clearance 0.5: the field's
        // walkable channel through it is two cells wide. Just above and just below the line
        // of centres at y = 5.125 (cells of 0.25 from y = 0), the directions must agree; the
        // slope of the interpolated distance jumps there (by 30 degrees in this door), and an
        // agent pressed onto such a line flipped between the two every tick.
        let obstacles = vec![
            Obstacle::Wall { points: vec![Vec2::new(5.0, 0.0), Vec2::new(5.0, 4.25)], thickness: 0.2 },
            Obstacle::Wall { points: vec![Vec2::new(5.0, 5.75), Vec2::new(5.0, 10.0)], thickness: 0.2 },
        ];
        let bounds = Bounds { kind: BoundsKind::Open, min: Vec2::ZERO, max: Vec2::splat(10.0) };
        let index = ObstacleIndex::build(&obstacles, &bounds);
        let field = Field::build(&bounds, &obstacles, Some(&index), Vec2::new(9.0, 6.0), 0.5);
        for x in [4.2f32, 4.6, 5.0, 5.4] {
            let (below, _) = field.descent(Vec2::new(x, 5.125 - 1e-3)).expect("a way");
            let (above, _) = field.descent(Vec2::new(x, 5.125 + 1e-3)).expect("a way");
            assert!(below.dot(above) > 0.9995, "at x = {x}: {below} against {above}");
        }
    }

    #[test]
    fn on_a_wrapped_world_the_field_leads_across_the_seam() {
        // A wall across the whole height at x = 10 of a 20 × 10 wrapped world: from x = 8 the
        // goal at x = 12 is 16 away westward, across the seam at x = 0.
        let text = DOOR
            .replace("[[5, 0], [5, 10]]", "[[10, -1], [10, 11]]")
            .replace("max = [10, 10]", "max = [20, 10]\nkind = \"wrap\"")
            .replace("position = [9, 5]", "position = [12, 5]");
        let world = crate::Scenario::parse(&text, "r.toml").expect("valid").build_world();
        let index = ObstacleIndex::build(&world.obstacles, &world.bounds);
        let mut router = Router::default();
        router.refresh(&world, Some(&index));
        let o = router.offset(Goal::Target(0), Vec2::new(8.0, 5.0)).expect("a way across the seam");
        assert!((o.length() - 16.0).abs() < 0.5 && o.x < -0.99 * o.length(), "west, about 16: {o}");
        // Just west of the seam the way goes on west, into the image at the east side.
        let o = router.offset(Goal::Target(0), Vec2::new(0.2, 5.0)).expect("a way");
        assert!((o.length() - 8.2).abs() < 0.5 && o.x < -0.99 * o.length(), "west, about 8.2: {o}");
    }

    #[test]
    fn in_the_open_the_field_leads_straight_to_the_goal() {
        // No obstacle: from every point round the goal the descent points at it and the
        // distance is the straight one. A grid graph's shortest paths (8 neighbours) gave a
        // descent up to 22.5° off and distances up to 8 % long; fast marching (second order,
        // exact seeds within `SEED_CELLS`) is within a degree and 0.5 % here (0.6° and 0.2 %
        // measured).
        let bounds = Bounds { kind: BoundsKind::Open, min: Vec2::ZERO, max: Vec2::splat(40.0) };
        let goal = Vec2::new(20.0, 20.0);
        let field = Field::build(&bounds, &[], None, goal, 0.5);
        let mut worst = (0.0f32, 0.0f32);
        for k in 0..64 {
            let (s, c) = crate::math::sin_cos(k as f32 * std::f32::consts::TAU / 64.0);
            for r in [3.0f32, 8.0, 15.0] {
                let p = goal + Vec2::new(c, s) * r;
                let (direction, distance) = field.descent(p).expect("a way");
                let towards = (goal - p) / r;
                // The sine of the angle between the descent and the way to the goal.
                assert!(direction.dot(towards) > 0.0);
                worst.0 = worst.0.max(direction.perp_dot(towards).abs());
                worst.1 = worst.1.max((distance - r).abs() / r);
            }
        }
        assert!(worst.0 < 0.0175 && worst.1 < 0.005, "worst sine {}, worst distance {}", worst.0, worst.1);
    }
}
