//! The sensing skin: candidate lists found with a margin, reused while no agent has moved far.

use rayon::prelude::*;

use crate::math::{Vec2, Vector};
use crate::par::{PARALLEL_SCAN, SCAN_CHUNK};
use crate::world::{Bounds, BoundsKind, Group};

use super::movers::{mover_pairs, movers_cap};
use super::row_changes::RowChanges;
use super::{Point, SenseInput, SpatialIndex};
use super::neighbours::SENSE_CHUNK;

/// Each agent's candidate rows (see [`sense_candidates`](super::sense_candidates)), in
/// variable-length lists: one growable buffer per chunk of `SENSE_CHUNK` (128) rows, so chunks
/// fill in parallel, lists take only the room they need however dense a spot is, and the
/// buffers are reused from tick to tick.
#[derive(Default, Debug)]
pub struct CandidateLists {
    pub(super) chunks: Vec<CandidateChunk>,
    /// Each row's candidates are kept in (distance², id) order: sorted when found, and put
    /// right on every tick that reuses them. Set where the candidates last long (see
    /// [`SensingCache::remember`]): in small steps, neighbours change places rarely and the
    /// order mostly holds, so most lists need no sort; in large ones, keeping the order costs
    /// more than ranking each list afresh.
    pub ordered: bool,
}

#[derive(Default, Debug)]
pub(super) struct CandidateChunk {
    pub(super) rows: Vec<u32>,
    /// Where each row's list starts in `rows`, and one past the last list's end.
    pub(super) start: Vec<u32>,
}

