//! Determinism: the same scenario gives the same state, bit for bit, whatever the thread count,
//! index backend, process, row order or reuse of sensing candidates; adding a group leaves
//! another's random draws alone; checkpoints resume to the straight run's hashes and metrics;
//! and non-finite state is caught and reported with its tick, pass and agent.

mod auto_index;
mod checkpoint;
mod events;
mod expectations;
mod group_independence;
pub mod host_control;
mod in_space;
mod journeys;
mod models;
mod non_finite;
mod parties;
mod resumed_outputs;
mod same_hashes;
mod sensing_skin;
