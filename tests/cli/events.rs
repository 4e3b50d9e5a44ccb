//! Events (`[[events]]`) worked out by hand on one-agent scenes, and bad entries rejected with
//! their position.

use throng_engine::{RunSettings, Scenario, Simulation};

use super::{BASE, check_rejects, text, write};
use crate::common::{scratch_dir, throng};

/// One agent at (2, 5) seeking (20, 5) at up to 1 unit/s in a 30 × 10 field, with `extra`
/// appended (exits, gates, events).
pub(super) fn scene(extra: &str) -> Scenario {
    scene_with("", extra)
}

/// The text of [`scene_with`].
pub(super) fn scene_text(top: &str, extra: &str) -> String {
    format!(
        r#"version = 1
name = "one"
seed = 1
dt = 0.1
ticks = 300
{top}

[bounds]
min = [0, 0]
max = [30, 10]

[targets.right]
kind = "point"
position = [20, 5]

[targets.left]
kind = "point"
position = [0, 5]

[[groups]]
name = "walker"
spawn = {{ kind = "points", points = [[2, 5]] }}
max_speed = 1.0
max_force = 10.0

[[groups.behaviours]]
kind = "seek"
target = "right"
{extra}"#
    )
}

/// [`scene`] with `top` among the top-level keys (obstacles).
pub(super) fn scene_with(top: &str, extra: &str) -> Scenario {
    let text = scene_text(top, extra);
    Scenario::parse(&text, "one.toml").expect("a valid scene")
}

pub(super) fn sim(s: &Scenario) -> Simulation {
    Simulation::new(s, RunSettings { threads: 1, ..RunSettings::default() }).expect("simulation")
}

pub(super) fn x(sim: &Simulation) -> f32 {
    sim.world().agents.position[0].x
}

#[test]
fn a_door_holds_the_walker_until_it_opens() {
    let s = scene_with(
        "obstacles = [{ name = \"door\", kind = \"rect\", min = [5, 0], max = [6, 10] }]",
        "\n[[events]]\nat_s = 10\naction = \"open\"\ndoor = \"door\"\n",
    );
    let mut sim = sim(&s);
    sim.run(100).expect("runs");
    // Pressed against the closed door: its body (radius 0.5) stops short of x = 5.
    assert!(x(&sim) < 5.0, "through a closed door: x = {}", x(&sim));
    assert_eq!(sim.world().obstacles.len(), 1);
    sim.run(60).expect("runs");
    assert!(sim.world().obstacles.is_empty(), "the door opened");
    assert!(x(&sim) > 6.0, "not through the open door: x = {}", x(&sim));
    assert_eq!(sim.world().events[0].first_tick, Some(100));
}

#[test]
fn a_door_that_starts_open_lets_the_walker_through_until_it_closes() {
    // Open at first; closed at 1 s, before the walker (x = 2, at most 1 unit/s) reaches it.
    let s = scene_with(
        "obstacles = [{ name = \"door\", open = true, kind = \"rect\", min = [5, 0], max = [6, 10] }]",
        "\n[[events]]\nat_s = 1\naction = \"close\"\ndoor = \"door\"\n",
    );
    let mut sim = sim(&s);
    assert!(sim.world().obstacles.is_empty(), "open at tick 0");
    sim.run(200).expect("runs");
    assert_eq!(sim.world().obstacles.len(), 1);
    assert!(x(&sim) < 5.0, "through the door it closed: x = {}", x(&sim));
}

