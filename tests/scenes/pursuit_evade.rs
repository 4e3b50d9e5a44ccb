//! Pursuit and evade: a faster pursuer catches the evader, a slower one falls behind.

use throng_engine::{IndexKind, Pipeline};

use super::parse;

/// One hunter pursuing one evading prey 20.6 units away, both starting at rest.
fn chase(hunter_speed: f32, prey_speed: f32) -> (Option<u64>, f32, f32) {
    let text = format!(
        r#"version = 1
name = "chase"
seed = 1
dt = 0.1
ticks = 600
[bounds]
min = [-500, -500]
max = [500, 500]
[targets.prey]
kind = "agent"
agent = 1
[targets.hunter]
kind = "agent"
agent = 0
[[groups]]
name = "hunter"
count = 1
spawn = {{ kind = "points", points = [[0, 0]] }}
max_speed = {hunter_speed}
max_force = 3.0
radius = 0.6
[[groups.behaviours]]
kind = "pursuit"
target = "prey"
[[groups]]
name = "prey"
count = 1
spawn = {{ kind = "points", points = [[20, 5]] }}
max_speed = {prey_speed}
max_force = 3.0
radius = 0.4
[[groups.behaviours]]
kind = "evade"
target = "hunter"
"#
    );
    let scenario = parse(&text, "chase");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(1, IndexKind::Kd).unwrap();
    let start = world.agents.position[1];
    let mut caught = None;
    for _ in 0..600 {
        pipeline.step(&mut world).unwrap();
        // Caught: the bodies touch (radii 0.6 + 0.4).
        if (world.agents.position[1] - world.agents.position[0]).length() < 1.0 {
            caught = Some(world.tick);
            break;
        }
    }
    let gap = (world.agents.position[1] - world.agents.position[0]).length();
    (caught, gap, (world.agents.position[1] - start).length())
}

#[test]
fn faster_pursuer_catches_the_evader() {
    // Measured: caught at tick 211 (21.1 s) after the prey ran 85 units.
    let (caught, _, fled) = chase(5.0, 4.0);
    eprintln!("chase: caught at {caught:?}, prey ran {fled}");
    let caught = caught.expect("the faster hunter never caught the prey in 60 s");
    assert!(caught <= 250, "caught only at tick {caught}");
    assert!(fled > 60.0, "the prey did not run away: it moved {fled}");
    // Control: a slower hunter never catches it, and falls behind.
    let (caught, gap, _) = chase(4.0, 5.0);
    eprintln!("chase (slower hunter): caught {caught:?}, gap after 60 s {gap}");
    assert_eq!(caught, None);
    assert!(gap > 30.0, "gap {gap}");
}
