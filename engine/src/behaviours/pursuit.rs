//! Pursuit and evade: seek or flee a moving quarry's predicted position.

use serde::{Deserialize, Serialize};

use super::{flee, seek};
use crate::math::Vec2;

/// How evade predicts the pursuer's future position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EvadePrediction {
    /// `T = d / (max_speed + |q.v|)` (the default).
    TargetSpeed,
    /// `T = d / max_speed`.
    OwnSpeed,
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
