//! The actions that change the population and the sources (`spawn`, `remove`, `open`/`close` of
//! a source) and the condition on one agent reaching a region, worked out by hand on small
//! scenes; and their bad entries rejected with their position.

use super::events::{scene, sim, x};
use super::{BASE, check_rejects};

/// A source of `rate` agents per second in the walker's group, starting closed when `closed`.
fn source(rate: u32, closed: bool) -> String {
    let open = if closed { "open = false\n" } else { "" };
    format!(
        "\n[[sources]]\nname = \"door\"\ngroup = \"walker\"\nkind = \"circle\"\ncentre = [2, 2]\nradius = 0.5\nrate = {rate}\nmax_agents = 1000\n{open}"
    )
}

#[test]
fn a_closed_source_pauses_and_owes_nothing_for_the_time_it_was_closed() {
    // 10 agents per second, closed from 1 s to 3 s: by 4 s it has run 2 s, so 20 agents.
    let s = scene(&format!(
        "{}\n[[events]]\nat_s = 1\naction = \"close\"\nsource = \"door\"\n\n[[events]]\nat_s = 3\naction = \"open\"\nsource = \"door\"\n",
        source(10, false)
    ));
    let mut sim = sim(&s);
    sim.run(10).expect("runs");
    assert_eq!(sim.world().scene.sources[0].spawned, 10, "one second open");
    sim.run(20).expect("runs");
    assert_eq!(sim.world().scene.sources[0].spawned, 10, "closed from 1 s to 3 s");
    assert_eq!(sim.world().scene.sources[0].closed_ticks, 20);
    sim.run(10).expect("runs");
    assert_eq!(sim.world().scene.sources[0].spawned, 20, "open again, without catching up");
    // A source that starts closed spawns nothing until an event opens it.
    let s =
        scene(&format!("{}\n[[events]]\nat_s = 2\naction = \"open\"\nsource = \"door\"\n", source(10, true)));
    let mut sim = self::sim(&s);
    sim.run(20).expect("runs");
    assert_eq!(sim.world().agents.len(), 1, "only the walker");
    sim.run(10).expect("runs");
    assert_eq!(sim.world().scene.sources[0].spawned, 10);
}

#[test]
fn a_burst_adds_its_count_inside_its_region_with_draws_of_its_own() {
    let s = scene(
        "\n[[events]]\nname = \"crowd\"\nevery_s = 1\nend_s = 1\naction = \"spawn\"\ngroup = \"walker\"\ncount = 50\nregion = { kind = \"rect\", min = [10, 1], max = [12, 3] }\n",
    );
    let mut sim = sim(&s);
    sim.run(1).expect("runs");
    let w = sim.world();
    assert_eq!(w.agents.len(), 51);
    assert_eq!(w.next_id, 51, "the next ids");
    // Placed before the tick's first pass, so after one tick of at most 1 unit/s (0.1 unit)
    // each is within 0.1 of the region.
    let burst = w.agents.position.iter().zip(&w.agents.id).filter(|(_, id)| **id > 0);
    for (p, _) in burst {
        assert!(p.x > 9.89 && p.x < 12.11 && p.y > 0.89 && p.y < 3.11, "outside the region: {p}");
    }
    // The second firing (at 1 s) draws other positions than the first.
    let first = w.agents.position[w.agents.row_of(1).expect("agent 1")];
    let mut again = self::sim(&s);
    again.run(11).expect("runs");
    assert_eq!(again.world().agents.len(), 101);
    let second = again.world().agents.row_of(51).expect("agent 51");
    assert!((again.world().agents.position[second] - first).length() > 1e-3, "the same draws twice");
}

#[test]
fn remove_takes_the_agents_inside_its_region_and_counts_them() {
    // 50 agents burst into [10, 12] x [1, 3] at 0 s; at 1 s the left half of it is cleared.
    let s = scene(
        "\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 50\nregion = { kind = \"rect\", min = [10, 1], max = [12, 3] }\n\n[[events]]\nat_s = 1\naction = \"remove\"\nregion = { kind = \"rect\", min = [9, 0], max = [11, 4] }\n\n[[events]]\nwhen = { metric = \"agents_removed\", min = 1 }\naction = \"stop\"\n",
    );
    let mut sim = sim(&s);
    sim.run(10).expect("runs");
    let inside =
        sim.world().agents.position.iter().filter(|p| p.x >= 9.0 && p.x <= 11.0 && p.y <= 4.0).count();
    assert!(inside > 5 && inside < 45, "about half should be in the cleared part: {inside}");
    let before = sim.world().agents.len();
    sim.run(100).expect("runs");
    let w = sim.world();
    assert_eq!(w.removed as usize, inside);
    assert_eq!(w.agents.len(), before - inside);
    assert_eq!(w.exited, 0, "removal is not an exit");
    // The stop, after the removal in file order, sees it at once: the run ends before tick 10.
    assert_eq!(sim.tick(), 10);
}

