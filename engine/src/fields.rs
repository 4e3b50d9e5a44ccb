//! A generic view of the state through serde: every leaf value of a [`World`] with its path.
//!
//! Golden files and checkpoints use it to digest each column separately, to describe the state
//! layout (the list of columns), and to name the first agent and field where two worlds differ,
//! with both values and their bit patterns. Nothing here lists the columns by hand: a column
//! added to `Agents` (or a field added to `World`) is covered as soon as it derives `Serialize`.
//!
//! Columns are the top-level fields of `World` (`tick`, `groups`, ...), except `agents`, whose
//! own fields are columns of their own (`agents.position`, ...), one row per agent in id order:
//! [`column_digests`] and [`diff`] read a spatially reordered world through
//! [`World::id_ordered`], so neither depends on row order. [`walk`] itself visits rows as they
//! are stored.

use std::fmt;

use serde::Serialize;
use serde::ser;

use crate::world::World;

/// The `World` field that holds the agent columns.
pub const AGENTS: &str = "agents";

/// One step of a path into the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A struct field (or a vector component: `x`, `y`, ...).
    Field(&'static str),
    /// An element of a sequence, tuple or map.
    Index(usize),
    /// The variant of an enum.
    Variant(&'static str),
}

/// A leaf value, borrowed from the state while it is walked.
#[derive(Clone, Copy, Debug)]
pub enum Leaf<'a> {
    Bool(bool),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Unit,
    None,
    /// Which variant of an enum is present (emitted before the variant's contents).
    Variant(&'static str),
    /// The length of a sequence (emitted after its elements).
    Len(usize),
}

/// Receives every leaf of a walked value, in serialization order.
pub trait Sink {
    fn leaf(&mut self, path: &[Seg], leaf: Leaf<'_>);
}

/// Walks `value` through serde, calling `sink` for every leaf.
pub fn walk<T: Serialize + ?Sized>(value: &T, sink: &mut impl Sink) -> Result<(), WalkError> {
    let mut w = Walker { path: Vec::with_capacity(8), frames: Vec::with_capacity(8), sink };
    value.serialize(&mut w)
}

/// A value that the walker cannot represent (only `i128`/`u128` today).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot walk the state: {0}")]
pub struct WalkError(String);

impl ser::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError(msg.to_string())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// A sequence: elements are indexed, and its length is emitted at the end.
    Seq(usize),
    /// A tuple or tuple struct: elements are indexed.
    Tuple(usize),
    /// glam's vectors: elements are named `x`, `y`, `z`, `w`.
    Vector(usize),
    /// A map: entry `i` is `[i].key` and `[i].value`.
    Map(usize),
    /// A struct or an enum variant with contents (which pushed a path segment to pop).
    Struct { variant: bool },
}

struct Walker<'s, S: Sink> {
    path: Vec<Seg>,
    frames: Vec<Frame>,
    sink: &'s mut S,
}

