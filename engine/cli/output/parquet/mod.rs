//! Output as Parquet: a table writer that writes row groups as a run goes and keeps the
//! file's footer beside it until it closes (table.rs, footer.rs), and the trace and metrics
//! written with it.

mod footer;
mod metrics;
mod table;
mod trace;

pub use footer::recover;
pub use metrics::MetricsParquet;
pub use table::{Cell, Column, Kind, write_whole};
pub use trace::TraceParquet;
