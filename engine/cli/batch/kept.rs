//! What a batch run keeps in its directory besides its result (the batch file's `keep`): its
//! per-tick metrics as `metrics.parquet` and its trace every `trace_every` ticks as
//! `trace.parquet`, written as the run goes and closed before its `result.json`, so a finished
//! run's files are whole (a run killed midway is run again, and its files replaced).

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};

use anyhow::Result;
use throng_engine::batch::{Keep, PlannedRun};
use throng_engine::{Scenario, Simulation};

use crate::output::{MetricsParquet, RunInfo, Trace, TraceFormat};

/// The kept metrics of a run in its directory `dir`.
pub fn metrics_path(dir: &Path) -> PathBuf {
    dir.join("metrics.parquet")
}

/// The kept trace of a run in its directory `dir`.
pub fn trace_path(dir: &Path) -> PathBuf {
    dir.join("trace.parquet")
}

/// Whether the run directory `dir` holds every file `keep` asks for.
pub fn complete(dir: &Path, keep: Keep) -> bool {
    (!keep.metrics || metrics_path(dir).is_file())
        && (keep.trace_every.is_none() || trace_path(dir).is_file())
}

/// The files a run is writing.
pub struct Kept {
    metrics: Option<MetricsParquet>,
    trace: Option<(Trace, u64)>,
}

impl Kept {
    /// Opens the files `keep` asks for in `dir`, for the run `run` of `scenario` simulated by
    /// `sim` (at tick 0), and writes the starting state.
    pub fn open<V: CliDimension>(
        dir: &Path,
        run: &PlannedRun,
        scenario: &Scenario<V>,
        sim: &mut Simulation<V>,
        keep: Keep,
    ) -> Result<Kept> {
        let info = RunInfo::of(scenario, &run.scenario_path);
        let initial = if keep.metrics { sim.initial_metrics() } else { None };
        let world = sim.world();
        let mut metrics = match keep.metrics {
            true => Some(MetricsParquet::open(&metrics_path(dir), world, &info, None)?),
            false => None,
        };
        if let (Some(file), Some(m)) = (metrics.as_mut(), initial) {
            file.write(&m, world)?;
        }
        let trace = match keep.trace_every {
            Some(every) => {
                let mut t = Trace::open(&trace_path(dir), TraceFormat::Parquet, world, &info, every, None)?;
                t.write(world)?;
                Some((t, every))
            }
            None => None,
        };
        Ok(Kept { metrics, trace })
    }

    /// Writes what the files keep of the tick just run.
    pub fn observe<V: CliDimension>(&mut self, sim: &Simulation<V>) -> Result<()> {
        let world = sim.world();
        if let (Some(file), Some(m)) = (self.metrics.as_mut(), sim.metrics()) {
            file.write(m.last(), world)?;
        }
        if let Some((t, every)) = self.trace.as_mut()
            && world.tick.is_multiple_of(*every)
        {
            t.write(world)?;
        }
        Ok(())
    }

    /// Closes the files.
    pub fn finish(self) -> Result<()> {
        if let Some(m) = self.metrics {
            m.finish()?;
        }
        if let Some((t, _)) = self.trace {
            t.finish()?;
        }
        Ok(())
    }
}
