//! The metrics' `overlap_pairs`, which asks a grid for candidates, against every pair tested.

use throng_engine::{IndexKind, World};

/// Pairs closer than the sum of their radii, by testing every pair: the oracle for the
/// metrics' `overlap_pairs` (which asks a grid for candidates). Each pair once, from the lower
/// id, with the world's own offset.
fn overlap_pairs_by_all_pairs(world: &World) -> u64 {
    let a = &world.agents;
    let mut count = 0;
    for i in 0..a.len() {
        for j in 0..a.len() {
            if a.id[j] > a.id[i] {
                let reach = a.radius[i] + a.radius[j];
                if world.bounds.offset(a.position[i], a.position[j]).length_squared() < reach * reach {
                    count += 1;
                }
            }
        }
    }
    count
}

/// The metrics count the same overlapping pairs as all pairs tested, tick after tick: in the
/// crowded doorway and the evacuation scaled to 2,000 (open worlds), the flock (a torus) and
/// the standard crowd scaled to 2,000 on a torus, rows reordered every tick (so rows are not
/// ids).
#[test]
fn metrics_overlap_pairs_equal_an_all_pairs_count() {
    use throng_engine::Pipeline;
    use throng_engine::metrics::MetricsCollector;

    let load = |file: &str, agents: Option<u64>| {
        let scenario = crate::common::load(&crate::common::root().join(file));
        agents.map_or(scenario.clone(), |n| scenario.scaled(n).expect("scaled"))
    };
    let scenarios = [
        load("scenarios/doorway.toml", None),
        load("scenarios/evacuation.toml", Some(2_000)),
        load("scenarios/flock.toml", None),
        load("scenarios/bench/crowd.toml", Some(2_000)),
    ];
    for scenario in scenarios {
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
        pipeline.set_reorder_every(1);
        let mut metrics = MetricsCollector::new(scenario.metrics, &world);
        let mut overlapping_ticks = 0;
        for _ in 0..30 {
            pipeline.step(&mut world).expect("finite");
            let got = metrics.observe(&world, pipeline.events(), pipeline.obstacle_index()).overlap_pairs;
            let want = overlap_pairs_by_all_pairs(&world);
            assert_eq!(got, want, "{} at tick {}", scenario.name, world.tick);
            overlapping_ticks += usize::from(want > 0);
        }
        // Otherwise the comparison would prove nothing.
        assert!(overlapping_ticks > 0, "{}: no overlapping pair in 30 ticks", scenario.name);
    }
}
