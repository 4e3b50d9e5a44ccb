//! throng: a headless, data-oriented crowd and steering-behaviour simulation engine.
//!
//! - [`World`] is the state: agents in structure-of-arrays columns, groups, targets, bounds.
//! - [`Pipeline`] is the scratch and the step: `build_index` → `sense_neighbours` → `steer` →
//!   `integrate` → ..., each a timed pass ([`Pass`]) that reads old state and writes only its
//!   own agent's rows.
//! - [`Scenario`] reads and validates a TOML scenario and builds the world at tick 0.
//! - [`state_hash`] digests the state; equal hashes mean equal futures.
//!
//! The library never prints; the `throng` binary does.

pub mod batch;
pub mod behaviours;
pub mod index;
pub mod math;
pub mod metrics;
pub(crate) mod par;
pub mod passes;
pub mod pipeline;
pub mod probes;
pub mod rng;
pub mod scenario;
pub mod state;
pub mod world;

pub use index::IndexKind;
pub use pipeline::{NonFinite, Pass, Pipeline, PipelineError, TickEvents};
pub use scenario::{Scenario, ScenarioError};
pub use state::hash::{StateHash, state_hash};
pub use world::World;
