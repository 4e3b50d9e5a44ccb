//! A small deterministic generator for the lane tests' random crowds.

use crate::math::Vec2;

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
