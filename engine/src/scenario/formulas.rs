//! Parameters and formulas in a scenario: a `[params]` table of named numbers, and values written
//! as a formula over them (a string that starts with `=`, as in a spreadsheet:
//! `points = [[10, "= 5 - width / 2"], [12, "= 5 - width / 2"]]`). Each formula is replaced by
//! its number before the scenario is read, so one override (`--set params.width=1.6`, or a
//! batch grid over `params.width`) moves every value computed from it.
//!
//! A formula is `+`, `-`, `*`, `/` and parentheses over numbers and parameter names, with the
//! usual precedence. The number is written in the formula's place, padded with spaces to the
//! formula's length, so every later error still points at the file's own line and column.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::locate::line_col;
use super::{ScenarioError, nearest_word};

/// The scenario text with every formula replaced by its value (the text itself when it has
/// none). A text that is not TOML is returned as it is: the reader reports that.
pub(crate) fn substitute<'t>(text: &'t str, origin: &str) -> Result<Cow<'t, str>, ScenarioError> {
    if !text.contains("\"=") && !text.contains("'=") {
        return Ok(Cow::Borrowed(text));
    }
    let Ok(doc) = DeTable::parse(text) else { return Ok(Cow::Borrowed(text)) };
    let error = |span: Range<usize>, key: &str, message: String| {
        let (line, col) = line_col(text, span.start);
        ScenarioError { file: origin.into(), location: Some((line, col)), key: key.into(), message }
    };
    let params = params(&doc, &error)?;
    let mut formulas = Vec::new();
    for (k, v) in doc.get_ref().iter() {
        find_formulas(v, k.get_ref().to_string(), &mut formulas);
    }
    if formulas.is_empty() {
        return Ok(Cow::Borrowed(text));
    }
    formulas.sort_by_key(|(_, span, _)| span.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (key, span, formula) in formulas {
        let value = evaluate(&formula[1..], &params)
            .map_err(|m| error(span.clone(), &key, format!("the formula `{formula}`: {m}")))?;
        let written = if value.fract() == 0.0 && value.abs() < 1e15 {
            format!("{}", value as i64)
        } else {
            format!("{value:?}")
        };
        out.push_str(&text[at..span.start]);
        let width = text[span.clone()].chars().count();
        out.push_str(&format!("{written:<width$}"));
        at = span.end;
    }
    out.push_str(&text[at..]);
    Ok(Cow::Owned(out))
}

