//! How an expectation came out, and the words reports use for it.

use serde::Serialize;

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
    /// `pass`, `fail` or `unchecked`, as JSON and batch results write it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unchecked => "unchecked",
        }
    }

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
