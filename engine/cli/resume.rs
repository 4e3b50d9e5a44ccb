//! Checkpoints for `throng run`: `--checkpoint-every K --checkpoint-dir DIR` writes the state
//! every K ticks; `--resume FILE` (with the same scenario and `--set`s) continues from one.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use throng_engine::state::checkpoint;
use throng_engine::{RunSettings, Scenario, Simulation};

/// The simulation a run starts from: the scenario's tick 0 (with `--seed`, if given), or the
/// checkpoint `--resume` names (a directory means its latest checkpoint), which must have been
/// written for this very scenario file and these overrides, by this engine. The scenario's seed
/// becomes the run's. Returns the checkpoint resumed from, if any.
pub fn start(
    scenario: &mut Scenario,
    seed: Option<u64>,
    resume: Option<&Path>,
    settings: RunSettings,
) -> Result<(Simulation, Option<PathBuf>)> {
    let Some(resume) = resume else {
        if let Some(seed) = seed {
            scenario.seed = seed;
        }
        return Ok((Simulation::new(scenario, settings)?, None));
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
    let sim = Simulation::resume(scenario, &file, settings)?;
    scenario.seed = sim.world().seed;
    Ok((sim, Some(file)))
}

/// Writes a checkpoint every K ticks.
pub struct Checkpointer {
    every: u64,
    dir: PathBuf,
}

impl Checkpointer {
    pub fn new(every: Option<u64>, dir: Option<&Path>) -> Result<Option<Checkpointer>> {
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
        Ok(Some(Checkpointer { every, dir: dir.to_path_buf() }))
    }

    /// Saves the simulation (with its metrics state, if it observes metrics) if its tick is a
    /// multiple of K; returns the file written.
    pub fn after_tick(&self, sim: &Simulation) -> Result<Option<PathBuf>> {
        let tick = sim.tick();
        if tick == 0 || !tick.is_multiple_of(self.every) {
            return Ok(None);
        }
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create checkpoint directory {}", self.dir.display()))?;
        let path = self.dir.join(checkpoint::file_name(tick));
        sim.save_checkpoint(&path).with_context(|| format!("cannot write checkpoint {}", path.display()))?;
        Ok(Some(path))
    }
}
