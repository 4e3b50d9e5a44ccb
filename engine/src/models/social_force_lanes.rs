//! Social force for eight agents at once, one agent per AVX2 lane, operation for operation as
//! [`super::social_force::acceleration`] computes it for one: the driving term, then every
//! neighbour's and wall's push (the exponential is `F8::exp`, libm's `expf` lane by lane), body
//! force and friction, in the one-agent order. Every lane's acceleration is the bits the
//! one-agent function gives; the unit test checks it on random crowds.

use crate::math::lanes::{LANES, Lanes};
use crate::math::{Vec2, norm};
use crate::world::SocialForce;

use super::social_force::driving;
use super::surroundings::{Body, WallNear, Walker};
use super::surroundings_lanes::SurroundingsLanes;

/// Eight agents of one call and the buffers reused from call to call (one per worker).
#[derive(Clone, Debug, Default)]
pub struct SocialForceLanes {
    /// The driving term x and y, heading x and y, velocity x and y, radius, strength, range,
    /// wall strength, body, friction, anisotropy.
    agent: [Lanes; 13],
    /// The neighbours and walls of every lane.
    around: SurroundingsLanes,
}

impl SocialForceLanes {
    /// Empties every lane.
    pub fn clear(&mut self) {
        self.around.clear();
    }

    /// Lane `l`'s agent, as [`super::social_force::acceleration`] takes it.
    pub fn set(
        &mut self,
        l: usize,
        sf: &SocialForce,
        me: &Walker,
        neighbours: impl Iterator<Item = Body>,
        walls: impl Iterator<Item = WallNear>,
    ) {
        let a = driving(sf, me.velocity, me.preferred);
        let heading = norm(me.preferred);
        let values = [
            a.x,
            a.y,
            heading.x,
            heading.y,
            me.velocity.x,
            me.velocity.y,
            me.radius,
            sf.strength,
            sf.range,
            sf.wall_strength,
            sf.body,
            sf.friction,
            sf.anisotropy,
        ];
        for (column, value) in self.agent.iter_mut().zip(values) {
            column.0[l] = value;
        }
        self.around.set(l, neighbours, walls);
    }

