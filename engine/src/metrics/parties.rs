//! The parties (social groups) as metrics: how far apart their members walk and in which
//! formation, as Moussaïd et al. (2010) measure walking groups. A party is *walking* when at
//! least two of its members are alive and their mean velocity is at least [`WALKING_SPEED`].
//! In the frame of that mean velocity (along, across), with `c` the members' centre:
//!
//! - spread: the members' mean distance from `c`;
//! - angle: between the walking direction and the line through the two members farthest
//!   apart across it (90° side by side, 0° one behind the other);
//! - V depth (three members or more): how far the members between those two walk behind them
//!   (m; positive when the middle walks behind, a V opening forward);
//! - formation: *river-like* when the angle is under 45°, else *V* when the V depth is more
//!   than [`V_DEPTH`], else *line abreast*.
//!
//! Parties are read in (party, id) order and the means summed serially, so readings are the
//! same at any thread count and row order.

use serde::{Deserialize, Serialize};

use crate::math::{Vec2, acos};
use crate::world::{Dimension, NO_PARTY, World};

/// A party walks when its members' mean speed is at least this (m/s).
pub const WALKING_SPEED: f32 = 0.3;

/// A walking party of three or more is in a V when its middle walks this far (m) behind.
pub const V_DEPTH: f32 = 0.15;

/// Below this angle (degrees) to the walking direction a party walks river-like.
pub const RIVER_ANGLE_DEG: f64 = 45.0;

/// The walking parties after a tick (metrics file columns `parties_walking`, `party_spread`,
/// `party_angle_deg`, `party_v_depth`, `parties_abreast`, `parties_v`, `parties_river`;
/// expectations' `parties.walking` and the rest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PartyReading {
    /// Walking parties.
    pub walking: u64,
    /// Their members' mean distance from their party's centre, averaged over parties (m).
    pub spread: f64,
    /// Their angle to the walking direction, averaged over parties (degrees).
    pub angle_deg: f64,
    /// The V depth, averaged over walking parties of three or more (m; 0 when none walks).
    pub v_depth: f64,
    /// Walking parties of three or more.
    pub deep: u64,
    /// The share of walking parties in line abreast.
    pub abreast: f64,
    /// The share in a V.
    pub v: f64,
    /// The share walking river-like.
    pub river: f64,
}

/// The readings' sums over the run, for its means (carried by checkpoints).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PartyTotals {
    ticks: u64,
    deep_ticks: u64,
    spread: f64,
    angle_deg: f64,
    v_depth: f64,
    abreast: f64,
    v: f64,
    river: f64,
}

/// The parties over the run: each reading's mean over the observed ticks on which some party
/// walked (`metrics.parties` in `throng run --json`, `parties.*` in a batch's results).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PartySummary {
    /// Observed ticks on which some party walked.
    pub ticks: u64,
    /// Mean spread (m).
    pub spread: f64,
    /// Mean angle to the walking direction (degrees).
    pub angle_deg: f64,
    /// Mean V depth, over the ticks on which a party of three or more walked (m).
    pub v_depth: f64,
    /// Mean share of walking parties in line abreast.
    pub abreast: f64,
    /// Mean share in a V.
    pub v: f64,
    /// Mean share walking river-like.
    pub river: f64,
}

impl PartyTotals {
    /// Adds one tick's reading.
    pub fn add(&mut self, r: &PartyReading) {
        if r.walking == 0 {
            return;
        }
        self.ticks += 1;
        self.spread += r.spread;
        self.angle_deg += r.angle_deg;
        self.abreast += r.abreast;
        self.v += r.v;
        self.river += r.river;
        if r.deep > 0 {
            self.deep_ticks += 1;
            self.v_depth += r.v_depth;
        }
    }

    /// The means so far.
    pub fn summary(&self) -> PartySummary {
        let mean = |sum: f64, n: u64| if n == 0 { 0.0 } else { sum / n as f64 };
        PartySummary {
            ticks: self.ticks,
            spread: mean(self.spread, self.ticks),
            angle_deg: mean(self.angle_deg, self.ticks),
            v_depth: mean(self.v_depth, self.deep_ticks),
            abreast: mean(self.abreast, self.ticks),
            v: mean(self.v, self.ticks),
            river: mean(self.river, self.ticks),
        }
    }
}

/// The walking parties now; `None` when no group walks in parties.
pub fn read<V: Dimension>(world: &World<V>) -> Option<PartyReading> {
    if !crate::world::any_parties(&world.groups) {
        return None;
    }
    let a = &world.agents;
    let mut members: Vec<(u64, usize)> = (0..a.len())
        .filter(|&r| a.party[r] != NO_PARTY)
        .map(|r| ((a.party[r] as u64) << 32 | a.id[r] as u64, r))
        .collect();
    members.sort_unstable();
    let mut reading = PartyReading::default();
    let (mut abreast, mut v, mut river) = (0u64, 0u64, 0u64);
    for party in members.chunk_by(|x, y| x.0 >> 32 == y.0 >> 32) {
        let plane = |r: usize| (a.position[r].to_plane(), a.velocity[r].to_plane());
        let points: Vec<(Vec2, Vec2)> = party
            .iter()
            .filter_map(|&(_, r)| match plane(r) {
                (Some(p), Some(v)) => Some((p, v)),
                _ => None,
            })
            .collect();
        let Some(shape) = formation(&points) else { continue };
        reading.walking += 1;
        reading.spread += shape.spread as f64;
        reading.angle_deg += shape.angle_deg;
        if let Some(depth) = shape.v_depth {
            reading.deep += 1;
            reading.v_depth += depth as f64;
        }
        match shape.kind() {
            Formation::Abreast => abreast += 1,
            Formation::V => v += 1,
            Formation::River => river += 1,
        }
    }
    if reading.walking > 0 {
        let n = reading.walking as f64;
        reading.spread /= n;
        reading.angle_deg /= n;
        reading.abreast = abreast as f64 / n;
        reading.v = v as f64 / n;
        reading.river = river as f64 / n;
    }
    if reading.deep > 0 {
        reading.v_depth /= reading.deep as f64;
    }
    Some(reading)
}

