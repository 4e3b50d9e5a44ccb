//! `AnyScenario`: a scenario of the plane or of space, as its file declares (`dimensions`),
//! for the programs that take either kind side by side: batches and `throng test`.

use std::path::Path;

use super::locate::read_source;
use super::overrides::{self, Override};
use super::{MemoryEstimate, Scenario, ScenarioError, declared_dimensions};
use crate::math::Vec3;

/// A validated scenario of either dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyScenario {
    /// A planar scenario (no `dimensions`, or `dimensions = 2`).
    Plane(Scenario),
    /// A scenario in space (`dimensions = 3`).
    Space(Scenario<Vec3>),
}

/// `$body` with `$s` the scenario, whichever its dimension.
macro_rules! either {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            AnyScenario::Plane($s) => $body,
            AnyScenario::Space($s) => $body,
        }
    };
}

impl AnyScenario {
    /// Reads and validates the scenario file at `path`, in the dimensions it declares.
    pub fn load(path: &Path) -> Result<AnyScenario, ScenarioError> {
        let (file, text) = read_source(path, "a scenario file (.toml)")?;
        AnyScenario::parse(&text, &file, &[])
    }

    /// Validates scenario `text` (named `origin`) with `overrides` applied, in the dimensions
    /// it declares.
    pub fn parse(text: &str, origin: &str, overrides: &[Override]) -> Result<AnyScenario, ScenarioError> {
        Ok(match declared_dimensions(text) {
            Some(3) => AnyScenario::Space(overrides::parse_as(text, origin, overrides)?),
            _ => AnyScenario::Plane(overrides::parse(text, origin, overrides)?),
        })
    }

    /// The scenario's `name`.
    pub fn name(&self) -> &str {
        either!(self, s => &s.name)
    }

    /// Its seed.
    pub fn seed(&self) -> u64 {
        either!(self, s => s.seed)
    }

    /// The ticks it runs.
    pub fn ticks(&self) -> u64 {
        either!(self, s => s.ticks)
    }

    /// BLAKE3 of its file.
    pub fn content_hash(&self) -> &[u8; 32] {
        either!(self, s => &s.content_hash)
    }

    /// Its `[[expect]]` entries' names, in file order.
    pub fn expectation_names(&self) -> Vec<&str> {
        either!(self, s => s.expectations.iter().map(|e| e.name.as_str()).collect())
    }

    /// The estimated peak memory of a run of it.
    pub fn memory_estimate(&self) -> MemoryEstimate {
        either!(self, s => s.memory_estimate())
    }

    /// Sets the seed and the canonical overrides a run of it records (batch runs set both).
    pub fn set_run(&mut self, seed: u64, overrides: Vec<String>) {
        either!(self, s => {
            s.seed = seed;
            s.overrides = overrides;
        })
    }
}