    /// Every lane's acceleration into `out` (lanes never set hold what the last call left).
    /// Only on a processor where `math::lanes::available()`.
    pub fn accelerations(&self, out: &mut [Vec2; LANES]) {
        assert!(crate::math::lanes::available(), "the social force lanes need AVX2");
        #[cfg(target_arch = "x86_64")]
        {
            let (mut x, mut y) = (Lanes::default(), Lanes::default());
            // SAFETY: the processor supports AVX2 (checked above).
            unsafe { avx2::accelerations(self, &mut x, &mut y) };
            for (l, a) in out.iter_mut().enumerate() {
                *a = Vec2::new(x.0[l], y.0[l]);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lanes without AVX2")
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The lanes' arithmetic (`math::lanes`).
    use super::{Lanes, SocialForceLanes};
    use crate::math::lanes::{F8, M8};

    /// `max(x, 0)` as `f32::max` gives it (0 for NaN).
    #[inline(always)]
    fn positive_part(x: F8) -> F8 {
        let zero = F8::splat(0.0);
        x.gt(zero).select(x, zero)
    }

    /// Every lane's acceleration into `x`, `y`.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn accelerations(lanes: &SocialForceLanes, x: &mut Lanes, y: &mut Lanes) {
        let [mut ax, mut ay, hx, hy, vx, vy, radius, strength, range, wall_strength, body, friction, anisotropy] =
            lanes.agent.map(|c| F8::load(&c));
        let (zero, one, half) = (F8::splat(0.0), F8::splat(1.0), F8::splat(0.5));
        let around = &lanes.around;
        for (k, slot) in around.bodies[..around.most_bodies()].iter().enumerate() {
            let [ox, oy, jvx, jvy, other] = slot.map(|c| F8::load(&c));
            let d = (ox * ox + oy * oy).sqrt();
            // Two centres in one place: no direction to push along.
            let has = M8::count_above(&around.bodies_in, k) & !d.le(zero);
            let (nx, ny) = (-ox / d, -oy / d);
            let overlap = radius + other - d;
            let cos_phi = -(nx * hx + ny * hy);
            let w = anisotropy + (one - anisotropy) * half * (one + cos_phi);
            let push = w * strength * (overlap / range).exp() + body * positive_part(overlap);
            ax = has.select(ax + push * nx, ax);
            ay = has.select(ay + push * ny, ay);
            let (tx, ty) = (-ny, nx);
            let slide = friction * overlap * ((jvx - vx) * tx + (jvy - vy) * ty);
            let touching = has & overlap.gt(zero);
            ax = touching.select(ax + slide * tx, ax);
            ay = touching.select(ay + slide * ty, ay);
        }
        for (k, slot) in around.walls[..around.most_walls()].iter().enumerate() {
            let [nx, ny, distance] = slot.map(|c| F8::load(&c));
            let has = M8::count_above(&around.walls_in, k);
            let overlap = radius - distance;
            let push = wall_strength * (overlap / range).exp() + body * positive_part(overlap);
            ax = has.select(ax + push * nx, ax);
            ay = has.select(ay + push * ny, ay);
            let (tx, ty) = (-ny, nx);
            let slide = friction * overlap * (vx * tx + vy * ty);
            let touching = has & overlap.gt(zero);
            ax = touching.select(ax - slide * tx, ax);
            ay = touching.select(ay - slide * ty, ay);
        }
        ax.store(x);
        ay.store(y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::lanes_test::{Lcg, lanes_run_here};
    use crate::models::social_force::acceleration;

    #[test]
    fn every_lane_is_the_same_bits_as_one_agent_alone() {
        if !lanes_run_here("social force") {
            return;
        }
        let mut rng = Lcg(13);
        let mut lanes = SocialForceLanes::default();
        let (mut touching, mut agents) = (0, 0);
        // Sparse to packed crowds (bodies touching, neighbours at the centre), walls near and
        // pressed into, isotropic and anisotropic groups, lanes with nothing near, and slots
        // left stale by the call before.
        for trial in 0..4000 {
            let mut agent_of = Vec::new();
            for l in 0..LANES {
                let sf = SocialForce {
                    relaxation_time: rng.next(0.3, 1.0),
                    strength: rng.next(2.0, 30.0),
                    range: rng.next(0.05, 0.3),
                    wall_strength: rng.next(2.0, 30.0),
                    body: rng.next(100.0, 2000.0),
                    friction: rng.next(100.0, 3000.0),
                    anisotropy: if trial % 2 == 0 { 1.0 } else { rng.next(0.0, 1.0) },
                    neighbour_dist: 3.0,
                    max_neighbours: 16,
                    preferred_speed: None,
                };
                let me = Walker { velocity: rng.vec(1.5), preferred: rng.vec(1.5), radius: rng.next(0.15, 0.3) };
                let (bodies, walls) = rng.surroundings(trial);
                lanes.set(l, &sf, &me, bodies.iter().copied(), walls.iter().copied());
                agent_of.push((sf, me, bodies, walls));
            }
            let mut out = [Vec2::ZERO; LANES];
            lanes.accelerations(&mut out);
            for (l, (sf, me, bodies, walls)) in agent_of.iter().enumerate() {
                let alone = acceleration(
                    sf,
                    me.velocity,
                    me.preferred,
                    me.radius,
                    bodies.iter().copied(),
                    walls.iter().copied(),
                );
                assert_eq!(
                    (out[l].x.to_bits(), out[l].y.to_bits()),
                    (alone.x.to_bits(), alone.y.to_bits()),
                    "trial {trial}, lane {l}: {} in lanes, {alone} alone",
                    out[l]
                );
                agents += 1;
                touching += usize::from(
                    bodies.iter().any(|b| b.offset.length() < me.radius + b.radius)
                        || walls.iter().any(|w| w.distance < me.radius),
                );
            }
        }
        // The crowds reached every part: bodies and walls touching (body force and friction).
        assert!(touching > agents / 4, "{touching} of {agents} agents touched a body or a wall");
    }
}
