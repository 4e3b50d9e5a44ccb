//! The state hash: BLAKE3 over the canonical little-endian bytes of every column that affects
//! the future, in agent-id order, and, for a world with events, what events change. The layout is documented in `docs/determinism.md`; changing
//! it changes every golden hash.

use crate::world::{Agents, ColumnValue, ColumnVisitor, Dimension, Scene, World};

/// Version of the byte layout below; part of the hashed bytes.
pub const HASH_LAYOUT: &[u8] = b"throng-state-v4";

/// A 32-byte BLAKE3 digest of a world's state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StateHash(pub [u8; 32]);

impl StateHash {
    /// The 64 lower-case hex digits golden files and `throng run` print; also its `Display`.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Display for StateHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Streams fixed-size little-endian records into the hasher through a small reused buffer.
struct Columns {
    hasher: blake3::Hasher,
    buf: Vec<u8>,
}

impl Columns {
    fn column<T>(&mut self, tag: &str, values: &[T], mut bytes: impl FnMut(&T, &mut Vec<u8>)) {
        self.hasher.update(tag.as_bytes());
        self.hasher.update(&(values.len() as u64).to_le_bytes());
        for chunk in values.chunks(4096) {
            self.buf.clear();
            for v in chunk {
                bytes(v, &mut self.buf);
            }
            self.hasher.update(&self.buf);
        }
    }
}

impl ColumnVisitor for Columns {
    fn column<T: ColumnValue>(&mut self, name: &'static str, values: &[T]) {
        Columns::column(self, name, values, |v, out| v.write_le(out));
    }
}

/// Hashes the world's state. Rows are hashed in id order even when the pipeline has
/// reordered them spatially, so the hash does not depend on row order. A world in space
/// hashes three coordinates per point where the plane's hashes two.
pub fn state_hash<V: Dimension>(world: &World<V>) -> StateHash {
    match world.agents.id_order() {
        None => hash_rows(world, &world.agents),
        Some(order) => {
            let mut agents = world.agents.clone();
            agents.permute_rows(&order);
            hash_rows(world, &agents)
        }
    }
}

fn hash_rows<V: Dimension>(world: &World<V>, a: &Agents<V>) -> StateHash {
    let mut c = Columns { hasher: blake3::Hasher::new(), buf: Vec::with_capacity(4096 * 16) };
    let scene = world.scene.parts();
    c.hasher.update(HASH_LAYOUT);
    c.hasher.update(&world.tick.to_le_bytes());
    c.hasher.update(&world.next_id.to_le_bytes());
    c.hasher.update(&world.exited.to_le_bytes());
    c.column("source_spawned", scene.sources, |s, o| o.extend_from_slice(&s.spawned.to_le_bytes()));
    // What events change and read, for a world that has events (a world without them hashes as
    // before): their records, the doors, exits and gates they switch, the targets they move,
    // the behaviours they retarget, the sources they switch, and the agents they removed.
    if !world.events.is_empty() {
        let switched = (
            &world.events,
            scene.doors,
            scene.exits,
            scene.gates,
            &world.targets,
            &world.groups,
            world.stopped,
            scene.sources,
            world.removed,
        );
        c.hasher.update(b"scene");
        c.hasher.update(&postcard::to_stdvec(&switched).expect("the scene always serializes"));
    }
    // The spawns' spacing and the agents events still owe, for a world that has any.
    if let Some(spacing) = crate::world::SpawnSpacing::of(world) {
        c.hasher.update(b"spawn spacing");
        c.hasher.update(&postcard::to_stdvec(&spacing).expect("the spawns' spacing always serializes"));
    }
    // The waiting areas and whom they hold, for a world that has them.
    if !scene.waiting.is_empty() {
        c.hasher.update(b"waiting");
        c.hasher.update(&postcard::to_stdvec(&scene.waiting).expect("waiting areas always serialize"));
    }
    // The groups' `on_closed` entries and whom they have diverted, for a world that has them.
    if !scene.diversions.is_empty() {
        c.hasher.update(b"diversions");
        c.hasher.update(&postcard::to_stdvec(&scene.diversions).expect("diversions always serialize"));
    }
    // The journeys' stages and transitions with their state, for a world that has journeys.
    if !scene.journeys.is_empty() {
        c.hasher.update(b"journeys");
        let journeys = (scene.stages, scene.journeys);
        c.hasher.update(&postcard::to_stdvec(&journeys).expect("journeys always serialize"));
    }
    // Every agent column, in declaration order, tagged with its name.
    a.visit_columns(&mut c);
    StateHash(*c.hasher.finalize().as_bytes())
}