#[test]
fn an_agents_condition_fires_when_it_reaches_the_region() {
    // The walker (x = 2 at 1 unit/s) reaches x >= 8 after about 6 s.
    let s = scene(
        "\n[[events]]\nwhen = { agent = 0, region = { kind = \"rect\", min = [8, 0], max = [30, 10] } }\naction = \"stop\"\n",
    );
    let mut sim = sim(&s);
    sim.run(1000).expect("runs");
    assert!(sim.stopped());
    assert!(x(&sim) >= 8.0 && x(&sim) < 8.11, "x = {}", x(&sim));
}

#[test]
fn bad_actions_are_rejected() {
    let with = |entry: &str| format!("{BASE}\n[[events]]\n{entry}\n");
    check_rejects(
        "event_unknown_source",
        with("at_s = 1\naction = \"open\"\nsource = \"gate\""),
        (29, 10),
        &["`events[0].source`", "no source is named \"gate\" (sources: none are defined)"],
    );
    check_rejects(
        "event_burst_without_count",
        with(
            "at_s = 1\naction = \"spawn\"\ngroup = \"walkers\"\nregion = { kind = \"circle\", centre = [1, 1], radius = 1 }",
        ),
        (26, 1),
        &["`events[0]`", "missing key `count` for a \"spawn\" event"],
    );
    check_rejects(
        "event_burst_too_large",
        with(
            "every_s = 0.1\naction = \"spawn\"\ngroup = \"walkers\"\ncount = 3000000\nregion = { kind = \"circle\", centre = [1, 1], radius = 1 }",
        ),
        (30, 9),
        &["`events[0].count`", "up to 30000006 agents with this burst (it may fire 10 times)"],
    );
    check_rejects(
        "event_burst_negative_min_distance",
        with(
            "at_s = 1\naction = \"spawn\"\ngroup = \"walkers\"\ncount = 5\nregion = { kind = \"circle\", centre = [1, 1], radius = 1 }\nmin_distance = -1",
        ),
        (32, 16),
        &["`events[0].min_distance`", "expected a finite number >= 0", "found -1"],
    );
    check_rejects(
        "event_stop_with_min_distance",
        with("at_s = 1\naction = \"stop\"\nmin_distance = 0.5"),
        (29, 16),
        &["`events[0].min_distance`", "`min_distance` is not a parameter of a \"stop\" event"],
    );
    check_rejects(
        "event_remove_with_target",
        with(
            "at_s = 1\naction = \"remove\"\ntarget = \"home\"\nregion = { kind = \"circle\", centre = [1, 1], radius = 1 }",
        ),
        (29, 10),
        &["`events[0].target`", "`target` is not a parameter of a \"remove\" event (it takes: group, region"],
    );
    check_rejects(
        "on_closed_unknown_door",
        BASE.replace(
            "max_force = 1.0\n",
            "max_force = 1.0\non_closed = [{ door = \"east\", target = \"home\" }]\n",
        ),
        (21, 23),
        &["`groups[0].on_closed[0].door`", "no door is named \"east\" (doors: none are defined)"],
    );
    check_rejects(
        "regroup_into_itself",
        with("at_s = 1\naction = \"regroup\"\ngroup = \"walkers\"\ninto = \"walkers\""),
        (30, 8),
        &["`events[0].into`", "`into` names the group the agents are already in"],
    );
    check_rejects(
        "event_agent_unknown",
        with(
            "when = { agent = 5000, region = { kind = \"circle\", centre = [1, 1], radius = 1 } }\naction = \"stop\"",
        ),
        (27, 18),
        &["`events[0].when.agent`", "no agent has id 5000"],
    );
}

