//! ORCA for eight agents at once: their neighbour half-planes and both linear programs (the
//! fallback `linear_program3` included), one agent per AVX2 lane, operation for operation as
//! `orca.rs` and `linear_program.rs` compute them for one agent. A lane adds, multiplies,
//! divides and takes square roots with the same IEEE rounding as the one-agent code (and
//! nothing is fused), so every lane's velocity is the same bits as
//! [`super::orca::new_velocity`] gives that agent; the unit test checks it on random crowds.
//! Agents near obstacles, and processors without AVX2, take the one-agent path. The lane
//! arithmetic is `math::lanes`.

use crate::math::Vec2;
use crate::math::lanes::{LANES, Lanes};

use super::orca::OrcaAgent;
use super::surroundings::Body;
use super::surroundings_lanes::SurroundingsLanes;

/// One half-plane of every lane: point x, point y, direction x, direction y, and a mask of the
/// lanes that have it (all bits set; clear where `linear_program3` leaves a projected line out).
type LineSlot = [Lanes; 5];

/// The eight agents of one call and the buffers reused from call to call (one per worker).
#[derive(Clone, Debug, Default)]
pub struct OrcaLanes {
    /// Velocity x, velocity y, preferred x, preferred y, radius, max speed, 1 / time horizon.
    agent: [Lanes; 7],
    /// The neighbours of every lane (no walls: lanes hold agents with no obstacle near).
    around: SurroundingsLanes,
    /// The half-planes, line `k` of every lane in `lines[k]`.
    lines: Vec<LineSlot>,
    /// `linear_program3`'s lines projected on one line of each lane.
    projected: Vec<LineSlot>,
}

impl OrcaLanes {
    /// Empties every lane (no neighbours), before the lanes of a new block are set.
    pub fn clear(&mut self) {
        self.around.clear();
    }

    /// Lane `l`'s agent: `me`, its group's `1 / time_horizon` and its neighbours (nearest first,
    /// as [`super::orca::new_velocity`] takes them).
    pub fn set(
        &mut self,
        l: usize,
        me: &OrcaAgent,
        inv_horizon: f32,
        neighbours: impl Iterator<Item = Body>,
    ) {
        let values = [
            me.velocity.x,
            me.velocity.y,
            me.preferred.x,
            me.preferred.y,
            me.radius,
            me.max_speed,
            inv_horizon,
        ];
        for (column, value) in self.agent.iter_mut().zip(values) {
            column.0[l] = value;
        }
        self.around.set(l, neighbours, std::iter::empty());
    }

