//! `throng bench --csv`: one row per measurement, written as it is measured.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use throng_engine::pipeline::Pass;

use super::measure::BenchResult;

/// The `--csv` file: a header when created, then one row per result as it is measured,
/// flushed at once.
pub(super) struct CsvOut {
    writer: csv::Writer<std::fs::File>,
    path: PathBuf,
    scenario: String,
    /// The `--set` overrides, `; `-separated as in batch results.
    overrides: String,
}

impl CsvOut {
    pub(super) fn create(path: &Path, scenario: &str, overrides: &[String]) -> Result<CsvOut> {
        let context = || format!("cannot write {}", path.display());
        let mut writer = csv::Writer::from_path(path).with_context(context)?;
        let mut header: Vec<String> = [
            "scenario",
            "overrides",
            "index",
            "model",
            "agents",
            "threads",
            "neighbours",
            "ms_per_tick",
            "ms_per_tick_min",
            "ms_per_tick_max",
            "floor_ms",
            "ratio_to_floor",
            "ideal_pass_ms",
            "sensing_skin",
            "sensed_fraction",
            "ticks_per_s",
            "agent_ticks_per_s",
            "peak_rss_mb",
            "estimated_mb",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        header.extend(Pass::ALL.iter().map(|p| format!("pass_{}_ms", p.name())));
        writer.write_record(&header).with_context(context)?;
        writer.flush().with_context(context)?;
        Ok(CsvOut {
            writer,
            path: path.to_owned(),
            scenario: scenario.to_owned(),
            overrides: overrides.join("; "),
        })
    }

    pub(super) fn row(&mut self, x: &BenchResult) -> Result<()> {
        let mut row = vec![
            self.scenario.clone(),
            self.overrides.clone(),
            x.index.to_string(),
            x.model.clone(),
            x.agents.to_string(),
            x.threads.to_string(),
            format!("{:.1}", x.neighbours),
            format!("{:.4}", x.ms_per_tick),
            format!("{:.4}", x.ms_per_tick_min),
            format!("{:.4}", x.ms_per_tick_max),
            format!("{:.4}", x.floor_ms),
            format!("{:.3}", x.ratio_to_floor),
            format!("{:.4}", x.ideal_pass_ms),
            x.sensing_skin.to_string(),
            format!("{:.3}", x.sensed_fraction),
            format!("{:.2}", x.ticks_per_s),
            format!("{:.0}", x.agent_ticks_per_s),
            format!("{:.1}", x.peak_rss_mb),
            format!("{:.1}", x.estimated_mb),
        ];
        row.extend(
            Pass::ALL
                .iter()
                .map(|p| format!("{:.4}", x.passes.get(p.name()).and_then(|v| v.as_f64()).unwrap_or(0.0))),
        );
        let context = || format!("cannot write {}", self.path.display());
        self.writer.write_record(&row).with_context(context)?;
        self.writer.flush().with_context(context)?;
        Ok(())
    }
}
