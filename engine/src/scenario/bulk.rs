//! Lists of points read straight from a scenario's text, beside the TOML parser.
//!
//! A TOML document tree costs a few hundred bytes per value (and its parser several bytes per
//! byte of a long value, whitespace included), so a file listing millions of points
//! (`spawn.points`, `waypoints`, path `nodes`) took gigabytes to load. Before parsing,
//! [`BulkLists::extract`] finds every array value that is a plain list of `[x, y]` number
//! pairs, reads it into a flat vector, and cuts it from a copy of the text, leaving `[]`;
//! [`BulkLists::original`] maps an offset in that copy back to the file, so errors are placed
//! in the file as written. [`BulkLists::fill`] puts the points into the deserialized file
//! where the empty arrays are. Anything the fast path does not take exactly as TOML would
//! (comments, underscores, hex, `inf`, a third number, an integer beyond 64 bits) is left to
//! the parser; and when a cut list is not a place points belong, the caller parses the
//! original text instead, so every error reads as it would without this file.
//! [`Placeholders`] keeps the lists aside, as strings, while overrides edit the document.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::locate::{Seg, span_of};
use super::schema::{Pt, ScenarioToml};

/// The point lists taken out of a text, keyed by the offset of their `[` in the cut text.
#[derive(Default)]
pub(crate) struct BulkLists {
    lists: BTreeMap<usize, BulkList>,
}

struct BulkList {
    /// Byte range of the whole list in the file, brackets included.
    span: Range<usize>,
    /// Bytes cut from the file up to the end of this list (this one's included).
    cut_through: usize,
    /// The points, until [`BulkLists::fill`] moves them into the file.
    points: Vec<Pt>,
    len: usize,
    used: bool,
}

impl BulkLists {
    /// Takes the point lists out of `text`: the lists and the text with each cut to `[]`, or
    /// `None` when the text has none (it is then parsed as it is).
    pub(crate) fn extract(text: &str) -> Option<(BulkLists, String)> {
        let bytes = text.as_bytes();
        let mut lists = BTreeMap::new();
        let mut cut = String::new();
        let mut copied = 0;
        let mut lexer = Lexer { bytes, at: 0 };
        while let Some(open) = lexer.next_value_array() {
            let mut read = ListReader { bytes, at: open, starts: None, points: Vec::new() };
            match read.list() {
                Some(end) if !read.points.is_empty() => {
                    // `[` and `]` are ASCII, so both ends are character boundaries.
                    cut.push_str(&text[copied..open]);
                    let start = cut.len();
                    cut.push_str("[]");
                    copied = end;
                    let len = read.points.len();
                    let cut_through =
                        end - open - 2 + lists.values().last().map_or(0, |l: &BulkList| l.cut_through);
                    lists.insert(
                        start,
                        BulkList { span: open..end, cut_through, points: read.points, len, used: false },
                    );
                    lexer.at = end;
                }
                _ => lexer.at = open + 1,
            }
        }
        if lists.is_empty() {
            return None;
        }
        cut.push_str(&text[copied..]);
        Some((BulkLists { lists }, cut))
    }

    /// The offset in the file of byte `at` of the cut text.
    pub(crate) fn original(&self, at: usize) -> usize {
        match self.lists.range(..=at).next_back() {
            None => at,
            Some((&start, list)) if at == start => list.span.start,
            Some((&start, list)) if at == start + 1 => list.span.end - 1,
            Some((_, list)) => at + list.cut_through,
        }
    }

    /// Moves each list into the field of `raw` whose value starts where it was taken from.
    /// False when a list was taken from a place points do not belong (an unknown key, a
    /// wrong type): the caller then parses the original text so the error reads as usual.
    pub(crate) fn fill(&mut self, raw: &mut ScenarioToml, doc: &Spanned<DeTable>) -> bool {
        use Seg::{Index, Key};
        for (g, group) in raw.groups.iter_mut().enumerate() {
            if let Some(points) = &mut group.spawn.points {
                self.put(doc, &[Key("groups"), Index(g), Key("spawn"), Key("points")], points);
            }
        }
        for (name, target) in raw.targets.iter_mut() {
            if let Some(points) = &mut target.waypoints {
                self.put(doc, &[Key("targets"), Key(name), Key("waypoints")], points);
            }
        }
        for (name, path) in raw.paths.iter_mut() {
            self.put(doc, &[Key("paths"), Key(name), Key("nodes")], &mut path.nodes);
        }
        self.lists.values().all(|l| l.used)
    }

