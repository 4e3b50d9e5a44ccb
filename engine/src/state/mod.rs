//! What leaves the engine about a state: its hash, a serde walk of its fields (column digests,
//! the layout, field-by-field differences), checkpoints, golden files, and files written
//! atomically.

pub mod checkpoint;
pub mod fields;
pub mod files;
pub mod golden;
pub mod hash;
