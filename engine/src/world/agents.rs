//! `Agents`: the per-agent columns, and how rows are permuted, removed and put in id order.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::math::{Vec2, Vector};
use crate::rng::AgentRng;

/// Reusable scratch for [`Agents::permute_rows_with`]: one buffer per column type, which a
/// column is gathered into and then swapped with, so a warm caller allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct PermuteScratch<V = Vec2> {
    u64s: Vec<u64>,
    u32s: Vec<u32>,
    u16s: Vec<u16>,
    u8s: Vec<u8>,
    i8s: Vec<i8>,
    f32s: Vec<f32>,
    vectors: Vec<V>,
    rngs: Vec<AgentRng>,
}

/// The scratch buffer for columns of type `T`.
trait ScratchOf<T> {
    fn buffer(&mut self) -> &mut Vec<T>;
}

macro_rules! scratch_of {
    ($($ty:ty => $field:ident),+) => {
        $(impl<V> ScratchOf<$ty> for PermuteScratch<V> {
            fn buffer(&mut self) -> &mut Vec<$ty> {
                &mut self.$field
            }
        })+
    };
}
scratch_of!(u64 => u64s, u32 => u32s, u16 => u16s, u8 => u8s, i8 => i8s, f32 => f32s, AgentRng => rngs);

impl<V: Vector> ScratchOf<V> for PermuteScratch<V> {
    fn buffer(&mut self) -> &mut Vec<V> {
        &mut self.vectors
    }
}

/// One agent column, as [`Agents::permute_rows_with`] moves it.
trait Column<V>: Send {
    /// Puts row `order[k]` in row `k`: gathered into the scratch buffer of the column's type,
    /// which then becomes the column (and the old column the buffer).
    fn gather(&mut self, order: &[u32], scratch: &mut PermuteScratch<V>, parallel: bool);
}

impl<T: Clone + Send + Sync, V> Column<V> for Vec<T>
where
    PermuteScratch<V>: ScratchOf<T>,
{
    fn gather(&mut self, order: &[u32], scratch: &mut PermuteScratch<V>, parallel: bool) {
        let buffer = scratch.buffer();
        let rows = &self[..];
        if parallel {
            order.par_iter().with_min_len(4096).map(|&r| rows[r as usize].clone()).collect_into_vec(buffer);
        } else {
            buffer.clear();
            buffer.extend(order.iter().map(|&r| rows[r as usize].clone()));
        }
        std::mem::swap(self, buffer);
    }
}