/// The `[params]` table: each value a number.
fn params(
    doc: &Spanned<DeTable>,
    error: &impl Fn(Range<usize>, &str, String) -> ScenarioError,
) -> Result<BTreeMap<String, f64>, ScenarioError> {
    let mut out = BTreeMap::new();
    let Some((_, table)) = doc.get_ref().iter().find(|(k, _)| k.get_ref() == "params") else {
        return Ok(out);
    };
    let DeValue::Table(table) = table.get_ref() else {
        return Err(error(table.span(), "params", "expected a table of named numbers, `[params]`".into()));
    };
    for (k, v) in table.iter() {
        let name = k.get_ref();
        let key = format!("params.{name}");
        let value = match v.get_ref() {
            DeValue::Integer(n) => {
                i64::from_str_radix(&n.as_str().replace('_', ""), n.radix()).ok().map(|n| n as f64)
            }
            DeValue::Float(x) => x.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        let value = value.filter(|x| x.is_finite()).ok_or_else(|| {
            error(v.span(), &key, format!("expected a number, found {}", v.get_ref().type_str()))
        })?;
        if !is_name(name) {
            return Err(error(
                k.span(),
                &key,
                "a parameter's name is letters, digits and `_`, starting with a letter or `_`".into(),
            ));
        }
        out.insert(name.to_string(), value);
    }
    Ok(out)
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every string value of the document that starts with `=`: its key path, span and text.
fn find_formulas(v: &Spanned<DeValue>, path: String, out: &mut Vec<(String, Range<usize>, String)>) {
    match v.get_ref() {
        DeValue::String(s) if s.starts_with('=') => out.push((path, v.span(), s.to_string())),
        DeValue::Table(t) => {
            for (k, item) in t.iter() {
                find_formulas(item, format!("{path}.{}", k.get_ref()), out);
            }
        }
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                find_formulas(item, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The value of formula `text` (without its `=`) with `params`; a message saying what is wrong
/// otherwise.
fn evaluate(text: &str, params: &BTreeMap<String, f64>) -> Result<f64, String> {
    let mut p = Parser { text, at: 0, params };
    let value = p.sum()?;
    p.skip_spaces();
    if p.at < text.len() {
        return Err(format!("unexpected `{}`", &text[p.at..]));
    }
    if !value.is_finite() {
        return Err(format!("its value is {value} (a division by zero?)"));
    }
    Ok(value)
}

/// A recursive-descent reader of one formula.
struct Parser<'a> {
    text: &'a str,
    at: usize,
    params: &'a BTreeMap<String, f64>,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.text[self.at..].starts_with([' ', '\t']) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_spaces();
        self.text[self.at..].chars().next()
    }

    /// `term (("+" | "-") term)*`
    fn sum(&mut self) -> Result<f64, String> {
        let mut value = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            let rhs = self.product()?;
            value = if op == '+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }

    /// `factor (("*" | "/") factor)*`
    fn product(&mut self) -> Result<f64, String> {
        let mut value = self.factor()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            let rhs = self.factor()?;
            value = if op == '*' { value * rhs } else { value / rhs };
        }
        Ok(value)
    }

    /// `("-" | "+") factor | number | name | "(" sum ")"`
    fn factor(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some('-') => {
                self.at += 1;
                Ok(-self.factor()?)
            }
            Some('+') => {
                self.at += 1;
                self.factor()
            }
            Some('(') => {
                self.at += 1;
                let value = self.sum()?;
                if self.peek() != Some(')') {
                    return Err("a `(` is not closed".into());
                }
                self.at += 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                let rest = &self.text[self.at..];
                let mut end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
                // An exponent: 1e-3, 2.5E4.
                if rest[end..].starts_with(['e', 'E']) {
                    let exp = &rest[end + 1..];
                    let sign = usize::from(exp.starts_with(['+', '-']));
                    let digits = exp[sign..].find(|c: char| !c.is_ascii_digit()).unwrap_or(exp.len() - sign);
                    if digits > 0 {
                        end += 1 + sign + digits;
                    }
                }
                let number = &rest[..end];
                self.at += end;
                number.parse().map_err(|_| format!("`{number}` is not a number"))
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let rest = &self.text[self.at..];
                let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                let name = &rest[..end];
                self.at += end;
                self.params.get(name).copied().ok_or_else(|| {
                    let known: Vec<&str> = self.params.keys().map(String::as_str).collect();
                    match nearest_word(name, known.iter().copied()) {
                        Some(near) => format!("no parameter `{name}` in [params]; did you mean `{near}`?"),
                        None if known.is_empty() => {
                            format!("no parameter `{name}`: the file has no [params]")
                        }
                        None => {
                            format!("no parameter `{name}` in [params] (there are: {})", known.join(", "))
                        }
                    }
                })
            }
            Some(c) => Err(format!("expected a number, a parameter or `(`, found `{c}`")),
            None => Err("it ends where a number, a parameter or `(` was expected".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> Result<f64, String> {
        let params = BTreeMap::from([("width".to_string(), 1.2), ("length".to_string(), 2.0)]);
        evaluate(text, &params)
    }

    #[test]
    fn formulas_follow_the_usual_precedence() {
        assert_eq!(eval(" 5 - width / 2"), Ok(4.4));
        assert_eq!(eval("(5 - width) / 2"), Ok(1.9));
        assert_eq!(eval("-length * -2 + 1e-1"), Ok(4.1));
        assert_eq!(eval("2.5E1"), Ok(25.0));
    }

    #[test]
    fn a_wrong_formula_says_what_is_wrong() {
        assert_eq!(eval("5 - widht"), Err("no parameter `widht` in [params]; did you mean `width`?".into()));
        assert_eq!(eval("(5 - width"), Err("a `(` is not closed".into()));
        assert_eq!(eval("5 -"), Err("it ends where a number, a parameter or `(` was expected".into()));
        assert_eq!(eval("5 width"), Err("unexpected `width`".into()));
        assert_eq!(eval("1 / (width - 1.2)"), Err("its value is inf (a division by zero?)".into()));
    }

    #[test]
    fn a_formula_is_replaced_in_place_and_columns_stay() {
        let text =
            "[params]\nwidth = 1.2\n\n[a]\nx = [\"= 5 - width / 2\", 3]\ny = \"=width*10\"\nname = \"x\"\n";
        let out = substitute(text, "t.toml").expect("valid");
        // `"= 5 - width / 2"` is 17 characters, `"=width*10"` 11.
        let expected =
            format!("[params]\nwidth = 1.2\n\n[a]\nx = [{:<17}, 3]\ny = {:<11}\nname = \"x\"\n", "4.4", "12");
        assert_eq!(out, expected);
        let bad = "[params]\nwidth = \"wide\"\n[a]\nx = \"= width\"\n";
        let e = substitute(bad, "t.toml").expect_err("a text is no number");
        assert_eq!((e.location, e.key.as_str()), (Some((2, 9)), "params.width"));
        let bad = "[params]\nwidth = 1\n[a]\nx = [0, \"= wdth\"]\n";
        let e = substitute(bad, "t.toml").expect_err("unknown name");
        assert_eq!((e.location, e.key.as_str()), (Some((4, 9)), "a.x[1]"));
        assert!(e.message.contains("did you mean `width`"), "{}", e.message);
    }
}
