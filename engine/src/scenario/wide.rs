//! Whole numbers wider than a TOML value holds (beyond `i64`: a seed up to `u64`'s largest):
//! found in a document, and stood aside as placeholder strings while the overrides edit the
//! document as `toml::Value`s, then put back in the text written from it.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Every whole number of `doc` that does not fit an `i64`, in source order: its key path
/// (`groups[0].model.time_horizon`) and its span.
pub(crate) fn wide_integers(doc: &Spanned<DeTable>) -> Vec<(String, Range<usize>)> {
    fn walk(v: &Spanned<DeValue>, path: String, out: &mut Vec<(String, Range<usize>)>) {
        match v.get_ref() {
            DeValue::Integer(n) => {
                let digits = n.as_str().replace('_', "");
                if i64::from_str_radix(&digits, n.radix()).is_err() {
                    out.push((path, v.span()));
                }
            }
            DeValue::Table(t) => {
                for (k, item) in t.iter() {
                    let sub = if path.is_empty() {
                        k.get_ref().to_string()
                    } else {
                        format!("{path}.{}", k.get_ref())
                    };
                    walk(item, sub, out);
                }
            }
            DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in doc.get_ref().iter() {
        walk(v, k.get_ref().to_string(), &mut out);
    }
    out.sort_by_key(|(_, span)| span.start);
    out
}

/// A scenario's text with each whole number wider than `i64` replaced by a placeholder
/// string, and those numbers as written.
pub(crate) struct WideIntegers {
    pub(crate) text: String,
    numbers: Vec<String>,
}

impl WideIntegers {
    const MARK: &'static str = "\u{1}throng-int-";

    /// `None` when the text has no such number (or already holds the mark, or cannot be read:
    /// the caller's own reading reports that).
    pub(crate) fn new(text: &str) -> Option<WideIntegers> {
        if text.contains("throng-int-") {
            return None;
        }
        let doc = DeTable::parse(text).ok()?;
        let wide = wide_integers(&doc);
        if wide.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut numbers = Vec::with_capacity(wide.len());
        let mut at = 0;
        for (_, span) in wide {
            out.push_str(&text[at..span.start]);
            out.push_str(&Self::quoted(numbers.len()));
            numbers.push(text[span.clone()].to_string());
            at = span.end;
        }
        out.push_str(&text[at..]);
        Some(WideIntegers { text: out, numbers })
    }

    /// How the writer spells placeholder `k`: the escaped mark and the number, quoted.
    fn quoted(k: usize) -> String {
        toml::Value::String(format!("{}{k}", Self::MARK)).to_string()
    }

    /// `text` written from the edited document, with each placeholder still in it replaced by
    /// its number (an override may have replaced one; its placeholder is then gone).
    pub(crate) fn restore(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (k, number) in self.numbers.iter().enumerate() {
            out = out.replace(&Self::quoted(k), number);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_numbers_stand_aside_and_come_back() {
        let text = "seed = 18446744073709551615\nticks = 5\n[a]\nb = [1, 0xffffffffffffffff]\n";
        let doc = DeTable::parse(text).expect("valid TOML");
        let found: Vec<String> = wide_integers(&doc).into_iter().map(|(path, _)| path).collect();
        assert_eq!(found, ["seed", "a.b[1]"]);
        let wide = WideIntegers::new(text).expect("two wide numbers");
        let table: toml::Table = wide.text.parse().expect("readable as values now");
        assert_eq!(table["ticks"].as_integer(), Some(5));
        let written = toml::to_string(&table).expect("writable");
        let back: toml::Table = toml::from_str(&written).expect("valid");
        assert!(back["seed"].is_str(), "a placeholder while edited");
        let restored = wide.restore(&written);
        assert!(restored.contains("seed = 18446744073709551615"), "{restored}");
        assert!(restored.contains("0xffffffffffffffff"), "{restored}");
        assert!(WideIntegers::new("seed = 7\n").is_none());
    }
}
