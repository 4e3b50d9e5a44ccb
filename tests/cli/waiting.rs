//! Waiting areas (`[[waiting]]`) and `release` events, worked out by hand: an area holds the
//! agents arriving in it where they stand, releases them first come first served, and lets the
//! released pass; bad entries are rejected with their position.

use throng_engine::math::Vec2;

use super::events::{scene, sim, x};
use super::{BASE, check_rejects};

const HALL: &str = "\n[[waiting]]\nname = \"hall\"\nkind = \"rect\"\nmin = [6, 0]\nmax = [8, 10]\n";

#[test]
fn an_area_holds_the_walker_until_an_event_releases_it() {
    let s = scene(&format!("{HALL}\n[[events]]\nat_s = 20\naction = \"release\"\narea = \"hall\"\n"));
    let mut sim = sim(&s);
    sim.run(200).expect("runs");
    // It stopped at the first tick's end inside the area (x > 6, one step of at most 0.1 in).
    let held_at = x(&sim);
    assert!(held_at > 6.0 && held_at <= 6.1, "x = {held_at}");
    assert_eq!(sim.world().scene.waiting[0].held.len(), 1);
    assert_eq!(sim.world().agents.velocity[0], Vec2::ZERO);
    // Released at 20 s: it walks on through the area, which no longer takes it.
    sim.run(50).expect("runs");
    assert!(x(&sim) > 9.0, "x = {}", x(&sim));
    assert!(sim.world().scene.waiting[0].held.is_empty());
    assert_eq!(sim.world().scene.waiting[0].released, [0]);
}

#[test]
fn releases_take_the_first_arrivals_and_conditions_read_the_queue() {
    // 30 agents burst at x in [2, 4]; the area takes them as they arrive; every 2 s it lets
    // 5 go, first come first served; a condition stops the run once 12 are waiting.
    let s = scene(&format!(
        "{HALL}\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 30\nregion = {{ kind = \"rect\", min = [2, 1], max = [4, 9] }}\n\n[[events]]\nname = \"let five go\"\nevery_s = 2\nstart_s = 10\naction = \"release\"\narea = \"hall\"\ncount = 5\n"
    ));
    let mut sim = sim(&s);
    sim.run(100).expect("runs");
    let held = sim.world().scene.waiting[0].held.clone();
    assert_eq!(held.len(), 31, "everyone has arrived by 10 s");
    // Arrival order: ticks ascending, ids ascending within a tick.
    assert!(held.windows(2).all(|w| w[0] < w[1]), "{held:?}");
    sim.run(1).expect("runs");
    let w = sim.world();
    assert_eq!(w.scene.waiting[0].held.len(), 26);
    let first_five: Vec<u32> = held[..5].iter().map(|&(_, id)| id).collect();
    let mut released = first_five.clone();
    released.sort_unstable();
    assert_eq!(w.scene.waiting[0].released, released);
    // The released move again; the held stay still.
    for &id in &first_five {
        let row = w.agents.row_of(id).expect("alive");
        assert!(w.agents.velocity[row].length() > 0.0, "released agent {id} is still");
    }
    for &(_, id) in &held[5..] {
        assert_eq!(w.agents.velocity[w.agents.row_of(id).expect("alive")], Vec2::ZERO);
    }
    let stop = scene(&format!(
        "{HALL}\n[[events]]\nat_s = 0\naction = \"spawn\"\ngroup = \"walker\"\ncount = 30\nregion = {{ kind = \"rect\", min = [2, 1], max = [4, 9] }}\n\n[[events]]\nwhen = {{ metric = \"waiting.hall.count\", min = 12 }}\naction = \"stop\"\n"
    ));
    let mut sim = self::sim(&stop);
    sim.run(1000).expect("runs");
    assert!(sim.stopped());
    let n = sim.world().scene.waiting[0].held.len();
    assert!((12..=20).contains(&n), "stopped with {n} waiting");
}

#[test]
fn held_agents_that_leave_the_world_are_forgotten() {
    let s = scene(&format!(
        "{HALL}\n[[events]]\nat_s = 10\naction = \"remove\"\nregion = {{ kind = \"rect\", min = [5, 0], max = [9, 10] }}\n"
    ));
    let mut sim = sim(&s);
    sim.run(100).expect("runs");
    assert_eq!(sim.world().scene.waiting[0].held.len(), 1);
    sim.run(1).expect("runs");
    assert!(sim.world().agents.is_empty());
    assert!(sim.world().scene.waiting[0].held.is_empty());
}

#[test]
fn bad_waiting_entries_are_rejected() {
    check_rejects(
        "waiting_unknown_area",
        format!(
            "{BASE}\n[[waiting]]\nname = \"hall\"\nkind = \"circle\"\ncentre = [5, 5]\nradius = 2\n\n[[events]]\nat_s = 1\naction = \"release\"\narea = \"hal\"\n"
        ),
        (35, 8),
        &["`events[0].area`", "no waiting area is named \"hal\"; did you mean \"hall\"?"],
    );
    check_rejects(
        "waiting_unknown_group",
        format!(
            "{BASE}\n[[waiting]]\nname = \"hall\"\nkind = \"circle\"\ncentre = [5, 5]\nradius = 2\ngroups = [\"walker\"]\n"
        ),
        (31, 11),
        &["`waiting[0].groups[0]`", "no group is named \"walker\"; did you mean \"walkers\"?"],
    );
    check_rejects(
        "waiting_release_zero",
        format!(
            "{BASE}\n[[waiting]]\nname = \"hall\"\nkind = \"circle\"\ncentre = [5, 5]\nradius = 2\n\n[[events]]\nat_s = 1\naction = \"release\"\narea = \"hall\"\ncount = 0\n"
        ),
        (36, 9),
        &["`events[0].count`", "expected a whole number of agents from 1 to 20000000, found 0"],
    );
}
