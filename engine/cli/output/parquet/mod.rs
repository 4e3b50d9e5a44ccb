//! Output as Parquet: a table writer that writes row groups as a run goes and keeps the
//! file's footer beside it until it closes (table.rs, footer.rs), the trace and metrics
//! written with it, and opening such a file to read it back (read.rs).

mod footer;
mod metrics;
mod read;
mod resume;
mod table;
mod trace;

pub use metrics::MetricsParquet;
pub use read::{column_names, open_whole, starts_as_parquet};
pub use resume::recover;
pub use table::{Cell, Column, Kind, write_whole};
pub use trace::TraceParquet;
