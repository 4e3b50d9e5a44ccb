//! `ScenarioError`: a problem with a scenario file, where it is and what was expected.

use std::fmt;

/// A problem with a scenario file: where it is and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ScenarioError {
    /// The file (or the name given to an in-memory source).
    pub file: String,
    /// 1-based line and column, when the problem has a place in the file.
    pub location: Option<(usize, usize)>,
    /// Dotted key path, e.g. `groups[0].behaviours[1].radius`; empty for whole-file problems.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some((line, col)) = self.location {
            write!(f, ":{line}:{col}")?;
        }
        if !self.key.is_empty() {
            write!(f, ": `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}