    /// Every lane's new velocity into `out`, with time step `dt`, for the agents last
    /// [`set`](Self::set) in each lane; returns how many lanes needed the fallback
    /// (`linear_program3`). Only on a processor where `math::lanes::available()`.
    pub fn new_velocities(&mut self, dt: f32, out: &mut [Vec2; LANES]) -> usize {
        assert!(crate::math::lanes::available(), "ORCA's lanes need AVX2");
        let most = self.around.most_bodies();
        if self.lines.len() < most {
            self.lines.resize(most, LineSlot::default());
            self.projected.resize(most, LineSlot::default());
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the processor supports AVX2 (checked above).
        unsafe {
            avx2::new_velocities(self, most, 1.0 / dt, out)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lanes without AVX2")
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The lanes' arithmetic: `F8` is eight `f32`, `M8` eight lane masks; each operator is the
    //! one AVX instruction of the same IEEE operation.
    use std::arch::x86_64::*;

    use super::{LANES, Lanes, LineSlot, OrcaLanes};
    use crate::math::Vec2;
    use crate::math::lanes::{F8, M8};
    use crate::models::linear_program::EPSILON;

    /// `a × b` as `linear_program::det`.
    #[inline(always)]
    fn det(ax: F8, ay: F8, bx: F8, by: F8) -> F8 {
        ax * by - ay * bx
    }

    /// `a · b` as glam's `Vec2::dot`.
    #[inline(always)]
    fn dot(ax: F8, ay: F8, bx: F8, by: F8) -> F8 {
        ax * bx + ay * by
    }

    /// A line of every lane: point x, point y, direction x, direction y, and the lanes that
    /// have it.
    #[inline(always)]
    fn load_line(slot: &LineSlot) -> (F8, F8, F8, F8, M8) {
        let [px, py, dx, dy, has] = slot.map(|c| F8::load(&c));
        (px, py, dx, dy, M8(has.0))
    }

    /// `linear_program1`'s bounds on line `(px, py, dx, dy)`: the part `t_left..t_right` of it
    /// inside the speed circle of `radius` and the half-planes of `before` (each in the lanes
    /// that have it), and the lanes where nothing is left.
    #[inline(always)]
    fn bounds_on(line: (F8, F8, F8, F8), before: &[LineSlot], radius: F8) -> (F8, F8, M8) {
        let (px, py, dx, dy) = line;
        let (zero, epsilon) = (F8::splat(0.0), F8::splat(EPSILON));
        let dot_pd = dot(px, py, dx, dy);
        let discriminant = dot_pd * dot_pd + radius * radius - dot(px, py, px, py);
        let root = discriminant.sqrt();
        let mut t_left = -dot_pd - root;
        let mut t_right = -dot_pd + root;
        let mut blocked = discriminant.lt(zero);
        for other in before {
            let (qx, qy, ex, ey, has) = load_line(other);
            let denominator = det(dx, dy, ex, ey);
            let numerator = det(ex, ey, px - qx, py - qy);
            let parallel = denominator.abs().le(epsilon);
            blocked = blocked | (has & parallel & numerator.lt(zero));
            let t = numerator / denominator;
            let bounds = has & !parallel;
            let bounds_right = bounds & denominator.ge(zero);
            let bounds_left = bounds & denominator.lt(zero);
            t_right = (bounds_right & t.lt(t_right)).select(t, t_right);
            t_left = (bounds_left & t_left.lt(t)).select(t, t_left);
        }
        (t_left, t_right, blocked | t_left.gt(t_right))
    }

    /// [`OrcaLanes::new_velocities`] for `most` neighbour slots.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn new_velocities(
        lanes: &mut OrcaLanes,
        most: usize,
        inv_dt: f32,
        out: &mut [Vec2; LANES],
    ) -> usize {
        let [vx, vy, ox, oy, radius, max_speed, inv_horizon] = lanes.agent.map(|c| F8::load(&c));
        let (inv_dt, half, zero) = (F8::splat(inv_dt), F8::splat(0.5), F8::splat(0.0));
        let every = M8::every();
        // SAFETY: `count` is eight `u32`, an unaligned load of 32 bytes.
        let count = unsafe { _mm256_loadu_si256(lanes.around.bodies_in.as_ptr().cast()) };
        // The half-planes (`orca::Relative::line`, between agents: half the change each).
        for (slot, line) in lanes.around.bodies[..most].iter().zip(&mut lanes.lines) {
            let [px, py, nvx, nvy, n_radius] = slot.map(|c| F8::load(&c));
            let (rvx, rvy, r) = (vx - nvx, vy - nvy, radius + n_radius);
            let dist_sq = dot(px, py, px, py);
            let r_sq = r * r;
            let apart = dist_sq.gt(r_sq);
            let inv = apart.select(inv_horizon, inv_dt);
            let (wx, wy) = (rvx - inv * px, rvy - inv * py);
            let w_len_sq = dot(wx, wy, wx, wy);
            let dot1 = dot(wx, wy, px, py);
            let on_cutoff = !apart | (dot1.lt(zero) & (dot1 * dot1).gt(r_sq * w_len_sq));
            let w_len = w_len_sq.sqrt();
            let inv_len = F8::splat(1.0) / w_len;
            let (ux, uy) = (wx * inv_len, wy * inv_len);
            let cut = r * inv - w_len;
            let (cut_ux, cut_uy) = (cut * ux, cut * uy);
            let leg = (dist_sq - r_sq).sqrt();
            let leg = det(px, py, wx, wy).gt(zero).select(leg, -leg);
            let inv_dist_sq = F8::splat(1.0) / dist_sq;
            let ldx = (px * leg - py * r) * inv_dist_sq;
            let ldy = (px * r + py * leg) * inv_dist_sq;
            let along = dot(rvx, rvy, ldx, ldy);
            let (leg_ux, leg_uy) = (along * ldx - rvx, along * ldy - rvy);
            let dx = on_cutoff.select(uy, ldx);
            let dy = on_cutoff.select(-ux, ldy);
            let ux = on_cutoff.select(cut_ux, leg_ux);
            let uy = on_cutoff.select(cut_uy, leg_uy);
            (vx + half * ux).store(&mut line[0]);
            (vy + half * uy).store(&mut line[1]);
            dx.store(&mut line[2]);
            dy.store(&mut line[3]);
            F8(every.0).store(&mut line[4]);
        }
        // `linear_program2` towards the preferred velocity (not a direction).
        let opt_sq = dot(ox, oy, ox, oy);
        let inv_len = F8::splat(1.0) / opt_sq.sqrt();
        let long = opt_sq.gt(max_speed * max_speed);
        let mut rx = long.select(ox * inv_len * max_speed, ox);
        let mut ry = long.select(oy * inv_len * max_speed, oy);
        let mut failed_at = count;
        // Lanes still looking (none has failed yet).
        let mut alive = every;
        for i in 0..most {
            let (px, py, dx, dy, _) = load_line(&lanes.lines[i]);
            let violated = alive & M8::above(count, i) & det(dx, dy, px - rx, py - ry).gt(zero);
            if !violated.any() {
                continue;
            }
            let (t_left, t_right, fail) = bounds_on((px, py, dx, dy), &lanes.lines[..i], max_speed);
            let t = dot(dx, dy, ox - px, oy - py);
            let t = t.lt(t_left).select(t_left, t.gt(t_right).select(t_right, t));
            let better = violated & !fail;
            rx = better.select(px + t * dx, rx);
            ry = better.select(py + t * dy, ry);
            let now_failed = violated & fail;
            failed_at =
                _mm256_blendv_epi8(failed_at, _mm256_set1_epi32(i as i32), _mm256_castps_si256(now_failed.0));
            alive = alive & !now_failed;
        }
        // The lanes that failed: `linear_program3` from the line that failed, with no obstacle
        // lines (lanes hold agents with none near).
        let fallback = !alive;
        let mut fallbacks = 0;
        if fallback.any() {
            let mut from = [0u32; LANES];
            // SAFETY: eight `u32`, an unaligned store of 32 bytes.
            unsafe { _mm256_storeu_si256(from.as_mut_ptr().cast(), failed_at) };
            let (counts, first) = (lanes.around.bodies_in, from.iter().min().copied().unwrap_or(0) as usize);
            fallbacks = (0..LANES).filter(|&l| from[l] < counts[l]).count();
            let mut distance = zero;
            let (lines, projected) = (&lanes.lines, &mut lanes.projected);
            for i in first..most {
                let (px, py, dx, dy, _) = load_line(&lines[i]);
                // Lanes past the line they failed at, whose velocity violates line `i` more
                // than any before it.
                let started = !M8::above(failed_at, i);
                let go =
                    fallback & started & M8::above(count, i) & det(dx, dy, px - rx, py - ry).gt(distance);
                if !go.any() {
                    continue;
                }
                // Every earlier line projected on line `i`; one parallel and the same way as it
                // is left out (its lanes' mask cleared).
                for (other, slot) in lines[..i].iter().zip(projected.iter_mut()) {
                    let (qx, qy, ex, ey, _) = load_line(other);
                    let d = det(dx, dy, ex, ey);
                    let parallel = d.abs().le(F8::splat(EPSILON));
                    let same_way = parallel & dot(dx, dy, ex, ey).gt(zero);
                    let s = det(ex, ey, px - qx, py - qy) / d;
                    let point_x = parallel.select(half * (px + qx), px + s * dx);
                    let point_y = parallel.select(half * (py + qy), py + s * dy);
                    let (fx, fy) = (ex - dx, ey - dy);
                    let inv_len = F8::splat(1.0) / dot(fx, fy, fx, fy).sqrt();
                    point_x.store(&mut slot[0]);
                    point_y.store(&mut slot[1]);
                    (fx * inv_len).store(&mut slot[2]);
                    (fy * inv_len).store(&mut slot[3]);
                    F8((!same_way).0).store(&mut slot[4]);
                }
                // `linear_program2` on them, furthest along `towards`; a lane where it fails
                // keeps its velocity.
                let (tx, ty) = (-dy, dx);
                let (mut sx, mut sy) = (tx * max_speed, ty * max_speed);
                let mut ok = go;
                for a in 0..i {
                    let (ax, ay, adx, ady, has) = load_line(&projected[a]);
                    let violated = ok & has & det(adx, ady, ax - sx, ay - sy).gt(zero);
                    if !violated.any() {
                        continue;
                    }
                    let (t_left, t_right, fail) = bounds_on((ax, ay, adx, ady), &projected[..a], max_speed);
                    let t = dot(tx, ty, adx, ady).gt(zero).select(t_right, t_left);
                    let better = violated & !fail;
                    sx = better.select(ax + t * adx, sx);
                    sy = better.select(ay + t * ady, sy);
                    ok = ok & !(violated & fail);
                }
                rx = ok.select(sx, rx);
                ry = ok.select(sy, ry);
                distance = go.select(det(dx, dy, px - rx, py - ry), distance);
            }
        }
        let (mut xs, mut ys) = (Lanes::default(), Lanes::default());
        rx.store(&mut xs);
        ry.store(&mut ys);
        for (l, v) in out.iter_mut().enumerate() {
            *v = Vec2::new(xs.0[l], ys.0[l]);
        }
        fallbacks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::orca::{OrcaScratch, new_velocity};
    use crate::models::orca_obstacles::OrcaObstacles;
    use crate::models::lanes_test::{Lcg, lanes_run_here};
    use crate::world::Orca;

    #[test]
    fn every_lane_is_the_same_bits_as_one_agent_alone() {
        if !lanes_run_here("ORCA") {
            return;
        }
        let orca = Orca {
            time_horizon: 10.0,
            time_horizon_obst: 10.0,
            neighbour_dist: 15.0,
            max_neighbours: 12,
            preferred_speed: None,
        };
        let (dt, geometry) = (0.25, OrcaObstacles::default());
        let mut rng = Lcg(7);
        let mut lanes = OrcaLanes::default();
        let mut scratch = OrcaScratch::default();
        let (mut fallbacks, mut agents, mut moved) = (0, 0, 0);
        // Sparse crowds (mostly legs and free velocities) to packed ones (overlaps, the
        // one-step cut-off and infeasible half-planes); lanes with no neighbours, and slots
        // left stale by the call before.
        for trial in 0..3000 {
            let spread = [1.5f32, 4.0, 12.0][trial % 3];
            let mut agent_of = Vec::new();
            for l in 0..LANES {
                let me = OrcaAgent {
                    velocity: rng.vec(2.0),
                    preferred: rng.vec(2.5),
                    radius: rng.next(0.2, 1.5),
                    max_speed: rng.next(0.5, 2.5),
                };
                let count = (rng.next(0.0, 13.0) as usize).min(12);
                let mut neighbours: Vec<Body> = (0..count)
                    .map(|_| Body {
                        offset: rng.vec(spread),
                        velocity: rng.vec(2.0),
                        radius: rng.next(0.2, 1.5),
                    })
                    .collect();
                if trial % 5 == 0 && count > 2 {
                    // The same body moving otherwise (a parallel leg, shifted), the same body
                    // (a coincident line) and its mirror image.
                    neighbours[1] = Body { velocity: rng.vec(2.0), ..neighbours[0] };
                    neighbours[2] = neighbours[0];
                    neighbours[count - 1].offset = -neighbours[0].offset;
                    if count > 4 {
                        // Nearly the same body: a leg parallel within `EPSILON`, but not quite.
                        let offset = neighbours[0].offset * (1.0 + 1e-6);
                        neighbours[3] = Body { offset, velocity: rng.vec(2.0), ..neighbours[0] };
                    }
                }
                lanes.set(l, &me, 1.0 / orca.time_horizon, neighbours.iter().copied());
                agent_of.push((me, neighbours));
            }
            let mut out = [Vec2::ZERO; LANES];
            fallbacks += lanes.new_velocities(dt, &mut out);
            for (l, (me, neighbours)) in agent_of.iter().enumerate() {
                let alone = new_velocity(&orca, dt, me, &geometry, neighbours.iter().copied(), &mut scratch);
                assert_eq!(
                    (out[l].x.to_bits(), out[l].y.to_bits()),
                    (alone.x.to_bits(), alone.y.to_bits()),
                    "trial {trial}, lane {l}: {} in lanes, {alone} alone",
                    out[l]
                );
                agents += 1;
                moved += usize::from(out[l] != me.preferred);
            }
        }
        // The crowds reached every path: the fallback, and half-planes that moved the velocity.
        assert!(fallbacks > agents / 50, "{fallbacks} of {agents} agents took the fallback");
        assert!(moved > agents / 2, "{moved} of {agents} agents had their velocity changed");
    }
}