    fn put(&mut self, doc: &Spanned<DeTable>, path: &[Seg], points: &mut Vec<Pt>) {
        if !points.is_empty() {
            return;
        }
        if let Some(list) = self.lists.get_mut(&span_of(doc, path).start) {
            *points = std::mem::take(&mut list.points);
            list.used = true;
        }
    }

    /// The byte ranges of the lists in the file, brackets included, in order.
    pub(crate) fn spans(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.lists.values().map(|l| l.span.clone())
    }

    /// Number of points of the list whose `[` is at `start` in the cut text, if one was
    /// taken from there.
    pub(crate) fn len_at(&self, start: usize) -> Option<usize> {
        self.lists.get(&start).map(|l| l.len)
    }

    /// The offset in the file (`text`) of point `i` of the list whose `[` is at `start` in
    /// the cut text (read again: this is for errors, and keeps loading from holding an offset
    /// per point).
    pub(crate) fn point_offset(&self, text: &str, start: usize, i: usize) -> Option<usize> {
        let list = self.lists.get(&start)?;
        let mut read = ListReader {
            bytes: text.as_bytes(),
            at: list.span.start,
            starts: Some(Vec::new()),
            points: Vec::new(),
        };
        read.list()?;
        read.starts?.get(i).copied()
    }
}

/// A scenario's text with each long point list replaced by a placeholder string, and the lists.
pub(crate) struct Placeholders<'a> {
    pub(crate) text: String,
    lists: Vec<&'a str>,
}

impl<'a> Placeholders<'a> {
    const MARK: &'static str = "\u{1}throng-list-";

