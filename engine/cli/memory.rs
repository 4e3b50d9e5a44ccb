//! Refusing a run that cannot fit in memory, before it is built: the scenario's estimate
//! (`Scenario::memory_estimate`) against `--max-memory`, or else the memory this machine has
//! available (MemAvailable, and the cgroup's limit when there is one). `run`, `bench`,
//! `record`, `verify` and `batch` (its runs at a time together) all check.

use crate::dimension::CliDimension;
use anyhow::{Result, bail};
use clap::Args;
use throng_engine::Scenario;

/// `--max-memory`, shared by every command that runs a scenario.
#[derive(Args, Clone, Copy, Debug, Default)]
pub struct MaxMemory {
    /// Refuse a run whose estimated peak memory exceeds this (e.g. `512M`, `2G`); by default,
    /// the memory this machine has available.
    #[arg(long = "max-memory", value_name = "SIZE", value_parser = parse_size)]
    pub bytes: Option<u64>,
}

/// `--max-memory`: bytes, or a number with K, M, G or T (binary multiples; a trailing `B` or
/// `iB` is allowed): `512M`, `1.5G`, `2GiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (number, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        Some('T' | 't') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    match number.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok((x * (1u64 << shift) as f64) as u64),
        _ => Err(format!("expected a size such as 512M, 1.5G or 2GiB, found `{text}`")),
    }
}

/// The memory this machine has available for a new run: MemAvailable, capped by the cgroup's
/// `memory.max` when it is a number; `None` where neither can be read.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
    });
    let cgroup =
        std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|m| m.trim().parse::<u64>().ok());
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn mib(bytes: u64) -> String {
    let m = bytes as f64 / (1u64 << 20) as f64;
    if m >= 10240.0 { format!("{:.1} GiB", m / 1024.0) } else { format!("{m:.0} MiB") }
}

/// The limit runs must fit in, and how to name it: `--max-memory`, else the memory available;
/// `None` when neither is known.
fn limit(max: Option<u64>) -> Option<(u64, String)> {
    match max {
        Some(m) => Some((m, format!("--max-memory {}", mib(m)))),
        None => available_bytes().map(|a| (a, format!("the {} this machine has available", mib(a)))),
    }
}

/// Refuses `scenario` if its estimated peak memory exceeds `max` (`--max-memory`) or, without
/// it, the memory available. `what` names the run in the message.
pub fn check<V: CliDimension>(scenario: &Scenario<V>, max: Option<u64>, what: &str) -> Result<()> {
    let estimate = scenario.memory_estimate();
    let Some((limit, source)) = limit(max) else { return Ok(()) };
    if estimate.bytes > limit {
        bail!(
            "{what} needs about {} ({} agents at its peak), more than {source}: scale it down (fewer agents, `--agents N`, or fewer `max_neighbours`), or raise --max-memory if the estimate is too cautious",
            mib(estimate.bytes),
            estimate.agents
        );
    }
    Ok(())
}

/// How many of a batch's runs may go at once: `jobs`, unless the largest `jobs` estimates
/// (`runs`: name and bytes) together exceed the limit. A run too big on its own is refused;
/// otherwise, when `jobs` was asked for (`explicit`) the batch is refused saying how many
/// fit, and when it was the default it is lowered to that number, with a note.
pub fn batch_jobs(runs: &[(String, u64)], jobs: usize, explicit: bool, max: Option<u64>) -> Result<usize> {
    let Some((limit, source)) = limit(max) else { return Ok(jobs) };
    let mut sizes: Vec<&(String, u64)> = runs.iter().collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if let Some((name, bytes)) = sizes.first().filter(|(_, b)| *b > limit) {
        bail!(
            "run {name} needs about {}, more than {source}: scale it down (fewer agents or fewer `max_neighbours` in the batch file), or raise --max-memory if the estimate is too cautious",
            mib(*bytes)
        );
    }
    let mut total = 0u64;
    let fit = sizes
        .iter()
        .take(jobs)
        .take_while(|(_, b)| {
            total = total.saturating_add(*b);
            total <= limit
        })
        .count()
        .max(1);
    let together: u64 = sizes.iter().take(jobs).map(|(_, b)| b).sum();
    if fit < jobs.min(runs.len()) {
        if explicit {
            bail!(
                "--jobs {jobs}: its largest runs together need about {}, more than {source}; {fit} at a time fit (--jobs {fit}), or raise --max-memory if the estimate is too cautious",
                mib(together)
            );
        }
        eprintln!(
            "note: running {fit} at a time, not {jobs}: {jobs} of the largest runs together need about {}, more than {source}",
            mib(together)
        );
    }
    Ok(if fit < jobs.min(runs.len()) { fit } else { jobs })
}

#[cfg(test)]
mod tests {
    use super::{batch_jobs, parse_size};

    #[test]
    fn a_batch_runs_as_many_at_once_as_fit() {
        let runs: Vec<(String, u64)> = [("a", 300), ("b", 500), ("c", 200), ("d", 400)]
            .iter()
            .map(|(n, b)| (n.to_string(), *b << 20))
            .collect();
        let limit = Some(1000 << 20);
        // The largest two (500 + 400) fit; the largest three (1200) do not.
        assert_eq!(batch_jobs(&runs, 4, false, limit).unwrap(), 2);
        assert_eq!(batch_jobs(&runs, 2, true, limit).unwrap(), 2);
        let refused = batch_jobs(&runs, 3, true, limit).unwrap_err().to_string();
        assert!(refused.contains("--jobs 3") && refused.contains("2 at a time fit"), "{refused}");
        let too_big = batch_jobs(&runs, 1, false, Some(450 << 20)).unwrap_err().to_string();
        assert!(too_big.contains("run b needs about 500 MiB"), "{too_big}");
        // More jobs than runs is not a reason to refuse.
        assert_eq!(batch_jobs(&runs[..1], 8, true, limit).unwrap(), 8);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("1KB"), Ok(1024));
        assert!(parse_size("lots").is_err() && parse_size("-1G").is_err() && parse_size("0").is_err());
    }
}
