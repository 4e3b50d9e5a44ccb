//! The metadata written beside each output CSV, as `FILE.meta.json`: the scenario, seed, step
//! and overrides that produced the file, by which engine, and its columns. A CSV has no place
//! for these; the sidecar keeps the file itself plain for every CSV reader.

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use throng_engine::Scenario;
use throng_engine::state::checkpoint::ENGINE_VERSION;
use throng_engine::state::files::write_atomically;

/// What produced an output file.
#[derive(Serialize)]
pub struct RunInfo<'a> {
    /// `throng-engine` version.
    pub engine: &'static str,
    pub scenario: &'a str,
    pub scenario_file: &'a Path,
    /// BLAKE3 of the scenario file, in hex.
    pub scenario_blake3: String,
    pub seed: u64,
    pub dt: f32,
    /// 2 for a planar run, 3 for a run in space (its trace has z and vz).
    pub dimensions: usize,
    /// The run's overrides (`--set`, `--agents`), canonical `key = value`.
    pub overrides: &'a [String],
}

impl<'a> RunInfo<'a> {
    pub fn of<V: CliDimension>(scenario: &'a Scenario<V>, file: &'a Path) -> RunInfo<'a> {
        RunInfo {
            engine: ENGINE_VERSION,
            scenario: &scenario.name,
            scenario_file: file,
            scenario_blake3: scenario.content_hash.iter().map(|b| format!("{b:02x}")).collect(),
            seed: scenario.seed,
            dt: scenario.dt,
            dimensions: V::DIMENSIONS,
            overrides: &scenario.overrides,
        }
    }
}

impl RunInfo<'_> {
    /// The run as key-value metadata (`throng.*` keys), for the formats that carry it inside
    /// the file (SQLite's metadata table, Parquet's key-value metadata); `format` names the
    /// file ("throng trace").
    pub fn key_values(&self, format: &str) -> Vec<(String, String)> {
        vec![
            ("throng.format".into(), format.into()),
            ("throng.engine".into(), self.engine.into()),
            ("throng.scenario".into(), self.scenario.into()),
            ("throng.scenario_file".into(), self.scenario_file.display().to_string()),
            ("throng.scenario_blake3".into(), self.scenario_blake3.clone()),
            ("throng.seed".into(), self.seed.to_string()),
            ("throng.dt".into(), self.dt.to_string()),
            ("throng.dimensions".into(), self.dimensions.to_string()),
            ("throng.overrides".into(), self.overrides.join("; ")),
        ]
    }
}

#[derive(Serialize)]
struct Meta<'a> {
    /// "throng trace" or "throng metrics".
    format: &'a str,
    #[serde(flatten)]
    run: &'a RunInfo<'a>,
    /// Ticks between rows (a trace's `--trace-every`); metrics have a row every tick.
    every: u64,
    columns: &'a [String],
}

/// The sidecar's path: `FILE` + `.meta.json`.
fn meta_path(csv: &Path) -> PathBuf {
    let mut name = csv.as_os_str().to_owned();
    name.push(".meta.json");
    PathBuf::from(name)
}

/// Writes (atomically) the sidecar of the CSV `csv`.
pub fn write(csv: &Path, format: &str, run: &RunInfo, every: u64, columns: &[String]) -> Result<()> {
    let path = meta_path(csv);
    let meta = Meta { format, run, every, columns };
    let mut text = serde_json::to_string_pretty(&meta)?;
    text.push('\n');
    write_atomically(&path, text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}
