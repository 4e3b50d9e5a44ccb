//! What `groups.NAME.speed.*` and `groups.NAME.max_speed.*` read: the lowest, mean or highest
//! value over a group's live agents, from the world itself (these are not metrics CSV columns).

use crate::scenario::expectation::{Metric, Stat};
use crate::world::World;

/// The value of a group metric after this tick; `None` for other metrics, and when the group
/// has no live agent (the tick is then not read).
pub(super) fn read(m: &Metric, world: &World) -> Option<f64> {
    let a = &world.agents;
    let (group, stat, value): (usize, Stat, &dyn Fn(usize) -> f32) = match *m {
        Metric::GroupSpeed(g, s) => (g, s, &|r| a.velocity[r].length()),
        Metric::GroupMaxSpeed(g, s) => (g, s, &|r| a.max_speed[r]),
        _ => return None,
    };
    let group = u16::try_from(group).ok()?;
    // Rows in id order, so a mean is the same float sum whatever the row order.
    let values = a.rows_in_id_order().into_iter().filter(|&r| a.group[r] == group).map(|r| value(r) as f64);
    let (mut n, mut sum, mut lo, mut hi) = (0u64, 0.0f64, f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        n += 1;
        sum += v;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (n > 0).then_some(match stat {
        Stat::Min => lo,
        Stat::Mean => sum / n as f64,
        Stat::Max => hi,
    })
}
