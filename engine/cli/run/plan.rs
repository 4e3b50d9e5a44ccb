//! The plan of a `throng run`: what it was asked to do (scenario, overrides, end tick, output
//! files, checkpoints), stored in every checkpoint it writes, so that `throng run --resume DIR`
//! alone continues the same run, and anything given again is checked against it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::RunArgs;
use crate::output::{MetricsFormat, TraceFormat};

/// What a run was asked to do. Paths are absolute, so a resume from another directory finds
/// the same files. Threads, index, reordering and sensing skin are not part of it (results do
/// not depend on them), nor is what is printed (`--hash-every`, `--json`, `--quiet`): a resume
/// may choose them afresh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunPlan {
    /// The scenario file.
    pub scenario: PathBuf,
    /// The `--set` arguments, as given.
    pub set: Vec<String>,
    /// `--agents`.
    pub agents: Option<u64>,
    /// The tick the run ends at.
    pub ticks: u64,
    pub trace: Option<PathBuf>,
    pub trace_every: u64,
    /// `--trace-format` (absent in the plans of runs without it: the extension decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_format: Option<TraceFormat>,
    pub metrics: Option<PathBuf>,
    /// `--metrics-format`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_format: Option<MetricsFormat>,
    pub no_metrics: bool,
    pub checkpoint_every: Option<u64>,
    pub checkpoint_dir: Option<PathBuf>,
}

/// `path` made absolute against the working directory (not resolved: it may not exist yet).
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} an absolute path", path.display()))
}

fn absolute_opt(path: Option<&Path>) -> Result<Option<PathBuf>> {
    path.map(absolute).transpose()
}

impl RunPlan {
    /// The plan of a run from tick 0: the command line's, with the scenario's own `ticks`
    /// when `--ticks` is not given.
    pub fn fresh(args: &RunArgs, scenario: &Path, scenario_ticks: u64) -> Result<RunPlan> {
        if args.trace_every.is_some() && args.trace.is_none() {
            bail!("--trace-every needs --trace FILE.csv");
        }
        Ok(RunPlan {
            scenario: absolute(scenario)?,
            set: args.set.clone(),
            agents: args.agents,
            ticks: args.ticks.unwrap_or(scenario_ticks),
            trace: absolute_opt(args.trace.as_deref())?,
            trace_every: args.trace_every.unwrap_or(1),
            trace_format: args.trace_format,
            metrics: absolute_opt(args.metrics.as_deref())?,
            metrics_format: args.metrics_format,
            no_metrics: args.no_metrics,
            checkpoint_every: args.checkpoint_every,
            checkpoint_dir: absolute_opt(args.checkpoint_dir.as_deref())?,
        })
    }

    /// Reads the plan stored in `checkpoint`.
    pub fn read(text: &str, checkpoint: &Path) -> Result<RunPlan> {
        serde_json::from_str(text).with_context(|| {
            format!(
                "{}: the run plan it holds does not read (written by another throng?)",
                checkpoint.display()
            )
        })
    }

    /// The plan as stored in checkpoints.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("a plan always serializes")
    }

    /// Checks what a resume's command line gives again against this plan: each option given
    /// must agree with it. `--set` and `--agents` are checked by the engine against the
    /// checkpoint's canonical overrides (so their order and spelling do not matter).
    pub fn check_agrees(&self, args: &RunArgs, checkpoint: &Path) -> Result<()> {
        let refuse = |option: &str, given: String, planned: String| -> Result<()> {
            bail!(
                "{option} {given} disagrees with the run being resumed: {} was written by a run \
                 with {planned}. Leave {option} out to continue that run as planned, or start a \
                 new run without --resume",
                checkpoint.display()
            )
        };
        let or_none = |v: Option<u64>| v.map_or("none".to_string(), |v| v.to_string());
        let path_or_none =
            |p: &Option<PathBuf>| p.as_ref().map_or("none".to_string(), |p| p.display().to_string());
        if let Some(t) = args.ticks
            && t != self.ticks
        {
            refuse("--ticks", t.to_string(), format!("--ticks {}", self.ticks))?;
        }
        if let Some(k) = args.trace_every
            && k != self.trace_every
        {
            refuse("--trace-every", k.to_string(), format!("--trace-every {}", self.trace_every))?;
        }
        if let Some(f) = args.trace_format
            && Some(f) != self.trace_format
        {
            refuse("--trace-format", format!("{f:?}").to_lowercase(), "the format of its trace file".into())?;
        }
        if let Some(f) = args.metrics_format
            && Some(f) != self.metrics_format
        {
            refuse(
                "--metrics-format",
                format!("{f:?}").to_lowercase(),
                "the format of its metrics file".into(),
            )?;
        }
        if args.no_metrics && !self.no_metrics {
            refuse("--no-metrics", String::new(), "metrics on".into())?;
        }
        if args.checkpoint_every.is_some() && args.checkpoint_every != self.checkpoint_every {
            let planned = format!("--checkpoint-every {}", or_none(self.checkpoint_every));
            refuse("--checkpoint-every", or_none(args.checkpoint_every), planned)?;
        }
        let paths = [
            ("--trace", &args.trace, &self.trace),
            ("--metrics", &args.metrics, &self.metrics),
            ("--checkpoint-dir", &args.checkpoint_dir, &self.checkpoint_dir),
        ];
        for (option, given, planned) in paths {
            if let Some(path) = given
                && Some(absolute(path)?) != *planned
            {
                refuse(option, path.display().to_string(), format!("{option} {}", path_or_none(planned)))?;
            }
        }
        Ok(())
    }
}
