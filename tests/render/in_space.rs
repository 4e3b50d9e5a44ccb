//! Pictures of runs in space: a projection from above, the front or a corner, depth shown by
//! size; a trace (CSV or Parquet) drawn as its run; bad combinations refused; and the HTML
//! player's orbiting camera (its self-test in headless Chromium is in html_player.rs).

use std::path::Path;

use super::{ok, s, text};
use crate::common::{scratch_dir, throng};

/// Pixels not of the background, and the picture.
fn drawn(path: &Path) -> (usize, tiny_skia::Pixmap) {
    let p = tiny_skia::Pixmap::load_png(path).expect("a PNG");
    let n = p.pixels().iter().filter(|c| (c.red(), c.green(), c.blue()) != (246, 245, 240)).count();
    (n, p)
}

#[test]
fn a_run_in_space_is_drawn_from_above_the_front_or_a_corner() {
    let dir = scratch_dir("render_space_projections");
    let mut pictures = Vec::new();
    for projection in ["top", "side", "oblique"] {
        let out = dir.join(format!("{projection}.png"));
        let args = [
            "render",
            "scenarios/asteroids.toml",
            "--out",
            s(&out),
            "--tick",
            "60",
            "--projection",
            projection,
        ];
        let stdout = ok(&throng(&args));
        assert!(stdout.contains("tick 60, 300 agents"), "{stdout}");
        let (n, p) = drawn(&out);
        assert!(n > 5_000, "{projection}: only {n} pixels drawn");
        pictures.push((p.width(), p.height(), p.data().to_vec()));
    }
    // Three views of one box: 100 x 40 from above, 100 x 40 from the front, a wider oblique one.
    assert!(pictures[0] != pictures[1] && pictures[1] != pictures[2] && pictures[0] != pictures[2]);
    // The default projection is the oblique one.
    let out = dir.join("default.png");
    ok(&throng(&["render", "scenarios/asteroids.toml", "--out", s(&out), "--tick", "60"]));
    let (_, p) = drawn(&out);
    assert_eq!(p.data(), pictures[2].2.as_slice());
}

#[test]
fn nearer_agents_are_drawn_larger() {
    // Two agents of one size, one at the bottom of the box and one at its top: seen from above,
    // the top one is nearer and drawn larger.
    let dir = scratch_dir("render_space_depth");
    let scenario = crate::fixtures::write(
        &dir,
        "two.toml",
        r#"version = 1
name = "two"
dimensions = 3
seed = 1
dt = 0.1
ticks = 1
[bounds]
min = [0, 0, 0]
max = [20, 20, 20]
[[groups]]
name = "pair"
count = 2
spawn = { kind = "points", points = [[5, 10, 0], [15, 10, 20]] }
max_speed = 1.0
max_force = 1.0
radius = 1.0
"#,
    );
    let out = dir.join("top.png");
    ok(&throng(&[
        "render",
        s(&scenario),
        "--out",
        s(&out),
        "--tick",
        "0",
        "--projection",
        "top",
        "--no-legend",
    ]));
    let (_, p) = drawn(&out);
    // Count the group's colour left and right of the middle.
    let (mut left, mut right) = (0, 0);
    for (k, c) in p.pixels().iter().enumerate() {
        let blue = c.blue() > 150 && c.red() < 100;
        if blue {
            if (k as u32 % p.width()) < p.width() / 2 { left += 1 } else { right += 1 }
        }
    }
    println!("agent pixels: far {left}, near {right}");
    // Sizes 0.6 and 1.4 of the radius: areas in the ratio 0.36 : 1.96.
    assert!(left > 0 && right > 4 * left, "far {left}, near {right}");
}

#[test]
fn a_trace_in_space_draws_as_its_run() {
    let dir = scratch_dir("render_space_trace");
    let (csv, parquet) = (dir.join("t.csv"), dir.join("t.parquet"));
    for trace in [&csv, &parquet] {
        ok(&throng(&["run", "scenarios/birds.toml", "--ticks", "20", "--quiet", "--trace", s(trace)]));
    }
    let from_run = dir.join("run.png");
    ok(&throng(&["render", "scenarios/birds.toml", "--out", s(&from_run), "--tick", "20"]));
    for trace in [&csv, &parquet] {
        let out = dir.join("trace.png");
        ok(&throng(&[
            "render",
            s(trace),
            "--scenario",
            "scenarios/birds.toml",
            "--out",
            s(&out),
            "--tick",
            "20",
        ]));
        assert!(std::fs::read(&out).unwrap() == std::fs::read(&from_run).unwrap(), "{}", trace.display());
        // Alone, it frames the box its agents fill.
        let alone = dir.join("alone.png");
        ok(&throng(&["render", s(trace), "--out", s(&alone), "--tick", "20", "--projection", "side"]));
        assert!(drawn(&alone).0 > 1_000);
    }
    // A trace in space with a planar scenario, and a projection of a planar run, are refused.
    let planar = crate::fixtures::write(
        &dir,
        "planar.toml",
        "version = 1\nname = \"p\"\nseed = 1\ndt = 0.1\nticks = 5\n[bounds]\nmin = [0, 0]\nmax = [9, 9]\n[[groups]]\nname = \"birds\"\ncount = 1\nspawn = { kind = \"rect\", min = [0, 0], max = [9, 9] }\nmax_speed = 1.0\nmax_force = 1.0\n",
    );
    let out = throng(&["render", s(&csv), "--scenario", s(&planar), "--out", s(&dir.join("x.png"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("the trace of a run in space (it has z), and its --scenario is planar")
    );
    let out =
        throng(&["render", "scenarios/flock.toml", "--out", s(&dir.join("y.png")), "--projection", "top"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--projection is for a run in space"), "{}", text(&out.stderr));
}

#[test]
fn the_player_of_a_run_in_space_carries_three_coordinates_and_its_solids() {
    let dir = scratch_dir("render_space_html");
    let out = dir.join("asteroids.html");
    let stdout = ok(&throng(&["render", "scenarios/asteroids.toml", "--out", s(&out), "--every", "50"]));
    assert!(stdout.contains("11 frames"), "{stdout}");
    let page = std::fs::read_to_string(&out).expect("the page");
    for banned in ["http://", "https://", "<script src", "<link", "<img", "@import", "url("] {
        assert!(!page.contains(banned), "the page refers to something outside it: {banned}");
    }
    assert!(page.contains("drag or arrows: orbit"), "the orbiting player");
    assert!(
        page.contains(r#""dimensions":3"#)
            && page.contains(r#""box":{"kind":"open","max":[100.0,40.0,40.0],"min":[0.0,0.0,0.0]}"#)
    );
    assert_eq!(page.matches(r#"{"ball":["#).count(), 18);
    assert_eq!(page.matches(r#"{"box":["#).count(), 2);
    assert!(page.contains(r#""targets":[{"name":"beacon","point":[95.0,20.0,20.0]}]"#));
}
