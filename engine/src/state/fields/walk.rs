//! The serde walk: every leaf value of a serializable value, with its path.

use std::fmt;

use serde::Serialize;
use serde::ser;

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
    /// A `bool`.
    Bool(bool),
    /// A signed integer (`i8` to `i64`), widened.
    I64(i64),
    /// An unsigned integer (`u8` to `u64`), widened.
    U64(u64),
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// A string, or a `char` encoded as one.
    Str(&'a str),
    /// A byte string.
    Bytes(&'a [u8]),
    /// `()` or a unit struct.
    Unit,
    /// An `Option` that is `None` (a `Some` is walked as its contents).
    None,
    /// Which variant of an enum is present (emitted before the variant's contents).
    Variant(&'static str),
    /// The length of a sequence (emitted after its elements).
    Len(usize),
}

/// Receives every leaf of a walked value, in serialization order.
pub trait Sink {
    /// One leaf: its path from the walked value's root (e.g. `agents`, `position`, `[3]`,
    /// `x`) and its value.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::fields::Value;
    use crate::state::fields::diff::path_string;

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
