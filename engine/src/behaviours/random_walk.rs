//! Random walk: waypoints in a cone towards the target that narrows as the agent closes in.

use super::Behaviour;
use super::params::{Default, Invalid, KindSpec, length, target};
use crate::math::{PI, Vector, lerp, norm};

/// Random walk: the next waypoint, as an offset from the agent, and whether it is the target
/// itself (the last, straight leg). `u` in [0, 1) and `spin` are the agent's own draws.
/// `step = clamp(d/2, min_step, max_step)`; past the target, go straight; otherwise turn
/// `U(0, half_fov)` off the line to the target, `half_fov = lerp(0, π/2, min(d, aggro)/aggro) / 2`:
/// to a random side in the plane (`spin < 0.5` left), to a random azimuth `2π · spin` about
/// the line in space (the cone of the plane's fan, [`Vector::cone_turn`]).
pub fn random_walk_step<V: Vector>(
    to_target: V,
    aggro_radius: f32,
    min_step: f32,
    max_step: f32,
    u: f32,
    spin: f32,
) -> (V, bool) {
    let d = to_target.length();
    let step = (d * 0.5).clamp(min_step, max_step);
    if step > d {
        return (to_target, true);
    }
    let half_fov = lerp(0.0, PI / 2.0, d.clamp(0.0, aggro_radius) / aggro_radius) * 0.5;
    ((norm(to_target) * step).cone_turn(u * half_fov, spin), false)
}

/// Random-walk state (`Agents::walk_state`): no waypoint drawn yet, as every agent starts; the
/// next `random_walk` tick draws one.
pub const WALK_NONE: u8 = 0;
/// Random-walk state (`Agents::walk_state`): seeking the waypoint in `Agents::waypoint`; a new
/// one is drawn once it is within `reach_radius`.
pub const WALK_WAYPOINT: u8 = 1;
/// Random-walk state (`Agents::walk_state`): on the last, straight leg, arriving at the target
/// itself; no more waypoints are drawn.
pub const WALK_FINAL: u8 = 2;

/// `random_walk`: to the target through random waypoints.
pub const RANDOM_WALK: KindSpec = KindSpec {
    name: "random_walk",
    force: "walk to the target through random waypoints in a cone that narrows as the agent closes in; arrive on the last leg",
    weighted: true,
    params: &[
        target("where the walk ends"),
        length("aggro_radius", Default::Value(30.0), "distance at which the cone is widest (half-angle π/4)"),
        length(
            "min_step",
            Default::Value(1.0),
            "shortest step: a step is `clamp(d / 2, min_step, max_step)`",
        ),
        length("max_step", Default::Value(10.0), "longest step (at least `min_step`)"),
        length("reach_radius", Default::Value(0.5), "a waypoint this close is reached"),
        length("slowing_radius", Default::Value(3.0), "arrive radius on the last, straight leg"),
    ],
    build: |a, _| {
        let (min_step, max_step) = (a.number("min_step"), a.number("max_step"));
        if min_step > max_step {
            return Err(Invalid {
                key: "max_step",
                message: format!("max_step {max_step} is below min_step {min_step}"),
            });
        }
        Ok(Behaviour::RandomWalk {
            target: a.target("target"),
            aggro_radius: a.number("aggro_radius"),
            min_step,
            max_step,
            reach_radius: a.number("reach_radius"),
            slowing_radius: a.number("slowing_radius"),
        })
    },
};
