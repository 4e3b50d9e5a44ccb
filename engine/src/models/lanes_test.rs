//! A small deterministic generator for the lane tests' random crowds.

use crate::math::{Vec2, norm};

use super::surroundings::{Body, WallNear};

/// Whether this processor runs lanes; if not, says that `model`'s lane test is skipped.
pub fn lanes_run_here(model: &str) -> bool {
    let run = crate::math::lanes::available();
    if !run {
        eprintln!("skipped: this processor has no AVX2, so {model} never runs in lanes here");
    }
    run
}

/// A linear congruential generator.
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in `[lo, hi)`.
    pub fn next(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// Uniform in the square `[-reach, reach)²`.
    pub fn vec(&mut self, reach: f32) -> Vec2 {
        Vec2::new(self.next(-reach, reach), self.next(-reach, reach))
    }
}

impl Lcg {
    /// An agent's random surroundings for trial `trial`: up to 16 neighbours of radius 0.15 to
    /// 0.3, within 0.6, 1.5 or 4 (by turns: packed to sparse), one of them at the agent's centre
    /// every seventh trial, and up to three walls, some touching or pressed into.
    pub fn surroundings(&mut self, trial: usize) -> (Vec<Body>, Vec<WallNear>) {
        let spread = [0.6f32, 1.5, 4.0][trial % 3];
        let count = (self.next(0.0, 17.0) as usize).min(16);
        let mut bodies: Vec<Body> = (0..count)
            .map(|_| Body { offset: self.vec(spread), velocity: self.vec(1.5), radius: self.next(0.15, 0.3) })
            .collect();
        if trial.is_multiple_of(7) && count > 1 {
            bodies[1].offset = Vec2::ZERO;
        }
        let walls = (0..(self.next(0.0, 4.0) as usize))
            .map(|_| WallNear { normal: norm(self.vec(1.0)), distance: self.next(-0.05, 1.0) })
            .collect();
        (bodies, walls)
    }
}