#[test]
fn retarget_and_move_target_change_where_the_walker_goes() {
    // At 2 s the seek turns to "left"; at 4 s "left" moves to (2, 9).
    let s = scene(
        "\n[[events]]\nat_s = 2\naction = \"retarget\"\ngroup = \"walker\"\nbehaviour = 0\ntarget = \"left\"\n\n[[events]]\nat_s = 4\naction = \"move_target\"\ntarget = \"left\"\nto = [2, 9]\n",
    );
    let mut sim = sim(&s);
    sim.run(20).expect("runs");
    let at_2s = x(&sim);
    sim.run(20).expect("runs");
    assert!(x(&sim) < at_2s, "it did not turn back: {} then {}", at_2s, x(&sim));
    sim.run(200).expect("runs");
    let p = sim.world().agents.position[0];
    assert!((p - throng_engine::math::Vec2::new(2.0, 9.0)).length() < 1.0, "not at the moved target: {p}");
}

#[test]
fn a_periodic_event_fires_on_its_period_and_stop_ends_the_run() {
    // Every 0.5 s from 1 s to 3 s: ticks 10, 15, 20, 25, 30. An exit under the walker,
    // closed at 0 s and opened at 1 s: it leaves in tick 11; then the run stops.
    let s = scene(
        "\n[[exits]]\nname = \"hole\"\nkind = \"circle\"\ncentre = [2, 5]\nradius = 1\n\n[[gates]]\nname = \"g\"\nfrom = [25, 0]\nto = [25, 10]\n\n[[events]]\nname = \"tick\"\nevery_s = 0.5\nstart_s = 1\nend_s = 3\naction = \"close\"\ngate = \"g\"\n\n[[events]]\nat_s = 0\naction = \"close\"\nexit = \"hole\"\n\n[[events]]\nat_s = 1\naction = \"open\"\nexit = \"hole\"\n\n[[events]]\nwhen = { metric = \"agents_exited\", min = 1 }\naction = \"stop\"\n",
    );
    let mut sim = sim(&s);
    sim.run(10).expect("runs");
    assert_eq!(sim.world().exited, 0, "the closed exit kept the walker");
    sim.run(1000).expect("runs");
    assert_eq!(sim.world().exited, 1);
    // The exit removed it in tick 11; the stop fired before tick 12, so the run ended at 11.
    assert_eq!(sim.tick(), 11);
    assert!(sim.stopped());
    let e = &sim.world().events[0];
    assert_eq!((e.fired, e.first_tick, e.last_tick), (1, Some(10), Some(10)), "only tick 10 was reached");
    let mut longer = self::sim(&scene(
        "\n[[gates]]\nname = \"g\"\nfrom = [25, 0]\nto = [25, 10]\n\n[[events]]\nevery_s = 0.5\nstart_s = 1\nend_s = 3\naction = \"close\"\ngate = \"g\"\n",
    ));
    longer.run(100).expect("runs");
    let e = &longer.world().events[0];
    assert_eq!((e.fired, e.first_tick, e.last_tick), (5, Some(10), Some(30)));
}

#[test]
fn a_gate_condition_fires_after_the_tick_that_crossed() {
    let s = scene(
        "\n[[gates]]\nname = \"line\"\nfrom = [5, 0]\nto = [5, 10]\n\n[[events]]\nwhen = { metric = \"gates.line.crossings\", min = 1 }\naction = \"stop\"\n",
    );
    let mut sim = sim(&s);
    sim.run(1000).expect("runs");
    // Stopped right after the crossing: at most one tick's move (0.1 unit) past the line.
    assert!(sim.stopped());
    assert!(x(&sim) > 5.0 && x(&sim) <= 5.1, "x = {}", x(&sim));
    assert_eq!(sim.world().scene.gate_totals, [1]);
}

