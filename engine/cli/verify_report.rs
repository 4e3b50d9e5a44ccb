//! The human report of `throng verify`: "ok"/"FAIL", the first diverging tick, pass, agent and
//! field, and where the expected values came from.

use std::fmt;

use throng_engine::golden::{Expected, Problem, Verdict};
use throng_engine::pipeline::Pass;
use throng_engine::state::fields::{self, Diff};

/// A verdict, printed for people.
pub struct VerdictReport<'a>(pub &'a Verdict);

fn short(h: &str) -> &str {
    &h[..h.len().min(16)]
}

impl fmt::Display for VerdictReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = self.0;
        let status = if verdict.ok() { "ok  " } else { "FAIL" };
        writeln!(
            f,
            "{status} {}: scenario {}, seed {}, {} ticks, {} threads, {} index",
            verdict.file,
            verdict.scenario,
            verdict.seed,
            verdict.ticks,
            verdict.settings.threads,
            verdict.settings.index
        )?;
        for n in &verdict.notes {
            writeln!(f, "  note: {n}")?;
        }
        for p in &verdict.problems {
            match p {
                Problem::ScenarioChanged { path, recorded, now, line } => {
                    writeln!(
                        f,
                        "  scenario changed: {path} is not the file recorded (BLAKE3 {} recorded, {} now)",
                        short(recorded),
                        short(now)
                    )?;
                    if let Some((n, old, new)) = line {
                        writeln!(f, "    first changed line {n}:")?;
                        writeln!(f, "      recorded: {old}")?;
                        writeln!(f, "      now:      {new}")?;
                    }
                }
                Problem::SnapshotDiffers { tick, diff } => {
                    writeln!(
                        f,
                        "  the snapshot stored at tick {tick} differs from the run, although the recorded hashes match: the golden file was edited"
                    )?;
                    write_diff(f, diff, "stored", "run")?;
                }
                Problem::FinalHash { recorded, actual } => {
                    writeln!(f, "  final hash differs: recorded {recorded}, now {actual}")?;
                }
                Problem::RunStopped { tick, message } => {
                    writeln!(f, "  the run stopped at tick {tick}: {message}")?;
                }
            }
        }
        if let Some(d) = &verdict.divergence {
            match (d.tick, d.last_match) {
                (Some(t), _) => writeln!(f, "  first diverging tick: {t}")?,
                (None, Some(m)) => writeln!(
                    f,
                    "  first diverging tick: between {} and {} (records every {} ticks; tick {m} matches)",
                    m + 1,
                    d.recorded_tick,
                    d.recorded_tick - m
                )?,
                (None, None) => writeln!(f, "  first diverging tick: {}", d.recorded_tick)?,
            }
            if d.tick.is_some_and(|t| t != d.recorded_tick) {
                writeln!(f, "  first recorded tick that differs: {}", d.recorded_tick)?;
            }
            if !d.columns.is_empty() {
                writeln!(f, "  differing columns at tick {}: {}", d.recorded_tick, d.columns.join(", "))?;
            }
            if let Some(p) = d.passes.first() {
                let after = d.passes_matching.iter().filter(|m| Pass::from_name(m) < Pass::from_name(p));
                let after: Vec<&String> = after.collect();
                let tail = if after.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (the outputs of {} match)",
                        after.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    )
                };
                writeln!(f, "  first diverging pass: {p}{tail}")?;
            } else if !d.passes_matching.is_empty() {
                writeln!(
                    f,
                    "  the recorded pass outputs ({}) match: the divergence starts in another pass",
                    d.passes_matching.join(", ")
                )?;
            }
            match &d.expected {
                Some(Expected::ReferenceRun { threads, index }) => writeln!(
                    f,
                    "  expected values: from a re-run of the recorded inputs ({threads} threads, {index} index), which reproduces every recorded hash up to the divergence"
                )?,
                Some(Expected::Snapshot) => {
                    writeln!(f, "  expected values: from the snapshot stored at tick {}", d.recorded_tick)?
                }
                None => {}
            }
            if let Some(diff) = &d.diff {
                if diff.is_empty() {
                    writeln!(
                        f,
                        "  the expected state equals the run field for field: only the recorded hashes or digests differ (the golden file was edited)"
                    )?;
                }
                if let Some(t) = d.agent_tick {
                    writeln!(f, "  (agents first differ at tick {t})")?;
                }
                write_diff(f, diff, "expected", "actual")?;
            }
            if let Some(m) = &d.missing {
                writeln!(f, "  no agent values: {m}")?;
            }
        }
        if verdict.ok() {
            writeln!(
                f,
                "  {} records match; final hash {}",
                verdict.records_checked,
                verdict.final_hash.as_deref().unwrap_or("")
            )?;
        }
        Ok(())
    }
}

fn write_diff(f: &mut fmt::Formatter<'_>, diff: &Diff, e: &str, a: &str) -> fmt::Result {
    let show = |v: &Option<fields::Value>| v.as_ref().map_or("(absent)".to_string(), |v| v.to_string());
    if let Some(ag) = &diff.agent {
        let id = ag.id.map_or("?".to_string(), |i| i.to_string());
        writeln!(f, "  first differing agent: id {id} (row {}), field {}", ag.row, ag.field)?;
        writeln!(f, "    {e:<8}: {}", show(&ag.expected))?;
        writeln!(f, "    {a:<8}: {}", show(&ag.actual))?;
    }
    for fd in &diff.fields {
        writeln!(f, "  differing field {}: {e} {}, {a} {}", fd.path, show(&fd.expected), show(&fd.actual))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Base64 (RFC 4648, with padding), for snapshots.
