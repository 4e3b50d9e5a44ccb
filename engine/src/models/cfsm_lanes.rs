//! The collision-free speed model for eight agents at once, one agent per AVX2 lane, operation
//! for operation as [`super::cfsm::new_velocity`] computes it for one: the pulls of the
//! neighbours and walls summed in lanes (the exponential is `F8::exp`, libm's `expf` lane by
//! lane), the direction taken per agent, then the spacing ahead in lanes. Every lane's velocity
//! is the bits the one-agent function gives; the unit test checks it on random crowds.

use crate::math::Vec2;
use crate::math::lanes::{LANES, Lanes};
use crate::world::Cfsm;

use super::cfsm::{heading, speed};
use super::surroundings::{WallNear, Walker};
use super::surroundings_lanes::SurroundingsLanes;

/// Eight agents of one call and the buffers reused from call to call (one per worker).
#[derive(Clone, Debug, Default)]
pub struct CfsmLanes {
    /// The sum's start x and y (the preferred direction), radius, strength, range, wall
    /// strength, wall range.
    agent: [Lanes; 7],
    /// Each lane's velocity, preferred speed and time gap (for the parts taken per agent).
    velocity: [Vec2; LANES],
    v0: [f32; LANES],
    time_gap: [f32; LANES],
    /// The neighbours (those in sight) and walls of every lane.
    around: SurroundingsLanes,
}

impl CfsmLanes {
    /// Empties every lane.
    pub fn clear(&mut self) {
        self.around.clear();
    }

    /// Lane `l`'s agent, as [`super::cfsm::new_velocity`] takes it, with each neighbour's
    /// offset and radius (the model reads no neighbour's velocity).
    pub fn set(
        &mut self,
        l: usize,
        m: &Cfsm,
        me: &Walker,
        neighbours: impl Iterator<Item = (Vec2, f32)>,
        walls: impl Iterator<Item = WallNear>,
    ) {
        let Walker { velocity, preferred, radius } = *me;
        let start = crate::math::norm(preferred);
        let values = [start.x, start.y, radius, m.strength, m.range, m.wall_strength, m.wall_range];
        for (column, value) in self.agent.iter_mut().zip(values) {
            column.0[l] = value;
        }
        (self.velocity[l], self.v0[l], self.time_gap[l]) = (velocity, preferred.length(), m.time_gap);
        self.around.set_placed(l, neighbours, walls);
    }

