//! Flocking: the flock polarises with alignment.

use throng_engine::metrics::MetricsCollector;
use throng_engine::{IndexKind, Pipeline};

use super::{shipped, step};

#[test]
fn flock_polarises_with_alignment() {
    // Measured on flock.toml: polarisation 0.037 after the first tick, >= 0.9 from tick 360 to
    // 432 (0.914 at tick 380, 0.929 at 410), before the beacon's first corner at 40 s turns the
    // flock.
    let scenario = shipped("flock");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).unwrap();
    let mut metrics = MetricsCollector::new(scenario.metrics, &world);
    let first = step(&mut world, &mut pipeline, &mut metrics).polarisation;
    assert!(first < 0.1, "the flock starts polarised: {first}");
    let mut lowest = f64::MAX;
    while world.tick < 410 {
        let m = step(&mut world, &mut pipeline, &mut metrics);
        if m.tick >= 380 {
            assert!(m.polarisation >= 0.9, "polarisation {} at tick {}", m.polarisation, m.tick);
            lowest = lowest.min(m.polarisation);
        }
    }
    eprintln!("flock: polarisation {first} at tick 1, lowest {lowest} over ticks 380-410");
}
