//! Locating keys and values in a TOML source: spans, 1-based line:column, key paths and "did you mean".

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::ScenarioError;

/// Reads a TOML source file for the loaders: the path as it will be named in errors, and the
/// text. A directory, a missing or unreadable file, and invalid UTF-8 (located at the first bad
/// byte) are errors; `expected` says what the file should have been.
pub(crate) fn read_source(path: &Path, expected: &str) -> Result<(String, String), ScenarioError> {
    let file = path.display().to_string();
    let whole =
        |message: String| ScenarioError { file: file.clone(), location: None, key: String::new(), message };
    if path.is_dir() {
        return Err(whole(format!("is a directory; expected {expected}")));
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => whole("no such file".into()),
        _ => whole(format!("cannot read: {e}")),
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok((file, text)),
        Err(e) => {
            let bytes = e.as_bytes();
            let valid = e.utf8_error().valid_up_to();
            let location = Some(line_col(&String::from_utf8_lossy(&bytes[..valid]), valid));
            Err(ScenarioError {
                file,
                location,
                key: String::new(),
                message: "the file is not valid UTF-8".into(),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Locating keys and values in the source.

/// One step of a key path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

pub(crate) fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// 1-based line and column (in characters) of byte `offset`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

/// The span of the last key of `path` itself (not its value), e.g. to place an unknown key;
/// the value's span ([`span_of`]) when the key is not found.
pub(crate) fn key_span_of(doc: &Spanned<DeTable>, path: &[Seg]) -> Range<usize> {
    let Some((Seg::Key(key), parent)) = path.split_last() else { return span_of(doc, path) };
    let table = if parent.is_empty() {
        Some(doc.get_ref())
    } else {
        let mut value: Option<&DeValue> = None;
        let mut table: Option<&DeTable> = Some(doc.get_ref());
        for seg in parent {
            let next = match (seg, table, value) {
                (Seg::Key(k), Some(t), _) => t.get(*k),
                (Seg::Index(i), _, Some(DeValue::Array(items))) => items.get(*i),
                _ => None,
            };
            let Some(next) = next else { return span_of(doc, path) };
            value = Some(next.get_ref());
            table = match next.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            };
        }
        table
    };
    table
        .and_then(|t| t.iter().find(|(k, _)| k.get_ref() == key).map(|(k, _)| k.span()))
        .unwrap_or_else(|| span_of(doc, path))
}

/// The span of the value at `path`, or of the deepest part of it that exists.
pub(crate) fn span_of(doc: &Spanned<DeTable>, path: &[Seg]) -> Range<usize> {
    let mut span = doc.span();
    let mut value: Option<&DeValue> = None;
    let mut table: Option<&DeTable> = Some(doc.get_ref());
    for seg in path {
        let next = match (seg, table, value) {
            (Seg::Key(k), Some(t), _) => t.get(*k),
            (Seg::Index(i), _, Some(DeValue::Array(items))) => items.get(*i),
            _ => None,
        };
        let Some(next) = next else { break };
        span = next.span();
        value = Some(next.get_ref());
        table = match next.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    span
}

/// The key path of the innermost key or value containing byte `at`. A table written with a
/// `[header]` (or `[[header]]`) spans only its header line, not its keys, so every table is
/// searched, not only those whose span contains `at`.
pub(crate) fn path_at(doc: &Spanned<DeTable>, at: usize) -> String {
    let mut out = String::new();
    find_path(doc.get_ref(), &mut out, &|k, v| k.is_some_and(|k| k.contains(&at)) || v.contains(&at));
    out
}

/// The key path of the innermost table or value whose span is exactly `span` (serde reports a
/// missing key at the span of the table that lacks it); empty for the top level.
pub(crate) fn path_of_span(doc: &Spanned<DeTable>, span: &Range<usize>) -> String {
    let mut out = String::new();
    find_path(doc.get_ref(), &mut out, &|_, v| v == *span);
    out
}

/// Depth-first search for the innermost entry below `table` that `hit(key span, value span)`
/// accepts; appends its path to `out` and returns whether one was found.
pub(crate) fn find_path(
    table: &DeTable,
    out: &mut String,
    hit: &dyn Fn(Option<Range<usize>>, Range<usize>) -> bool,
) -> bool {
    fn value(
        v: &Spanned<DeValue>,
        key: Option<Range<usize>>,
        out: &mut String,
        hit: &dyn Fn(Option<Range<usize>>, Range<usize>) -> bool,
    ) -> bool {
        let deeper = match v.get_ref() {
            DeValue::Table(t) => find_path(t, out, hit),
            DeValue::Array(items) => items.iter().enumerate().any(|(i, item)| {
                let len = out.len();
                out.push_str(&format!("[{i}]"));
                if value(item, None, out, hit) {
                    return true;
                }
                out.truncate(len);
                false
            }),
            _ => false,
        };
        deeper || hit(key, v.span())
    }
    table.iter().any(|(k, v)| {
        let len = out.len();
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(k.get_ref());
        if value(v, Some(k.span()), out, hit) {
            return true;
        }
        out.truncate(len);
        false
    })
}

/// A table header given twice, which the TOML reader reports as "duplicate key" at the second
/// header, named: the table's key path and a message that says what to do. `None` for any
/// other error.
pub(crate) fn table_given_twice(text: &str, message: &str, at: usize) -> Option<(String, String)> {
    if message.trim() != "duplicate key" {
        return None;
    }
    let (line, _) = line_col(text, at);
    let header = text.lines().nth(line - 1).map(str::trim).filter(|l| l.starts_with('['))?;
    let name = header.trim_start_matches('[').split(']').next().unwrap_or("").trim();
    Some((name.to_string(), format!("the table `{header}` is given twice; write its keys under one header")))
}

/// The message of the TOML reader's value errors in plain words, for a value read on its own
/// (a `--set` value, a batch file's override): the reader's own words for a whole number beyond
/// what a value holds name neither the number nor the limit.
pub(crate) fn value_reason(message: &str) -> String {
    match message.trim() {
        "u64 value was too large" => format!("too large to read (at most {})", i64::MAX),
        m => plain_words(m),
    }
}

/// The first whole number at or after byte `from` (in source order) that the TOML reader's
/// values cannot hold (beyond `i64`): its key path, span and digits as written.
fn oversized_integer(
    doc: &Spanned<DeTable>,
    text: &str,
    from: usize,
) -> Option<(String, Range<usize>, String)> {
    let (path, span) = super::wide::wide_integers(doc).into_iter().find(|(_, span)| span.start >= from)?;
    let digits = text.get(span.clone()).unwrap_or_default().to_string();
    Some((path, span, digits))
}

/// Levenshtein distance, for "did you mean" hints.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate nearest to `word`, if it is near enough to be a plausible typo.
pub fn nearest_word<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Turns a toml/serde error into a located one, rewording unknown keys with a suggestion.
pub(crate) fn toml_error(
    origin: &str,
    text: &str,
    doc: Option<&Spanned<DeTable>>,
    e: &toml::de::Error,
) -> ScenarioError {
    let location = e.span().map(|s| line_col(text, s.start));
    let mut message = e.message().trim().to_string();
    let missing = message.strip_prefix("missing field `").map(|rest| rest.trim_end_matches('`').to_string());
    let key = match (doc, e.span()) {
        (Some(doc), Some(s)) if missing.is_some() => path_of_span(doc, &s),
        (Some(doc), Some(s)) => path_at(doc, s.start),
        _ => String::new(),
    };
    if let Some(field) = missing {
        message = format!("missing key `{field}`");
    }
    // A whole number beyond the TOML reader's range where the scenario keeps a raw value (a
    // behaviour's or a model's parameters): serde names neither it nor its key, and places it
    // at its table; find it in the document.
    if message == "u64 value was too large"
        && let (Some(doc), Some(s)) = (doc, e.span())
        && let Some((path, span, digits)) = oversized_integer(doc, text, s.start)
    {
        return ScenarioError {
            file: origin.into(),
            location: Some(line_col(text, span.start)),
            key: path,
            message: format!("found the whole number {digits}, too large to read (at most {})", i64::MAX),
        };
    }
    message = plain_words(&message);
    // A syntax error has no key from the document: take it from its line (`key = ...`).
    let key = match (key.is_empty(), location) {
        (true, Some((line, _))) if doc.is_none() => text
            .lines()
            .nth(line - 1)
            .and_then(|l| l.split_once('='))
            .map(|(k, _)| k.trim().trim_matches('"').to_string())
            .filter(|k| !k.is_empty() && !k.starts_with('[') && !k.contains(' '))
            .unwrap_or_default(),
        _ => key,
    };
    if let Some((key, message)) = e.span().and_then(|s| table_given_twice(text, &message, s.start)) {
        return ScenarioError { file: origin.into(), location, key, message };
    }
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (field, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let mut m = format!("unknown key `{field}`");
        if let Some(near) = nearest_word(field, names.iter().copied()) {
            m.push_str(&format!("; did you mean `{near}`?"));
        }
        if !names.is_empty() {
            m.push_str(&format!(" (expected one of: {})", names.join(", ")));
        }
        message = m;
    }
    ScenarioError { file: origin.into(), location, key, message }
}

/// serde's and the TOML reader's words for types, in the words a scenario's author uses:
/// "expected u64" → "expected a whole number", "integer `1`" → "the whole number 1",
/// "expected struct GroupToml" → "expected a table", with what was found last.
pub(crate) fn plain_words(message: &str) -> String {
    // A float as written: `5.0`, not `5`, which would read as the whole number a key may ask for.
    fn float_shown(v: f64) -> String {
        let shown = super::shown(v);
        if shown.contains(['.', 'e', 'i', 'N']) { shown } else { format!("{shown}.0") }
    }
    fn expected(t: &str) -> String {
        let t = t.trim();
        match t {
            "u8" => format!("a whole number from 0 to {}", u8::MAX),
            "u16" => format!("a whole number from 0 to {}", u16::MAX),
            "u32" => format!("a whole number from 0 to {}", u32::MAX),
            "u64" | "u128" | "usize" => "a whole number of 0 or more".into(),
            "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => "a whole number".into(),
            "f32" | "f64" => "a number".into(),
            "a boolean" | "bool" => "true or false".into(),
            "a sequence" => "an array".into(),
            "a map" => "a table".into(),
            t if t.starts_with("struct ") => "a table".into(),
            t if t.starts_with("a string") || t.starts_with("a point") || t.starts_with("a target") => {
                t.into()
            }
            t => t.into(),
        }
    }
    fn found(f: &str) -> String {
        let f = f.trim();
        let inner = |prefix: &str| f.strip_prefix(prefix).map(|v| v.trim_matches('`').to_string());
        if let Some(v) = inner("integer ") {
            let v = v.split('`').next().unwrap_or(&v).to_string();
            return format!("the whole number {v}");
        }
        if let Some(v) = inner("floating point ") {
            return format!("the number {}", v.parse::<f64>().map_or(v, float_shown));
        }
        if let Some(v) = f.strip_prefix("string ") {
            return format!("the text {v}");
        }
        if let Some(v) = inner("boolean ") {
            return v;
        }
        match f {
            "sequence" => "an array".into(),
            "map" => "a table".into(),
            f => f.into(),
        }
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((what, wanted)) = rest.rsplit_once(", expected ")
        {
            if what.ends_with(" as i128") && wanted.trim().starts_with('u') {
                let max = match wanted.trim() {
                    "u8" => u8::MAX as u128,
                    "u16" => u16::MAX as u128,
                    "u32" => u32::MAX as u128,
                    _ => u64::MAX as u128,
                };
                return format!("expected a whole number from 0 to {max}, found {}", found(what));
            }
            // Beyond every integer the reader holds, where a number or a raw value was expected.
            if what.ends_with(" as i128") {
                if wanted.trim() == "any valid TOML value" {
                    return format!("found {}, too large to read (at most {})", found(what), i64::MAX);
                }
                if expected(wanted).contains("number") {
                    return format!(
                        "expected {}, found {}, too large to read",
                        expected(wanted),
                        found(what)
                    );
                }
            }
            // A whole value written as a float (`1e9`, `5.0`) where a whole number is wanted.
            let whole = what
                .strip_prefix("floating point `")
                .and_then(|v| v.trim_end_matches('`').parse::<f64>().ok())
                .filter(|v| v.fract() == 0.0 && v.abs() <= 9e15 && expected(wanted).contains("whole"))
                .filter(|&v| v >= 0.0 || !wanted.trim().starts_with('u'));
            if let Some(v) = whole {
                return format!(
                    "expected {}, found the number {}; write it without a point or an exponent: {v:.0}",
                    expected(wanted),
                    float_shown(v)
                );
            }
            return format!("expected {}, found {}", expected(wanted), found(what));
        }
    }
    if let Some(rest) = message.strip_prefix("invalid float") {
        let _ = rest;
        return "not a number: write a number as 0.1, 2 or 1e-3".into();
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let t = "ab\ncdé\nf";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, t.len() - 1), (3, 1));
    }

    #[test]
    fn nearest_word_suggests_typos_only() {
        assert_eq!(nearest_word("mas", ["mass", "radius"]), Some("mass"));
        assert_eq!(nearest_word("zzzzzz", ["mass", "radius"]), None);
    }
}
