//! The integration suite: one binary, so the real `throng` executable is built once and every
//! module can run it.

mod batch;
mod checkpoint;
mod cli;
mod common;
mod determinism;
mod fixtures;
mod formulas;
mod golden_files;
mod group_independence;
mod non_finite;
mod obstacle_oracle;
mod oracle;
mod properties;
mod render;
mod scale;
mod scenes;
mod sensing_skin;
mod steering_formulas;
