//! throng: a headless, data-oriented crowd and steering-behaviour simulation engine.
//!
//! - [`World`] is the state: agents in structure-of-arrays columns, groups, targets, bounds.
//! - [`Pipeline`] is the scratch and the step: `build_index` → `sense_neighbours` → `steer` →
//!   `integrate`, each a timed pass that reads old state and writes only its own agent's rows.
//! - [`Scenario`] reads and validates a TOML scenario and builds the world at tick 0.
//! - [`state_hash`] digests the state; equal hashes mean equal futures.
//!
//! The library never prints; the `throng` binary does.

pub mod batch;
pub mod behaviours;
pub mod checkpoint;
pub mod fields;
pub mod golden;
pub mod hash;
pub mod index;
pub mod math;
pub mod metrics;
pub mod obstacles;
pub mod overrides;
pub mod pipeline;
pub mod rng;
pub mod scenario;
pub mod world;

/// The most rows one rayon work piece takes in a per-agent pass (cheap passes take four times
/// as many). Left to itself, rayon splits a 10k-row pass into about two pieces per thread; when
/// one thread starts late or runs slower (its rows were last written on the other core), the
/// other soon has nothing left to steal and waits at the join. Pieces of at most this many rows
/// (some 10-30 µs of work) keep both busy to the end. Which thread runs which piece never
/// changes a result: every pass writes only its own rows.
pub(crate) const PIECE_ROWS: usize = 256;

/// Runs `f(row, position, velocity)` for every agent row across the pool, for a pass as cheap
/// per row as `integrate` or `collide` (pieces of 256 to `4 * PIECE_ROWS` rows).
pub(crate) fn for_each_position_velocity(
    position: &mut [math::Vec2],
    velocity: &mut [math::Vec2],
    f: impl Fn(usize, &mut math::Vec2, &mut math::Vec2) + Sync + Send,
) {
    use rayon::prelude::*;
    position
        .par_iter_mut()
        .zip(velocity.par_iter_mut())
        .enumerate()
        .with_min_len(256)
        .with_max_len(4 * PIECE_ROWS)
        .for_each(|(i, (p, v))| f(i, p, v));
}

pub use hash::{StateHash, state_hash};
pub use index::IndexKind;
pub use pipeline::{NonFinite, PASSES, Pipeline, PipelineError, TickEvents};
pub use scenario::{Scenario, ScenarioError};
pub use world::World;
