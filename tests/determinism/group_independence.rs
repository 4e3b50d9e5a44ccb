//! Determinism hygiene: adding a group to a scenario does not change the random draws of
//! another group's agents, whether the new group is declared after the old one or before it
//! (which shifts every agent id). The groups cannot interact: they only wander.

use throng_engine::{IndexKind, Pipeline, Scenario, World};

/// A group that only wanders, with per-agent parameters drawn from ranges.
fn group(name: &str, count: u32, spawn: &str) -> String {
    format!(
        r#"
[[groups]]
name = "{name}"
count = {count}
spawn = {spawn}
max_speed = {{ min = 1.0, max = 2.0 }}
max_force = {{ min = 0.5, max = 1.5 }}
initial_speed = {{ min = 0.5, max = 1.0 }}

[[groups.behaviours]]
kind = "wander"
radius = 1.0
distance = 2.0
jitter = 3.0
"#
    )
}

fn scenario(groups: &[String]) -> Scenario {
    let text = format!(
        "version = 1\nname = \"independence\"\nseed = 42\ndt = 0.1\nticks = 10\n\n[bounds]\nkind = \"wrap\"\nmin = [0, 0]\nmax = [100, 100]\n{}",
        groups.concat()
    );
    Scenario::parse(&text, "independence.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// Every state column of the rows of group `name`, as bit patterns, in id order (row order is
/// the pipeline's business: a shared pipeline may have reordered one world and not another).
fn rows_of(world: &World, name: &str) -> Vec<Vec<u64>> {
    let g = world.groups.iter().position(|g| g.name == name).expect("the group") as u16;
    let a = &world.agents;
    let mut rows: Vec<usize> = (0..a.len()).collect();
    rows.sort_unstable_by_key(|&i| a.id[i]);
    rows.into_iter()
        .filter(|&i| a.group[i] == g)
        .map(|i| {
            let b = |v: f32| v.to_bits() as u64;
            vec![
                b(a.position[i].x),
                b(a.position[i].y),
                b(a.velocity[i].x),
                b(a.velocity[i].y),
                b(a.max_speed[i]),
                b(a.max_force[i]),
                b(a.mass[i]),
                b(a.radius[i]),
                b(a.wander[i].x),
                b(a.wander[i].y),
                throng_engine::rng::fingerprint(&a.rng[i]),
            ]
        })
        .collect()
}

#[test]
fn adding_a_group_never_changes_another_groups_draws() {
    let walkers = group("walkers", 20, r#"{ kind = "rect", min = [0, 0], max = [40, 40] }"#);
    let others = group("others", 15, r#"{ kind = "circle", centre = [70, 70], radius = 20 }"#);
    let alone = scenario(std::slice::from_ref(&walkers));
    let after = scenario(&[walkers.clone(), others.clone()]);
    let before = scenario(&[others, walkers]);
    let mut worlds: Vec<World> = [&alone, &after, &before].iter().map(|s| s.build_world()).collect();
    // Declared first, the new group takes ids 0-14: the walkers' ids move, their draws must not.
    assert_eq!(worlds[2].agents.id.len(), 35);
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    for tick in 0..=15 {
        let want = rows_of(&worlds[0], "walkers");
        assert_eq!(want.len(), 20);
        assert_eq!(rows_of(&worlds[1], "walkers"), want, "declared after: tick {tick}");
        assert_eq!(rows_of(&worlds[2], "walkers"), want, "declared before: tick {tick}");
        for w in &mut worlds {
            pipeline.step(w).expect("finite");
        }
    }
    // The test could fail: the walkers did move and draw.
    assert_ne!(rows_of(&worlds[0], "walkers"), rows_of(&alone.build_world(), "walkers"));
}
