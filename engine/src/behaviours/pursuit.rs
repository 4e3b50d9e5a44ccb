//! Pursuit and evade: seek or flee a moving quarry's predicted position.

use crate::world::EvadePrediction;

use super::Behaviour;
use super::params::{Default, Kind, KindSpec, ParamSpec, Range, target};
use super::{flee, seek};
use crate::math::Vector;

/// pursuit: `T = |q.p - p| / max_speed` (or a fixed look-ahead),
/// `future = q.p + q.v · T; force = seek(future)`.
#[inline]
pub fn pursuit<V: Vector>(to_quarry: V, quarry_v: V, v: V, max_speed: f32, look_ahead_s: Option<f32>) -> V {
    let t = look_ahead_s.unwrap_or_else(|| to_quarry.length() / max_speed);
    seek(to_quarry + quarry_v * t, v, max_speed)
}

/// evade: `T = |q.p - p| / (max_speed + |q.v|)` (or `/ max_speed`, or fixed),
/// `future = q.p + q.v · T; force = flee(future)`.
#[inline]
pub fn evade<V: Vector>(
    to_pursuer: V,
    pursuer_v: V,
    v: V,
    max_speed: f32,
    look_ahead_s: Option<f32>,
    prediction: EvadePrediction,
) -> V {
    let t = look_ahead_s.unwrap_or_else(|| {
        let d = to_pursuer.length();
        match prediction {
            EvadePrediction::TargetSpeed => d / (max_speed + pursuer_v.length()),
            EvadePrediction::OwnSpeed => d / max_speed,
        }
    });
    flee(to_pursuer + pursuer_v * t, v, max_speed)
}

/// `pursuit`: seek where the quarry will be.
pub const PURSUIT: KindSpec = KindSpec {
    name: "pursuit",
    force: "seek of the target's predicted position `q.p + q.v · T`",
    weighted: true,
    params: &[
        target("the quarry"),
        ParamSpec {
            key: "look_ahead_s",
            kind: Kind::Number(Range::NonNegative(3600.0), Default::Absent("`T = d / max_speed`")),
            unit: "s",
            meaning: "a fixed look-ahead `T` instead",
        },
    ],
    build: |a, _| {
        Ok(Behaviour::Pursuit { target: a.target("target"), look_ahead_s: a.optional("look_ahead_s") })
    },
};

/// `evade`: flee from where the pursuer will be.
pub const EVADE: KindSpec = KindSpec {
    name: "evade",
    force: "flee from `q.p + q.v · T`",
    weighted: true,
    params: &[
        target("the pursuer"),
        ParamSpec {
            key: "look_ahead_s",
            kind: Kind::Number(Range::NonNegative(3600.0), Default::Absent("computed, see `prediction`")),
            unit: "s",
            meaning: "a fixed look-ahead `T` instead",
        },
        ParamSpec {
            key: "prediction",
            kind: Kind::Choice(&["target_speed", "own_speed"], "target_speed"),
            unit: "",
            meaning: "how `T` is computed without `look_ahead_s`: `d / (max_speed + \\|q.v\\|)` or `d / max_speed`",
        },
    ],
    build: |a, _| {
        Ok(Behaviour::Evade {
            target: a.target("target"),
            look_ahead_s: a.optional("look_ahead_s"),
            prediction: match a.choice("prediction") {
                "own_speed" => EvadePrediction::OwnSpeed,
                _ => EvadePrediction::TargetSpeed,
            },
        })
    },
};
