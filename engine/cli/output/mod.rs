//! Output files of a run, each written from one column list: the trace CSV (positions and
//! velocities per agent per tick) and the per-tick metrics CSV, each with a metadata sidecar
//! and continued, not overwritten, by a resumed run.

mod file;
mod meta;
mod metrics;
mod trace;

pub use meta::RunInfo;
pub use metrics::MetricsCsv;
pub use trace::{TRACE_COLUMNS, TRACE_COLUMNS_WITHOUT_TIME, TraceCsv};

/// Simulated time as the scenario's step writes it: `0.1` rather than 0.10000000149011612,
/// `20.1` rather than 20.10000029951334. The f32 step's shortest decimal form is taken as the
/// step the user wrote, and times are printed to as many decimals as it has.
pub(crate) struct Seconds {
    dt: f64,
    decimals: usize,
}

impl Seconds {
    pub(crate) fn of(dt: f32) -> Seconds {
        let text = dt.to_string();
        Seconds {
            dt: text.parse().unwrap_or(dt as f64),
            decimals: text.split_once('.').map_or(0, |(_, d)| d.len()),
        }
    }

    /// The time at the end of tick `tick`.
    pub(crate) fn at(&self, tick: u64) -> String {
        format!("{:.*}", self.decimals, tick as f64 * self.dt)
    }
}

#[cfg(test)]
mod tests {
    use super::Seconds;

    #[test]
    fn times_read_as_the_step_was_written() {
        let s = Seconds::of(0.1);
        assert_eq!((s.at(1), s.at(201), s.at(0)), ("0.1".into(), "20.1".into(), "0.0".into()));
        let s = Seconds::of(0.05);
        assert_eq!((s.at(3), s.at(2000)), ("0.15".into(), "100.00".into()));
        assert_eq!(Seconds::of(1.0).at(7), "7");
    }
}