impl CandidateChunk {
    /// The candidates of the chunk's row `k`.
    #[inline]
    pub(super) fn rows(&self, k: usize) -> &[u32] {
        &self.rows[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// The candidates of the chunk's row `k`, to reorder.
    #[inline]
    pub(super) fn rows_mut(&mut self, k: usize) -> &mut [u32] {
        &mut self.rows[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

impl CandidateLists {
    /// The candidate rows of agent row `i`.
    #[inline]
    pub fn of(&self, i: usize) -> &[u32] {
        self.chunks[i / SENSE_CHUNK].rows(i % SENSE_CHUNK)
    }

    /// Candidates held in all, for reports.
    pub fn total(&self) -> usize {
        self.chunks.iter().map(|c| c.rows.len()).sum()
    }
}

/// Candidate lists within each sensing radius plus a skin, and the state they were found in
/// (see `Pipeline::set_sensing_skin`).
#[derive(Default)]
pub struct SensingCache<V = Vec2> {
    /// Extra reach of the candidates; 0 senses afresh every tick.
    pub skin: f32,
    /// `skin` was picked for the scenario ([`auto_skin`]), not set by its author.
    pub auto: bool,
    /// Each agent's candidates, found within its group's sensing radius plus `skin`; the
    /// neighbour lists of reusing ticks are filtered from them.
    pub candidates: CandidateLists,
    /// `candidates` are complete for the state below.
    pub valid: bool,
    /// Decided before `build_index`: this tick senses afresh.
    pub due: bool,
    /// Ticks whose neighbour lists came from reused candidates (no index build, no queries).
    pub reused: u64,
    /// Ticks that sensed afresh: built the index and queried it, finding new candidates when
    /// the skin is on.
    pub sensed: u64,
    /// On a tick that reuses the candidates, the rows that have moved more than `SKIN_MOVE ×
    /// skin` since they were found (ascending; at most [`movers_cap`]): they, and the agents
    /// near them, take the candidates of [`mover_pairs`](super::movers::mover_pairs) too.
    pub movers: Vec<u32>,
    /// The pairs the movers add, `(row, candidate row)`, sorted (reused between ticks).
    pub mover_pairs: Vec<(u32, u32)>,
    /// Movers found per chunk of `SCAN_CHUNK` rows (reused between ticks).
    movers_per_chunk: Vec<u32>,
    /// Per group, the shorter first reach of sensing afresh without a skin (see
    /// [`short_reach`](super::reach::short_reach)); empty or 0: the sensing radius.
    pub short_reach: Vec<f32>,
    /// Per row, a first reach of its own from its last list (see
    /// [`row_reach`](super::reach::row_reach)), for the rows of `row_reach_id` only; 0: the
    /// group's.
    pub row_reach: Vec<f32>,
    /// The ids of the rows `row_reach` was found for: a reorder, a spawn or a removal voids it.
    pub row_reach_id: Vec<u32>,
    /// For each row of the index the candidates were found with, its row today (`NO_ROW` if
    /// removed since); empty while the rows are those it was built over.
    index_rows: Vec<u32>,
    /// The candidate lists' other buffer, for renumbering them when rows go or come, and how
    /// the rows changed.
    spare: CandidateLists,
    changes: RowChanges,
    /// Rows, groups, sensing parameters and bounds the candidates were found for, and
    /// where each agent was.
    id: Vec<u32>,
    group: Vec<u16>,
    params: Vec<(f32, u32)>,
    bounds: Option<Bounds<V>>,
    position: Vec<V>,
}

/// Candidates reused for this many ticks per sensing tick, on average over the run, are
/// kept in order ([`CandidateLists::ordered`]). Measured on the pedestrian race scene (dt 0.01
/// s, about 17 ticks per sensing tick) ordered lists cut sensing by a sixth; on the standard
/// crowd (dt 0.1 s, about 3) they made it a quarter slower.
const ORDERED_AFTER: u64 = 8;

/// An agent may move this fraction of the skin before sensing is due again: two agents then
/// close in by at most 0.9 × skin, and the rest covers rounding.
const SKIN_MOVE: f32 = 0.45;

/// The skin `sensing_skin = "auto"` (a scenario's default) picks, from the groups and the
/// time step: a sixth of the shortest sensing radius, where at the groups' highest speed limit
/// an agent needs [`AUTO_TICKS`] ticks or more to move [`SKIN_MOVE`] of it, so that candidates
/// last that long; else 0. Pedestrians at dt 0.01–0.02 s with a CFSM or social force reach of
/// 3 m get 0.5 m (they move 0.013–0.027 m a tick, and candidates last 8–17 ticks); steering
/// crowds at dt 0.1 s and ORCA's scenes at dt 0.25 s get 0, where reuse costs more than it
/// saves (docs/benchmarks.md, "Reused sensing candidates"). Speed only: the lists are the same
/// with any skin.
pub fn auto_skin<'g>(groups: impl Iterator<Item = &'g Group> + Clone, dt: f32) -> f32 {
    let shortest = groups
        .clone()
        .filter(|g| g.max_neighbours > 0 && g.sensing_radius > 0.0)
        .map(|g| g.sensing_radius)
        .fold(f32::INFINITY, f32::min);
    let fastest = groups.map(|g| g.params.max_speed.max()).fold(0.0f32, f32::max);
    let skin = AUTO_SHARE * shortest;
    if skin.is_finite() && SKIN_MOVE * skin >= AUTO_TICKS * fastest * dt { skin } else { 0.0 }
}

/// [`auto_skin`]'s share of the sensing radius: the candidates are (7/6)² ≈ 1.36 times the
/// neighbours within the radius in the plane, 1.59 times in space.
const AUTO_SHARE: f32 = 1.0 / 6.0;

/// [`auto_skin`] picks a skin only where candidates last at least this many ticks.
const AUTO_TICKS: f32 = 5.0;

/// More candidates than this per neighbour kept drop a skin [`auto_skin`] picked
/// ([`SensingCache::drop_auto_skin_if_capped`]). The race's CFSM scene keeps every neighbour
/// within 3 m and holds about 1.5 candidates per neighbour; the standard crowd, whose skin of
/// 1 its file sets, 2.3 (and pays); ORCA's uniform scene with a skin of 2.5 m, about 6.
const AUTO_MAX_CANDIDATES: f64 = 2.5;

impl<V: Vector> SensingCache<V> {
    /// Have the candidates lasted [`ORDERED_AFTER`] ticks or more per sensing tick, so that
    /// the next ones should be kept in order?
    pub fn last_long(&self) -> bool {
        self.reused >= ORDERED_AFTER * self.sensed.max(1)
    }

    /// Sets the skin; a changed skin voids the candidates.
    pub fn set_skin(&mut self, skin: f32) {
        let skin = if skin.is_finite() { skin.max(0.0) } else { 0.0 };
        self.auto = false;
        if skin != self.skin {
            self.skin = skin;
            self.valid = false;
        }
    }

    /// Sets a skin picked for the scenario ([`auto_skin`]), which
    /// [`SensingCache::drop_auto_skin_if_capped`] may drop.
    pub fn set_auto_skin(&mut self, skin: f32) {
        self.set_skin(skin);
        self.auto = true;
    }

    /// After a sensing tick that found candidates, with a skin picked for the scenario: when
    /// the candidates outnumber the neighbours kept by more than [`AUTO_MAX_CANDIDATES`] to 1,
    /// the lists are capped far below what lies within reach, and each reusing tick would
    /// rank many candidates to keep few (ORCA's uniform scene: 2.5 ms per tick without a skin,
    /// 4.3 with 2.5 m at dt 0.02 s). The skin then goes to 0 for the rest of the run. Counts
    /// only, so the choice is the same at any thread count and with any index.
    pub fn drop_auto_skin_if_capped(&mut self, kept: &[u32]) {
        if !self.auto || self.skin <= 0.0 {
            return;
        }
        let kept: u64 = kept.iter().map(|&n| u64::from(n)).sum();
        if self.candidates.total() as f64 > AUTO_MAX_CANDIDATES * kept as f64 {
            self.set_auto_skin(0.0);
        }
    }

    /// Sensing is due unless the candidates were found for these groups, sensing parameters
    /// and bounds, for these rows or rows they keep in order (less removed ones, plus added
    /// ones after them; `row_changes.rs`), and at most [`movers_cap`] agents, added ones
    /// included, have moved more than `SKIN_MOVE × skin` since; those are left in
    /// [`SensingCache::movers`].
    pub fn is_due(
        &mut self,
        bounds: &Bounds<V>,
        groups: &[Group],
        id: &[u32],
        group: &[u16],
        position: &[V],
    ) -> bool {
        self.movers.clear();
        if self.skin <= 0.0 || !self.valid {
            return true;
        }
        let params = groups.iter().map(|g| (g.sensing_radius, g.max_neighbours));
        if self.bounds != Some(*bounds) || !self.params.iter().copied().eq(params) {
            return true;
        }
        if self.id != id && !self.follow_rows(id, group) {
            return true;
        }
        if self.group != group {
            return true;
        }
        let limit = SKIN_MOVE * self.skin;
        let limit_sq = limit * limit;
        // An added row's position then is NaN: it is always too far (one unordered compare,
        // where `> || is_nan` made two).
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let too_far = |p: &V, q: &V| !(bounds.offset(*q, *p).length_squared() <= limit_sq);
        let count = |now: &[V], then: &[V]| now.iter().zip(then).map(|(p, q)| u32::from(too_far(p, q))).sum();
        let chunks = position.len().div_ceil(SCAN_CHUNK);
        self.movers_per_chunk.resize(chunks, 0);
        let per_chunk = position.chunks(SCAN_CHUNK).zip(self.position.chunks(SCAN_CHUNK));
        if position.len() >= PARALLEL_SCAN {
            (position.par_chunks(SCAN_CHUNK), self.position.par_chunks(SCAN_CHUNK), &mut self.movers_per_chunk)
                .into_par_iter()
                .for_each(|(p, q, n)| *n = count(p, q));
        } else {
            per_chunk.clone().zip(&mut self.movers_per_chunk).for_each(|((p, q), n)| *n = count(p, q));
        }
        let total: usize = self.movers_per_chunk.iter().map(|&n| n as usize).sum();
        if total > movers_cap(position.len()) {
            return true;
        }
        for (c, ((now, then), &n)) in per_chunk.zip(&self.movers_per_chunk).enumerate() {
            if n > 0 {
                let moved = now.iter().zip(then).enumerate().filter(|(_, (p, q))| too_far(p, q));
                self.movers.extend(moved.map(|(k, _)| (c * SCAN_CHUNK + k) as u32));
            }
        }
        false
    }

    /// Carries the candidates over to today's rows `id` (groups `group`) when they keep the
    /// rows of before in order, less removed ones, plus at most [`movers_cap`] added ones after
    /// them (which are then movers, with no position then); false, changing nothing, otherwise.
    fn follow_rows(&mut self, id: &[u32], group: &[u16]) -> bool {
        let changes = &mut self.changes;
        if !changes.find(&self.id, id) {
            return false;
        }
        let rows = id.len();
        if rows - changes.kept() > movers_cap(rows) {
            return false;
        }
        changes.follow(&self.candidates, rows, &mut self.spare);
        std::mem::swap(&mut self.candidates, &mut self.spare);
        changes.renumber(&mut self.index_rows);
        changes.carry(&mut self.position, rows, |_| V::splat(f32::NAN));
        changes.carry(&mut self.group, rows, |i| group[i]);
        self.id.clear();
        self.id.extend_from_slice(id);
        true
    }

    /// Sets [`mover_pairs`](SensingCache::mover_pairs) to the pairs
    /// [`mover_pairs`](super::mover_pairs) finds for this tick's [`movers`](SensingCache::movers),
    /// from `index` (the one the candidates were found with, not rebuilt since); none without
    /// movers.
    pub fn find_mover_pairs(&mut self, index: &SpatialIndex<V>, input: &SenseInput<'_, V>)
    where
        V: Point,
    {
        self.mover_pairs.clear();
        if !self.movers.is_empty() {
            let reach = self.widest_reach(input.groups);
            let (then, rows) = (&self.position[..], &self.index_rows[..]);
            mover_pairs(index, rows, input, then, &self.movers, reach, &mut self.mover_pairs);
        }
    }

    /// The widest reach a sensing tick asks of the index, for the grid's cells (which answer
    /// a query no wider than a cell from the block of cells around it): over the groups that
    /// sense, the sensing radius plus the skin. At least 1e-3. (A short reach is not used:
    /// cells that narrow made the rows that fall back to their whole radius read a 5 × 5
    /// block, and ORCA's uniform scene about 3 % slower; docs/benchmarks.md.)
    pub fn widest_reach(&self, groups: &[Group]) -> f32 {
        let reach =
            |g: &Group| if g.max_neighbours == 0 { 0.0 } else { g.sensing_radius.max(0.0) + self.skin };
        groups.iter().map(reach).fold(0.0f32, f32::max).max(1e-3)
    }

    /// Records the state complete candidates were just found in. Candidates are not kept
    /// when rounding could exceed the margin the skin leaves (coordinates far larger than the
    /// skin), nor when a radius with its skin reaches across half a wrapped world.
    pub fn remember(&mut self, b: &Bounds<V>, groups: &[Group], id: &[u32], group: &[u16], position: &[V]) {
        let extent = match b.kind {
            BoundsKind::Wrap => b.min.abs().max(b.max.abs()).max_element(),
            BoundsKind::Open => position.iter().fold(0.0f32, |m, p| m.max(p.abs().max_element())),
        };
        let r_max = groups.iter().map(|g| g.sensing_radius).fold(0.0f32, f32::max);
        let precise = (1.0 - 2.0 * SKIN_MOVE) * self.skin > 1e-5 * (1.0 + extent + r_max + self.skin);
        let min_side = b.size().min_element();
        let repeats = b.kind == BoundsKind::Wrap && 2.0 * ((r_max + self.skin) * 1.001 + 1e-3) >= min_side;
        self.valid = precise && !repeats;
        self.id.clear();
        self.id.extend_from_slice(id);
        self.group.clear();
        self.group.extend_from_slice(group);
        self.params.clear();
        self.params.extend(groups.iter().map(|g| (g.sensing_radius, g.max_neighbours)));
        self.bounds = Some(*b);
        self.position.clear();
        self.position.extend_from_slice(position);
        self.index_rows.clear();
    }
}