    /// `None` when the text has no long lists (or already holds the mark).
    pub(crate) fn new(text: &'a str) -> Option<Placeholders<'a>> {
        if text.contains("throng-list-") {
            return None;
        }
        let (bulk, _) = BulkLists::extract(text)?;
        let mut out = String::with_capacity(text.len().min(1 << 20));
        let mut lists = Vec::new();
        let mut at = 0;
        for span in bulk.spans() {
            out.push_str(&text[at..span.start]);
            out.push_str(&toml::Value::String(format!("{}{}", Self::MARK, lists.len())).to_string());
            lists.push(&text[span.clone()]);
            at = span.end;
        }
        out.push_str(&text[at..]);
        Some(Placeholders { text: out, lists })
    }

    /// `text` written from the edited document, with each placeholder still in it replaced by
    /// its list (an override may have replaced a list; its placeholder is then gone).
    pub(crate) fn restore(&self, text: &str) -> String {
        // How the writer spells a placeholder: `"` + the escaped mark + the number + `"`.
        let quoted = toml::Value::String(Self::MARK.into()).to_string();
        let opening = quoted.trim_end_matches('"');
        let mut out = String::with_capacity(text.len() + self.lists.iter().map(|l| l.len()).sum::<usize>());
        let mut rest = text;
        while let Some(at) = rest.find(opening) {
            let after = &rest[at + opening.len()..];
            let digits = after.find('"').unwrap_or(0);
            match after[..digits].parse::<usize>().ok().and_then(|i| self.lists.get(i)) {
                Some(list) => {
                    out.push_str(&rest[..at]);
                    out.push_str(list);
                    rest = &after[digits + 1..];
                }
                None => {
                    out.push_str(&rest[..at + opening.len()]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Walks TOML text to the arrays that are values (`key = [`), skipping comments and strings,
/// so that nothing inside a string is mistaken for a list.
struct Lexer<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Lexer<'_> {
    /// The offset of the next `[` that follows `=`.
    fn next_value_array(&mut self) -> Option<usize> {
        let b = self.bytes;
        while self.at < b.len() {
            match b[self.at] {
                b'#' => self.skip_to(b"\n"),
                b'"' if b[self.at..].starts_with(b"\"\"\"") => {
                    self.at += 3;
                    self.skip_string(b"\"\"\"", true);
                }
                b'\'' if b[self.at..].starts_with(b"'''") => {
                    self.at += 3;
                    self.skip_string(b"'''", false);
                }
                b'"' => {
                    self.at += 1;
                    self.skip_string(b"\"", true);
                }
                b'\'' => {
                    self.at += 1;
                    self.skip_string(b"'", false);
                }
                b'=' => {
                    self.at += 1;
                    while self.at < b.len() && matches!(b[self.at], b' ' | b'\t') {
                        self.at += 1;
                    }
                    if b.get(self.at) == Some(&b'[') {
                        return Some(self.at);
                    }
                }
                _ => self.at += 1,
            }
        }
        None
    }

    fn skip_to(&mut self, end: &[u8]) {
        while self.at < self.bytes.len() && !self.bytes[self.at..].starts_with(end) {
            self.at += 1;
        }
    }

    /// Past the closing `quote`; a backslash escapes the next byte in basic strings. Quotes
    /// closing a multi-line string may be followed by up to two more, which belong to it.
    fn skip_string(&mut self, quote: &[u8], escapes: bool) {
        let b = self.bytes;
        while self.at < b.len() {
            if escapes && b[self.at] == b'\\' {
                self.at += 2;
            } else if b[self.at..].starts_with(quote) {
                self.at += quote.len();
                if quote.len() == 3 {
                    while self.at < b.len() && b[self.at] == quote[0] {
                        self.at += 1;
                    }
                }
                return;
            } else if quote.len() == 1 && b[self.at] == b'\n' {
                return;
            } else {
                self.at += 1;
            }
        }
    }
}

/// Reads one list of number pairs, exactly as TOML would read it, or gives up.
struct ListReader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The byte offset of each point's `[`, when wanted.
    starts: Option<Vec<usize>>,
    points: Vec<Pt>,
}

impl ListReader<'_> {
    /// `[ [x, y], [x, y], ... ]` with an optional trailing comma; the offset past its `]`.
    fn list(&mut self) -> Option<usize> {
        self.expect(b'[')?;
        loop {
            self.space();
            if self.peek() == Some(b']') {
                self.at += 1;
                return Some(self.at);
            }
            let start = self.at;
            let point = self.pair()?;
            if let Some(starts) = &mut self.starts {
                starts.push(start);
            }
            self.points.push(point);
            self.space();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(self.at);
                }
                _ => return None,
            }
        }
    }

    /// `[x, y]` with an optional trailing comma.
    fn pair(&mut self) -> Option<Pt> {
        self.expect(b'[')?;
        self.space();
        let x = self.number()?;
        self.space();
        self.expect(b',')?;
        self.space();
        let y = self.number()?;
        self.space();
        if self.peek() == Some(b',') {
            self.at += 1;
            self.space();
        }
        self.expect(b']')?;
        Some(Pt::plane(x, y))
    }

    /// A decimal TOML integer or float: `[+-]? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
    /// converted as the TOML reader does (an integer through 64 bits, a float through 64 bits,
    /// then to 32). Anything else (underscores, `inf`, hex, leading zeros) is left to TOML.
    fn number(&mut self) -> Option<f32> {
        let b = self.bytes;
        let start = self.at;
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.at += 1;
        }
        let int_start = self.at;
        self.digits();
        let int_len = self.at - int_start;
        if int_len == 0 || int_len > 1 && b[int_start] == b'0' {
            return None;
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        // A number runs into the next separator; `1x` or `1_0` is not one.
        if !matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b']')) {
            return None;
        }
        let text = std::str::from_utf8(&b[start..self.at]).ok()?;
        if float {
            let v: f64 = text.parse().ok()?;
            v.is_finite().then_some(v as f32)
        } else {
            text.parse::<i64>().ok().map(|v| v as f32)
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        self.at - start
    }

    /// Spaces, tabs and newlines (LF or CRLF); a comment or a lone CR gives up (TOML's rules
    /// for those are left to TOML).
    fn space(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\n' => self.at += 1,
                b'\r' if self.bytes.get(self.at + 1) == Some(&b'\n') => self.at += 2,
                _ => return,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.at += 1)
    }
}

