//! Targets as seen during one tick: scripted moving points, agents by id, nearest of a group, own goals.

use crate::math::{Vec2, Vector, norm};
use crate::world::Target;

/// A target as seen during one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResolvedTarget<V = Vec2> {
    /// A point with a velocity (scripted points move; fixed ones have zero velocity).
    Point {
        /// Where the point is at the start of the tick (world units).
        position: V,
        /// Its velocity (world units per second): zero for a fixed point, what pursuit and
        /// evade extrapolate with for a moving one.
        velocity: V,
    },
    /// A specific agent's row, or `None` once it is gone.
    Row(Option<usize>),
    /// The nearest agent of this group, looked up per seeker.
    NearestOf(u16),
    /// The seeker's own random goal (`Agents::goal`).
    OwnGoal,
    /// A heading: the target lies `DIRECTION_REACH` ahead of every seeker along it.
    Direction(V),
    /// The seeker's current journey stage: its point is the seeker's own goal
    /// (`Agents::goal`); none for a seeker on no journey.
    Stage,
}

/// Position and velocity of a scripted point moving at `speed` along the closed loop through
/// `waypoints`, at time `t` seconds. Computed in f64 from the tick count, so it never drifts.
pub fn moving_point<V: Vector>(waypoints: &[V], speed: f32, t: f64) -> (V, V) {
    let first = waypoints[0];
    let n = waypoints.len();
    let seg = |k: usize| (waypoints[k], waypoints[(k + 1) % n]);
    let seg_len = |k: usize| {
        let (a, b) = seg(k);
        // Σ (b − a)² over the axes in order, in f64 (the plane's dx² + dy²).
        (0..V::DIMENSIONS)
            .map(|axis| b.axis(axis) as f64 - a.axis(axis) as f64)
            .fold(0.0, |sum, d| sum + d * d)
            .sqrt()
    };
    let total: f64 = (0..n).map(seg_len).sum();
    if n < 2 || total <= 0.0 {
        return (first, V::ZERO);
    }
    let mut s = (speed as f64 * t) % total;
    for k in 0..n {
        let len = seg_len(k);
        if s < len || k == n - 1 {
            let (a, b) = seg(k);
            let f = if len > 0.0 { (s / len).min(1.0) } else { 0.0 };
            let at = |axis: usize| a.axis(axis) as f64 + (b.axis(axis) as f64 - a.axis(axis) as f64) * f;
            return (V::from_fn(|axis| at(axis) as f32), norm(b - a) * speed);
        }
        s -= len;
    }
    unreachable!("the loop returns on its last segment")
}

/// Resolves every target for the tick starting at `time_s`.
pub fn resolve_targets<V: Vector>(
    targets: &[Target<V>],
    time_s: f64,
    row_of: impl Fn(u32) -> Option<usize>,
    out: &mut Vec<ResolvedTarget<V>>,
) {
    out.clear();
    out.extend(targets.iter().map(|t| match t {
        Target::Point(p) => ResolvedTarget::Point { position: *p, velocity: V::ZERO },
        Target::Moving { waypoints, speed } => {
            let (position, velocity) = moving_point(waypoints, *speed, time_s);
            ResolvedTarget::Point { position, velocity }
        }
        Target::Agent(id) => ResolvedTarget::Row(row_of(*id)),
        Target::NearestOf(g) => ResolvedTarget::NearestOf(*g),
        Target::Random { .. } | Target::Opposite { .. } | Target::Own => ResolvedTarget::OwnGoal,
        Target::Journey => ResolvedTarget::Stage,
        Target::Direction { direction } => ResolvedTarget::Direction(*direction),
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_point_loops_at_constant_speed() {
        let square = [Vec2::new(0.0, 0.0), Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0), Vec2::new(0.0, 10.0)];
        assert_eq!(moving_point(&square, 2.0, 0.0), (Vec2::ZERO, Vec2::new(2.0, 0.0)));
        assert_eq!(moving_point(&square, 2.0, 2.5), (Vec2::new(5.0, 0.0), Vec2::new(2.0, 0.0)));
        assert_eq!(moving_point(&square, 2.0, 7.5), (Vec2::new(10.0, 5.0), Vec2::new(0.0, 2.0)));
        // One lap is 40 units: 20 s later the point is back where it was.
        assert_eq!(moving_point(&square, 2.0, 22.5).0, Vec2::new(5.0, 0.0));
        assert_eq!(moving_point(&[Vec2::ONE], 2.0, 3.0), (Vec2::ONE, Vec2::ZERO));
    }
}