/// A walking party's formation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formation {
    /// Side by side.
    Abreast,
    /// Side by side with the middle behind.
    V,
    /// One behind the other.
    River,
}

/// One walking party's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Members' mean distance from the centre (m).
    pub spread: f32,
    /// Angle between the walking direction and the line through the outermost members
    /// across it (degrees, 0 to 90).
    pub angle_deg: f64,
    /// For three members or more: how far the inner members walk behind the outer two (m).
    pub v_depth: Option<f32>,
}

impl Shape {
    /// Its formation (see the module's header).
    pub fn kind(&self) -> Formation {
        if self.angle_deg < RIVER_ANGLE_DEG {
            Formation::River
        } else if self.v_depth.is_some_and(|d| d > V_DEPTH) {
            Formation::V
        } else {
            Formation::Abreast
        }
    }
}

/// The shape of a party whose members stand and move as `members` (position, velocity, in id
/// order); `None` when fewer than two or not walking.
pub fn formation(members: &[(Vec2, Vec2)]) -> Option<Shape> {
    let n = members.len();
    if n < 2 {
        return None;
    }
    let (sum_p, sum_v) = members.iter().fold((Vec2::ZERO, Vec2::ZERO), |(p, v), m| (p + m.0, v + m.1));
    let (centre, mean_v) = (sum_p / n as f32, sum_v / n as f32);
    let speed = mean_v.length();
    if speed < WALKING_SPEED {
        return None;
    }
    let along = mean_v / speed;
    let across = Vec2::new(-along.y, along.x);
    let spread = members.iter().map(|m| (m.0 - centre).length()).sum::<f32>() / n as f32;
    // The outermost members across the walking direction (the first of equals, in id order).
    let side = |k: usize| (members[k].0 - centre).dot(across);
    let (mut left, mut right) = (0, 0);
    for k in 1..n {
        if side(k) < side(left) {
            left = k;
        }
        if side(k) > side(right) {
            right = k;
        }
    }
    let line = members[right].0 - members[left].0;
    let angle_deg = match line.length() {
        0.0 => 90.0,
        len => (acos((line.dot(along) / len).abs()) as f64).to_degrees(),
    };
    let v_depth = (n >= 3 && left != right).then(|| {
        let ahead = |k: usize| (members[k].0 - centre).dot(along);
        let outer = (ahead(left) + ahead(right)) / 2.0;
        let inner = (0..n).filter(|&k| k != left && k != right).map(ahead).sum::<f32>() / (n - 2) as f32;
        outer - inner
    });
    Some(Shape { spread, angle_deg, v_depth })
}

#[cfg(test)]
mod tests {
    use super::*;

    const EAST: Vec2 = Vec2::new(1.2, 0.0);

    #[test]
    fn a_pair_side_by_side_walks_abreast() {
        let s = formation(&[(Vec2::new(0.0, 0.0), EAST), (Vec2::new(0.0, 0.8), EAST)]).unwrap();
        // acos(0) in f32 is π/2 rounded: 90° to within 1e-5.
        assert_eq!((s.spread, s.v_depth), (0.4, None));
        assert!((s.angle_deg - 90.0).abs() < 1e-5, "{}", s.angle_deg);
        assert_eq!(s.kind(), Formation::Abreast);
    }

    #[test]
    fn a_pair_one_behind_the_other_walks_river_like() {
        // The line is 30° off the walking direction (0.5 across, 0.866 along).
        let s = formation(&[(Vec2::new(0.0, 0.0), EAST), (Vec2::new(0.866, 0.5), EAST)]).unwrap();
        assert!((s.angle_deg - 30.0).abs() < 0.01, "{}", s.angle_deg);
        assert_eq!(s.kind(), Formation::River);
    }

    #[test]
    fn a_triple_with_its_middle_behind_is_a_v() {
        // Outer members at x = 0, the middle 0.4 m behind: V depth 0.4; the outer line is
        // across the walking direction (90°).
        let m = [(Vec2::new(0.0, -0.7), EAST), (Vec2::new(-0.4, 0.0), EAST), (Vec2::new(0.0, 0.7), EAST)];
        let s = formation(&m).unwrap();
        assert!((s.v_depth.unwrap() - 0.4).abs() < 1e-6 && (s.angle_deg - 90.0).abs() < 1e-5, "{s:?}");
        assert_eq!(s.kind(), Formation::V);
        // The same three in a line abreast.
        let line = [(Vec2::new(0.0, -0.7), EAST), (Vec2::new(0.0, 0.0), EAST), (Vec2::new(0.0, 0.7), EAST)];
        assert_eq!(formation(&line).unwrap().kind(), Formation::Abreast);
    }

    #[test]
    fn a_party_standing_still_is_not_read() {
        let still = Vec2::new(0.1, 0.0);
        assert_eq!(formation(&[(Vec2::ZERO, still), (Vec2::new(0.0, 1.0), still)]), None);
    }
}
