//! `Check`: one golden file being verified, with the scenario text it is checked against.

use super::format::Golden;
use super::verdict::VerifyOptions;
use crate::scenario::overrides::Override;

/// One golden file being verified: what `verify` hands on to the re-run and to the
/// explanation of a divergence.
pub(super) struct Check<'a> {
    /// The golden file.
    pub(super) golden: &'a Golden,
    /// The golden file's name, as errors give it.
    pub(super) name: &'a str,
    /// Where the scenario text came from, as its parse errors give it.
    pub(super) origin: String,
    /// The scenario text the file is checked against.
    pub(super) text: &'a str,
    /// The golden file's recorded `--set` overrides.
    pub(super) overrides: &'a [Override],
    /// How the checking run runs.
    pub(super) opts: VerifyOptions,
}
