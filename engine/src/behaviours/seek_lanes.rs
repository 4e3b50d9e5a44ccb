//! Seek and arrive for eight agents in the plane at once, one per AVX2 lane, operation for
//! operation as `seek.rs` and `steer` compute them for one agent: `0 + weight · force`, so the
//! same bits. A lane whose offset `norm` cannot take plainly (a zero offset, or a squared length
//! that is not finite) is left to the one-agent code. The lane arithmetic is `math::lanes`.

use crate::math::lanes::{LANES, Lanes};

/// Eight agents' seeks: each one's offset to its target, its velocity and its max speed.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeekLanes {
    /// The offset `t − p`, x and y.
    pub to: [Lanes; 2],
    /// The velocity, x and y.
    pub velocity: [Lanes; 2],
    /// The max speed.
    pub max_speed: Lanes,
}

impl SeekLanes {
    /// `0 + weight · arrive(to, v, max_speed, slowing_radius)` of every lane, or of
    /// `seek(to, v, max_speed)` without a slowing radius, as x and y; and for each lane
    /// whether it holds that (false: the lane is the one-agent code's). Only on a processor
    /// where `math::lanes::available()`.
    pub fn weighted(&self, slowing_radius: Option<f32>, weight: f32) -> ([[f32; 2]; LANES], [bool; LANES]) {
        assert!(crate::math::lanes::available(), "seeks in lanes need AVX2");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the processor supports AVX2 (checked above).
        unsafe {
            avx2::weighted(self, slowing_radius, weight)
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lanes without AVX2")
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The lanes' arithmetic: each operator is the one AVX instruction of the same IEEE
    //! operation as the one-agent code's (glam's `Vec2` works component by component).
    use super::{LANES, SeekLanes};
    use crate::math::lanes::F8;

    /// [`SeekLanes::weighted`].
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn weighted(
        lanes: &SeekLanes,
        slowing_radius: Option<f32>,
        weight: f32,
    ) -> ([[f32; 2]; LANES], [bool; LANES]) {
        let [tx, ty] = lanes.to.map(|c| F8::load(&c));
        let [vx, vy] = lanes.velocity.map(|c| F8::load(&c));
        let max_speed = F8::load(&lanes.max_speed);
        let (zero, one) = (F8::splat(0.0), F8::splat(1.0));
        // `norm`'s plain case: `to / √|to|²` where `|to|²` is above 0 and finite.
        let len_sq = tx * tx + ty * ty;
        let plain = len_sq.gt(zero) & len_sq.lt(F8::splat(f32::INFINITY));
        let len = len_sq.sqrt();
        let (nx, ny) = (tx / len, ty / len);
        // arrive: `norm(to) · (max_speed · min(d / slowing_radius, 1)) − v`, `d = |to|` (the
        // same square root); `f32::min` gives 1 where the quotient is NaN, as the select does.
        let speed = match slowing_radius {
            Some(slowing) => {
                let share = len / F8::splat(slowing);
                max_speed * share.lt(one).select(share, one)
            }
            None => max_speed,
        };
        let w = F8::splat(weight);
        let fx = zero + (nx * speed - vx) * w;
        let fy = zero + (ny * speed - vy) * w;
        let (xs, ys) = (fx.to_array(), fy.to_array());
        (std::array::from_fn(|l| [xs[l], ys[l]]), plain.to_bools())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::{arrive, seek};
    use crate::math::Vec2;
    use crate::models::lanes_test::{Lcg, lanes_run_here};

    #[test]
    fn every_plain_lane_is_the_same_bits_as_one_agent_alone() {
        if !lanes_run_here("seek") {
            return;
        }
        let mut rng = Lcg(11);
        let (mut plain_lanes, mut left) = (0, 0);
        for trial in 0..4000 {
            let mut lanes = SeekLanes::default();
            let mut agents = Vec::new();
            for l in 0..LANES {
                let scale = [1e-3f32, 1.0, 50.0, 1e19][trial % 4];
                let mut to = rng.vec(scale);
                if trial % 7 == 0 && l == 3 {
                    to = Vec2::ZERO;
                }
                let (v, max_speed) = (rng.vec(2.0), rng.next(0.0, 3.0));
                (lanes.to[0].0[l], lanes.to[1].0[l]) = (to.x, to.y);
                (lanes.velocity[0].0[l], lanes.velocity[1].0[l]) = (v.x, v.y);
                lanes.max_speed.0[l] = max_speed;
                agents.push((to, v, max_speed));
            }
            let slowing = [None, Some(2.0), Some(0.5)][trial % 3];
            let weight = rng.next(-2.0, 2.0);
            let (forces, plain) = lanes.weighted(slowing, weight);
            for (l, &(to, v, max_speed)) in agents.iter().enumerate() {
                if !plain[l] {
                    left += 1;
                    assert!(!(to.length_squared() > 0.0 && to.length_squared().is_finite()), "lane {l}: {to}");
                    continue;
                }
                plain_lanes += 1;
                let force = match slowing {
                    Some(s) => arrive(to, v, max_speed, s),
                    None => seek(to, v, max_speed),
                };
                let alone = Vec2::ZERO + force * weight;
                assert_eq!(
                    (forces[l][0].to_bits(), forces[l][1].to_bits()),
                    (alone.x.to_bits(), alone.y.to_bits()),
                    "trial {trial}, lane {l}: {:?} in lanes, {alone} alone",
                    forces[l]
                );
            }
        }
        // Both kinds of lane were reached: zero offsets and overflowing ones go to one agent.
        assert!(left > 100 && plain_lanes > 20_000, "{left} left, {plain_lanes} plain");
    }
}
