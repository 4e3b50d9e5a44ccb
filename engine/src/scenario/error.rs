//! Scenario errors: `ScenarioError` (a problem with a scenario file, where it is and what was
//! expected), and the typed errors of scaling (`ScaleError`) and of override keys and values
//! (`KeyError`, `ValueError`).

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
    /// What is wrong and what was expected, in words (e.g. "expected a finite number > 0 and
    /// <= 1e7, found -1").
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

/// A number as the messages show it: as written for everyday sizes, and in exponent form at
/// 1e7 and beyond or below 1e-4 (`1e30`, not thirty-one digits; `1.8446744e19`).
pub(crate) fn shown<T: Copy + fmt::Display + fmt::LowerExp + Into<f64>>(x: T) -> String {
    let v: f64 = x.into();
    if v.is_finite() && v != 0.0 && (v.abs() >= 1e7 || v.abs() < 1e-4) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Why a scenario cannot be scaled to a number of agents ([`crate::Scenario::scaled`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScaleError {
    /// Not between 1 and [`crate::scenario::MAX_AGENTS`].
    #[error("cannot scale to {agents} agents (1 to {max})", max = crate::scenario::MAX_AGENTS)]
    Agents {
        /// The count asked for.
        agents: u64,
    },
    /// No group has agents at tick 0 (only spawn sources fill them): no density to keep.
    #[error("the scenario has no agents at tick 0 (only spawn sources add them), so nothing to scale")]
    NoAgents,
    /// A group spawns at listed points, which have no density to keep.
    #[error("group \"{group}\" spawns at listed points, which cannot be scaled")]
    ListedPoints {
        /// The group's name.
        group: String,
    },
}

/// A dotted key that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Nothing but spaces.
    #[error("empty key")]
    Empty,
    /// A quoted segment without its closing quote.
    #[error("unterminated quote in key `{key}`")]
    UnterminatedQuote {
        /// The key as written.
        key: String,
    },
    /// A character a bare segment cannot hold.
    #[error("unexpected `{c}` in key `{key}`; quote a segment holding other characters: \"...\"")]
    Character {
        /// The character.
        c: char,
        /// The key as written.
        key: String,
    },
    /// Two dots in a row, or a dot at an end.
    #[error("empty segment in key `{key}`")]
    EmptySegment {
        /// The key as written.
        key: String,
    },
    /// Something other than a dot after a quoted segment.
    #[error("unexpected `{c}` after a quoted segment in key `{key}`")]
    AfterQuote {
        /// The character.
        c: char,
        /// The key as written.
        key: String,
    },
}

/// A value that is not TOML (nor a bare word).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid value `{text}`: {reason} (write a TOML value: 1.5, \"text\", [1, 2])")]
pub struct ValueError {
    /// The value as written.
    pub text: String,
    /// What the TOML reader said.
    pub reason: String,
}
