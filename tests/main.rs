//! The integration suite: one binary, so the real `throng` executable is built once and every
//! module can run it. One folder per kind of test:
//!
//! - `formulas/`: each behaviour and the integration step against values computed by hand.
//! - `oracle/`: fast answers (spatial indexes, obstacle index, metrics) against brute force.
//! - `determinism/`: the same hashes at any thread count, index, row order and process;
//!   checkpoints; non-finite state reported.
//! - `golden_runs/`: the shipped scenarios against their golden files (the data is in
//!   `tests/golden/`), and `throng record` / `throng verify`.
//! - `scenes/`: emergent behaviour of whole scenarios, and property tests over random ones.
//! - `cli/`: the `throng` executable's `check`, `run`, `bench` and `batch`.
//! - `render/`: `throng render` and `throng plot`.
//! - `regression/`: tests that each pin one bug, named after it.
//! - `python/`: the Python package's pytest suite, against the installed package.
//!
//! `docs.rs` checks the docs generated from the code (the behaviour table). `scale.rs` holds
//! the `#[ignore]`d large-scale checks; `common.rs` and `fixtures.rs` the
//! shared helpers.

mod cli;
mod common;
mod determinism;
mod docs;
mod fixtures;
mod formulas;
mod golden_runs;
mod oracle;
mod python;
mod regression;
mod render;
mod scale;
mod scenes;
