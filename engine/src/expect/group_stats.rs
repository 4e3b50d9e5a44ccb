//! What `groups.NAME.speed.*`, `groups.NAME.max_speed.*` and `groups.NAME.target_distance.*`
//! read: the lowest, mean or highest value over a group's live agents, from the world itself
//! (these are not metrics CSV columns).

use crate::behaviours::moving_point;
use crate::scenario::expectation::{Metric, Stat};
use crate::world::{Dimension, Target, World};

/// The value of a group metric after this tick; `None` for other metrics, and when the group
/// has no live agent (or, for a target distance, no agent whose target has a place now): the
/// tick is then not read.
pub(super) fn read<V: Dimension>(m: &Metric, world: &World<V>) -> Option<f64> {
    let a = &world.agents;
    let time_s = world.time_s();
    let (group, stat, value): (usize, Stat, &dyn Fn(usize) -> Option<f32>) = match *m {
        Metric::GroupSpeed(g, s) => (g, s, &|r| Some(a.velocity[r].length())),
        Metric::GroupMaxSpeed(g, s) => (g, s, &|r| Some(a.max_speed[r])),
        Metric::GroupTargetDistance(g, s) => (g, s, &move |r| {
            target_of(world, r, time_s).map(|t| world.bounds.offset(a.position[r], t).length())
        }),
        _ => return None,
    };
    let group = u16::try_from(group).ok()?;
    // Rows in id order, so a mean is the same float sum whatever the row order.
    let values =
        a.rows_in_id_order().into_iter().filter(|&r| a.group[r] == group).filter_map(value).map(f64::from);
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

/// Where row `r`'s target is now: the target of its group's first behaviour that has one (a
/// point, a moving point, an agent, the nearest agent of a group, or the agent's own drawn
/// goal). `None` when that target is a direction, or its agent is gone.
fn target_of<V: Dimension>(world: &World<V>, r: usize, time_s: f64) -> Option<V> {
    let group = &world.groups[world.agents.group[r] as usize];
    let target = group.behaviours.iter().find_map(|b| b.behaviour.target())?;
    match &world.targets[target as usize] {
        Target::Point(p) => Some(*p),
        Target::Moving { waypoints, speed } => Some(moving_point(waypoints, *speed, time_s).0),
        Target::Agent(id) => world.row_of(*id).map(|row| world.agents.position[row]),
        Target::Random { .. } | Target::Opposite { .. } | Target::Own => Some(world.agents.goal[r]),
        Target::Journey => {
            (world.agents.journey[r] != crate::world::NO_JOURNEY).then(|| world.agents.goal[r])
        }
        Target::NearestOf(g) => nearest_of(world, r, *g),
        Target::Direction { .. } => None,
    }
}

/// The live agent of group `g` nearest to row `r` (not `r` itself; ties to the lower id), by
/// a scan of every agent: `O(agents)` per agent read.
fn nearest_of<V: Dimension>(world: &World<V>, r: usize, g: u16) -> Option<V> {
    let a = &world.agents;
    let p = a.position[r];
    (0..a.len())
        .filter(|&k| k != r && a.group[k] == g)
        .map(|k| (world.bounds.offset(p, a.position[k]).length_squared(), a.id[k], k))
        .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
        .map(|(_, _, k)| a.position[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;
    use crate::math::Vec3;

    /// Distances to a fixed target, by hand: agents at (0, 0) and (4, 3) seeking (10, 0) are 10
    /// and √45 = 6.7082 away; in space, (1, 2, 2) is 3 from the origin.
    #[test]
    fn target_distance_reads_each_agent_against_its_groups_target() {
        let text = "version = 1\nname = \"t\"\nseed = 1\ndt = 0.1\nticks = 1\n[bounds]\nmin = [-20, -20]\nmax = [20, 20]\n[targets.home]\nkind = \"point\"\nposition = [10, 0]\n[[groups]]\nname = \"g\"\ncount = 2\nspawn = { kind = \"points\", points = [[0, 0], [4, 3]] }\nmax_speed = 1.0\nmax_force = 1.0\nbehaviours = [{ kind = \"wander\" }, { kind = \"seek\", target = \"home\" }]\n";
        let world = Scenario::parse(text, "t.toml").expect("valid").build_world();
        let read = |s| read(&Metric::GroupTargetDistance(0, s), &world).expect("a value");
        assert_eq!(read(Stat::Max), 10.0);
        assert!((read(Stat::Min) - 45f64.sqrt()).abs() < 1e-6);
        assert!((read(Stat::Mean) - (10.0 + 45f64.sqrt()) / 2.0).abs() < 1e-6);
        assert_eq!(super::read(&Metric::GroupTargetDistance(1, Stat::Max), &world), None, "no such group");

        let space = text
            .replace("dt = 0.1", "dimensions = 3\ndt = 0.1")
            .replace("[-20, -20]", "[-20, -20, -20]")
            .replace("[20, 20]", "[20, 20, 20]")
            .replace("[10, 0]", "[0, 0, 0]")
            .replace("[[0, 0], [4, 3]]", "[[1, 2, 2], [1, 2, 2]]");
        let world = Scenario::<Vec3>::parse_as(&space, "s.toml").expect("valid").build_world();
        assert_eq!(read_in(&world), 3.0);
    }

    fn read_in(world: &World<Vec3>) -> f64 {
        read(&Metric::GroupTargetDistance(0, Stat::Mean), world).expect("a value")
    }
}
