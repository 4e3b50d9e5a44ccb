//! The integration suite: one binary, so the real `throng` executable is built once and every
//! module can run it.

mod cli;
mod common;
mod determinism;
mod formulas;
mod oracle;
mod properties;
