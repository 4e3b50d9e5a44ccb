//! The per-tick crowd metrics many expectations rely on, against values worked by hand:
//! `mean_speed` (the mean |v| over live agents, standing ones included) and `polarisation`
//! (|Σ v/|v|| over the moving agents, divided by their number).

use throng_engine::Scenario;
use throng_engine::TickEvents;
use throng_engine::math::Vec2;
use throng_engine::metrics::MetricsCollector;
use throng_engine::scenario::MetricsConfig;

const THREE: &str = "version = 1\nname = \"m\"\nseed = 1\ndt = 0.1\nticks = 1\n[bounds]\nmin = [0, 0]\nmax = [10, 10]\n[[groups]]\nname = \"g\"\nspawn = { kind = \"points\", points = [[1, 1], [5, 5], [9, 9]] }\nmax_speed = 10\nmax_force = 1\n";

/// The metrics of a world whose three agents move at `velocities`.
fn metrics_of(velocities: [Vec2; 3]) -> (f64, f64) {
    let mut world = Scenario::parse(THREE, "m.toml").expect("valid").build_world();
    world.agents.velocity.copy_from_slice(&velocities);
    let mut metrics = MetricsCollector::new(MetricsConfig::default(), &world);
    let m = metrics.observe(&world, &TickEvents::default(), None);
    (m.mean_speed, m.polarisation)
}

#[test]
fn mean_speed_counts_every_live_agent_and_polarisation_only_the_moving_ones() {
    // Speeds 3, 4 and 0: mean 7/3. Headings (1, 0) and (0, 1) (the third stands): |(1, 1)| / 2.
    let (mean, polar) = metrics_of([Vec2::new(3.0, 0.0), Vec2::new(0.0, 4.0), Vec2::ZERO]);
    assert!((mean - 7.0 / 3.0).abs() < 1e-12, "{mean}");
    assert!((polar - std::f64::consts::SQRT_2 / 2.0).abs() < 1e-7, "{polar}");
    // All one way at different speeds: fully polarised.
    let (_, polar) = metrics_of([Vec2::new(1.0, 0.0), Vec2::new(5.0, 0.0), Vec2::new(0.5, 0.0)]);
    assert_eq!(polar, 1.0);
    // Two opposite, one across: |(0, 1)| / 3.
    let (mean, polar) = metrics_of([Vec2::new(2.0, 0.0), Vec2::new(-2.0, 0.0), Vec2::new(0.0, 2.0)]);
    assert!((mean - 2.0).abs() < 1e-12 && (polar - 1.0 / 3.0).abs() < 1e-7, "{mean} {polar}");
    // Nobody moving: 0 and 0.
    assert_eq!(metrics_of([Vec2::ZERO; 3]), (0.0, 0.0));
}
