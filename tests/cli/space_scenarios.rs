//! Scenarios in space (`dimensions = 3`): what the loader accepts and what it refuses, each
//! refusal located at its key; and what the commands say of them while they run planar
//! scenarios only.

use throng_engine::Scenario;
use throng_engine::math::{Vec2, Vec3};
use throng_engine::world::{Region, Target};

use super::{base_with, check_rejects};

/// A small scenario in space: a wrapped box, a point target, a path, groups spawned in a
/// box, a ball and at listed points.
const SPACE: &str = r#"version = 1
name = "space"
dimensions = 3
seed = 1
dt = 0.1
ticks = 10
[bounds]
kind = "wrap"
min = [0, 0, 0]
max = [20, 20, 10]
[targets.top]
kind = "point"
position = [10, 10, 9]
[targets.roam]
kind = "random"
min = [0, 0, 0]
max = [20, 20, 10]
every_s = 5
[paths.loop]
nodes = [[2, 2, 2], [18, 2, 8]]
radius = 1.0
[[groups]]
name = "a"
count = 50
spawn = { kind = "rect", min = [0, 0, 0], max = [20, 20, 10] }
max_speed = 1.0
max_force = 1.0
behaviours = [{ kind = "seek", target = "top" }, { kind = "separation", radius = 1.0 }]
[[groups]]
name = "b"
count = 20
spawn = { kind = "circle", centre = [10, 10, 5], radius = 3 }
max_speed = 1.0
max_force = 1.0
behaviours = [{ kind = "follow_path", path = "loop" }, { kind = "arrive", target = [5, 5, 5] }]
[[groups]]
name = "c"
count = 2
spawn = { kind = "points", points = [[1, 2, 3], [4, 5, 6]] }
max_speed = 1.0
max_force = 1.0
behaviours = [{ kind = "seek", target = "roam" }]
"#;

fn space_with(line: &str, with: &str) -> String {
    let needle = format!("\n{line}\n");
    assert_eq!(SPACE.matches(&needle).count(), 1, "`{line}` is not exactly one line of SPACE");
    SPACE.replacen(&needle, &format!("\n{with}\n"), 1)
}

