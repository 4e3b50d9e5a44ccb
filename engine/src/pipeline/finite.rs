//! Non-finite checks: a NaN or infinity in a column stops the run with the tick, the pass, the
//! agent and the field.

use rayon::prelude::*;

use crate::math::Vector;
use crate::par::{PARALLEL_SCAN, SCAN_CHUNK};

use super::Pass;

/// Something in the state became NaN or infinite.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("non-finite {field} at tick {tick}, pass `{pass}`, agent {agent}: {value}")]
pub struct NonFinite {
    /// The tick being computed.
    pub tick: u64,
    /// The pass that produced the value.
    pub pass: &'static str,
    /// The agent's id (the lowest, when several are bad).
    pub agent: u32,
    /// The column.
    pub field: &'static str,
    /// The value, as `(x, y)`.
    pub value: String,
}

/// The agent with the lowest id whose value is not finite, as an error.
pub(super) fn check_finite<V: Vector>(
    tick: u64,
    pass: Pass,
    field: &'static str,
    ids: &[u32],
    values: &[V],
) -> Result<(), NonFinite> {
    // A scan is a few microseconds per 10,000 values: below `PARALLEL_SCAN` rows, waking the
    // pool costs more than it saves, and this runs four times per tick.
    // A branch-free fold, so the common all-finite case vectorises.
    let any_bad = |c: &[V]| c.iter().fold(false, |acc, v| acc | !v.is_finite());
    let bad = if values.len() >= PARALLEL_SCAN {
        values.par_chunks(SCAN_CHUNK).any(any_bad)
    } else {
        any_bad(values)
    };
    // Rows may be in spatial order: report the lowest id, whatever the order.
    let lowest = bad
        .then(|| {
            values
                .iter()
                .zip(ids)
                .enumerate()
                .filter(|(_, (v, _))| !v.is_finite())
                .min_by_key(|(_, (_, id))| **id)
        })
        .flatten();
    match lowest.map(|(row, _)| row) {
        None => Ok(()),
        Some(row) => Err(NonFinite {
            tick,
            pass: pass.name(),
            agent: ids[row],
            field,
            value: format!(
                "({})",
                (0..V::DIMENSIONS).map(|a| values[row].axis(a).to_string()).collect::<Vec<_>>().join(", ")
            ),
        }),
    }
}
