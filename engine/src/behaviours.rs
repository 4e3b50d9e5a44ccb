//! The steering behaviours, as in `shared/spec/behaviours.md`, and the `steer` pass.
//!
//! Each formula is a small pure function of offsets and velocities, so it can be tested against
//! values computed by hand. Offsets (`to_target = t - p`) come from `Bounds::offset`, which is
//! the minimum image on a wrapped world; on an open world it is exactly `t - p`.

use rayon::prelude::*;

use crate::index::{Neighbours, SpatialIndex};
use crate::math::{Vec2, norm};
use crate::rng::{self, AgentRng};
use crate::world::{Behaviour, Bounds, EvadePrediction, Group, SeparationVariant, Target, TargetId};

/// seek: `desired = norm(t - p) · max_speed; force = desired - v`.
#[inline]
pub fn seek(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(to_target) * max_speed - v
}

/// flee: `desired = norm(p - t) · max_speed; force = desired - v`.
#[inline]
pub fn flee(to_target: Vec2, v: Vec2, max_speed: f32) -> Vec2 {
    norm(-to_target) * max_speed - v
}

/// arrive: `desired = norm(t - p) · max_speed · min(1, d / slowing_radius); force = desired - v`.
#[inline]
pub fn arrive(to_target: Vec2, v: Vec2, max_speed: f32, slowing_radius: f32) -> Vec2 {
    let d = to_target.length();
    norm(to_target) * (max_speed * (d / slowing_radius).min(1.0)) - v
}

/// The wander circle's jitter step: `c = norm(c + (ux, uy) · jitter · dt) · R`, with `ux`, `uy`
/// uniform in [-1, 1).
#[inline]
pub fn wander_jitter(c: Vec2, ux: f32, uy: f32, jitter: f32, dt: f32, radius: f32) -> Vec2 {
    norm(c + Vec2::new(ux, uy) * (jitter * dt)) * radius
}

/// wander: `w = p + norm(v) · D + c; force = norm(w - p) · max_speed - v`.
#[inline]
pub fn wander(v: Vec2, c: Vec2, distance: f32, max_speed: f32) -> Vec2 {
    seek(norm(v) * distance + c, v, max_speed)
}

/// pursuit: `T = |q.p - p| / max_speed` (or a fixed look-ahead),
/// `future = q.p + q.v · T; force = seek(future)`.
#[inline]
pub fn pursuit(to_quarry: Vec2, quarry_v: Vec2, v: Vec2, max_speed: f32, look_ahead_s: Option<f32>) -> Vec2 {
    let t = look_ahead_s.unwrap_or_else(|| to_quarry.length() / max_speed);
    seek(to_quarry + quarry_v * t, v, max_speed)
}

/// evade: `T = |q.p - p| / (max_speed + |q.v|)` (or `/ max_speed`, or fixed),
/// `future = q.p + q.v · T; force = flee(future)`.
#[inline]
pub fn evade(
    to_pursuer: Vec2,
    pursuer_v: Vec2,
    v: Vec2,
    max_speed: f32,
    look_ahead_s: Option<f32>,
    prediction: EvadePrediction,
) -> Vec2 {
    let t = look_ahead_s.unwrap_or_else(|| {
        let d = to_pursuer.length();
        match prediction {
            EvadePrediction::TargetSpeed => d / (max_speed + pursuer_v.length()),
            EvadePrediction::OwnSpeed => d / max_speed,
        }
    });
    flee(to_pursuer + pursuer_v * t, v, max_speed)
}

/// separation (mean): `s = Σ (n.p - p) / count; force = norm(-s) · max_force`; zero with no
/// neighbours. `offsets` are `n.p - p`.
pub fn separation(offsets: impl Iterator<Item = Vec2>, max_force: f32, variant: SeparationVariant) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    match variant {
        SeparationVariant::Mean => {
            for o in offsets {
                sum += o;
                count += 1;
            }
            if count == 0 {
                return Vec2::ZERO;
            }
            norm(-(sum / count as f32)) * max_force
        }
        SeparationVariant::InverseDistance => {
            for o in offsets {
                let d_sq = o.length_squared();
                // Coincident neighbours give no direction; skipping them keeps the sum finite.
                if d_sq > 1e-12 {
                    sum += norm(-o) / d_sq.sqrt();
                }
            }
            crate::math::trunc(sum, max_force)
        }
    }
}

/// alignment: `h = Σ norm(n.v) / count; force = h - norm(v)`; zero with no neighbours.
pub fn alignment(neighbour_velocities: impl Iterator<Item = Vec2>, v: Vec2) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    for nv in neighbour_velocities {
        sum += norm(nv);
        count += 1;
    }
    if count == 0 {
        return Vec2::ZERO;
    }
    sum / count as f32 - norm(v)
}

