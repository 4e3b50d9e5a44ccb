//! Refusing a run that cannot fit in memory, before it is built: the scenario's estimate
//! (`Scenario::memory_estimate`) against `--max-memory`, or else the memory this machine has
//! available (MemAvailable, and the cgroup's limit when there is one).

use anyhow::{Result, bail};
use throng_engine::Scenario;

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

/// Refuses `scenario` if its estimated peak memory exceeds `max` (`--max-memory`) or, without
/// it, the memory available. `what` names the run in the message.
pub fn check(scenario: &Scenario, max: Option<u64>, what: &str) -> Result<()> {
    let estimate = scenario.memory_estimate();
    let (limit, source) = match max {
        Some(m) => (m, format!("--max-memory {}", mib(m))),
        None => match available_bytes() {
            Some(a) => (a, format!("the {} this machine has available", mib(a))),
            None => return Ok(()),
        },
    };
    if estimate.bytes > limit {
        bail!(
            "{what} needs about {} ({} agents at its peak), more than {source}: scale it down (fewer agents, `--agents N`, or fewer `max_neighbours`), or raise --max-memory if the estimate is too cautious",
            mib(estimate.bytes),
            estimate.agents
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_size;

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