    /// Every lane's new velocity into `out` (lanes never set hold what the last call left).
    /// Only on a processor where `math::lanes::available()`.
    pub fn new_velocities(&mut self, out: &mut [Vec2; LANES]) {
        assert!(crate::math::lanes::available(), "the CFSM lanes need AVX2");
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the processor supports AVX2 (checked above).
        unsafe {
            let (mut x, mut y) = (Lanes::default(), Lanes::default());
            avx2::pulls(self, &mut x, &mut y);
            for l in 0..LANES {
                let direction = heading(Vec2::new(x.0[l], y.0[l]), self.velocity[l]);
                (x.0[l], y.0[l]) = (direction.x, direction.y);
            }
            let spacing = avx2::spacings(self, &x, &y);
            for (l, v) in out.iter_mut().enumerate() {
                *v = Vec2::new(x.0[l], y.0[l]) * speed(self.time_gap[l], spacing.0[l], self.v0[l]);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("no lanes without AVX2")
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The lanes' arithmetic (`math::lanes`).
    use super::{CfsmLanes, Lanes};
    use crate::math::lanes::{F8, M8};

    /// The summed pulls `norm(e0) − Σ_j … + Σ_W …` of every lane into `x`, `y`.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pulls(lanes: &CfsmLanes, x: &mut Lanes, y: &mut Lanes) {
        let [mut sx, mut sy, radius, strength, range, wall_strength, wall_range] = lanes.agent.map(|c| F8::load(&c));
        let zero = F8::splat(0.0);
        let around = &lanes.around;
        for (k, slot) in around.bodies[..around.most_bodies()].iter().enumerate() {
            let [ox, oy, _, _, other] = slot.map(|c| F8::load(&c));
            let d = (ox * ox + oy * oy).sqrt();
            let has = M8::count_above(&around.bodies_in, k) & d.gt(zero);
            let f = strength * ((radius + other - d) / range).exp();
            sx = has.select(sx - f * (ox / d), sx);
            sy = has.select(sy - f * (oy / d), sy);
        }
        for (k, slot) in around.walls[..around.most_walls()].iter().enumerate() {
            let [nx, ny, distance] = slot.map(|c| F8::load(&c));
            let has = M8::count_above(&around.walls_in, k);
            let f = wall_strength * ((radius - distance) / wall_range).exp();
            sx = has.select(sx + f * nx, sx);
            sy = has.select(sy + f * ny, sy);
        }
        sx.store(x);
        sy.store(y);
    }

    /// The spacing to the nearest neighbour ahead within the corridor along each lane's
    /// direction `(x, y)` (∞ when none).
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn spacings(lanes: &CfsmLanes, x: &Lanes, y: &Lanes) -> Lanes {
        let (dx, dy, radius) = (F8::load(x), F8::load(y), F8::load(&lanes.agent[2]));
        let (lx, ly) = (-dy, dx);
        let zero = F8::splat(0.0);
        let mut spacing = F8::splat(f32::INFINITY);
        let around = &lanes.around;
        for (k, slot) in around.bodies[..around.most_bodies()].iter().enumerate() {
            let [ox, oy, _, _, other] = slot.map(|c| F8::load(&c));
            let l = radius + other;
            let ahead = (dx * ox + dy * oy).ge(zero);
            let beside = (lx * ox + ly * oy).abs().le(l);
            let gap = (ox * ox + oy * oy).sqrt() - l;
            let nearer = M8::count_above(&around.bodies_in, k) & ahead & beside & gap.lt(spacing);
            spacing = nearer.select(gap, spacing);
        }
        Lanes(spacing.to_array())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::cfsm::new_velocity;
    use crate::models::lanes_test::{Lcg, lanes_run_here};

    #[test]
    fn every_lane_is_the_same_bits_as_one_agent_alone() {
        if !lanes_run_here("CFSM") {
            return;
        }
        let mut rng = Lcg(11);
        let mut lanes = CfsmLanes::default();
        let (mut slowed, mut turned, mut agents) = (0, 0, 0);
        // Sparse to packed crowds (overlapping bodies, neighbours at the centre), walls near
        // and touching, lanes with nothing near, a standing agent whose pulls cancel, and
        // slots left stale by the call before.
        for trial in 0..4000 {
            let mut agent_of = Vec::new();
            for l in 0..LANES {
                let m = Cfsm {
                    time_gap: rng.next(0.5, 1.5),
                    strength: rng.next(1.0, 10.0),
                    range: rng.next(0.05, 0.3),
                    wall_strength: rng.next(1.0, 10.0),
                    wall_range: rng.next(0.01, 0.1),
                    neighbour_dist: 3.0,
                    max_neighbours: 16,
                    preferred_speed: None,
                };
                let (velocity, preferred, radius) = (rng.vec(1.5), rng.vec(1.5), rng.next(0.15, 0.3));
                let (bodies, walls) = rng.surroundings(trial);
                if trial % 11 == 0 && l == 0 {
                    // Standing, with pulls that cancel: a wall of strength 1 touching ahead.
                    let m = Cfsm { wall_strength: 1.0, ..m };
                    let wall = WallNear { normal: Vec2::new(-1.0, 0.0), distance: radius };
                    let (standing, ahead) = (Vec2::ZERO, Vec2::new(1.3, 0.0));
                    lanes.set(l, &m, &Walker { velocity: standing, preferred: ahead, radius }, std::iter::empty(), [wall].into_iter());
                    agent_of.push((m, standing, ahead, radius, Vec::new(), vec![wall]));
                    continue;
                }
                lanes.set(l, &m, &Walker { velocity, preferred, radius }, bodies.iter().map(|b| (b.offset, b.radius)), walls.iter().copied());
                agent_of.push((m, velocity, preferred, radius, bodies, walls));
            }
            let mut out = [Vec2::ZERO; LANES];
            lanes.new_velocities(&mut out);
            for (l, (m, velocity, preferred, radius, bodies, walls)) in agent_of.iter().enumerate() {
                let alone =
                    new_velocity(m, *velocity, *preferred, *radius, bodies.iter().copied(), walls.iter().copied());
                assert_eq!(
                    (out[l].x.to_bits(), out[l].y.to_bits()),
                    (alone.x.to_bits(), alone.y.to_bits()),
                    "trial {trial}, lane {l}: {} in lanes, {alone} alone",
                    out[l]
                );
                agents += 1;
                slowed += usize::from(alone.length() < preferred.length() * 0.99);
                turned += usize::from(alone.normalize_or_zero().dot(preferred.normalize_or_zero()) < 0.99);
            }
        }
        // The crowds reached every part: agents slowed by a neighbour ahead, and turned.
        assert!(slowed > agents / 4, "{slowed} of {agents} agents were slowed");
        assert!(turned > agents / 4, "{turned} of {agents} agents were turned");
    }
}
