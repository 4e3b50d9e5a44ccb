//! `set` events: a group's per-agent parameters redrawn for its live agents, its behaviours'
//! parameters changed without undoing what earlier events changed, a new path; and bad keys
//! rejected at the event's key.

use throng_engine::{RunSettings, Simulation};

use super::events::{scene, sim, x};
use super::{BASE, check_rejects};

fn event(at_s: f64, set: &str) -> String {
    format!("\n[[events]]\nat_s = {at_s}\naction = \"set\"\nset = {{ {set} }}\n")
}

#[test]
fn max_speed_set_to_a_value_slows_the_walker_and_later_spawns() {
    let s = scene(&event(2.0, "\"groups.walker.max_speed\" = 0.25"));
    let mut sim = sim(&s);
    sim.run(20).expect("runs");
    let at_2s = x(&sim);
    sim.run(40).expect("runs");
    let w = sim.world();
    assert_eq!(w.agents.max_speed[0], 0.25);
    assert_eq!(w.groups[0].params.max_speed, throng_engine::world::Param::Value(0.25));
    // 4 s at most 0.25 units/s (the first tick truncates the faster velocity).
    assert!(x(&sim) - at_2s <= 1.0 + 1e-4, "moved {} in 4 s", x(&sim) - at_2s);
}

#[test]
fn a_range_is_redrawn_per_agent_from_its_own_generator() {
    // 40 agents burst at 0 s; at 1 s their max_speed becomes a range: each draws its own,
    // the same at any thread count.
    let burst = "\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 40\nregion = { kind = \"rect\", min = [2, 1], max = [4, 9] }\n";
    let s = scene(&format!("{burst}{}", event(1.0, "groups.walker.max_speed = { min = 0.5, max = 0.9 }")));
    let speeds = |threads: usize| {
        let mut sim = Simulation::new(&s, RunSettings { threads, ..RunSettings::default() }).expect("sim");
        sim.run(11).expect("runs");
        let w = sim.world().id_ordered().into_owned();
        w.agents.max_speed.clone()
    };
    let one = speeds(1);
    assert_eq!(one.len(), 41);
    assert!(one.iter().all(|v| (0.5..0.9).contains(v)), "{one:?}");
    let distinct = one.iter().map(|v| v.to_bits()).collect::<std::collections::BTreeSet<_>>().len();
    assert!(distinct > 35, "only {distinct} distinct draws");
    assert_eq!(speeds(4), one);
}

#[test]
fn a_behaviour_parameter_changes_and_an_earlier_retarget_stays() {
    // At 1 s the seek turns to "left"; at 2 s its weight becomes 0: the walker stops steering
    // (it keeps its velocity, towards the left), and the target stays "left".
    let s = scene(&format!(
        "\n[[events]]\nat_s = 1\naction = \"retarget\"\ngroup = \"walker\"\nbehaviour = \"seek\"\ntarget = \"left\"\n{}",
        event(2.0, "\"groups.walker.behaviours.seek.weight\" = 0")
    ));
    let mut sim = sim(&s);
    sim.run(21).expect("runs");
    let w = sim.world();
    assert_eq!(w.groups[0].behaviours[0].weight, 0.0);
    assert_eq!(w.groups[0].behaviours[0].behaviour.target(), Some(0), "\"left\" (targets in name order)");
    let v = w.agents.velocity[0];
    sim.run(10).expect("runs");
    assert_eq!(sim.world().agents.velocity[0], v, "no steering: the velocity stays");
}

#[test]
fn a_new_path_sends_followers_to_its_nearest_node() {
    let text = format!(
        "{}\n[paths.east]\nnodes = [[20, 2], [20, 8]]\nradius = 0.5\n\n[paths.west]\nnodes = [[1, 9], [1, 1], [3, 5]]\nradius = 0.5\n",
        BASE.replace(
            "kind = \"seek\"\ntarget = \"home\"",
            "kind = \"follow_path\"\npath = \"east\"\nmode = \"patrol\""
        )
    ) + &event(0.5, "\"groups.walkers.behaviours.follow_path.path\" = \"west\"");
    let s = throng_engine::Scenario::parse(&text, "paths.toml").expect("valid");
    let mut sim = sim(&s);
    sim.run(6).expect("runs");
    let w = sim.world();
    for row in 0..w.agents.len() {
        let p = w.agents.position[row];
        let nodes = [(1.0f32, 9.0f32), (1.0, 1.0), (3.0, 5.0)];
        let d = |n: &(f32, f32)| (p.x - n.0).powi(2) + (p.y - n.1).powi(2);
        let nearest = (0..3).min_by(|&a, &b| d(&nodes[a]).total_cmp(&d(&nodes[b]))).unwrap_or(0);
        // Chosen at 0.5 s from where the agent stood then; one tick later it is still nearest
        // unless it reached it (then the cursor moved on).
        let node = w.agents.path_node[row] as usize;
        assert!(
            node == nearest || node == (nearest + 1) % 3,
            "row {row} at {p}: node {node}, nearest {nearest}"
        );
    }
}

#[test]
fn bad_set_keys_are_rejected_at_the_events_key() {
    let with = |set: &str| format!("{BASE}\n[[events]]\nat_s = 1\naction = \"set\"\nset = {{ {set} }}\n");
    check_rejects(
        "set_count",
        with("\"groups.walkers.count\" = 3"),
        (29, 34),
        &[
            "`events[0].set.groups.walkers.count`",
            "`groups.walkers.count` cannot be changed by an event (it can set: max_speed",
        ],
    );
    check_rejects(
        "set_unknown_group",
        with("\"groups.walker.max_speed\" = 3"),
        (29, 37),
        &["no group is named \"walker\"; did you mean \"walkers\"?"],
    );
    check_rejects(
        "set_negative_speed",
        with("\"groups.walkers.max_speed\" = -1"),
        (29, 38),
        &["`events[0].set.groups.walkers.max_speed`", "found -1"],
    );
    check_rejects(
        "set_behaviour_range",
        with("\"groups.walkers.behaviours.seek.target\" = \"nowhere\""),
        (29, 51),
        &["`events[0].set.groups.walkers.behaviours.seek.target`", "no target is named \"nowhere\""],
    );
    check_rejects(
        "set_unknown_behaviour_key",
        with("\"groups.walkers.behaviours.seek.radius\" = 2"),
        (29, 51),
        &["`events[0].set.groups.walkers.behaviours.seek.radius`", "`radius` is not a parameter of `seek`"],
    );
    check_rejects("set_nothing", with(""), (29, 7), &["`events[0].set`", "expected at least one key to set"]);
}
