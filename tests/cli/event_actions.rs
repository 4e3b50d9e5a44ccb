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
    assert_eq!(sim.world().sources[0].spawned, 10, "one second open");
    sim.run(20).expect("runs");
    assert_eq!(sim.world().sources[0].spawned, 10, "closed from 1 s to 3 s");
    assert_eq!(sim.world().sources[0].closed_ticks, 20);
    sim.run(10).expect("runs");
    assert_eq!(sim.world().sources[0].spawned, 20, "open again, without catching up");
    // A source that starts closed spawns nothing until an event opens it.
    let s =
        scene(&format!("{}\n[[events]]\nat_s = 2\naction = \"open\"\nsource = \"door\"\n", source(10, true)));
    let mut sim = self::sim(&s);
    sim.run(20).expect("runs");
    assert_eq!(sim.world().agents.len(), 1, "only the walker");
    sim.run(10).expect("runs");
    assert_eq!(sim.world().sources[0].spawned, 10);
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
        "event_remove_with_target",
        with(
            "at_s = 1\naction = \"remove\"\ntarget = \"home\"\nregion = { kind = \"circle\", centre = [1, 1], radius = 1 }",
        ),
        (29, 10),
        &["`events[0].target`", "`target` is not a parameter of a \"remove\" event (it takes: group, region"],
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
