//! How an expectation came out, and the words reports use for it.

use serde::Serialize;

use super::{Check, Expectation, Subject, Who};

/// Passed, failed, or could not be judged (the run ended before the check's time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Held.
    Pass,
    /// Did not hold.
    Fail,
    /// The run did not reach the time the check needs.
    Unchecked,
}

impl Status {
    /// `PASS`, `FAIL` or `UNCHECKED`, as reports print it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Unchecked => "UNCHECKED",
        }
    }
}

/// One expectation's verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The expectation's name.
    pub name: String,
    /// What was checked, in words (`agents_active at the end <= 0`).
    pub what: String,
    /// The verdict.
    pub status: Status,
    /// The value judged (for `first`: the time it first held, in seconds; for `reach`: how
    /// many arrived), when there is one.
    pub value: Option<f64>,
    /// The simulated time of that value, when there is one.
    pub time_s: Option<f64>,
    /// What was found, in words (`was 0`, `first at 119.10 s`).
    pub detail: String,
}

impl Outcome {
    /// `NAME: WHAT (DETAIL)`, or `WHAT (DETAIL)` when the name is the description.
    pub fn line(&self) -> String {
        if self.name == self.what {
            format!("{} ({})", self.what, self.detail)
        } else {
            format!("{}: {} ({})", self.name, self.what, self.detail)
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:<9} {}", self.status.label(), self.line())
    }
}

/// A number as reports print it: whole numbers without a fraction, others to at most 4
/// decimals.
pub(crate) fn number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A time in seconds, to the hundredth.
pub(crate) fn seconds(t: f64) -> String {
    format!("{t:.2} s")
}

/// `between 1 and 2`, `>= 1`, `<= 2`.
fn bounds(min: Option<f64>, max: Option<f64>) -> String {
    match (min, max) {
        (Some(lo), Some(hi)) => format!("between {} and {}", number(lo), number(hi)),
        (Some(lo), None) => format!(">= {}", number(lo)),
        (None, Some(hi)) => format!("<= {}", number(hi)),
        (None, None) => "anything".into(),
    }
}

/// A window of ticks in words: empty for the whole run.
fn window(from: u64, to: u64, dt: f64) -> String {
    match (from, to) {
        (0, u64::MAX) => String::new(),
        (f, u64::MAX) => format!(" from {}", seconds(f as f64 * dt)),
        (f, t) => format!(" from {} to {}", seconds(f as f64 * dt), seconds(t as f64 * dt)),
    }
}

/// What `e` checks, in words (`gates` and `groups`: the scenario's names, `dt` its step).
pub fn describe(e: &Expectation, gates: &[&str], groups: &[&str], dt: f64) -> String {
    let group = |g: u16| groups.get(g as usize).copied().unwrap_or("?");
    let subject = match &e.subject {
        Subject::Metric(m) => m.name(gates),
        Subject::InRegion { group: None, .. } => "agents in the region".into(),
        Subject::InRegion { group: Some(g), .. } => format!("agents of \"{}\" in the region", group(*g)),
        Subject::None => String::new(),
    };
    let b = bounds(e.min, e.max);
    match &e.check {
        Check::End => format!("{subject} at the end {b}"),
        Check::At { tick } => format!("{subject} at {} {b}", seconds(*tick as f64 * dt)),
        Check::Always { from, to } => format!("{subject} {b} at every tick{}", window(*from, *to, dt)),
        Check::Ever { from, to } => format!("{subject} {b} at some tick{}", window(*from, *to, dt)),
        Check::First { after, before } => {
            let when = match (*after, *before) {
                (0, u64::MAX) => "ever".to_string(),
                (0, b) => format!("by {}", seconds(b as f64 * dt)),
                (a, u64::MAX) => format!("not before {}", seconds(a as f64 * dt)),
                (a, b) => format!("between {} and {}", seconds(a as f64 * dt), seconds(b as f64 * dt)),
            };
            format!("{subject} first {b} {when}")
        }
        Check::Reach { who, before, .. } => {
            let who = match who {
                Who::Agent(id) => format!("agent {id}"),
                Who::Group(g) => format!("every agent of \"{}\"", group(*g)),
            };
            format!("{who} in the region by {}", seconds(*before as f64 * dt))
        }
    }
}