/// The error `text` gives in space: its location, key and message, as one line.
fn space_error(text: &str) -> String {
    match Scenario::<Vec3>::parse_as(text, "space.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_scenario_in_space_reads_three_coordinates_everywhere() {
    let s = Scenario::<Vec3>::parse_as(SPACE, "space.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.bounds.max, Vec3::new(20.0, 20.0, 10.0));
    assert_eq!(
        s.targets[s.target_names.iter().position(|n| n == "top").unwrap()],
        Target::Point(Vec3::new(10.0, 10.0, 9.0))
    );
    assert!(s.targets.contains(&Target::Point(Vec3::splat(5.0))), "the inline target");
    assert!(
        s.targets
            .iter()
            .any(|t| matches!(t, Target::Random { region: Region::Rect { max, .. }, .. } if max.z == 10.0))
    );
    assert_eq!(s.paths[0].nodes[1], Vec3::new(18.0, 2.0, 8.0));
    let w = s.build_world();
    assert_eq!(w.agents.len(), 72);
    let p = &w.agents.position;
    // Spawned in the box, in the ball, and at the listed points.
    assert!(p[..50].iter().all(|q| q.cmpge(Vec3::ZERO).all() && q.cmple(Vec3::new(20.0, 20.0, 10.0)).all()));
    assert!(p[..50].iter().any(|q| q.z > 7.0) && p[..50].iter().any(|q| q.z < 3.0));
    assert!(p[50..70].iter().all(|q| (*q - Vec3::new(10.0, 10.0, 5.0)).length() <= 3.0 + 1e-4));
    assert_eq!((p[70], p[71]), (Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)));
    // A planar reader refuses it at `dimensions` (line 3), and the other way round.
    let e = Scenario::parse(SPACE, "space.toml").expect_err("planar reader").to_string();
    assert!(
        e.contains("space.toml:3:")
            && e.contains("`dimensions`")
            && e.contains("a planar scenario was asked for"),
        "{e}"
    );
    let plane = SPACE.replace("dimensions = 3\n", "");
    let e =
        Scenario::<Vec3>::parse_as(&plane, "plane.toml").map(|_| ()).expect_err("space reader").to_string();
    assert!(e.contains("a planar scenario where one in space"), "{e}");
    let _ = Vec2::ZERO;
}

#[test]
fn points_with_the_wrong_number_of_coordinates_are_located() {
    // Two coordinates in space: at the point, with what `dimensions = 3` asks.
    let e = space_error(&space_with("position = [10, 10, 9]", "position = [10, 10]"));
    assert!(e.contains("space.toml:13:12") && e.contains("`targets.top.position`"), "{e}");
    assert!(
        e.contains("expected a point [x, y, z] of three numbers, as `dimensions = 3` asks, found [10, 10]"),
        "{e}"
    );
    let e = space_error(&space_with("nodes = [[2, 2, 2], [18, 2, 8]]", "nodes = [[2, 2, 2], [18, 2]]"));
    assert!(e.contains("`paths.loop.nodes[1]`") && e.contains("found [18, 2]"), "{e}");
    let e = space_error(&SPACE.replace("target = [5, 5, 5]", "target = [5, 5]"));
    assert!(e.contains("`groups[1].behaviours[1].target`") && e.contains("[x, y, z]"), "{e}");
    // Four numbers, or a word among them: the point's shape.
    let e = space_error(&space_with("position = [10, 10, 9]", "position = [10, 10, 9, 1]"));
    assert!(e.contains("space.toml:13:12") && e.contains("found [10, 10, 9, 1]"), "{e}");
    // Three coordinates in the plane: the hint names `dimensions`.
    check_rejects(
        "cli_point_three_in_plane",
        base_with("min = [0, 0]", "min = [0, 0, 5]"),
        (8, 7),
        &["`bounds.min`", "three coordinates need `dimensions = 3`"],
    );
}

#[test]
fn the_value_of_dimensions_and_the_shape_of_boxes_are_checked() {
    let e = space_error(&space_with("dimensions = 3", "dimensions = 4"));
    assert!(
        e.contains("space.toml:3:14") && e.contains("expected 2 (the plane) or 3 (space), found 4"),
        "{e}"
    );
    let e = space_error(&SPACE.replacen("max = [20, 20, 10]", "max = [20, 20, 0]", 1));
    assert!(e.contains("`bounds.max`") && e.contains("max > min on every axis"), "{e}");
    let e = space_error(&SPACE.replace(
        "spawn = { kind = \"rect\", min = [0, 0, 0], max = [20, 20, 10] }",
        "spawn = { kind = \"rect\", min = [0, 0, 5], max = [20, 20, 4] }",
    ));
    assert!(e.contains("`groups[0].spawn.max`") && e.contains("max >= min on every axis"), "{e}");
    // The planar reader says the same of `dimensions = 5`.
    check_rejects(
        "cli_dimensions_five",
        base_with("ticks = 10", "ticks = 10\ndimensions = 5"),
        (6, 14),
        &["`dimensions`", "expected 2 (the plane) or 3 (space), found 5"],
    );
}

#[test]
fn the_planar_parts_are_refused_in_space_at_their_key() {
    let cases = [
        ("[[exits]]\nname = \"out\"\nkind = \"rect\"\nmin = [0, 0]\nmax = [1, 1]", "`exits`"),
        ("[[gates]]\nname = \"g\"\nfrom = [0, 0]\nto = [1, 1]", "`gates`"),
    ];
    for (extra, key) in cases {
        let text = SPACE.replace("[bounds]", &format!("{extra}\n[bounds]"));
        let text = if extra.starts_with("[[") { format!("{SPACE}{extra}\n") } else { text };
        let e = space_error(&text);
        assert!(e.contains(key) && e.contains("is planar"), "{key}: {e}");
    }
    // Obstacles in space are balls and boxes; walls, polygons and doors are planar.
    let with_obstacle = |o: &str| SPACE.replace("[bounds]", &format!("obstacles = [{o}]\n[bounds]"));
    let e =
        space_error(&with_obstacle("{ kind = \"wall\", points = [[0, 0, 0], [1, 1, 1]], thickness = 1 }"));
    assert!(
        e.contains("`obstacles[0].kind`") && e.contains("\"sphere\" (centre, radius) or a \"box\""),
        "{e}"
    );
    let e =
        space_error(&with_obstacle("{ kind = \"sphere\", name = \"door\", centre = [5, 5, 5], radius = 1 }"));
    assert!(e.contains("`obstacles[0].name`") && e.contains("doors are planar"), "{e}");
    let e = space_error(&with_obstacle("{ kind = \"sphere\", centre = [5, 5], radius = 1 }"));
    assert!(e.contains("`obstacles[0].centre`") && e.contains("[x, y, z]"), "{e}");
    let e = space_error(&with_obstacle("{ kind = \"box\", min = [5, 5, 5], max = [6, 6, 5] }"));
    assert!(e.contains("`obstacles[0].max`") && e.contains("inverted or empty box"), "{e}");
    let ok = with_obstacle("{ kind = \"box\", min = [5, 5, 5], max = [6, 6, 6] }, { kind = \"sphere\", centre = [1, 1, 1], radius = 1 }")
        .replace("{ kind = \"seek\", target = \"top\" }", "{ kind = \"avoid_obstacles\" }");
    let s = throng_engine::Scenario::<throng_engine::math::Vec3>::parse_as(&ok, "ok.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.obstacles.len(), 2);
    let e = space_error(&SPACE.replace(
        "{ kind = \"seek\", target = \"top\" }",
        "{ kind = \"seek\", target = \"top\", route = \"field\" }",
    ));
    assert!(e.contains("routes around walls"), "{e}");
    let e = space_error(&SPACE.replace(
        "max_force = 1.0\nbehaviours = [{ kind = \"seek\", target = \"roam\" }]",
        "max_force = 1.0\nmodel = \"orca\"\nbehaviours = [{ kind = \"seek\", target = \"roam\" }]",
    ));
    assert!(e.contains("`groups[2].model`") && e.contains("velocity models are planar"), "{e}");
}

#[test]
fn check_and_run_read_a_scenario_in_space() {
    let dir = crate::common::scratch_dir("cli_space_check");
    let path = crate::fixtures::write(&dir, "space.toml", SPACE);
    let out = crate::common::throng(&["check", path.to_str().expect("utf-8 path")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("\"space\", 72 agents (a x50 steering, b x20 steering, c x2 steering)")
            && stdout.contains("wrap bounds 20x20x10 (in space)"),
        "{stdout}"
    );
    // An error in space is located as in the plane.
    let bad =
        crate::fixtures::write(&dir, "bad.toml", space_with("position = [10, 10, 9]", "position = [10, 10]"));
    let out = crate::common::throng(&["check", bad.to_str().expect("utf-8 path")]);
    super::assert_error_at(&out, &bad, (13, 12), &["`targets.top.position`", "[x, y, z]"]);
    // Overrides apply in space as in the plane (scaling keeps the density of the volume).
    let p = path.to_str().expect("utf-8 path");
    let out = crate::common::throng(&["check", p, "--set", "ticks=5"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("72 agents") && stdout.contains("5 ticks"), "{stdout}");
    // Eight times the birds in eight times the volume: twice each side.
    let out = crate::common::throng(&["check", "scenarios/birds.toml", "--agents", "4800"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("4800 agents") && stdout.contains("open bounds 240x120x240"), "{stdout}");
    // `run` runs it: its trace has z and vz, its metrics and report are the plane's.
    let trace = dir.join("space.csv");
    let out =
        crate::common::throng(&["run", p, "--ticks", "4", "--json", "--trace", trace.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["agents"], 72);
    assert!(report["metrics"]["polarisation"].as_f64().is_some_and(|p| p > 0.0), "{report}");
    let text = std::fs::read_to_string(&trace).expect("trace");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("tick,time_s,id,group,x,y,z,vx,vy,vz,radius"));
    assert_eq!(text.lines().count(), 1 + 5 * 72, "ticks 0 to 4, 72 agents each");
    let zs: Vec<f64> = lines.map(|l| l.split(',').nth(6).unwrap().parse().unwrap()).collect();
    assert!(zs.iter().any(|&z| z > 1.0) && zs.iter().all(|&z| (0.0..10.0).contains(&z)), "z in the box");
    // Trajectory formats of the plane refuse a run in space, saying which formats take it.
    let out =
        crate::common::throng(&["run", p, "--ticks", "1", "--trace", dir.join("t.sqlite").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CSV or Parquet (x, y, z)"));
    // `bench` times it (the planar floor probe reports 0) and `plot` plots its metrics.
    let out = crate::common::throng(&[
        "bench",
        "scenarios/birds.toml",
        "--agents",
        "1000",
        "--ticks",
        "2",
        "--repeats",
        "1",
        "--warmup",
        "1",
        "--json",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(report["results"][0]["agents"], 1000, "{report}");
    let png = dir.join("plot.png");
    let out = crate::common::throng(&["plot", p, "--out", png.to_str().unwrap(), "--ticks", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The library's planar reader refuses it at its `dimensions` key, naming the reader that
    // takes it.
    let e = throng_engine::Scenario::parse(SPACE, "space.toml").expect_err("planar only");
    assert!(e.key == "dimensions" && e.message.contains("Scenario::<Vec3>::parse_as"), "{e}");
}

/// A run in space checkpoints and resumes bit for bit through the binary (its trace continued,
/// not rewritten), and its checkpoint is refused, saying why, for a planar scenario.
#[test]
fn a_run_in_space_resumes_from_its_checkpoint_bit_for_bit() {
    let dir = crate::common::scratch_dir("cli_space_resume");
    let ckpt = dir.join("ckpt");
    let (trace_a, trace_b) = (dir.join("a.csv"), dir.join("b.csv"));
    let run = |args: &[&str]| {
        let out = crate::common::throng(args);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        v["hash"].as_str().expect("a hash").to_owned()
    };
    let c = ckpt.to_str().unwrap();
    let straight = run(&[
        "run",
        "scenarios/birds.toml",
        "--ticks",
        "30",
        "--json",
        "--trace",
        trace_a.to_str().unwrap(),
    ]);
    run(&[
        "run",
        "scenarios/birds.toml",
        "--ticks",
        "30",
        "--json",
        "--checkpoint-every",
        "10",
        "--checkpoint-dir",
        c,
        "--trace",
        trace_b.to_str().unwrap(),
    ]);
    let first = ckpt.join("tick-0000000010.ckpt");
    let resumed = run(&["run", "--resume", first.to_str().unwrap(), "--json"]);
    assert_eq!(resumed, straight, "resumed at tick 10");
    assert!(std::fs::read(&trace_a).unwrap() == std::fs::read(&trace_b).unwrap(), "the continued trace");
    let out = crate::common::throng(&["run", "scenarios/flock.toml", "--resume", first.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("holds a run in space") && e.contains("flock.toml is planar"), "{e}");
    // The library says the same of a checkpoint read for the other dimensions.
    let e = throng_engine::state::checkpoint::load::<throng_engine::math::Vec2>(&first).expect_err("refused");
    assert!(e.to_string().contains("holds a run in space (3 dimensions)"), "{e}");
}

/// A batch sweeps a scenario in space as one of the plane: its runs (seeds times a grid) give
/// the hashes `throng run` gives with the same seed and overrides, at any number of jobs, and
/// keep their traces (with z) and metrics; the scenario's expectations are judged per run.
#[test]
fn a_batch_sweeps_a_scenario_in_space() {
    let dir = crate::common::scratch_dir("cli_space_batch");
    let birds = crate::common::root().join("scenarios/birds.toml");
    let batch = crate::fixtures::write(
        &dir,
        "birds.toml",
        format!(
            "version = 1\nticks = 30\nkeep = [\"trace\", \"metrics\"]\ntrace_every = 10\n[[sweep]]\nscenario = \"{}\"\nseeds = [1, 2]\n[sweep.grid]\n\"groups.birds.behaviours.alignment.weight\" = [0.5, 1.5]\n",
            birds.display()
        ),
    );
    let (one, two) = (dir.join("one.out"), dir.join("two.out"));
    for (out, jobs) in [(&one, "1"), (&two, "2")] {
        let o = crate::common::throng(&[
            "batch",
            batch.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--jobs",
            jobs,
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let lines = |out: &std::path::Path| -> Vec<serde_json::Value> {
        std::fs::read_to_string(out.join("results.jsonl"))
            .expect("results.jsonl")
            .lines()
            .map(|l| serde_json::from_str(l).expect("a row"))
            .collect()
    };
    let (a, b) = (lines(&one), lines(&two));
    assert_eq!(a.len(), 4);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["final_hash"], y["final_hash"]);
        assert_eq!(x["status"], "ok");
    }
    // The run of seed 2 at alignment weight 1.5, as `throng run` makes it.
    let row = a
        .iter()
        .find(|r| r["seed"] == 2 && r["overrides"]["groups.birds.behaviours.alignment.weight"] == 1.5)
        .expect("the run");
    let o = crate::common::throng(&[
        "run",
        "scenarios/birds.toml",
        "--ticks",
        "30",
        "--seed",
        "2",
        "--json",
        "--set",
        "groups.birds.behaviours.alignment.weight=1.5",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(row["final_hash"], report["hash"]);
    // Each run kept its trace in space (x, y, z) and its metrics.
    let id = row["id"].as_str().expect("an id");
    let run_dir = one.join("runs").join(id);
    assert!(run_dir.join("metrics.parquet").is_file());
    let out = dir.join("kept.png");
    let o = crate::common::throng(&[
        "render",
        run_dir.join("trace.parquet").to_str().unwrap(),
        "--scenario",
        "scenarios/birds.toml",
        "--out",
        out.to_str().unwrap(),
        "--tick",
        "30",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The scenario in space `text` (named `origin` in errors), run for `ticks` ticks with the
/// default settings.
fn run_text_in_space(
    text: &str,
    origin: &str,
    ticks: u64,
) -> throng_engine::Simulation<throng_engine::math::Vec3> {
    let scenario = throng_engine::Scenario::<throng_engine::math::Vec3>::parse_as(text, origin)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sim =
        throng_engine::Simulation::new(&scenario, throng_engine::RunSettings::default()).expect("a pool");
    sim.run(ticks).unwrap_or_else(|e| panic!("{e}"));
    sim
}

/// Events run in space: a condition on the agents inside a ball, a `set` that changes a
/// group's speed, and `stop`; their regions and points take three coordinates.
#[test]
fn events_fire_in_space() {
    let text = r#"
version = 1
name = "events in space"
dimensions = 3
seed = 3
dt = 0.1
ticks = 400
[bounds]
min = [0, 0, 0]
max = [40, 40, 40]
[targets.top]
kind = "point"
position = [20, 20, 35]
[[groups]]
name = "climbers"
count = 20
spawn = { kind = "box", min = [15, 15, 0], max = [25, 25, 4] }
max_speed = 1.0
max_force = 2.0
behaviours = [{ kind = "seek", target = "top" }]
[[events]]
name = "faster"
at_s = 2
action = "set"
set = { "groups.climbers.max_speed" = 3.0 }
[[events]]
name = "arrived"
when = { region = { kind = "sphere", centre = [20, 20, 35], radius = 3 }, min = 20 }
action = "stop"
"#;
    let sim = run_text_in_space(text, "events.toml", 400);
    let w = sim.world();
    assert!(w.stopped, "all twenty reached the ball round the top");
    // Climbing about 31 units: at 1 unit/s that would take over 30 s; at 3 after 2 s, about 12.
    let stopped_s = w.time_s();
    println!("stopped at {stopped_s} s");
    assert!((8.0..20.0).contains(&stopped_s), "stopped at {stopped_s} s");
    assert!(w.agents.max_speed.iter().all(|&s| s == 3.0));
    assert_eq!(w.events[0].fired, 1);
    assert_eq!(w.events[1].first_tick, Some(w.tick));
    // A region with two coordinates is an error at the point.
    let bad = text.replace("centre = [20, 20, 35], radius = 3", "centre = [20, 20], radius = 3");
    let e = throng_engine::Scenario::<throng_engine::math::Vec3>::parse_as(&bad, "bad.toml").expect_err("2D");
    assert!(e.key.starts_with("events[1]") && e.message.contains("[x, y, z]"), "{e}");
}

/// Expectations on regions work in space: the agents in a ball counted at the end, and every
/// agent of a group reaching a box; a region with two coordinates is an error at the point.
#[test]
fn expectations_on_regions_hold_in_space() {
    let text = r#"
version = 1
name = "regions in space"
dimensions = 3
seed = 4
dt = 0.1
ticks = 300
[bounds]
min = [0, 0, 0]
max = [40, 40, 40]
[targets.top]
kind = "point"
position = [20, 20, 35]
[[groups]]
name = "climbers"
count = 10
spawn = { kind = "box", min = [15, 15, 0], max = [25, 25, 4] }
max_speed = 3.0
max_force = 3.0
behaviours = [{ kind = "arrive", target = "top", slowing_radius = 3 }]
[[expect]]
name = "all ten gather in the ball round the top"
region = { kind = "sphere", centre = [20, 20, 35], radius = 2 }
min = 10
[[expect]]
name = "every climber reaches the top box within 20 s"
check = "reach"
group = "climbers"
region = { kind = "box", min = [17, 17, 32], max = [23, 23, 38] }
before_s = 20
[[expect]]
name = "none is in the top box at the start"
check = "at"
at_s = 0
region = { kind = "box", min = [17, 17, 32], max = [23, 23, 38] }
max = 0
"#;
    let sim = run_text_in_space(text, "regions.toml", 300);
    let outcomes = sim.outcomes().expect("expectations");
    assert_eq!(outcomes.len(), 3);
    for o in &outcomes {
        assert_eq!(o.status, throng_engine::expect::Status::Pass, "{o}");
    }
    let bad = text.replace("centre = [20, 20, 35], radius = 2", "centre = [20, 20], radius = 2");
    let e = throng_engine::Scenario::<throng_engine::math::Vec3>::parse_as(&bad, "bad.toml").expect_err("2D");
    assert!(e.key.starts_with("expect[0].region") && e.message.contains("[x, y, z]"), "{e}");
}
