//! Output files of a run, each written from one column list: the trace CSV (positions and
//! velocities per agent per tick) and the per-tick metrics CSV.

mod metrics;
mod trace;

pub use metrics::MetricsCsv;
pub use trace::{TRACE_COLUMNS, TraceCsv};