#[test]
fn the_run_report_lists_the_events() {
    let out = throng(&["run", "scenarios/doors.toml", "--json", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["events"][0]["name"], "the east door opens");
    assert_eq!(v["events"][0]["first_tick"], 200);
    assert_eq!(v["stopped_by_event"], true);
    assert_eq!(v["ticks_run"], v["events"][3]["first_tick"]);
}

/// The metrics CSV names the events that fired before each row's tick ran, and `plot` draws
/// them, from the file and from the scenario alike.
#[test]
fn metrics_files_and_plots_mark_the_events() {
    let dir = scratch_dir("events_marks");
    let csv = dir.join("m.csv");
    let out = throng(&[
        "run",
        "scenarios/doors.toml",
        "--ticks",
        "250",
        "--quiet",
        "--metrics",
        csv.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let content = std::fs::read_to_string(&csv).expect("metrics CSV");
    let marked: Vec<(&str, &str)> = content
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(',').map(|(tick, _)| (tick, l.rsplit(',').next().unwrap_or(""))))
        .filter(|(_, events)| !events.is_empty())
        .collect();
    assert_eq!(
        marked,
        [("156", "the north door opens; the northern half heads north"), ("201", "the east door opens")]
    );
    for (input, svg) in
        [(csv.to_str().expect("utf-8"), "from-file.svg"), ("scenarios/doors.toml", "from-run.svg")]
    {
        let path = dir.join(svg);
        let mut args = vec!["plot", input, "--out", path.to_str().expect("utf-8"), "--quiet"];
        if input.ends_with(".toml") {
            args.extend(["--ticks", "250"]);
        }
        let out = throng(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let svg = std::fs::read_to_string(&path).expect("svg");
        assert!(svg.contains("the east door opens") && svg.contains("the north door opens"), "{input}");
    }
}

#[test]
fn bad_events_are_rejected() {
    let with = |entry: &str| format!("{BASE}\n[[events]]\n{entry}\n");
    check_rejects(
        "event_unknown_door",
        format!(
            "{}\n[[events]]\nat_s = 1\naction = \"open\"\ndoor = \"dor\"\n",
            BASE.replace("[bounds]", "obstacles = [{ name = \"door\", kind = \"circle\", centre = [5, 5], radius = 1 }]\n\n[bounds]")
        ),
        (31, 8),
        &["`events[0].door`", "no door is named \"dor\"; did you mean \"door\"? (doors (named obstacles): door)"],
    );
    check_rejects(
        "event_no_trigger",
        with("action = \"stop\""),
        (26, 1),
        &["`events[0]`", "an event needs one trigger, `at_s`, `every_s` or `when`; found none"],
    );
    check_rejects(
        "event_two_triggers",
        with("at_s = 1\nevery_s = 2\naction = \"stop\""),
        (26, 1),
        &["found at_s and every_s"],
    );
    check_rejects(
        "event_start_without_every",
        with("at_s = 1\nstart_s = 0\naction = \"stop\""),
        (28, 11),
        &["`events[0].start_s`", "`start_s` goes with `every_s`"],
    );
    check_rejects(
        "event_retarget_without_target",
        with("at_s = 1\naction = \"retarget\"\ngroup = \"walkers\"\nbehaviour = 0\ntarget = \"home\"")
            .replace("kind = \"seek\"\ntarget = \"home\"", "kind = \"wander\""),
        // The scene loses a line (seek's target), so the entry starts at line 25.
        (29, 13),
        &["`events[0].behaviour`", "behaviour 0 of group \"walkers\" (\"wander\") takes no target to change"],
    );
    check_rejects(
        "event_unknown_condition",
        with("when = { metric = \"agent_exited\", min = 1 }\naction = \"stop\""),
        (27, 19),
        &["`events[0].when.metric`", "unknown condition \"agent_exited\"; did you mean \"agents_exited\"?"],
    );
    check_rejects(
        "event_open_without_name",
        BASE.replace(
            "[bounds]",
            "obstacles = [{ open = true, kind = \"circle\", centre = [5, 5], radius = 1 }]\n\n[bounds]",
        ),
        (7, 23),
        &["`obstacles[0].open`", "`open` is for a door: give the obstacle a `name`"],
    );
    // A time past the run's end is a warning: the event never fires.
    let dir = scratch_dir("event_late");
    let path = write(&dir, "late.toml", with("at_s = 99\naction = \"stop\""));
    let out = throng(&["check", path.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("`events[0].at_s`") && stderr.contains("the event never fires"), "{stderr}");
}
