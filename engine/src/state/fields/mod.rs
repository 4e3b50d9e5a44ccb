//! A generic view of the state through serde: every leaf value of a [`World`](crate::World)
//! with its path.
//!
//! Golden files and checkpoints use it to digest each column separately, to describe the state
//! layout (the list of columns), and to name the first agent and field where two worlds differ,
//! with both values and their bit patterns. Nothing here lists the columns by hand: a column
//! added to `Agents` (or a field added to `World`) is covered as soon as it derives `Serialize`.
//!
//! Columns are the top-level fields of `World` (`tick`, `groups`, ...), except `agents`, whose
//! own fields are columns of their own (`agents.position`, ...), one row per agent in id order:
//! [`column_digests`] and [`diff`] read a spatially reordered world through
//! [`World::id_ordered`](crate::World::id_ordered), so neither depends on row order. [`walk`]
//! itself visits rows as they are stored.

pub(super) mod diff;
mod digest;
mod walk;

pub use diff::{AgentDiff, Diff, FieldDiff, Value, diff};
pub use digest::{ColumnDigest, column_digests, layout};
pub use walk::{Leaf, Seg, Sink, WalkError, walk};

/// The `World` field that holds the agent columns.
pub const AGENTS: &str = "agents";
