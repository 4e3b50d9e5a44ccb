//! The first differing agent and field between two worlds, with both values.

use std::fmt;

use super::digest::{column_name, column_of};
use super::walk::{Leaf, Seg, Sink, walk};
use crate::world::{Dimension, World};

/// A leaf value owned, for reports.
#[derive(Clone, Debug)]
pub enum Value {
    /// A `bool`.
    Bool(bool),
    /// A signed integer of any width (`i8` to `i64`), widened.
    I64(i64),
    /// An unsigned integer of any width (`u8` to `u64`), widened.
    U64(u64),
    /// An `f32`, compared and shown by its bits as well as its value.
    F32(f32),
    /// An `f64`, compared and shown by its bits as well as its value.
    F64(f64),
    /// A string or a `char`.
    Str(String),
    /// A byte string.
    Bytes(Vec<u8>),
    /// `()` or a unit struct.
    Unit,
    /// An `Option` that is `None`.
    None,
    /// Which enum variant is present, by name.
    Variant(&'static str),
    /// The length of a sequence (after its elements).
    Len(usize),
}

impl Value {
    pub(super) fn of(leaf: &Leaf<'_>) -> Value {
        match *leaf {
            Leaf::Bool(v) => Value::Bool(v),
            Leaf::I64(v) => Value::I64(v),
            Leaf::U64(v) => Value::U64(v),
            Leaf::F32(v) => Value::F32(v),
            Leaf::F64(v) => Value::F64(v),
            Leaf::Str(s) => Value::Str(s.to_owned()),
            Leaf::Bytes(b) => Value::Bytes(b.to_vec()),
            Leaf::Unit => Value::Unit,
            Leaf::None => Value::None,
            Leaf::Variant(v) => Value::Variant(v),
            Leaf::Len(n) => Value::Len(n),
        }
    }

    /// Bit-for-bit equality: `-0.0 != 0.0`, and NaNs compare by payload.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::U64(a), Value::U64(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Unit, Value::Unit) | (Value::None, Value::None) => true,
            (Value::Variant(a), Value::Variant(b)) => a == b,
            (Value::Len(a), Value::Len(b)) => a == b,
            _ => false,
        }
    }

    fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U64(v) => Some(v),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// The value, then its bit pattern for numbers: `1.5 (f32 0x3fc00000)`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v} (i64 0x{:016x})", *v as u64),
            Value::U64(v) => write!(f, "{v} (u64 0x{v:016x})"),
            Value::F32(v) => write!(f, "{v:?} (f32 0x{:08x})", v.to_bits()),
            Value::F64(v) => write!(f, "{v:?} (f64 0x{:016x})", v.to_bits()),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) => write!(f, "{} bytes", b.len()),
            Value::Unit => f.write_str("()"),
            Value::None => f.write_str("none"),
            Value::Variant(v) => write!(f, "variant {v}"),
            Value::Len(n) => write!(f, "{n} elements"),
        }
    }
}

pub(super) fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Field(k) | Seg::Variant(k) => {
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

/// Every leaf of a world, grouped by column; agent columns by row.
#[derive(Default)]
struct Flat {
    /// Column name, leaves outside rows (path, value), and for agent columns the rows' leaves
    /// (path below the row, value).
    columns: Vec<FlatColumn>,
}

struct FlatColumn {
    name: String,
    agent: bool,
    other: Vec<(String, Value)>,
    rows: Vec<Vec<(String, Value)>>,
}

impl Sink for Flat {
    fn leaf(&mut self, path: &[Seg], leaf: Leaf<'_>) {
        let col = column_of(path);
        let name = column_name(col);
        if self.columns.last().is_none_or(|c| c.name != name) {
            self.columns.push(FlatColumn {
                name,
                agent: col.1.is_some(),
                other: Vec::new(),
                rows: Vec::new(),
            });
        }
        let c = self.columns.last_mut().expect("just pushed");
        match (c.agent, path.get(2)) {
            (true, Some(Seg::Index(row))) => {
                if c.rows.len() <= *row {
                    c.rows.resize_with(row + 1, Vec::new);
                }
                c.rows[*row].push((path_string(&path[3..]), Value::of(&leaf)));
            }
            _ => c.other.push((path_string(path), Value::of(&leaf))),
        }
    }
}

fn flatten<V: Dimension>(world: &World<V>) -> Flat {
    let mut flat = Flat::default();
    walk(world, &mut flat).expect("World holds no 128-bit integers");
    flat
}

/// One field that differs.
#[derive(Clone, Debug)]
pub struct FieldDiff {
    /// Full path, e.g. `groups[0].behaviours[1].weight` or `agents.position`.
    pub path: String,
    /// The value in the expected world; `None` when only the actual world has this leaf.
    pub expected: Option<Value>,
    /// The value in the actual world; `None` when only the expected world has this leaf.
    pub actual: Option<Value>,
}

/// The first agent that differs: the lowest row in id order, then the first column in
/// declaration order, then the first leaf.
#[derive(Clone, Debug)]
pub struct AgentDiff {
    /// The row in id order (the row as stored, unless the pipeline reordered the rows).
    pub row: usize,
    /// The agent's id in the expected world (or the actual one if the expected has no such row).
    pub id: Option<u64>,
    /// Column and sub-field, e.g. `position.x` or `rng.state`.
    pub field: String,
    /// The value in the expected world; `None` when it has no such row or field.
    pub expected: Option<Value>,
    /// The value in the actual world; `None` when it has no such row or field.
    pub actual: Option<Value>,
}

/// Where two worlds differ.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Columns whose digests differ, in declaration order.
    pub columns: Vec<String>,
    /// Differences outside agent rows (world fields, column lengths), the first few per column.
    pub fields: Vec<FieldDiff>,
    /// The first differing agent row, if any.
    pub agent: Option<AgentDiff>,
}