/// cohesion: `c = Σ n.p / count; force = seek(c)`, written with offsets (`c - p = Σ (n.p - p) /
/// count`) so it also holds across a wrapped seam. Zero with no neighbours.
pub fn cohesion(offsets: impl Iterator<Item = Vec2>, v: Vec2, max_speed: f32) -> Vec2 {
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    for o in offsets {
        sum += o;
        count += 1;
    }
    if count == 0 {
        return Vec2::ZERO;
    }
    seek(sum / count as f32, v, max_speed)
}

/// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
#[inline]
pub fn flock_target(to_target: Vec2, v: Vec2, speed: f32) -> Vec2 {
    (norm(to_target) - norm(v)) * speed
}

/// A target as seen during one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResolvedTarget {
    /// A point with a velocity (scripted points move; fixed ones have zero velocity).
    Point { position: Vec2, velocity: Vec2 },
    /// A specific agent's row, or `None` once it is gone.
    Row(Option<usize>),
    /// The nearest agent of this group, looked up per seeker.
    NearestOf(u16),
}

/// Position and velocity of a scripted point moving at `speed` along the closed loop through
/// `waypoints`, at time `t` seconds. Computed in f64 from the tick count, so it never drifts.
pub fn moving_point(waypoints: &[Vec2], speed: f32, t: f64) -> (Vec2, Vec2) {
    let first = waypoints[0];
    let n = waypoints.len();
    let seg = |k: usize| (waypoints[k], waypoints[(k + 1) % n]);
    let seg_len = |k: usize| {
        let (a, b) = seg(k);
        let (dx, dy) = (b.x as f64 - a.x as f64, b.y as f64 - a.y as f64);
        (dx * dx + dy * dy).sqrt()
    };
    let total: f64 = (0..n).map(seg_len).sum();
    if n < 2 || total <= 0.0 {
        return (first, Vec2::ZERO);
    }
    let mut s = (speed as f64 * t) % total;
    for k in 0..n {
        let len = seg_len(k);
        if s < len || k == n - 1 {
            let (a, b) = seg(k);
            let f = if len > 0.0 { (s / len).min(1.0) } else { 0.0 };
            let x = a.x as f64 + (b.x as f64 - a.x as f64) * f;
            let y = a.y as f64 + (b.y as f64 - a.y as f64) * f;
            return (Vec2::new(x as f32, y as f32), norm(b - a) * speed);
        }
        s -= len;
    }
    unreachable!("the loop returns on its last segment")
}

/// Resolves every target for the tick starting at `time_s`.
pub fn resolve_targets(
    targets: &[Target],
    time_s: f64,
    row_of: impl Fn(u32) -> Option<usize>,
    out: &mut Vec<ResolvedTarget>,
) {
    out.clear();
    out.extend(targets.iter().map(|t| match t {
        Target::Point(p) => ResolvedTarget::Point { position: *p, velocity: Vec2::ZERO },
        Target::Moving { waypoints, speed } => {
            let (position, velocity) = moving_point(waypoints, *speed, time_s);
            ResolvedTarget::Point { position, velocity }
        }
        Target::Agent(id) => ResolvedTarget::Row(row_of(*id)),
        Target::NearestOf(g) => ResolvedTarget::NearestOf(*g),
    }));
}

/// Everything `steer` reads: old state, the neighbour lists and the index.
pub struct SteerInputs<'a> {
    pub tick: u64,
    pub dt: f32,
    pub bounds: &'a Bounds,
    pub groups: &'a [Group],
    pub targets: &'a [ResolvedTarget],
    pub id: &'a [u32],
    pub group: &'a [u16],
    pub position: &'a [Vec2],
    pub velocity: &'a [Vec2],
    pub max_speed: &'a [f32],
    pub neighbours: &'a Neighbours,
    pub index: &'a SpatialIndex,
}

/// The agent rows `steer` writes, besides the steering output.
pub struct SteerState<'a> {
    pub wander: &'a mut [Vec2],
    pub flock_force: &'a mut [Vec2],
    pub rng: &'a mut [AgentRng],
}