/// The start offset and length of the array at `path` in `doc`, if there is one there (a
/// blanked list is empty in `doc`: ask [`BulkLists::len_at`] for its length).
pub(crate) fn array_at(doc: &Spanned<DeTable>, path: &[Seg]) -> Option<(usize, usize)> {
    let mut value: Option<&Spanned<DeValue>> = None;
    let mut table: Option<&DeTable> = Some(doc.get_ref());
    for seg in path {
        let next = match (seg, table, value.map(|v| v.get_ref())) {
            (Seg::Key(k), Some(t), _) => t.get(*k),
            (Seg::Index(i), _, Some(DeValue::Array(items))) => items.get(*i),
            _ => None,
        }?;
        value = Some(next);
        table = match next.get_ref() {
            DeValue::Table(t) => Some(t),
            _ => None,
        };
    }
    let v = value?;
    match v.get_ref() {
        DeValue::Array(items) => Some((v.span().start, items.len())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(text: &str) -> Vec<[f32; 2]> {
        match BulkLists::extract(text) {
            Some((lists, _)) => lists
                .lists
                .values()
                .flat_map(|l| l.points.iter().map(|p| [p.coords[0], p.coords[1]]))
                .collect(),
            None => Vec::new(),
        }
    }

    #[test]
    fn reads_pairs_as_toml_does() {
        assert_eq!(
            taken("p = [[1, 2], [-3.5, +4e1],\n [0, -0.0],]"),
            [[1.0, 2.0], [-3.5, 40.0], [0.0, -0.0]]
        );
        // Integers go to 32 bits directly, as TOML's integers do.
        assert_eq!(taken("p = [[16777217, 0]]"), [[16777217_i64 as f32, 0.0]]);
        assert_eq!(taken("p = [[1,2,],[3,4]]"), [[1.0, 2.0], [3.0, 4.0]]);
    }

    #[test]
    fn leaves_to_toml_what_it_does_not_take_exactly() {
        for text in [
            "p = [[1, 2], [3]]",
            "p = [[1, 2, 3]]",
            "p = [[01, 2]]",
            "p = [[1_000, 2]]",
            "p = [[inf, 2]]",
            "p = [[0x10, 2]]",
            "p = [[1., 2]]",
            "p = [[1e999, 2]]",
            "p = [[99999999999999999999, 2]]",
            "p = [[1, 2], # a comment\n [3, 4]]",
            "p = [[1, 2]\r [3, 4]]",
            "p = [1, 2]",
            "p = []",
            "s = \"x = [[1, 2]]\"",
            "s = '''\nx = [[1, 2]]'''",
            "# x = [[1, 2]]",
        ] {
            assert!(taken(text).is_empty(), "{text:?} was taken");
        }
    }

    #[test]
    fn offsets_map_back_to_the_file() {
        let text = "a = 1\np = [ [1, 2],\n  [3, 4] ] # two\nq = [[5, 6]]\nb = 2\n";
        let (lists, cut) = BulkLists::extract(text).expect("two lists");
        assert_eq!(cut, "a = 1\np = [] # two\nq = []\nb = 2\n");
        for (needle, in_cut) in [("a = 1", 0), ("p = ", 6), ("# two", 13), ("q = ", 19), ("b = 2", 26)] {
            assert_eq!(&cut[in_cut..in_cut + needle.len()], needle);
            assert_eq!(lists.original(in_cut), text.find(needle).unwrap(), "{needle}");
        }
        // The brackets left in the cut text map to the list's own brackets.
        let p = cut.find('[').unwrap();
        assert_eq!(lists.original(p), text.find('[').unwrap());
        assert_eq!(&text[lists.original(p + 1)..][..1], "]");
        assert_eq!(lists.len_at(p), Some(2));
        let second = lists.point_offset(text, p, 1).unwrap();
        assert_eq!(&text[second..second + 6], "[3, 4]");
        let q = cut.rfind("[]").unwrap();
        assert_eq!(&text[lists.point_offset(text, q, 0).unwrap()..][..6], "[5, 6]");
        assert_eq!(lists.point_offset(text, q, 1), None);
    }
}
