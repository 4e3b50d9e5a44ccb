//! Two pedestrians meeting in a doorway.

use throng_engine::{RunSettings, Scenario, Simulation};

use crate::common::root;

#[test]
fn two_pedestrians_in_a_doorway_pass_instead_of_flipping_direction_every_tick() {
    // Regression: in the SteerBench two-way doorway under CFSM the two met on the door's axis
    // and, from about 9 s, each reversed at full speed every tick for ever. The routing
    // field's direction jumped across the line of cell centres the eastbound walker stood on
    // (the slope of the bilinearly interpolated distance changes there), and with the
    // neighbour's push nearly cancelling the goal's pull, each step crossed the line and
    // turned the walker round. JuPedSim's CFSM gets both out at 12.0 and 13.9 s; with the
    // direction blended continuously throng's leave at 12.36 and 13.90 s.
    let path = root().join("scenarios/verification/steerbench_doorway_two_way.toml");
    let text =
        std::fs::read_to_string(&path).expect("the case").replace("model = \"orca\"", "model = \"cfsm\"");
    let scenario = Scenario::parse(&text, "doorway.toml").expect("valid");
    let mut sim =
        Simulation::new(&scenario, RunSettings { threads: 2, ..RunSettings::default() }).expect("sim");
    let mut last: Vec<(u32, throng_engine::math::Vec2)> = Vec::new();
    let mut reversals = 0;
    while !sim.world().agents.id.is_empty() && sim.world().tick < 1500 {
        sim.step().expect("a tick");
        let a = &sim.world().agents;
        for (id, v) in a.id.iter().zip(&a.velocity) {
            if let Some((_, before)) = last.iter().find(|(i, _)| i == id)
                && v.length_squared() > 0.5
                && v.dot(*before) < -0.5 * v.length_squared()
            {
                reversals += 1;
            }
        }
        last = a.id.iter().copied().zip(a.velocity.iter().copied()).collect();
    }
    assert_eq!(reversals, 0, "no walker turns round at speed from one tick to the next");
    let out_s = sim.world().tick as f32 * sim.world().dt;
    assert!(sim.world().agents.id.is_empty(), "both are out within 30 s");
    assert!((13.0..15.0).contains(&out_s), "the second leaves at {out_s} s (JuPedSim: 13.9 s)");
}
