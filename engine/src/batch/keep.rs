//! The batch file's `keep` key: what each run keeps besides its result, read and checked at
//! its place.

use toml::Spanned;
use toml::de::DeValue;

use super::parse::Parser;
use crate::scenario::{ScenarioError, nearest_word};

impl Parser<'_> {
    /// `keep = ["metrics", "trace"]`: what each run keeps (metrics, trace).
    pub(super) fn keep(&self, v: &Spanned<DeValue<'_>>) -> Result<(bool, bool), ScenarioError> {
        const WORDS: [&str; 2] = ["metrics", "trace"];
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.err(
                v.span(),
                "keep",
                format!(
                    "expected a list of what each run keeps (\"metrics\", \"trace\"), found {}",
                    v.get_ref().type_str()
                ),
            ));
        };
        let (mut metrics, mut trace) = (false, false);
        for item in items {
            let word = self.string(item, "keep")?;
            match word.as_str() {
                "metrics" => metrics = true,
                "trace" => trace = true,
                other => {
                    let hint = nearest_word(other, WORDS.iter().copied())
                        .map(|n| format!("; did you mean \"{n}\"?"))
                        .unwrap_or_default();
                    return Err(self.err(
                        item.span(),
                        "keep",
                        format!("expected \"metrics\" or \"trace\", found \"{other}\"{hint}"),
                    ));
                }
            }
        }
        Ok((metrics, trace))
    }
}
