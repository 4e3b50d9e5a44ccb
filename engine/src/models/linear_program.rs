//! ORCA's velocity selection: the 2D linear programs of van den Berg et al. (2011) over
//! half-planes and a speed circle, written operation for operation as RVO2 2.0 computes them
//! in `float` (its `linearProgram1/2/3`), so the same inputs give the same bits.

use crate::math::Vec2;

/// RVO2's tolerance for (almost) parallel lines.
pub const EPSILON: f32 = 0.00001;

/// A half-plane boundary: the permitted velocities lie to the left of `direction` through
/// `point` (`det(direction, point − v) ≤ 0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// A point on the line.
    pub point: Vec2,
    /// The line's unit direction.
    pub direction: Vec2,
}

/// `a × b`, the 2D cross product (RVO2's `det`).
#[inline]
pub fn det(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// `v / s` as RVO2 divides: by multiplying with `1 / s`.
#[inline]
pub fn div(v: Vec2, s: f32) -> Vec2 {
    let inv = 1.0 / s;
    Vec2::new(v.x * inv, v.y * inv)
}

/// `v / |v|` as RVO2 normalises.
#[inline]
pub fn normalize(v: Vec2) -> Vec2 {
    div(v, v.dot(v).sqrt())
}

/// The best point on line `line_no` inside the speed circle of `radius` and the half-planes of
/// `lines[..line_no]`: nearest `opt` (or furthest along `opt` with `direction_opt`); `None`
/// when there is none.
fn linear_program1(
    lines: &[Line],
    line_no: usize,
    radius: f32,
    opt: Vec2,
    direction_opt: bool,
) -> Option<Vec2> {
    let line = lines[line_no];
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.dot(line.point);
    if discriminant < 0.0 {
        // The speed circle lies wholly outside this line's half-plane.
        return None;
    }
    let root = discriminant.sqrt();
    let (mut t_left, mut t_right) = (-dot - root, -dot + root);
    // Without a branch per line (which side bounds `t` is a coin toss): `t_left` only grows
    // and `t_right` only shrinks, so testing them once at the end finds exactly what RVO2's
    // test after each line finds, and the bounds that survive are the same bits.
    let mut blocked = false;
    for other in &lines[..line_no] {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        // (Almost) parallel: all of this line is on one side of the other, which bounds
        // nothing or leaves nothing.
        let parallel = denominator.abs() <= EPSILON;
        blocked |= parallel & (numerator < 0.0);
        let t = numerator / denominator;
        let bounds_right = !parallel & (denominator >= 0.0);
        let bounds_left = !parallel & (denominator < 0.0);
        // RVO2's `std::min(tRight, t)` and `std::max(tLeft, t)`: the bound moves only when `t`
        // is strictly beyond it (a NaN or an equal `t` keeps it), as `orca_lanes` does too.
        t_right = if bounds_right & (t < t_right) { t } else { t_right };
        t_left = if bounds_left & (t_left < t) { t } else { t_left };
    }
    if blocked || t_left > t_right {
        return None;
    }
    let at = |t: f32| line.point + t * line.direction;
    Some(if direction_opt {
        if opt.dot(line.direction) > 0.0 { at(t_right) } else { at(t_left) }
    } else {
        let t = line.direction.dot(opt - line.point);
        if t < t_left {
            at(t_left)
        } else if t > t_right {
            at(t_right)
        } else {
            at(t)
        }
    })
}

/// The point inside the speed circle of `radius` and every half-plane of `lines` nearest `opt`
/// (or furthest along the unit `opt` with `direction_opt`), into `result`. Returns
/// `lines.len()` on success, or the index of the first line that left no such point (then
/// `result` is the best point before it).
pub fn linear_program2(
    lines: &[Line],
    radius: f32,
    opt: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> usize {
    *result = if direction_opt {
        opt * radius
    } else if opt.dot(opt) > radius * radius {
        normalize(opt) * radius
    } else {
        opt
    };
    for i in 0..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > 0.0 {
            match linear_program1(lines, i, radius, opt, direction_opt) {
                Some(better) => *result = better,
                None => return i,
            }
        }
    }
    lines.len()
}

/// The fallback when the half-planes leave no velocity: keeping the first `hard` lines (the
/// obstacles') satisfied, the velocity that violates the others by the least distance, found
/// from line `begin` on (RVO2's `linearProgram3`). `projected` is scratch.
pub fn linear_program3(
    lines: &[Line],
    hard: usize,
    begin: usize,
    radius: f32,
    result: &mut Vec2,
    projected: &mut Vec<Line>,
) {
    let mut distance = 0.0f32;
    for i in begin..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) > distance {
            projected.clear();
            projected.extend_from_slice(&lines[..hard]);
            for j in hard..i {
                let d = det(lines[i].direction, lines[j].direction);
                let point = if d.abs() <= EPSILON {
                    if lines[i].direction.dot(lines[j].direction) > 0.0 {
                        // Parallel, the same way: line j adds nothing.
                        continue;
                    }
                    0.5 * (lines[i].point + lines[j].point)
                } else {
                    lines[i].point
                        + (det(lines[j].direction, lines[i].point - lines[j].point) / d) * lines[i].direction
                };
                projected.push(Line { point, direction: normalize(lines[j].direction - lines[i].direction) });
            }
            let before = *result;
            let towards = Vec2::new(-lines[i].direction.y, lines[i].direction.x);
            if linear_program2(projected, radius, towards, true, result) < projected.len() {
                // In principle impossible (the result was feasible); float rounding: keep it.
                *result = before;
            }
            distance = det(lines[i].direction, lines[i].point - *result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_no_lines_the_preferred_velocity_is_kept_or_cut_to_the_circle() {
        let mut r = Vec2::ZERO;
        assert_eq!(linear_program2(&[], 2.0, Vec2::new(1.0, 1.0), false, &mut r), 0);
        assert_eq!(r, Vec2::new(1.0, 1.0));
        linear_program2(&[], 2.0, Vec2::new(3.0, 4.0), false, &mut r);
        assert!((r - Vec2::new(1.2, 1.6)).length() < 1e-6, "{r}");
    }

    #[test]
    fn one_half_plane_projects_the_preferred_velocity_onto_its_line() {
        // Permitted: x ≤ 0.5 (left of the upward line through (0.5, 0)).
        let lines = [Line { point: Vec2::new(0.5, 0.0), direction: Vec2::new(0.0, 1.0) }];
        let mut r = Vec2::ZERO;
        assert_eq!(linear_program2(&lines, 2.0, Vec2::new(1.0, 0.25), false, &mut r), 1);
        assert_eq!(r, Vec2::new(0.5, 0.25));
    }

    #[test]
    fn contradicting_half_planes_fall_back_to_the_least_violation() {
        // x ≤ −1 and x ≥ 1 cannot both hold: the fallback takes x = 0, violating each by 1.
        let lines = [
            Line { point: Vec2::new(-1.0, 0.0), direction: Vec2::new(0.0, 1.0) },
            Line { point: Vec2::new(1.0, 0.0), direction: Vec2::new(0.0, -1.0) },
        ];
        let mut r = Vec2::ZERO;
        let failed = linear_program2(&lines, 2.0, Vec2::new(0.3, 0.0), false, &mut r);
        assert_eq!(failed, 1);
        let mut scratch = Vec::new();
        linear_program3(&lines, 0, failed, 2.0, &mut r, &mut scratch);
        assert!(r.x.abs() < 1e-6, "{r}");
    }
}
