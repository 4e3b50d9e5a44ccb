//! Tie break: a small random rotation of the summed steering, off unless a group asks for it.

use super::Behaviour;
use super::params::{Default, Kind, KindSpec, ParamSpec, Range};

/// `tie_break`: rotate the summed steering by a random angle in `±angle_deg` each tick.
pub const TIE_BREAK: KindSpec = KindSpec {
    name: "tie_break",
    force: "not a term: each tick the summed steering is rotated by an angle uniform in `±angle_deg`, drawn from the agent's own generator; breaks the deadlock of a perfectly symmetric scene",
    weighted: false,
    params: &[ParamSpec {
        key: "angle_deg",
        kind: Kind::Number(Range::Positive(45.0), Default::Value(5.0)),
        unit: "degrees",
        meaning: "the largest rotation",
    }],
    build: |a, _| Ok(Behaviour::TieBreak { angle: a.number("angle_deg").to_radians() }),
};
