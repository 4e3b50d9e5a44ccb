//! Spawns that keep their agents apart (`min_distance`) and off the walls (`wall_distance`):
//! the distances hold, a spawn without them is unchanged, and a region that cannot hold its
//! count is an error at the key (when no packing could) or when the world is built (when the
//! draws run out), never a panic.

use throng_engine::Scenario;
use throng_engine::scenario::SpawnError;

use super::{base_with, check_rejects, text, write};
use crate::common::{scratch_dir, throng};

const RECT: &str = "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20] }";

/// `BASE` (line 18 is the spawn) with `spawn` and `count` walkers, and a wall across the
/// region at x = 10 from y = 2 to 18.
fn spaced(spawn: &str, count: u32) -> String {
    base_with(RECT, spawn).replace("count = 6", &format!("count = {count}")).replace(
        "[bounds]",
        "obstacles = [{ kind = \"wall\", points = [[10, 2], [10, 18]], thickness = 0.2 }]\n\n[bounds]",
    )
}

#[test]
fn every_agent_keeps_its_distance_from_the_others_and_the_walls() {
    let text = spaced(
        "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20], min_distance = 0.8, wall_distance = 0.5 }",
        300,
    );
    let world = Scenario::parse(&text, "s.toml").expect("valid").try_build_world().expect("room for 300");
    let p = &world.agents.position;
    assert_eq!(p.len(), 300);
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            assert!((p[i] - p[j]).length() >= 0.8, "{i} and {j}: {} apart", (p[i] - p[j]).length());
        }
        // The wall's surface: 0.1 either side of x = 10 for y in [2, 18], round caps at the ends.
        let nearest = throng_engine::math::Vec2::new(10.0, p[i].y.clamp(2.0, 18.0));
        assert!((p[i] - nearest).length() - 0.1 >= 0.5 - 1e-5, "{i} at {} is near the wall", p[i]);
        assert!((0.0..=20.0).contains(&p[i].x) && (0.0..=20.0).contains(&p[i].y), "inside the region");
    }
}

#[test]
fn an_agent_whose_first_draw_keeps_its_distances_lands_where_it_did_without_them() {
    let plain = Scenario::parse(&base_with(RECT, RECT), "s.toml").expect("valid").build_world();
    // Six agents in 400 m², none within 1e-3 of another: no redraw.
    let kept =
        base_with(RECT, "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20], min_distance = 0.001 }");
    let kept = Scenario::parse(&kept, "s.toml").expect("valid").build_world();
    assert_eq!(plain.agents.position, kept.agents.position);
}

#[test]
fn a_region_no_packing_could_fill_is_refused_at_min_distance() {
    // 20 x 20 grown by 0.5 on each side holds at most 21² / (π · 0.25) = 561 discs of radius 0.5.
    check_rejects(
        "spawn_spacing_capacity",
        base_with(RECT, "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20], min_distance = 1 }")
            .replace("count = 6", "count = 600"),
        (18, 71),
        &["`groups[0].spawn.min_distance`", "holds at most 561 agents 1 apart, fewer than the group's 600"],
    );
    check_rejects(
        "spawn_spacing_negative",
        base_with(RECT, "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20], wall_distance = -1 }"),
        (18, 72),
        &["`groups[0].spawn.wall_distance`", "found -1"],
    );
}

#[test]
fn a_region_the_draws_cannot_fill_is_an_error_when_the_world_is_built() {
    // 500 discs of radius 0.5 would pack in (the bound is 561), but random draws jam near
    // 55 % of the densest packing.
    let file = base_with(RECT, "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20], min_distance = 1 }")
        .replace("count = 6", "count = 500");
    let scenario = Scenario::parse(&file, "s.toml").expect("valid: a packing could hold them");
    match scenario.try_build_world() {
        Err(SpawnError::Crowded { group: 0, agent, count: 500, .. }) => assert!(agent > 200, "{agent}"),
        other => panic!("expected a crowded spawn, got {:?}", other.map(|w| w.agents.position.len())),
    }
    // The command line says so and exits 2, from check and from run alike.
    let dir = scratch_dir("spawn_spacing_crowded");
    let path = write(&dir, "crowded.toml", file);
    for command in ["check", "run"] {
        let out = throng(&[command, path.to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("crowded.toml"), "{command}: {stderr}");
        assert!(stderr.contains("`groups[0].spawn`: could not place agent"), "{command}: {stderr}");
        assert_eq!(stderr.matches("too crowded").count(), 1, "said once, {command}: {stderr}");
    }
}

#[test]
fn listed_points_that_break_the_distances_are_named() {
    let points = |list: &str| {
        base_with(
            RECT,
            &format!(
                "spawn = {{ kind = \"points\", points = {list}, min_distance = 0.5, wall_distance = 0.3 }}"
            ),
        )
        .replace("count = 6\n", "")
        .replace("[bounds]", "obstacles = [{ kind = \"circle\", centre = [15, 15], radius = 1 }]\n\n[bounds]")
    };
    let near = Scenario::parse(&points("[[1, 1], [5, 5], [5.3, 5]]"), "p.toml").expect("valid");
    let e = near.try_build_world().map(|_| ()).expect_err("too close");
    assert!(e.to_string().contains("`groups[0].spawn.points[2]`"), "{e}");
    assert!(e.to_string().contains("closer than min_distance 0.5"), "{e}");
    let walled = Scenario::parse(&points("[[1, 1], [16.2, 15]]"), "p.toml").expect("valid");
    let e = walled.try_build_world().map(|_| ()).expect_err("near the circle");
    assert!(e.to_string().contains("`groups[0].spawn.points[1]`"), "{e}");
    assert!(e.to_string().contains("closer than wall_distance 0.3"), "{e}");
    assert!(Scenario::parse(&points("[[1, 1], [5, 5]]"), "p.toml").expect("valid").try_build_world().is_ok());
}

#[test]
fn check_warns_when_bodies_of_a_velocity_model_overlap_at_the_start() {
    let dir = scratch_dir("spawn_spacing_overlap");
    // 60 bodies of radius 0.3 in 4 x 4: overlaps are all but certain.
    let crowded = base_with(RECT, "spawn = { kind = \"rect\", min = [0, 0], max = [4, 4] }")
        .replace("count = 6", "count = 60")
        .replace("max_force = 1.0", "max_force = 1.0\nradius = 0.3\nmodel = \"cfsm\"");
    let path = write(&dir, "overlap.toml", &crowded);
    let out = throng(&["check", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "a warning, not an error: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("pairs of bodies overlap at the start in groups of velocity models (walkers)"),
        "{stderr}"
    );
    // Spaced apart, no warning.
    let apart = crowded
        .replace("max = [4, 4] }", "max = [4, 4], min_distance = 0.6 }")
        .replace("count = 60", "count = 20");
    let path = write(&dir, "apart.toml", apart);
    let out = throng(&["check", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("overlap"), "{}", text(&out.stderr));
}
