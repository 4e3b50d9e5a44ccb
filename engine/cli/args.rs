//! Argument helpers every command shares: the index choice, thread counts, `--set`/`--agents`
//! overrides, `--sensing-skin`, the progress bar. Commands depend on this module, never on
//! each other.

use crate::dimension::CliDimension;
use std::io::IsTerminal;

use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use throng_engine::IndexKind;
use throng_engine::Scenario;
use throng_engine::pipeline::max_threads;
use throng_engine::scenario::overrides::{self, Origin, Override};

/// `--index`.
#[derive(Clone, Copy, ValueEnum)]
pub enum IndexArg {
    /// kiddo k-d tree, rebuilt every tick.
    Kd,
    /// Brute force O(N²): the oracle.
    Brute,
    /// Exact uniform grid, rebuilt every tick; same results as kd.
    Grid,
    /// The grid, or the k-d tree where agents spread too far for the grid's cells (the
    /// scenario's default); same results.
    Auto,
}

impl From<IndexArg> for IndexKind {
    fn from(i: IndexArg) -> IndexKind {
        match i {
            IndexArg::Kd => IndexKind::Kd,
            IndexArg::Brute => IndexKind::Brute,
            IndexArg::Grid => IndexKind::Grid,
            IndexArg::Auto => IndexKind::Auto,
        }
    }
}

/// The cores this process may use (1 if unknown): the default thread count.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `--threads` (named `flag` in the message), or every core.
pub fn threads(arg: Option<usize>, flag: &str) -> Result<usize> {
    match arg {
        Some(t) => check_threads(t, flag),
        None => Ok(cores()),
    }
}

/// A thread count the user gave: at least 1, at most [`max_threads`] (16 per core, at least 64).
pub fn check_threads(t: usize, flag: &str) -> Result<usize> {
    let max = max_threads();
    match t {
        0 => bail!("{flag} must be at least 1"),
        t if t > max => bail!(
            "{flag} {t}: more threads than this machine runs well (at most {max} on its {} cores: 16 per core, and never fewer than 64); results do not depend on the thread count, so use fewer",
            cores()
        ),
        t => Ok(t),
    }
}

/// `--set KEY=VALUE` and `--agents N` for commands that read a scenario (`check`, `render`,
/// `plot`): the same overrides `run` takes, so a swept variant can be checked and drawn.
#[derive(clap::Args, Debug, Default)]
pub struct ScenarioOverrides {
    /// Override a scenario value before validation, e.g. `--set groups.boids.max_speed=2.5`
    /// (repeatable; see docs/batches.md for keys).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Scale the scenario to N agents at its own density, after any `--set` (the same as
    /// `--set agents=N`).
    #[arg(long, value_name = "N")]
    pub agents: Option<u64>,
}

impl ScenarioOverrides {
    /// Reads the scenario at `path` with these overrides applied before validation.
    pub fn load(&self, path: &std::path::Path) -> Result<Scenario> {
        self.load_as(path)
    }

    /// [`ScenarioOverrides::load`] of a scenario whose points are `V`s (`Vec3`: in space).
    pub fn load_as<V: CliDimension>(&self, path: &std::path::Path) -> Result<Scenario<V>> {
        let sets = parse_sets(&self.set, self.agents)?;
        Ok(overrides::load_as(path, &sets)?)
    }

    /// [`ScenarioOverrides::load_as`] for a run of `ticks` ticks when given (`--ticks`): its
    /// warnings are those of a run that long (see [`warn_for_length`]).
    pub fn load_for<V: CliDimension>(
        &self,
        path: &std::path::Path,
        ticks: Option<u64>,
    ) -> Result<Scenario<V>> {
        let sets = parse_sets(&self.set, self.agents)?;
        let mut scenario = overrides::load_as(path, &sets)?;
        if let Some(ticks) = ticks {
            warn_for_length(&mut scenario, path, &sets, ticks)?;
        }
        Ok(scenario)
    }
}

/// The scenario's warnings for a run of `ticks` ticks: when `--ticks` (or the plan) differs
/// from the file's `ticks`, the warnings about times past the run's end are those of the run
/// as it will go, not of the file's length (the file is read again with `ticks` set).
pub fn warn_for_length<V: CliDimension>(
    scenario: &mut Scenario<V>,
    path: &std::path::Path,
    sets: &[Override],
    ticks: u64,
) -> Result<()> {
    if ticks == scenario.ticks {
        return Ok(());
    }
    let mut at_length: Vec<Override> = sets.iter().filter(|o| o.key != "ticks").cloned().collect();
    at_length.extend(overrides::parse_set(&format!("ticks={ticks}"), "--ticks")?);
    let before = std::mem::take(&mut scenario.warnings);
    for mut w in overrides::load_as::<V>(path, &at_length)?.warnings {
        // New with the length: say so, rather than blame the overrides.
        if !before.iter().any(|b| b.key == w.key && b.message == w.message)
            && let Some(m) = w.message.strip_suffix(" (with overrides)")
        {
            w.message = format!("{m} (a run of {ticks} ticks)");
        }
        scenario.warnings.push(w);
    }
    Ok(())
}

/// The dimensions the scenario file at `path` declares (`dimensions = 3`: space), so a command
/// picks the loader of the right kind; 2 when the file says none, or cannot be read or parsed
/// (the loader then says why).
pub fn dimensions_of(path: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    match throng_engine::scenario::declared_dimensions(&text) {
        Some(3) => 3,
        _ => 2,
    }
}

/// `--ticks`: at least 1, as a scenario's own `ticks` must be.
pub fn ticks(arg: Option<u64>) -> Result<Option<u64>> {
    if arg == Some(0) {
        bail!("--ticks must be at least 1, as a scenario's `ticks` is");
    }
    Ok(arg)
}

/// Parses repeated `--set KEY=VALUE` arguments, and `--agents N` as the override `agents = N`
/// (after them, so it scales the overridden scenario; with `--set agents=...` too, an error).
pub fn parse_sets(sets: &[String], agents: Option<u64>) -> Result<Vec<Override>> {
    let mut out = Vec::new();
    for s in sets {
        out.extend(overrides::parse_set(s, "--set")?);
    }
    out.extend(agents.map(|n| overrides::agents_override(n, Origin::Arg("--agents".into()))));
    overrides::check_unique(&out)?;
    Ok(out)
}

/// `--sensing-skin`: a finite distance, 0 or more.
pub fn parse_skin(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!("expected a finite distance of 0 or more, found `{s}`")),
    }
}

/// A progress bar of `ticks` on stderr, hidden when quiet or when stderr is not a terminal.
pub fn progress_bar(ticks: u64, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(ticks), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} ticks  {per_sec}  eta {eta}")
            .expect("a valid template"),
    );
    bar
}

/// `--shard i/n`: 0-based shard `i` of `n`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad =
        || format!("--shard {s}: expected i/n, a shard index i from 0 to n-1 and a count n >= 1 (e.g. 3/16)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n) =
        (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
    if n == 0 {
        return Err(format!("--shard {s}: the shard count must be at least 1"));
    }
    if i >= n {
        return Err(format!(
            "--shard {s}: shard index {i} is out of range; with {n} shards it is 0 to {}",
            n - 1
        ));
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::parse_shard;

    #[test]
    fn shards_are_checked() {
        assert_eq!(parse_shard("3/16"), Ok((3, 16)));
        assert!(parse_shard("16/16").unwrap_err().contains("out of range"));
        assert!(parse_shard("0/0").is_err());
        assert!(parse_shard("a/2").is_err());
    }
}
