//! Argument helpers every command shares: the index choice, thread counts, `--set`/`--agents`
//! overrides, `--sensing-skin`, the progress bar. Commands depend on this module, never on
//! each other.

use std::io::IsTerminal;

use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use throng_engine::IndexKind;
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
}

impl From<IndexArg> for IndexKind {
    fn from(i: IndexArg) -> IndexKind {
        match i {
            IndexArg::Kd => IndexKind::Kd,
            IndexArg::Brute => IndexKind::Brute,
            IndexArg::Grid => IndexKind::Grid,
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
        Some(0) => bail!("{flag} must be at least 1"),
        Some(t) => Ok(t),
        None => Ok(cores()),
    }
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
