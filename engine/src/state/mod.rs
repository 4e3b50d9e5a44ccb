//! What leaves the engine about a state: its hash, a serde walk of its fields (column digests,
//! the layout, field-by-field differences), checkpoints, and files written atomically. Golden
//! files, which run simulations, are `crate::golden`.

pub mod checkpoint;
pub mod fields;
pub mod files;
pub mod hash;
