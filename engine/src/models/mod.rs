//! The velocity models a group may use instead of steering (`model` in a scenario): each a
//! module with its formulas; the data they read is `world::Model`, the pass that runs them
//! `passes::velocity_models`.

pub mod cfsm;
pub mod cfsm_lanes;
pub mod kinds;
#[cfg(test)]
pub(crate) mod lanes_test;
pub mod linear_program;
pub mod orca;
pub mod orca_lanes;
pub mod orca_obstacles;
pub mod social_force;
pub mod social_force_lanes;
pub mod surroundings;
pub mod surroundings_lanes;
pub mod walls_near;
