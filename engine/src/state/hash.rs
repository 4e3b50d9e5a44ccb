//! The state hash: BLAKE3 over the canonical little-endian bytes of every column that affects
//! the future, in agent-id order. The layout is documented in `docs/determinism.md`; changing
//! it changes every golden hash.

use crate::math::Vec2;
use crate::rng;
use crate::world::World;

/// Version of the byte layout below; part of the hashed bytes.
pub const HASH_LAYOUT: &[u8] = b"throng-state-v2";

/// A 32-byte BLAKE3 digest of a world's state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StateHash(pub [u8; 32]);

impl StateHash {
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

fn vec2(v: &Vec2, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.x.to_le_bytes());
    out.extend_from_slice(&v.y.to_le_bytes());
}

fn f32le(v: &f32, out: &mut Vec<u8>) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Hashes the world's state. Rows are hashed in id order even when the pipeline has
/// reordered them spatially, so the hash does not depend on row order.
pub fn state_hash(world: &World) -> StateHash {
    match world.agents.id_order() {
        None => hash_rows(world, &world.agents),
        Some(order) => {
            let mut agents = world.agents.clone();
            agents.permute_rows(&order);
            hash_rows(world, &agents)
        }
    }
}

fn hash_rows(world: &World, a: &crate::world::Agents) -> StateHash {
    let mut c = Columns { hasher: blake3::Hasher::new(), buf: Vec::with_capacity(4096 * 16) };
    c.hasher.update(HASH_LAYOUT);
    c.hasher.update(&world.tick.to_le_bytes());
    c.hasher.update(&world.next_id.to_le_bytes());
    c.hasher.update(&world.exited.to_le_bytes());
    c.column("source_spawned", &world.sources, |s, o| o.extend_from_slice(&s.spawned.to_le_bytes()));
    c.column("id", &a.id, |v, o| o.extend_from_slice(&v.to_le_bytes()));
    c.column("group", &a.group, |v, o| o.extend_from_slice(&v.to_le_bytes()));
    c.column("position", &a.position, vec2);
    c.column("velocity", &a.velocity, vec2);
    c.column("max_speed", &a.max_speed, f32le);
    c.column("max_force", &a.max_force, f32le);
    c.column("mass", &a.mass, f32le);
    c.column("radius", &a.radius, f32le);
    c.column("wander", &a.wander, vec2);
    c.column("flock_force", &a.flock_force, vec2);
    c.column("rng", &a.rng, |r, o| o.extend_from_slice(&rng::fingerprint(r).to_le_bytes()));
    c.column("path_node", &a.path_node, |v, o| o.extend_from_slice(&v.to_le_bytes()));
    c.column("path_dir", &a.path_dir, |v, o| o.extend_from_slice(&v.to_le_bytes()));
    c.column("waypoint", &a.waypoint, vec2);
    c.column("walk_state", &a.walk_state, |v, o| o.push(*v));
    c.column("goal", &a.goal, vec2);
    StateHash(*c.hasher.finalize().as_bytes())
}
