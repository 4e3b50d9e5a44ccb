//! Golden runs: every shipped scenario reproduces its committed record (the data in
//! `tests/golden/`, which holds no code), and `throng record` / `throng verify` really catch a
//! change: an edited snapshot value, hash, seed or scenario gives exit code 1 and a report naming
//! the tick, the agent, the field and both values.
//!
//! Re-mint the shipped golden files after a deliberate change to the simulation:
//!
//! ```sh
//! THRONG_REMINT=1 cargo test --test suite golden
//! ```

mod record_and_verify;
mod shipped;