impl<S: Sink> Walker<'_, S> {
    fn emit(&mut self, leaf: Leaf<'_>) -> Result<(), WalkError> {
        self.sink.leaf(&self.path, leaf);
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        let seg = match self.frames.last_mut() {
            Some(Frame::Seq(i) | Frame::Tuple(i)) => {
                *i += 1;
                Seg::Index(*i - 1)
            }
            Some(Frame::Vector(i)) => {
                *i += 1;
                Seg::Field(["x", "y", "z", "w"].get(*i - 1).copied().unwrap_or("component"))
            }
            _ => return Err(WalkError("element outside a sequence".into())),
        };
        self.path.push(seg);
        let r = value.serialize(&mut *self);
        self.path.pop();
        r
    }

    fn end(&mut self) -> Result<(), WalkError> {
        match self.frames.pop() {
            Some(Frame::Seq(len)) => self.emit(Leaf::Len(len)),
            Some(Frame::Struct { variant: true }) => {
                self.path.pop();
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn variant(&mut self, variant: &'static str) -> Result<(), WalkError> {
        self.emit(Leaf::Variant(variant))?;
        self.path.push(Seg::Variant(variant));
        Ok(())
    }
}

impl<'a, 's, S: Sink> ser::Serializer for &'a mut Walker<'s, S> {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<(), WalkError> {
        self.emit(Leaf::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<(), WalkError> {
        self.emit(Leaf::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<(), WalkError> {
        self.emit(Leaf::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<(), WalkError> {
        self.emit(Leaf::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<(), WalkError> {
        self.emit(Leaf::I64(v))
    }
    fn serialize_u8(self, v: u8) -> Result<(), WalkError> {
        self.emit(Leaf::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<(), WalkError> {
        self.emit(Leaf::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<(), WalkError> {
        self.emit(Leaf::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<(), WalkError> {
        self.emit(Leaf::U64(v))
    }
    fn serialize_f32(self, v: f32) -> Result<(), WalkError> {
        self.emit(Leaf::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), WalkError> {
        self.emit(Leaf::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<(), WalkError> {
        let mut buf = [0u8; 4];
        self.emit(Leaf::Str(v.encode_utf8(&mut buf)))
    }
    fn serialize_str(self, v: &str) -> Result<(), WalkError> {
        self.emit(Leaf::Str(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), WalkError> {
        self.emit(Leaf::Bytes(v))
    }
    fn serialize_none(self) -> Result<(), WalkError> {
        self.emit(Leaf::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), WalkError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), WalkError> {
        self.emit(Leaf::Unit)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), WalkError> {
        self.emit(Leaf::Unit)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<(), WalkError> {
        self.emit(Leaf::Variant(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        self.variant(variant)?;
        let r = value.serialize(&mut *self);
        self.path.pop();
        r
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self, WalkError> {
        self.frames.push(Frame::Seq(0));
        Ok(self)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self, WalkError> {
        self.frames.push(Frame::Tuple(0));
        Ok(self)
    }
    fn serialize_tuple_struct(self, name: &'static str, len: usize) -> Result<Self, WalkError> {
        // glam serializes `Vec2` as the tuple struct ("Vec2", x, y).
        let vector = len <= 4 && name.len() == 4 && name.starts_with("Vec");
        self.frames.push(if vector { Frame::Vector(0) } else { Frame::Tuple(0) });
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self, WalkError> {
        self.variant(variant)?;
        self.frames.push(Frame::Struct { variant: true });
        self.frames.push(Frame::Tuple(0));
        Ok(self)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self, WalkError> {
        self.frames.push(Frame::Map(0));
        Ok(self)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, WalkError> {
        self.frames.push(Frame::Struct { variant: false });
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self, WalkError> {
        self.variant(variant)?;
        self.frames.push(Frame::Struct { variant: true });
        Ok(self)
    }
}

impl<S: Sink> ser::SerializeSeq for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        self.element(value)
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

impl<S: Sink> ser::SerializeTuple for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        self.element(value)
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

impl<S: Sink> ser::SerializeTupleStruct for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        self.element(value)
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

impl<S: Sink> ser::SerializeTupleVariant for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        self.element(value)
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)?; // the tuple
        Walker::end(self) // the variant
    }
}

impl<S: Sink> ser::SerializeMap for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), WalkError> {
        let Some(Frame::Map(i)) = self.frames.last().copied() else {
            return Err(WalkError("key outside a map".into()));
        };
        self.path.extend([Seg::Index(i), Seg::Field("key")]);
        let r = key.serialize(&mut **self);
        self.path.truncate(self.path.len() - 2);
        r
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), WalkError> {
        let Some(Frame::Map(i)) = self.frames.last_mut() else {
            return Err(WalkError("value outside a map".into()));
        };
        let index = *i;
        *i += 1;
        self.path.extend([Seg::Index(index), Seg::Field("value")]);
        let r = value.serialize(&mut **self);
        self.path.truncate(self.path.len() - 2);
        r
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

impl<S: Sink> ser::SerializeStruct for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        self.path.push(Seg::Field(key));
        let r = value.serialize(&mut **self);
        self.path.pop();
        r
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

impl<S: Sink> ser::SerializeStructVariant for &mut Walker<'_, S> {
    type Ok = ();
    type Error = WalkError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        self.path.push(Seg::Field(key));
        let r = value.serialize(&mut **self);
        self.path.pop();
        r
    }
    fn end(self) -> Result<(), WalkError> {
        Walker::end(self)
    }
}

// ---------------------------------------------------------------------------------------------
// Columns.

/// The column a path belongs to: `agents.NAME` for an agent column, else the top-level field.
fn column_of(path: &[Seg]) -> (&'static str, Option<&'static str>) {
    match path {
        [Seg::Field(AGENTS), Seg::Field(c), ..] => (AGENTS, Some(c)),
        [Seg::Field(f), ..] => (f, None),
        _ => ("", None),
    }
}

fn column_name(col: (&'static str, Option<&'static str>)) -> String {
    match col {
        (a, Some(c)) => format!("{a}.{c}"),
        (f, None) => f.to_string(),
    }
}

/// Appends a leaf's canonical bytes (a type tag, then little-endian bytes).
fn leaf_bytes(out: &mut Vec<u8>, leaf: &Leaf<'_>) {
    match *leaf {
        Leaf::Bool(v) => out.extend_from_slice(&[1, v as u8]),
        Leaf::I64(v) => {
            out.push(2);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Leaf::U64(v) => {
            out.push(3);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Leaf::F32(v) => {
            out.push(4);
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        Leaf::F64(v) => {
            out.push(5);
            out.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        Leaf::Str(s) => {
            out.push(6);
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Leaf::Bytes(b) => {
            out.push(7);
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
        Leaf::Unit => out.push(8),
        Leaf::None => out.push(9),
        Leaf::Variant(v) => {
            out.push(10);
            out.extend_from_slice(&(v.len() as u64).to_le_bytes());
            out.extend_from_slice(v.as_bytes());
        }
        Leaf::Len(n) => {
            out.push(11);
            out.extend_from_slice(&(n as u64).to_le_bytes());
        }
    }
}

/// A 64-bit digest of one column (the first 8 bytes of a BLAKE3 hash of its leaves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDigest {
    pub name: String,
    pub digest: u64,
}

struct DigestSink {
    current: (&'static str, Option<&'static str>),
    hasher: blake3::Hasher,
    /// Leaf bytes not yet hashed: hashing in large blocks is many times faster than per leaf.
    buf: Vec<u8>,
    out: Vec<ColumnDigest>,
}

impl DigestSink {
    fn flush(&mut self) {
        self.hasher.update(&self.buf);
        self.buf.clear();
        if !self.current.0.is_empty() {
            let d = self.hasher.finalize();
            let digest = u64::from_le_bytes(d.as_bytes()[..8].try_into().expect("8 bytes"));
            self.out.push(ColumnDigest { name: column_name(self.current), digest });
        }
        self.hasher.reset();
    }
}

impl Sink for DigestSink {
    fn leaf(&mut self, path: &[Seg], leaf: Leaf<'_>) {
        let col = column_of(path);
        if col != self.current {
            self.flush();
            self.current = col;
        }
        leaf_bytes(&mut self.buf, &leaf);
        if self.buf.len() >= 1 << 16 {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
    }
}

/// A digest of every column of `world`, in declaration order, agent rows in id order.
pub fn column_digests(world: &World) -> Vec<ColumnDigest> {
    digests_as_stored(&world.id_ordered())
}

fn digests_as_stored(world: &World) -> Vec<ColumnDigest> {
    let mut sink = DigestSink {
        current: ("", None),
        hasher: blake3::Hasher::new(),
        buf: Vec::with_capacity(1 << 17),
        out: Vec::new(),
    };
    // Only i128/u128 fail, and the world holds none.
    walk(world, &mut sink).expect("World holds no 128-bit integers");
    sink.flush();
    sink.out
}

/// The state layout: every column's name, in declaration order.
pub fn layout(world: &World) -> Vec<String> {
    // Names do not depend on row order: no need for an id-ordered copy.
    digests_as_stored(world).into_iter().map(|c| c.name).collect()
}

// ---------------------------------------------------------------------------------------------
// Differences.

/// A leaf value owned, for reports.
#[derive(Clone, Debug)]
pub enum Value {
    Bool(bool),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Str(String),
    Bytes(Vec<u8>),
    Unit,
    None,
    Variant(&'static str),
    Len(usize),
}

impl Value {
    fn of(leaf: &Leaf<'_>) -> Value {
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

fn path_string(path: &[Seg]) -> String {
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

fn flatten(world: &World) -> Flat {
    let mut flat = Flat::default();
    walk(world, &mut flat).expect("World holds no 128-bit integers");
    flat
}

/// One field that differs.
#[derive(Clone, Debug)]
pub struct FieldDiff {
    /// Full path, e.g. `groups[0].behaviours[1].weight` or `agents.position`.
    pub path: String,
    pub expected: Option<Value>,
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
    pub expected: Option<Value>,
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
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty() && self.fields.is_empty() && self.agent.is_none()
    }
}

/// Most differences listed per world-level column.
const FIELDS_PER_COLUMN: usize = 3;

/// Compares two worlds leaf by leaf, agent rows in id order.
pub fn diff(expected: &World, actual: &World) -> Diff {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        a: f32,
        v: Vec<(u8, Option<i32>)>,
    }

    #[derive(Serialize)]
    enum E {
        Unit,
        Tuple(u8, u8),
        Struct { x: f64 },
    }

    #[derive(Serialize)]
    struct Outer {
        inner: Inner,
        e: Vec<E>,
        name: String,
    }

    #[derive(Default)]
    struct Collect(Vec<String>);
    impl Sink for Collect {
        fn leaf(&mut self, path: &[Seg], leaf: Leaf<'_>) {
            self.0.push(format!("{} = {}", path_string(path), Value::of(&leaf)));
        }
    }

    #[test]
    fn walks_structs_sequences_options_and_enums() {
        let v = Outer {
            inner: Inner { a: 1.5, v: vec![(1, None), (2, Some(-3))] },
            e: vec![E::Unit, E::Tuple(4, 5), E::Struct { x: 0.25 }],
            name: "n".into(),
        };
        let mut c = Collect::default();
        walk(&v, &mut c).unwrap();
        assert_eq!(
            c.0,
            [
                "inner.a = 1.5 (f32 0x3fc00000)",
                "inner.v[0][0] = 1 (u64 0x0000000000000001)",
                "inner.v[0][1] = none",
                "inner.v[1][0] = 2 (u64 0x0000000000000002)",
                "inner.v[1][1] = -3 (i64 0xfffffffffffffffd)",
                "inner.v = 2 elements",
                "e[0] = variant Unit",
                "e[1] = variant Tuple",
                "e[1].Tuple[0] = 4 (u64 0x0000000000000004)",
                "e[1].Tuple[1] = 5 (u64 0x0000000000000005)",
                "e[2] = variant Struct",
                "e[2].Struct.x = 0.25 (f64 0x3fd0000000000000)",
                "e = 3 elements",
                "name = \"n\"",
            ]
        );
    }

    #[test]
    fn negative_zero_differs_from_zero() {
        assert!(!Value::F32(0.0).same(&Value::F32(-0.0)));
        assert!(Value::F32(f32::NAN).same(&Value::F32(f32::NAN)));
    }
}
