//! Column digests and the state layout (the list of columns).

use super::AGENTS;
use super::walk::{Leaf, Seg, Sink, walk};
use crate::world::{Dimension, World};

/// The column a path belongs to: `agents.NAME` for an agent column, else the top-level field.
pub(super) fn column_of(path: &[Seg]) -> (&'static str, Option<&'static str>) {
    match path {
        [Seg::Field(AGENTS), Seg::Field(c), ..] => (AGENTS, Some(c)),
        [Seg::Field(f), ..] => (f, None),
        _ => ("", None),
    }
}

pub(super) fn column_name(col: (&'static str, Option<&'static str>)) -> String {
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
    /// The column: a top-level `World` field (`tick`, `groups`, ...) or an agent column
    /// (`agents.position`, ...), as [`layout`] lists them.
    pub name: String,
    /// The first 8 bytes of the BLAKE3 hash of the column's leaves, little-endian; golden
    /// files write it as 16 hex digits.
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
pub fn column_digests<V: Dimension>(world: &World<V>) -> Vec<ColumnDigest> {
    digests_as_stored(&world.id_ordered())
}

fn digests_as_stored<V: Dimension>(world: &World<V>) -> Vec<ColumnDigest> {
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
pub fn layout<V: Dimension>(world: &World<V>) -> Vec<String> {
    // Names do not depend on row order: no need for an id-ordered copy.
    digests_as_stored(world).into_iter().map(|c| c.name).collect()
}
