//! Checkpoints for `throng run`: `--checkpoint-every K --checkpoint-dir DIR` writes the state
//! (and the run's plan) every K ticks; `--resume DIR` (or FILE) continues from one.

use crate::dimension::CliDimension;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use throng_engine::scenario::overrides;
use throng_engine::state::checkpoint;
use throng_engine::{RunSettings, Scenario, Simulation};

use super::RunArgs;
use super::plan::RunPlan;
use crate::args;

/// A run ready to step: its simulation, scenario, plan, and the checkpoint it resumed from.
pub struct Start<V: CliDimension> {
    pub sim: Simulation<V>,
    pub scenario: Scenario<V>,
    pub plan: RunPlan,
    pub resumed: Option<PathBuf>,
}

/// The run `args` ask for: the scenario's tick 0 (with `--seed`, if given), or the checkpoint
/// `--resume` names (a directory means its latest checkpoint). A checkpoint carries its run's
/// plan, which supplies the scenario, overrides, ticks and output settings not given again;
/// anything given again must agree with it. `settings` are the run's, metrics aside (the plan
/// says whether metrics are on).
pub fn start<V: CliDimension>(args: &RunArgs, settings: RunSettings) -> Result<Start<V>> {
    let Some(resume) = args.resume.as_deref() else {
        let Some(path) = args.scenario.as_deref() else {
            bail!("give a scenario file to run, or --resume DIR to continue a run from its checkpoints");
        };
        let sets = args::parse_sets(&args.set, args.agents)?;
        let mut scenario = overrides::load_as::<V>(path, &sets)?;
        if let Some(seed) = args.seed {
            scenario.seed = seed;
        }
        let plan = RunPlan::fresh(args, path, scenario.ticks)?;
        args::warn_for_length(&mut scenario, path, &sets, plan.ticks)?;
        crate::memory::check(&scenario, args.max_memory.bytes, &format!("{}", path.display()))?;
        let mut sim = Simulation::new(&scenario, RunSettings { metrics: !plan.no_metrics, ..settings })?;
        sim.set_plan(plan.to_text());
        return Ok(Start { sim, scenario, plan, resumed: None });
    };
    let file = checkpoint_file(resume)?;
    let saved = checkpoint::load::<V>(&file)?;
    if let Some(seed) = args.seed
        && seed != saved.header.seed
    {
        bail!(
            "--seed {seed} disagrees with {}, which holds the run's seed ({}): leave --seed out to resume",
            file.display(),
            saved.header.seed
        );
    }
    let planned = match saved.header.plan.as_str() {
        "" => None,
        text => Some(RunPlan::read(text, &file)?),
    };
    let given_sets = !args.set.is_empty() || args.agents.is_some();
    let (path, sets, plan) = match planned {
        Some(plan) => {
            plan.check_agrees(args, &file)?;
            let path = args.scenario.clone().unwrap_or_else(|| plan.scenario.clone());
            if !path.exists() {
                bail!(
                    "the scenario of the run being resumed, {}, is gone: give the scenario file \
                     (the same content) before --resume",
                    path.display()
                );
            }
            let sets = match given_sets {
                true => args::parse_sets(&args.set, args.agents)?,
                false => args::parse_sets(&plan.set, plan.agents)?,
            };
            (path, sets, plan)
        }
        None => {
            // A checkpoint written before runs recorded their plan: the command line is the plan.
            let Some(path) = args.scenario.clone() else {
                bail!(
                    "{} holds no run plan (an older checkpoint): give the scenario file and the \
                     run's --set, --agents and --ticks again",
                    file.display()
                );
            };
            let sets = args::parse_sets(&args.set, args.agents)?;
            let scenario_ticks = overrides::load_as::<V>(&path, &sets)?.ticks;
            (path.clone(), sets, RunPlan::fresh(args, &path, scenario_ticks)?)
        }
    };
    let mut scenario = overrides::load_as::<V>(&path, &sets)?;
    args::warn_for_length(&mut scenario, &path, &sets, plan.ticks)?;
    crate::memory::check(&scenario, args.max_memory.bytes, &format!("{}", path.display()))?;
    let legacy = saved.header.plan.is_empty();
    let mut sim = Simulation::resume_from(
        &scenario,
        saved,
        &file,
        RunSettings { metrics: !plan.no_metrics, ..settings },
    )?;
    if legacy {
        sim.set_plan(plan.to_text());
    }
    scenario.seed = sim.world().seed;
    if sim.tick() > plan.ticks {
        bail!(
            "the checkpoint is at tick {}, beyond --ticks {} (ticks count from tick 0)",
            sim.tick(),
            plan.ticks
        );
    }
    Ok(Start { sim, scenario, plan, resumed: Some(file) })
}

/// The dimensions of the run `args` ask for: those the checkpoint `--resume` names holds, or
/// those the scenario file declares.
pub fn dimensions(args: &RunArgs) -> Result<usize> {
    match (args.resume.as_deref(), args.scenario.as_deref()) {
        (Some(resume), given) => {
            let file = checkpoint_file(resume)?;
            let held = checkpoint::load_header(&file)?.dimensions as usize;
            if let Some(path) = given.filter(|p| args::dimensions_of(p) != held) {
                let space = |d: usize| if d == 3 { "in space (`dimensions = 3`)" } else { "planar" };
                bail!(
                    "{} holds a run {}, and {} is {}: give the scenario file the run was started from",
                    file.display(),
                    space(held),
                    path.display(),
                    space(args::dimensions_of(path))
                );
            }
            Ok(held)
        }
        (None, Some(path)) => Ok(args::dimensions_of(path)),
        (None, None) => Ok(2),
    }
}

/// The checkpoint `--resume` names: the file, or a directory's latest checkpoint.
fn checkpoint_file(resume: &Path) -> Result<PathBuf> {
    if !resume.is_dir() {
        return Ok(resume.to_path_buf());
    }
    checkpoint::latest_in(resume)
        .with_context(|| format!("cannot read checkpoint directory {}", resume.display()))?
        .with_context(|| {
            format!(
                "{}: no checkpoint (tick-*.{}) in this directory",
                resume.display(),
                checkpoint::EXTENSION
            )
        })
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

    /// Whether a checkpoint is due at `tick`: a multiple of K after tick 0.
    pub fn due(&self, tick: u64) -> bool {
        tick != 0 && tick.is_multiple_of(self.every)
    }

    /// Saves the simulation (with its metrics state, if it observes metrics) if a checkpoint
    /// is due; returns the file written. The run's output files must be flushed first, so a
    /// checkpoint never runs ahead of them.
    pub fn after_tick<V: CliDimension>(&self, sim: &Simulation<V>) -> Result<Option<PathBuf>> {
        let tick = sim.tick();
        if !self.due(tick) {
            return Ok(None);
        }
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create checkpoint directory {}", self.dir.display()))?;
        let path = self.dir.join(checkpoint::file_name(tick));
        sim.save_checkpoint(&path).with_context(|| format!("cannot write checkpoint {}", path.display()))?;
        Ok(Some(path))
    }
}
