//! Flocking: separation, alignment, cohesion, the flock's shared target and its engine force.

use crate::world::{CohesionForm, SeparationVariant};

use super::Behaviour;
use super::params::{Default, Kind, KindSpec, MAX_LENGTH, ParamSpec, Range, force, length, target};
use super::seek;
use crate::math::{Vector, norm};

/// separation (mean): `s = Σ (n.p - p) / count; force = norm(-s) · max_force`; zero with no
/// neighbours. `offsets` are `n.p - p`.
pub fn separation<V: Vector>(
    offsets: impl Iterator<Item = V>,
    max_force: f32,
    variant: SeparationVariant,
) -> V {
    let mut sum = V::ZERO;
    let mut count = 0u32;
    match variant {
        SeparationVariant::Mean => {
            for o in offsets {
                sum += o;
                count += 1;
            }
            if count == 0 {
                return V::ZERO;
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
pub fn alignment<V: Vector>(neighbour_velocities: impl Iterator<Item = V>, v: V) -> V {
    alignment_of_headings(neighbour_velocities.map(norm), norm(v))
}

/// [`alignment`] given the headings (`norm(v)`) already, which the steer pass computes once per
/// agent and tick rather than once per neighbour.
#[inline]
pub fn alignment_of_headings<V: Vector>(neighbour_headings: impl Iterator<Item = V>, heading: V) -> V {
    let mut sum = V::ZERO;
    let mut count = 0u32;
    for h in neighbour_headings {
        sum += h;
        count += 1;
    }
    if count == 0 {
        return V::ZERO;
    }
    sum / count as f32 - heading
}

/// cohesion: `c = Σ n.p / count`; `force = seek(c)` ([`CohesionForm::Seek`]) or
/// `norm(c - p) · |v|` ([`CohesionForm::Unity`]), written with offsets (`c - p = Σ (n.p - p) /
/// count`) so it also holds across a wrapped seam. Zero with no neighbours.
pub fn cohesion<V: Vector>(offsets: impl Iterator<Item = V>, v: V, max_speed: f32, form: CohesionForm) -> V {
    let mut sum = V::ZERO;
    let mut count = 0u32;
    for o in offsets {
        sum += o;
        count += 1;
    }
    if count == 0 {
        return V::ZERO;
    }
    let to_centre = sum / count as f32;
    match form {
        CohesionForm::Seek => seek(to_centre, v, max_speed),
        CohesionForm::Unity => norm(to_centre) * v.length(),
    }
}

/// The Unity flock's engine force: `norm(v) · speed`, zero at rest.
#[inline]
pub fn cruise<V: Vector>(v: V, speed: f32) -> V {
    norm(v) * speed
}

/// The Unity flock's shared target: `(norm(t - p) - norm(v)) · speed`.
#[inline]
pub fn flock_target<V: Vector>(to_target: V, v: V, speed: f32) -> V {
    (norm(to_target) - norm(v)) * speed
}

/// `separation`: away from the neighbours within the radius.
pub const SEPARATION: KindSpec = KindSpec {
    name: "separation",
    force: "`norm(−Σ(n.p − p) / count) · max_separation` (`\"mean\"`), or `trunc(Σ norm(p − n.p) / \\|p − n.p\\|, max_separation)` (`\"inverse_distance\"`, coincident neighbours skipped)",
    weighted: true,
    params: &[
        length("radius", Default::Required, "the neighbour radius"),
        force("max_separation", 1.0, "magnitude of the separation force"),
        ParamSpec {
            key: "variant",
            kind: Kind::Choice(&["mean", "inverse_distance"], "mean"),
            unit: "",
            meaning: "how neighbours are weighed",
        },
    ],
    build: |a, _| {
        Ok(Behaviour::Separation {
            radius: a.number("radius"),
            max_force: a.number("max_separation"),
            variant: match a.choice("variant") {
                "inverse_distance" => SeparationVariant::InverseDistance,
                _ => SeparationVariant::Mean,
            },
        })
    },
};

/// `alignment`: towards the neighbours' mean heading.
pub const ALIGNMENT: KindSpec = KindSpec {
    name: "alignment",
    force: "`Σ norm(n.v) / count − norm(v)`",
    weighted: true,
    params: &[length("radius", Default::Required, "the neighbour radius")],
    build: |a, _| Ok(Behaviour::Alignment { radius: a.number("radius") }),
};

/// `cohesion`: towards the neighbours' centre.
pub const COHESION: KindSpec = KindSpec {
    name: "cohesion",
    force: "seek of the neighbours' centre `c` (`\"seek\"`), or `norm(c − p) · \\|v\\|` (`\"unity\"`, the Unity flock's, no `−v` damping)",
    weighted: true,
    params: &[
        length("radius", Default::Required, "the neighbour radius"),
        ParamSpec {
            key: "form",
            kind: Kind::Choice(&["seek", "unity"], "seek"),
            unit: "",
            meaning: "the force's form",
        },
    ],
    build: |a, _| {
        Ok(Behaviour::Cohesion {
            radius: a.number("radius"),
            form: match a.choice("form") {
                "unity" => CohesionForm::Unity,
                _ => CohesionForm::Seek,
            },
        })
    },
};

/// `cruise`: the Unity flock's engine force along the heading.
pub const CRUISE: KindSpec = KindSpec {
    name: "cruise",
    force: "`norm(v) · speed` (zero at rest): keeps a flock flying; `max_speed` caps it",
    weighted: true,
    params: &[ParamSpec {
        key: "speed",
        kind: Kind::Number(Range::NonNegative(MAX_LENGTH), Default::Value(1.0)),
        unit: "force",
        meaning: "scale of the force along the heading",
    }],
    build: |a, _| Ok(Behaviour::Cruise { speed: a.number("speed") }),
};

/// `flock_target`: the Unity flock's shared target.
pub const FLOCK_TARGET: KindSpec = KindSpec {
    name: "flock_target",
    force: "`(norm(t − p) − norm(v)) · speed`",
    weighted: true,
    params: &[
        target("the flock's target"),
        ParamSpec {
            key: "speed",
            kind: Kind::Number(Range::NonNegative(MAX_LENGTH), Default::Value(1.0)),
            unit: "force",
            meaning: "scale of the force",
        },
    ],
    build: |a, _| Ok(Behaviour::FlockTarget { target: a.target("target"), speed: a.number("speed") }),
};
