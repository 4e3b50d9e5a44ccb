//! Checkpoints for `throng run`: `--checkpoint-every K --checkpoint-dir DIR` writes the state
//! every K ticks; `--resume FILE` (with the same scenario and `--set`s) continues from one.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use throng_engine::metrics::{MetricsCollector, MetricsState};
use throng_engine::scenario::overrides::{self, Override};
use throng_engine::state::checkpoint;
use throng_engine::state::files::write_atomically;
use throng_engine::{Scenario, World};

/// Where a run starts: the scenario (with overrides) and the world at its first tick.
pub struct Start {
    pub scenario: Scenario,
    pub world: World,
    /// Canonical overrides, as checkpoints store them.
    pub overrides: Vec<String>,
    /// The checkpoint resumed from, and its tick.
    pub resumed: Option<(PathBuf, u64)>,
    /// The metrics state the checkpoint carried (none when its run observed no metrics).
    pub metrics: Option<MetricsState>,
}

/// Loads the scenario with its overrides (`--agents N` among them, as `agents = N`), then builds
/// tick 0 or loads the checkpoint to resume (a checkpoint directory means its latest
/// checkpoint). The checkpoint must have been written for this very scenario file and these
/// overrides, by this engine.
pub fn start(
    scenario_path: &Path,
    sets: &[Override],
    seed: Option<u64>,
    resume: Option<&Path>,
) -> Result<Start> {
    let mut scenario = overrides::load(scenario_path, sets)?;
    let canonical = overrides::canonical(sets);
    let Some(resume) = resume else {
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        let world = scenario.build_world();
        return Ok(Start { scenario, world, overrides: canonical, resumed: None, metrics: None });
    };
    if seed.is_some() {
        bail!("--seed cannot be combined with --resume: the checkpoint holds the run's seed");
    }
    let file = if resume.is_dir() {
        checkpoint::latest_in(resume)
            .with_context(|| format!("cannot read checkpoint directory {}", resume.display()))?
            .with_context(|| {
                format!(
                    "{}: no checkpoint (tick-*.{}) in this directory",
                    resume.display(),
                    checkpoint::EXTENSION
                )
            })?
    } else {
        resume.to_path_buf()
    };
    let checkpoint::Checkpoint { header, world, metrics } = checkpoint::load(&file)?;
    checkpoint::check_run(
        &header,
        &file.display().to_string(),
        &scenario_path.display().to_string(),
        &scenario.content_hash,
        &canonical,
    )?;
    scenario.seed = world.seed;
    let tick = world.tick;
    Ok(Start { scenario, world, overrides: canonical, resumed: Some((file, tick)), metrics })
}

/// Writes a checkpoint every K ticks.
pub struct Checkpointer {
    every: u64,
    dir: PathBuf,
    scenario_hash: [u8; 32],
    overrides: Vec<String>,
}

impl Checkpointer {
    pub fn new(every: Option<u64>, dir: Option<&Path>, start: &Start) -> Result<Option<Checkpointer>> {
        let (every, dir) = match (every, dir) {
            (None, None) => return Ok(None),
            (Some(0), _) => bail!("--checkpoint-every must be at least 1"),
            (Some(every), Some(dir)) => (every, dir),
            (Some(_), None) => bail!("--checkpoint-every needs --checkpoint-dir DIR"),
            (None, Some(_)) => bail!("--checkpoint-dir needs --checkpoint-every K"),
        };
        if dir.exists() && !dir.is_dir() {
            bail!("--checkpoint-dir {}: exists and is not a directory", dir.display());
        }
        // Created at the first checkpoint, so a run refused for another reason leaves nothing.
        Ok(Some(Checkpointer {
            every,
            dir: dir.to_path_buf(),
            scenario_hash: start.scenario.content_hash,
            overrides: start.overrides.clone(),
        }))
    }

    /// Saves `world` (with the run's metrics state, if it observes metrics) if its tick is a
    /// multiple of K; returns the file written.
    pub fn after_tick(&self, world: &World, metrics: Option<&MetricsCollector>) -> Result<Option<PathBuf>> {
        if world.tick == 0 || !world.tick.is_multiple_of(self.every) {
            return Ok(None);
        }
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create checkpoint directory {}", self.dir.display()))?;
        let path = self.dir.join(checkpoint::file_name(world.tick));
        let bytes =
            checkpoint::encode(world, metrics.map(|m| m.state()), &self.scenario_hash, &self.overrides);
        write_atomically(&path, &bytes)
            .with_context(|| format!("cannot write checkpoint {}", path.display()))?;
        Ok(Some(path))
    }
}
