//! throng: a headless, data-oriented crowd and steering-behaviour simulation engine.
//!
//! A program that runs throng needs one type, [`Simulation`]: load a scenario, choose the
//! run's settings, step, read the state and the metrics, save a checkpoint.
//!
//! ```
//! use throng_engine::{RunSettings, Scenario, Simulation};
//!
//! // A room whose crowd queues at a doorway and leaves (paths are relative to `engine/`).
//! let scenario = Scenario::load("../scenarios/doorway.toml".as_ref())?;
//! let settings = RunSettings { threads: 2, ..RunSettings::default() };
//! let mut sim = Simulation::new(&scenario, settings)?;
//! sim.run(300)?; // 30 s at dt = 0.1
//! let world = sim.world();
//! for row in 0..world.agents.len().min(3) {
//!     println!("agent {} at {}", world.agents.id[row], world.agents.position[row]);
//! }
//! let summary = sim.summary().expect("metrics are on by default");
//! println!("{} left by the door, hash {}", summary.agents_exited, sim.hash());
//! assert_eq!(summary.agents_exited + summary.agents_active, 150);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Underneath:
//! - [`World`] is the state: agents in structure-of-arrays columns, groups, targets, bounds.
//! - [`Pipeline`] is the scratch and the step: `build_index` → `sense_neighbours` → `steer` →
//!   `integrate` → ..., each a timed pass ([`Pass`]) that reads old state and writes only its
//!   own agent's rows.
//! - [`Scenario`] reads and validates a TOML scenario and builds the world at tick 0.
//! - [`state_hash`] digests the state; equal hashes mean equal futures.
//!
//! The library never prints; the `throng` binary does. Its insides (behaviour formulas,
//! models, passes, the index, batches, golden files) are private; the `internals` feature,
//! which the binary, the tests and the benches turn on, makes them public for those.

#![warn(missing_docs)]

/// A module of the engine's insides: public, and hidden from the documentation, only with the
/// `internals` feature, which this workspace's tests, benches and `throng bench` turn on; for
/// any other user of the crate it is private.
macro_rules! internal {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        #[allow(dead_code, unused_imports)]
        mod $name;
    )*};
}

pub mod expect;
pub mod math;
pub mod metrics;
pub mod pipeline;
pub mod scenario;
pub mod simulation;
pub mod state;
pub mod world;

internal!(batch, behaviours, golden, index, models, passes, probes, rng, routing);
pub(crate) mod par;

pub use index::IndexKind;
pub use pipeline::{NonFinite, Pass, Pipeline, PipelineError, TickEvents};
pub use scenario::{Scenario, ScenarioError, parse_action};
pub use simulation::{Advance, ControlError, RunEnd, RunSettings, Simulation, SimulationError};
pub use state::hash::{StateHash, state_hash};
pub use world::World;