#[test]
fn on_closed_diverts_the_group_while_its_door_is_closed() {
    // The door at x = 5 starts open; closed at 1 s, opened at 3 s. While it is closed the
    // walker (seeking "right") goes "left" instead.
    let door = "obstacles = [{ name = \"door\", open = true, kind = \"rect\", min = [5, 0], max = [6, 10] }]";
    let diverted = |top: &str, extra: &str| {
        let text = super::events::scene_text(top, extra).replace(
            "max_force = 10.0\n",
            "max_force = 10.0\non_closed = [{ door = \"door\", target = \"left\" }]\n",
        );
        throng_engine::Scenario::parse(&text, "one.toml").expect("a valid scene")
    };
    let s = diverted(
        door,
        "\n[[events]]\nat_s = 1\naction = \"close\"\ndoor = \"door\"\n\n[[events]]\nat_s = 3\naction = \"open\"\ndoor = \"door\"\n",
    );
    let mut sim = sim(&s);
    sim.run(10).expect("runs");
    let at_1s = x(&sim);
    assert!(at_1s > 2.0, "going right first: x = {at_1s}");
    sim.run(20).expect("runs");
    assert!(x(&sim) < at_1s, "diverted left while closed: {at_1s} then {}", x(&sim));
    assert_eq!(sim.world().groups[0].behaviours[0].behaviour.target(), Some(0), "\"left\"");
    sim.run(40).expect("runs");
    assert_eq!(sim.world().groups[0].behaviours[0].behaviour.target(), Some(1), "back to \"right\"");
    assert!(sim.world().scene.diversions[0].saved.is_none());
    // A door closed from the start diverts from the start.
    let s = diverted(&door.replace("open = true, ", ""), "");
    let sim = self::sim(&s);
    assert_eq!(sim.world().groups[0].behaviours[0].behaviour.target(), Some(0), "\"left\" from the start");
}

#[test]
fn regroup_moves_the_agents_inside_its_region_into_another_group() {
    // 40 agents burst at x in [2, 4]; at 0.5 s those with y <= 5 (the walker too) join "turned", which seeks
    // "left" (a group events fill may have no agents at tick 0).
    let s = scene(
        "\n[[groups]]\nname = \"turned\"\ncount = 0\nspawn = { kind = \"rect\", min = [0, 0], max = [1, 1] }\nmax_speed = 1.0\nmax_force = 10.0\n\n[[groups.behaviours]]\nkind = \"seek\"\ntarget = \"left\"\n\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 40\nregion = { kind = \"rect\", min = [2, 1], max = [4, 9] }\n\n[[events]]\nat_s = 0.5\naction = \"regroup\"\ngroup = \"walker\"\ninto = \"turned\"\nregion = { kind = \"rect\", min = [0, 0], max = [30, 5] }\n",
    );
    let mut sim = sim(&s);
    sim.run(5).expect("runs");
    let below: Vec<u32> = {
        let a = &sim.world().agents;
        a.id.iter().zip(&a.position).filter(|(_, p)| p.y <= 5.0).map(|(id, _)| *id).collect()
    };
    sim.run(20).expect("runs");
    let a = &sim.world().agents;
    for row in 0..a.len() {
        let turned = below.contains(&a.id[row]);
        assert_eq!(a.group[row], turned as u16, "agent {} at {}", a.id[row], a.position[row]);
        if turned {
            assert!(a.velocity[row].x < 0.0, "a turned agent goes left");
        }
    }
    assert!(below.len() > 5 && below.len() < 35, "{}", below.len());
}

#[test]
fn conditions_read_a_measurement_areas_count_and_density() {
    // 40 agents burst into a 2 x 8 area (density 2.5 per unit²); they walk out east. A
    // density condition fires at once; a count condition when half have left.
    let area = "\n[[measure]]\nname = \"start\"\nkind = \"rect\"\nmin = [2, 1]\nmax = [4, 9]\n";
    let burst = "\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 40\nregion = { kind = \"rect\", min = [2, 1], max = [4, 9] }\n";
    let s = scene(&format!(
        "{area}{burst}\n[[events]]\nname = \"dense\"\nwhen = {{ metric = \"measures.start.density\", min = 2.5 }}\naction = \"move_target\"\ntarget = \"left\"\nto = [1, 1]\n\n[[events]]\nwhen = {{ metric = \"measures.start.count\", max = 20 }}\naction = \"stop\"\n"
    ));
    let mut sim = sim(&s);
    sim.run(1000).expect("runs");
    let w = sim.world();
    // The burst applied first, so the density held (40 / 16) before tick 0 ran.
    assert_eq!(w.events[1].first_tick, Some(0));
    assert!(sim.stopped() && sim.tick() > 5);
    let inside =
        w.agents.position.iter().filter(|p| (2.0..=4.0).contains(&p.x) && (1.0..=9.0).contains(&p.y)).count();
    assert!(inside <= 20, "{inside} inside when it stopped");
}
