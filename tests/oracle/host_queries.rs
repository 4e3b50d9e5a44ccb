//! The host's lookups against a scan of every agent: `row_of` finds every live id whatever the
//! row order, and `query_radius` and `neighbours_of` give exactly the agents a scan finds
//! (across the edges of a wrapped world, each agent once), nearest first, ties by id, capped as
//! the group says.

use throng_engine::math::Vec2;
use throng_engine::{IndexKind, RunSettings, Scenario, Simulation};

/// Every id within `radius` of `p` by a scan, nearest first, ties by id.
fn scan(sim: &Simulation, p: Vec2, radius: f32, skip: Option<u32>) -> Vec<u32> {
    let w = sim.world();
    let mut hits: Vec<(f32, u32)> = (0..w.agents.len())
        .map(|r| (w.bounds.offset(p, w.agents.position[r]).length_squared(), w.agents.id[r]))
        .filter(|&(d, id)| d <= radius * radius && Some(id) != skip)
        .collect();
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    hits.into_iter().map(|(_, id)| id).collect()
}

/// The wrapped flock after some ticks with rows reordered every 3 ticks, and some removed.
fn flock(index: IndexKind) -> Simulation {
    let scenario = Scenario::load(&crate::common::root().join("scenarios/flock.toml")).expect("flock");
    let settings = RunSettings { index: Some(index), reorder_every: 3, ..RunSettings::embedded(2) };
    let mut sim = Simulation::new(&scenario, settings).expect("a simulation");
    sim.run(10).expect("finite");
    let gone: Vec<u32> = (0..60).map(|k| k * 17).collect();
    sim.despawn_all(&gone).expect("alive");
    sim.run(1).expect("finite");
    sim
}

#[test]
fn row_of_finds_every_live_agent_whatever_the_row_order() {
    let sim = flock(IndexKind::Kd);
    let a = &sim.world().agents;
    assert!(!a.is_id_ordered(), "the rows were reordered spatially");
    for id in 0..sim.world().next_id + 5 {
        let scanned = a.id.iter().position(|&x| x == id);
        assert_eq!(sim.row_of(id), scanned, "agent {id}");
    }
}

#[test]
fn query_radius_is_a_scan_of_every_agent_across_the_wrapped_edges() {
    for index in [IndexKind::Kd, IndexKind::Grid] {
        let sim = flock(index);
        let points =
            [Vec2::new(60.0, 60.0), Vec2::new(0.5, 119.5), Vec2::new(119.0, 3.0), Vec2::new(30.0, 0.0)];
        for p in points {
            for radius in [0.0, 1.5, 6.0, 25.0] {
                let got = sim.query_radius(p, radius).expect("a valid query");
                assert_eq!(got, scan(&sim, p, radius, None), "{index:?}, {p}, radius {radius}");
            }
        }
        let all = sim.query_radius(Vec2::new(60.0, 60.0), 200.0).expect("a valid query");
        assert_eq!(all.len(), sim.world().agents.len(), "a radius past the world finds everyone");
    }
}

#[test]
fn neighbours_of_are_the_groups_sensing_radius_nearest_first_capped() {
    let sim = flock(IndexKind::Grid);
    let w = sim.world();
    let mut some = 0;
    for row in (0..w.agents.len()).step_by(37) {
        let (id, p) = (w.agents.id[row], w.agents.position[row]);
        let group = &w.groups[w.agents.group[row] as usize];
        let mut want = scan(&sim, p, group.sensing_radius, Some(id));
        some += usize::from(!want.is_empty());
        want.truncate(group.max_neighbours as usize);
        assert_eq!(sim.neighbours_of(id).expect("alive"), want, "agent {id}");
    }
    assert!(some > 0, "some agents have neighbours");
}
