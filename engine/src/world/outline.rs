//! Geometry of point chains, for polygon and wall obstacles: the nearest point of an open
//! polyline or a closed polygon's boundary, point-in-polygon, orientation and the checks a
//! scenario's polygons must pass (no zero-length edge, no self-intersection).

use crate::math::{Vec2, norm};

/// The point of segment `ab` nearest to `q`.
#[inline]
pub fn nearest_on_segment(a: Vec2, b: Vec2, q: Vec2) -> Vec2 {
    let ab = b - a;
    let len_sq = ab.length_squared();
    if len_sq == 0.0 {
        return a;
    }
    let t = ((q - a).dot(ab) / len_sq).clamp(0.0, 1.0);
    a + ab * t
}

/// The point of the chain through `points` nearest to `q` (closed: the last point joins the
/// first) and the index of its segment (segment `k` runs from point `k` to the next); ties go
/// to the lower segment.
pub fn nearest_on_chain(points: &[Vec2], closed: bool, q: Vec2) -> (Vec2, usize) {
    let n = points.len();
    let segments = if closed { n } else { n.saturating_sub(1) };
    let mut best = (points.first().copied().unwrap_or(Vec2::ZERO), 0usize, f32::INFINITY);
    for k in 0..segments {
        let p = nearest_on_segment(points[k], points[(k + 1) % n], q);
        let d = (q - p).length_squared();
        if d < best.2 {
            best = (p, k, d);
        }
    }
    (best.0, best.1)
}

/// The unit normal on the right of segment `ab` (outward for a counter-clockwise polygon).
#[inline]
pub fn right_normal(a: Vec2, b: Vec2) -> Vec2 {
    let d = norm(b - a);
    Vec2::new(d.y, -d.x)
}

/// Is `q` inside the polygon (even-odd rule; points on the boundary may go either way)?
pub fn contains(vertices: &[Vec2], q: Vec2) -> bool {
    let n = vertices.len();
    let mut inside = false;
    let mut j = n.wrapping_sub(1);
    for i in 0..n {
        let (a, b) = (vertices[i], vertices[j]);
        if (a.y > q.y) != (b.y > q.y) && q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Twice the polygon's signed area, in f64: positive counter-clockwise.
pub fn double_area(vertices: &[Vec2]) -> f64 {
    let n = vertices.len();
    (0..n)
        .map(|i| {
            let (a, b) = (vertices[i], vertices[(i + 1) % n]);
            a.x as f64 * b.y as f64 - b.x as f64 * a.y as f64
        })
        .sum()
}

/// Do the closed segments `ab` and `cd` share a point (crossing or touching)? In f64.
pub fn segments_meet(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let p = |v: Vec2| (v.x as f64, v.y as f64);
    let (a, b, c, d) = (p(a), p(b), p(c), p(d));
    let orient = |o: (f64, f64), p: (f64, f64), q: (f64, f64)| {
        let v = (p.0 - o.0) * (q.1 - o.1) - (p.1 - o.1) * (q.0 - o.0);
        (v > 0.0) as i8 - (v < 0.0) as i8
    };
    let on = |o: (f64, f64), p: (f64, f64), q: (f64, f64)| {
        q.0 >= o.0.min(p.0) && q.0 <= o.0.max(p.0) && q.1 >= o.1.min(p.1) && q.1 <= o.1.max(p.1)
    };
    let (o1, o2, o3, o4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b));
    if o1 != o2 && o3 != o4 {
        return true;
    }
    (o1 == 0 && on(a, b, c))
        || (o2 == 0 && on(a, b, d))
        || (o3 == 0 && on(c, d, a))
        || (o4 == 0 && on(c, d, b))
}

/// The first pair of edges of a chain that meet although they are not neighbours (closed: the
/// last edge neighbours the first): `(i, j)` with `i < j`, or `None` for a simple chain.
pub fn self_intersection(points: &[Vec2], closed: bool) -> Option<(usize, usize)> {
    let n = points.len();
    let edges = if closed { n } else { n.saturating_sub(1) };
    let edge = |k: usize| (points[k], points[(k + 1) % n]);
    for i in 0..edges {
        for j in i + 1..edges {
            let neighbours = j == i + 1 || (closed && i == 0 && j == edges - 1);
            if neighbours {
                continue;
            }
            let ((a, b), (c, d)) = (edge(i), edge(j));
            if segments_meet(a, b, c, d) {
                return Some((i, j));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn the_nearest_point_of_a_chain_and_its_segment() {
        let l = [v(0.0, 0.0), v(10.0, 0.0), v(10.0, 10.0)];
        assert_eq!(nearest_on_chain(&l, false, v(4.0, -3.0)), (v(4.0, 0.0), 0));
        assert_eq!(nearest_on_chain(&l, false, v(12.0, 5.0)), (v(10.0, 5.0), 1));
        // Closed, the third segment joins (10, 10) to the origin.
        assert_eq!(nearest_on_chain(&l, true, v(3.0, 5.0)).1, 2);
    }

    #[test]
    fn inside_orientation_and_self_intersection() {
        let square = [v(0.0, 0.0), v(4.0, 0.0), v(4.0, 4.0), v(0.0, 4.0)];
        assert!(contains(&square, v(2.0, 2.0)) && !contains(&square, v(5.0, 2.0)));
        assert_eq!(double_area(&square), 32.0);
        assert_eq!(right_normal(square[0], square[1]), v(0.0, -1.0), "outward below the bottom edge");
        assert_eq!(self_intersection(&square, true), None);
        let bow = [v(0.0, 0.0), v(4.0, 4.0), v(4.0, 0.0), v(0.0, 4.0)];
        assert_eq!(self_intersection(&bow, true), Some((0, 2)));
        // A U is simple; its open chain touching itself is not.
        let u = [v(0.0, 4.0), v(0.0, 0.0), v(4.0, 0.0), v(4.0, 4.0)];
        assert_eq!(self_intersection(&u, false), None);
        let back = [v(0.0, 0.0), v(4.0, 0.0), v(4.0, 2.0), v(2.0, 0.0)];
        assert_eq!(self_intersection(&back, false), Some((0, 2)));
    }
}