/// Declares the agent columns once: the `Agents` struct (one `Vec` per column), the
/// `AgentRow` of one agent's values, and what every whole-row operation needs (push,
/// permute, retain, the state hash's walk over the columns). Checkpoints, golden snapshots and
/// column digests read the struct through serde, so they follow too. A new column is one line
/// here (then re-mint the golden hashes: the state hash covers it).
///
/// The columns `steer` writes (the behaviours' own state) are declared in their own block: from
/// it come [`SteerState`] (those columns, to write), [`SteerReads`] (the others, to read, beside
/// them) and [`AgentMut`] (one agent's rows of the state), so a new state column is also one
/// line, and `steer` gets it with the others.
macro_rules! agent_columns {
    (
        columns { $($(#[$hdoc:meta])* $h:ident: $hty:ty,)+ }
        steer_state { $($(#[$sdoc:meta])* $s:ident: $sty:ty,)+ }
        columns { $($(#[$tdoc:meta])* $t:ident: $tty:ty,)* }
    ) => {
        agent_columns!(@all $($(#[$hdoc])* $h: $hty,)+ $($(#[$sdoc])* $s: $sty,)+ $($(#[$tdoc])* $t: $tty,)*);
        agent_columns!(@steer [$($h: $hty,)+ $($t: $tty,)*] [$($(#[$sdoc])* $s: $sty,)+]);
    };
    (@steer [$($r:ident: $rty:ty,)+] [$($(#[$sdoc:meta])* $s:ident: $sty:ty,)+]) => {
        /// The agent columns `steer` writes (besides its steering output), borrowed out of
        /// [`Agents`] by [`Agents::split_for_steer`].
        pub struct SteerState<'a, V = Vec2> {
            $($(#[$sdoc])* pub $s: &'a mut [$sty],)+
        }

        /// The other agent columns, to read beside a [`SteerState`].
        pub struct SteerReads<'a, V = Vec2> {
            $(#[doc = concat!("The agents' `", stringify!($r), "` column.")] pub $r: &'a [$rty],)+
        }

        /// One agent's rows of a [`SteerState`].
        pub struct AgentMut<'a, V = Vec2> {
            $($(#[$sdoc])* pub $s: &'a mut $sty,)+
        }

        impl<V: Vector> Agents<V> {
            /// The columns `steer` writes, and beside them the others to read.
            pub fn split_for_steer(&mut self) -> (SteerReads<'_, V>, SteerState<'_, V>) {
                (SteerReads { $($r: &self.$r,)+ }, SteerState { $($s: &mut self.$s,)+ })
            }
        }

        impl<V: Vector> SteerState<'_, V> {
            /// Calls `f(row, &mut out[row], the row's state)` for every row, across the pool in
            /// pieces of `min_len` to `max_len` rows; every call writes its own row only.
            pub fn par_rows<O: Send>(
                self,
                out: &mut [O],
                (min_len, max_len): (usize, usize),
                f: impl Fn(usize, &mut O, AgentMut<'_, V>) + Sync + Send,
            ) {
                (out.par_iter_mut(), $(self.$s.par_iter_mut(),)+)
                    .into_par_iter()
                    .enumerate()
                    .with_min_len(min_len)
                    .with_max_len(max_len)
                    .for_each(|(i, (o, $($s,)+))| f(i, o, AgentMut { $($s,)+ }));
            }

            /// Calls `f(first row, &mut out[block], the block's state)` for every block of
            /// `block` consecutive rows (the last may be shorter), across the pool in pieces of
            /// `min_blocks` to `max_blocks` blocks; every call writes its own block only.
            pub fn par_blocks<O: Send>(
                self,
                out: &mut [O],
                block: usize,
                (min_blocks, max_blocks): (usize, usize),
                f: impl Fn(usize, &mut [O], SteerState<'_, V>) + Sync + Send,
            ) {
                (out.par_chunks_mut(block), $(self.$s.par_chunks_mut(block),)+)
                    .into_par_iter()
                    .enumerate()
                    .with_min_len(min_blocks)
                    .with_max_len(max_blocks)
                    .for_each(|(b, (o, $($s,)+))| f(b * block, o, SteerState { $($s,)+ }));
            }

            /// Row `k` of these columns.
            pub fn row(&mut self, k: usize) -> AgentMut<'_, V> {
                AgentMut { $($s: &mut self.$s[k],)+ }
            }
        }
    };
    (@all $($(#[$doc:meta])* $name:ident: $ty:ty,)+) => {
        /// Agent columns. Row `i` of every column describes the same agent. Rows are in id
        /// order unless the pipeline reordered them spatially (`Pipeline::set_reorder_every`).
        /// `V` is the point type: `Vec2` in the plane, `Vec3` in space.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(bound = "V: Vector")]
        pub struct Agents<V = Vec2> {
            $($(#[$doc])* pub $name: Vec<$ty>,)+
        }

        /// How many columns there are.
        const COLUMN_COUNT: usize = [$(stringify!($name)),+].len();

        /// One agent's value in every column, as [`Agents::push`] appends it.
        #[derive(Clone, Debug, PartialEq)]
        pub struct AgentRow<V = Vec2> {
            $($(#[$doc])* pub $name: $ty,)+
        }

        impl<V: Vector> Agents<V> {
            /// The column names, in declaration order (the state hash's order and tags).
            pub const COLUMNS: &'static [&'static str] = &[$(stringify!($name)),+];

            /// Appends one agent's row.
            pub fn push(&mut self, row: AgentRow<V>) {
                $(self.$name.push(row.$name);)+
            }

            /// Keeps the rows for which `keep(row)` is true, in order (ids stay sorted).
            pub fn retain_rows(&mut self, keep: &[bool]) {
                fn retain<T>(col: &mut Vec<T>, keep: &[bool]) {
                    let mut k = keep.iter();
                    col.retain(|_| *k.next().expect("one flag per row"));
                }
                $(retain(&mut self.$name, keep);)+
            }

            /// Calls `visitor` with every column, in declaration order.
            pub fn visit_columns(&self, visitor: &mut impl ColumnVisitor) {
                $(visitor.column(stringify!($name), &self.$name);)+
            }

            /// Every column, to be moved as a whole (no allocation).
            fn columns_mut(&mut self) -> [&mut dyn Column<V>; COLUMN_COUNT] {
                [$(&mut self.$name),+]
            }
        }
    };
}

agent_columns! {
    columns {
    /// Stable id: never reused, assigned in spawn order.
    id: u32,
    /// Index into `World::groups`.
    group: u16,
    /// Position (world units).
    position: V,
    /// Velocity (world units per second).
    velocity: V,
    /// World units per second.
    max_speed: f32,
    /// Steering force limit (mass · units / s²).
    max_force: f32,
    /// Mass (steering force is divided by it).
    mass: f32,
    /// Body radius (world units).
    radius: f32,
    }
    steer_state {
    /// Wander circle (sphere, in space) offset `c` (spec: wander).
    wander: V,
    /// The weighted sum of flocking forces, reused between recomputations.
    flock_force: V,
    /// The agent's own generator, drawn from only inside its own update.
    rng: AgentRng,
    /// Path following: index of the node being sought.
    path_node: u32,
    /// Path following: +1 or -1 (patrol reverses it).
    path_dir: i8,
    /// Random walk: the current waypoint.
    waypoint: V,
    /// Random walk: 0 no waypoint yet, 1 walking to a waypoint, 2 on the last, straight leg.
    walk_state: u8,
    /// The agent's own random goal (targets of kind `random`).
    goal: V,
    }
    columns {
    /// The direction the agent last moved in: `norm(v)` after each integration while it moves
    /// faster than `MOVING_SHARE` (a tenth, in the integrate pass) of its `max_speed`; kept while
    /// it is stopped (followers of a stopped leader stay behind it). Kept up only in worlds
    /// where some group follows with `behind_when_stopped = "last_heading"`; elsewhere it
    /// keeps its value at spawn.
    last_heading: V,
    /// The journey the agent is on (an index into the world's journeys), or `NO_JOURNEY`.
    journey: u16,
    /// Its journey's current stage (an index into the world's stages; 0 on no journey).
    stage: u16,
    /// The tick it chose its current stage at (ticks completed then).
    stage_since: u64,
    /// The stage whose transition chose its current stage (it chooses again by it when that
    /// stage closes), or `NO_STAGE` at its journey's start.
    stage_from: u16,
    /// The agent's party (the smallest id among its members), or `NO_PARTY` when it walks
    /// alone.
    party: u32,
    }
}

/// Sees every agent column in turn ([`Agents::visit_columns`]).
pub trait ColumnVisitor {
    /// One column: its name and its values, row by row.
    fn column<T: ColumnValue>(&mut self, name: &'static str, values: &[T]);
}

/// A column's value type: its canonical little-endian bytes, as the state hash reads them.
pub trait ColumnValue {
    /// Appends this value's bytes to `out`.
    fn write_le(&self, out: &mut Vec<u8>);
}

macro_rules! le_bytes {
    ($($ty:ty),+) => {
        $(impl ColumnValue for $ty {
            fn write_le(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        })+
    };
}
le_bytes!(u64, u32, u16, i8, u8, f32);

impl<V: Vector> ColumnValue for V {
    fn write_le(&self, out: &mut Vec<u8>) {
        Vector::write_le(*self, out);
    }
}

impl ColumnValue for AgentRng {
    /// The generator's 64-bit fingerprint (its state and stream), not its layout.
    fn write_le(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&crate::rng::fingerprint(self).to_le_bytes());
    }
}

impl<V: Vector> Agents<V> {
    /// Live agents (rows).
    pub fn len(&self) -> usize {
        self.id.len()
    }

    /// The row of agent `id`. Rows are in id order unless the pipeline reordered them
    /// spatially (`Pipeline::set_reorder_every`); then this falls back to a scan.
    pub fn row_of(&self, id: u32) -> Option<usize> {
        match self.id.binary_search(&id) {
            Ok(row) => Some(row),
            Err(_) if self.is_id_ordered() => None,
            Err(_) => self.id.iter().position(|&x| x == id),
        }
    }

    /// Are the rows in ascending id order (the canonical order)?
    pub fn is_id_ordered(&self) -> bool {
        self.id.windows(2).all(|w| w[0] < w[1])
    }

    /// The rows in ascending id order: `None` when they already are, else the permutation.
    ///
    /// Ids are unique and, unless most agents have left, dense: each row is then put in a slot
    /// by its id and the slots read in order, in O(rows + largest id) rather than a sort's
    /// O(rows · log rows) of scattered reads (60 ms at 1M rows, paid by every metrics tick,
    /// state hash, trace row set and checkpoint of a reordered world).
    pub fn id_order(&self) -> Option<Vec<u32>> {
        if self.is_id_ordered() {
            return None;
        }
        let slots = self.id.iter().copied().max().map_or(0, |m| m as usize + 1);
        if slots > 4 * self.len() {
            let mut order: Vec<u32> = (0..self.len() as u32).collect();
            order.sort_unstable_by_key(|&r| self.id[r as usize]);
            return Some(order);
        }
        let mut row_of = vec![u32::MAX; slots];
        for (row, &id) in self.id.iter().enumerate() {
            row_of[id as usize] = row as u32;
        }
        row_of.retain(|&row| row != u32::MAX);
        Some(row_of)
    }

    /// Every row, in ascending id order (what outputs and id-ordered sums walk).
    pub fn rows_in_id_order(&self) -> Vec<usize> {
        match self.id_order() {
            None => (0..self.len()).collect(),
            Some(order) => order.into_iter().map(|r| r as usize).collect(),
        }
    }

    /// Moves row `order[k]` to row `k` in every column (`order` is a permutation of the rows).
    /// Results never depend on row order (every tie is broken by id, every output is written
    /// in id order), so a spatial order only changes speed.
    pub fn permute_rows(&mut self, order: &[u32]) {
        self.permute_rows_with(order, &mut PermuteScratch::default());
    }

    /// As [`Agents::permute_rows`], with reusable scratch (a warm caller allocates nothing):
    /// each column is gathered (`new[k] = old[order[k]]`) into a buffer of its type and swapped
    /// with it. Gathering reads rows independently of each other, so the memory system serves
    /// many at once; following the permutation's cycles in place read them one after another
    /// and grew faster than the crowd (the first reorder of 2M agents took 1.3 s). On a rayon
    /// pool of several threads each column is gathered in parallel; a column's result does not
    /// depend on the threads.
    pub fn permute_rows_with(&mut self, order: &[u32], scratch: &mut PermuteScratch<V>) {
        assert_eq!(order.len(), self.len(), "a permutation of every row");
        if order.iter().enumerate().all(|(k, &r)| r as usize == k) {
            return;
        }
        let parallel = rayon::current_thread_index().is_some() && rayon::current_num_threads() > 1;
        for column in self.columns_mut() {
            column.gather(order, scratch, parallel);
        }
    }

    /// No live agents.
    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Bounds, BoundsKind};

    #[test]
    fn minimum_image_crosses_the_seam() {
        let b = Bounds { kind: BoundsKind::Wrap, min: Vec2::ZERO, max: Vec2::new(10.0, 10.0) };
        assert_eq!(b.offset(Vec2::new(9.5, 5.0), Vec2::new(0.5, 5.0)), Vec2::new(1.0, 0.0));
        assert_eq!(b.offset(Vec2::new(0.5, 0.5), Vec2::new(9.5, 9.5)), Vec2::new(-1.0, -1.0));
        assert_eq!(b.wrap(Vec2::new(10.0, -0.5)), Vec2::new(0.0, 9.5));
        assert_eq!(b.wrap(Vec2::new(-1e-9, 3.0)).x, 0.0);
    }

    #[test]
    fn permuting_in_place_gathers_every_column() {
        let n = 97u32;
        let mut a = Agents::default();
        for i in 0..n {
            a.id.push(i);
            a.group.push(i as u16);
            a.position.push(Vec2::new(i as f32, -(i as f32)));
            a.goal.push(Vec2::splat(i as f32));
        }
        let fill = |v: &mut Vec<_>, x| v.resize(n as usize, x);
        fill(&mut a.velocity, Vec2::ZERO);
        fill(&mut a.wander, Vec2::ZERO);
        fill(&mut a.flock_force, Vec2::ZERO);
        fill(&mut a.waypoint, Vec2::ZERO);
        a.last_heading = (0..n).map(|i| Vec2::new(0.0, i as f32)).collect();
        a.max_speed = (0..n).map(|i| i as f32).collect();
        a.max_force = a.max_speed.clone();
        a.mass = a.max_speed.clone();
        a.radius = a.max_speed.clone();
        a.rng = (0..n).map(|i| crate::rng::agent_rng(1, i as u64, crate::rng::Purpose::Behaviour)).collect();
        a.path_node = (0..n).collect();
        a.path_dir = vec![1; n as usize];
        a.walk_state = vec![0; n as usize];
        a.journey = (0..n).map(|i| i as u16 % 3).collect();
        a.stage = (0..n).map(|i| i as u16).collect();
        a.stage_since = (0..n).map(|i| i as u64 * 1000).collect();
        a.party = (0..n).map(|i| i / 2).collect();
        a.stage_from = (0..n).map(|i| i as u16 * 3).collect();
        // k -> 31k + 7 (mod 97): a permutation (31 is prime to 97) with one fixed point.
        let order: Vec<u32> = (0..n).map(|k| (k * 31 + 7) % n).collect();
        let mut done = PermuteScratch::default();
        let mut b = a.clone();
        b.permute_rows_with(&order, &mut done);
        for (k, &r) in order.iter().enumerate() {
            assert_eq!(b.id[k], a.id[r as usize]);
            assert_eq!(b.position[k], a.position[r as usize]);
            assert_eq!(b.rng[k], a.rng[r as usize]);
            assert_eq!(b.goal[k], a.goal[r as usize]);
            assert_eq!(b.last_heading[k], a.last_heading[r as usize]);
            assert_eq!(b.stage_since[k], a.stage_since[r as usize]);
            assert_eq!(b.party[k], a.party[r as usize]);
            assert_eq!(b.stage_from[k], a.stage_from[r as usize]);
        }
        // Back to id order.
        let back = b.id_order().expect("not in id order");
        b.permute_rows_with(&back, &mut done);
        assert_eq!(b, a);
        // On a pool of several threads the columns move side by side: the same rows.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("pool");
        let mut c = a.clone();
        pool.install(|| c.permute_rows_with(&order, &mut done));
        let mut serial = a.clone();
        serial.permute_rows_with(&order, &mut done);
        assert_eq!(c, serial);
        pool.install(|| c.permute_rows_with(&back, &mut done));
        assert_eq!(c, a);
        // The identity moves nothing.
        let identity: Vec<u32> = (0..n).collect();
        pool.install(|| c.permute_rows_with(&identity, &mut done));
        assert_eq!(c, a);
    }

    /// `id_order` by slots (dense ids) and by sorting (ids sparse after most agents left)
    /// gives the rows in ascending id order either way.
    #[test]
    fn id_order_lists_rows_by_ascending_id_for_dense_and_sparse_ids() {
        let by_sort = |a: &Agents| {
            let mut order: Vec<u32> = (0..a.len() as u32).collect();
            order.sort_by_key(|&r| a.id[r as usize]);
            order
        };
        // 97 rows, ids a permutation of 0..97 with gaps cut out: dense.
        let mut a =
            Agents { id: (0..97u32).map(|k| (k * 31 + 7) % 97 * 3 / 2).collect(), ..Agents::default() };
        assert_eq!(a.id_order(), Some(by_sort(&a)));
        // Ids over 4 × the rows: sparse.
        a.id = (0..97u32).map(|k| (k * 31 + 7) % 97 * 1000).collect();
        assert_eq!(a.id_order(), Some(by_sort(&a)));
        let order = a.id_order().expect("not in id order");
        assert!(order.windows(2).all(|w| a.id[w[0] as usize] < a.id[w[1] as usize]));
        // Already in id order: nothing to do.
        a.id = (0..97u32).map(|k| k * 5).collect();
        assert_eq!(a.id_order(), None);
    }
}