impl SteerInputs<'_> {
    /// Offset from agent `i` to target `t`, and the target's velocity; `None` if it is gone.
    fn target(&self, t: TargetId, i: usize) -> Option<(Vec2, Vec2)> {
        let p = self.position[i];
        let row = match self.targets[t as usize] {
            ResolvedTarget::Point { position, velocity } => {
                return Some((self.bounds.offset(p, position), velocity));
            }
            ResolvedTarget::Row(row) => row?,
            ResolvedTarget::NearestOf(g) => self.index.nearest_of_group(g, p, self.position, self.id)?,
        };
        Some((self.bounds.offset(p, self.position[row]), self.velocity[row]))
    }

    /// Offsets `n.p - p` to agent `i`'s neighbours within `radius`, nearest first.
    fn neighbour_offsets(&self, i: usize, radius: f32) -> impl Iterator<Item = Vec2> + '_ {
        let (rows, dist_sq) = self.neighbours.of(i);
        let p = self.position[i];
        let r_sq = radius * radius;
        rows.iter()
            .zip(dist_sq)
            .take_while(move |&(_, &d)| d <= r_sq)
            .map(move |(&row, _)| self.bounds.offset(p, self.position[row as usize]))
    }

    fn neighbour_velocities(&self, i: usize, radius: f32) -> impl Iterator<Item = Vec2> + '_ {
        let (rows, dist_sq) = self.neighbours.of(i);
        let r_sq = radius * radius;
        rows.iter()
            .zip(dist_sq)
            .take_while(move |&(_, &d)| d <= r_sq)
            .map(move |(&row, _)| self.velocity[row as usize])
    }

    /// One behaviour's force on agent `i`.
    fn force(&self, b: &Behaviour, i: usize, wander_c: &mut Vec2, rng: &mut AgentRng) -> Vec2 {
        let v = self.velocity[i];
        let max_speed = self.max_speed[i];
        match *b {
            Behaviour::Seek { target } => {
                self.target(target, i).map_or(Vec2::ZERO, |(o, _)| seek(o, v, max_speed))
            }
            Behaviour::Flee { target } => {
                self.target(target, i).map_or(Vec2::ZERO, |(o, _)| flee(o, v, max_speed))
            }
            Behaviour::Arrive { target, slowing_radius } => {
                self.target(target, i).map_or(Vec2::ZERO, |(o, _)| arrive(o, v, max_speed, slowing_radius))
            }
            Behaviour::Wander { radius, distance, jitter } => {
                let ux = rng::uniform(rng, -1.0, 1.0);
                let uy = rng::uniform(rng, -1.0, 1.0);
                *wander_c = wander_jitter(*wander_c, ux, uy, jitter, self.dt, radius);
                wander(v, *wander_c, distance, max_speed)
            }
            Behaviour::Pursuit { target, look_ahead_s } => self
                .target(target, i)
                .map_or(Vec2::ZERO, |(o, qv)| pursuit(o, qv, v, max_speed, look_ahead_s)),
            Behaviour::Evade { target, look_ahead_s, prediction } => self
                .target(target, i)
                .map_or(Vec2::ZERO, |(o, qv)| evade(o, qv, v, max_speed, look_ahead_s, prediction)),
            Behaviour::Separation { radius, max_force, variant } => {
                separation(self.neighbour_offsets(i, radius), max_force, variant)
            }
            Behaviour::Alignment { radius } => alignment(self.neighbour_velocities(i, radius), v),
            Behaviour::Cohesion { radius } => cohesion(self.neighbour_offsets(i, radius), v, max_speed),
            Behaviour::FlockTarget { target, speed } => {
                self.target(target, i).map_or(Vec2::ZERO, |(o, _)| flock_target(o, v, speed))
            }
        }
    }

    /// Agent `i`'s steering: `Σ weight · force` over its group's behaviours, in declared order.
    /// With a flocking interval above one tick, the flocking part is the cached sum, refreshed
    /// on ticks where `(tick + id) % interval == 0` (staggered so the work spreads evenly).
    fn steer_agent(&self, i: usize, wander_c: &mut Vec2, flock_force: &mut Vec2, rng: &mut AgentRng) -> Vec2 {
        let g = &self.groups[self.group[i] as usize];
        let interval = g.flocking_interval_ticks.max(1) as u64;
        let cached = interval > 1;
        let refresh = !cached || self.tick == 0 || (self.tick + self.id[i] as u64).is_multiple_of(interval);
        let mut steering = Vec2::ZERO;
        let mut flocking = Vec2::ZERO;
        for wb in &g.behaviours {
            if cached && wb.behaviour.is_flocking() {
                if refresh {
                    flocking += wb.weight * self.force(&wb.behaviour, i, wander_c, rng);
                }
            } else {
                steering += wb.weight * self.force(&wb.behaviour, i, wander_c, rng);
            }
        }
        if cached {
            if refresh {
                *flock_force = flocking;
            }
            steering += *flock_force;
        }
        steering
    }
}

/// The `steer` pass. Reads old positions and velocities of every agent; writes row `i` of
/// `steering`, and of the wander, flocking-cache and generator columns, for agent `i` only.
pub fn steer(inputs: &SteerInputs<'_>, state: SteerState<'_>, steering: &mut [Vec2]) {
    steering
        .par_iter_mut()
        .zip(state.wander.par_iter_mut())
        .zip(state.flock_force.par_iter_mut())
        .zip(state.rng.par_iter_mut())
        .enumerate()
        .with_min_len(64)
        .for_each(|(i, (((out, wander_c), flock_force), rng))| {
            *out = inputs.steer_agent(i, wander_c, flock_force, rng);
        });
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