impl Diff {
    /// True when the two worlds are the same, bit for bit: no column, field or agent differs.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty() && self.fields.is_empty() && self.agent.is_none()
    }
}

/// Most differences listed per world-level column.
const FIELDS_PER_COLUMN: usize = 3;

/// Compares two worlds leaf by leaf, agent rows in id order.
pub fn diff<V: Dimension>(expected: &World<V>, actual: &World<V>) -> Diff {
    let (e, a) = (flatten(&expected.id_ordered()), flatten(&actual.id_ordered()));
    let mut out = Diff::default();
    let find = |flat: &'_ Flat, name: &str| flat.columns.iter().position(|c| c.name == name);
    let mut names: Vec<&str> = e.columns.iter().map(|c| c.name.as_str()).collect();
    for c in &a.columns {
        if !names.contains(&c.name.as_str()) {
            names.push(&c.name);
        }
    }
    let empty = FlatColumn { name: String::new(), agent: false, other: Vec::new(), rows: Vec::new() };
    for name in &names {
        let ec = find(&e, name).map_or(&empty, |i| &e.columns[i]);
        let ac = find(&a, name).map_or(&empty, |i| &a.columns[i]);
        let mut listed = 0;
        let n = ec.other.len().max(ac.other.len());
        for k in 0..n {
            let (ev, av) = (ec.other.get(k), ac.other.get(k));
            let same = match (ev, av) {
                (Some((ep, ev)), Some((ap, av))) => ep == ap && ev.same(av),
                _ => false,
            };
            if !same {
                if listed < FIELDS_PER_COLUMN {
                    out.fields.push(FieldDiff {
                        path: ev.or(av).map(|(p, _)| p.clone()).unwrap_or_default(),
                        expected: ev.map(|(_, v)| v.clone()),
                        actual: av.map(|(_, v)| v.clone()),
                    });
                }
                listed += 1;
            }
        }
        let rows_differ = ec.rows.len() != ac.rows.len()
            || ec.rows.iter().zip(&ac.rows).any(|(x, y)| {
                x.len() != y.len() || x.iter().zip(y).any(|((p, v), (q, w))| p != q || !v.same(w))
            });
        if listed > 0 || rows_differ {
            out.columns.push(name.to_string());
        }
    }

    // The first agent row that differs, columns in declaration order within the row.
    let agent_cols: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("agents.")).collect();
    let rows = |flat: &Flat| flat.columns.iter().filter(|c| c.agent).map(|c| c.rows.len()).max().unwrap_or(0);
    let id_of = |flat: &Flat, row: usize| {
        find(flat, "agents.id")
            .and_then(|i| flat.columns[i].rows.get(row))
            .and_then(|r| r.first())
            .and_then(|(_, v)| v.as_u64())
    };
    'rows: for row in 0..rows(&e).max(rows(&a)) {
        for name in &agent_cols {
            let er = find(&e, name).and_then(|i| e.columns[i].rows.get(row));
            let ar = find(&a, name).and_then(|i| a.columns[i].rows.get(row));
            let (el, al) = (er.map_or(&[][..], |r| &r[..]), ar.map_or(&[][..], |r| &r[..]));
            for k in 0..el.len().max(al.len()) {
                let (ev, av) = (el.get(k), al.get(k));
                let same = match (ev, av) {
                    (Some((ep, ev)), Some((ap, av))) => ep == ap && ev.same(av),
                    _ => false,
                };
                if !same {
                    let column = name.trim_start_matches("agents.");
                    let sub = ev.or(av).map(|(p, _)| p.as_str()).unwrap_or("");
                    let field = if sub.is_empty() { column.to_string() } else { format!("{column}.{sub}") };
                    out.agent = Some(AgentDiff {
                        row,
                        id: id_of(&e, row).or_else(|| id_of(&a, row)),
                        field,
                        expected: ev.map(|(_, v)| v.clone()),
                        actual: av.map(|(_, v)| v.clone()),
                    });
                    break 'rows;
                }
            }
        }
    }
    out
}
