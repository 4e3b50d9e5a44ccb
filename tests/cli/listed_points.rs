//! Point lists (`spawn.points`, `waypoints`, path `nodes`) are read beside the TOML parser so
//! that loading costs memory in proportion to the file. These tests hold that path to the
//! parser's: the same scenario, with or without overrides, errors placed at the same point of
//! the file, and a list where points do not belong reported exactly as the parser reports it.

use throng_engine::Scenario;
use throng_engine::scenario::overrides;

use super::{assert_error_at, write};
use crate::common::{scratch_dir, throng};

/// A scenario with a long spawn list, waypoints and a path that a behaviour follows.
/// `inside` is written at the start of every list: `""` leaves them to the fast path, a
/// comment sends them through the parser.
fn listed(inside: &str) -> String {
    let points: Vec<String> = (0..300).map(|i| format!("[{}.25, {}]", i % 20, -(i / 20))).collect();
    format!(
        r#"version = 1
name = "listed"
seed = 3
dt = 0.1
ticks = 5

[bounds]
min = [-50, -50]
max = [50, 50]

[targets.tour]
kind = "moving"
speed = 1.5
waypoints = [{inside}
  [0, 0], [10, 0], [10, 10], [-4.5e1, 2E-1],
]

[paths.loop]
nodes = [{inside}[1, 1], [5, 1], [5, 5]]
radius = 1.0

[[groups]]
name = "crowd"
spawn = {{ kind = "points", points = [{inside}
{}
] }}
max_speed = 2.0
max_force = 1.0

[[groups.behaviours]]
kind = "follow_path"
path = "loop"

[[groups.behaviours]]
kind = "seek"
target = "tour"
"#,
        points.join(",\n")
    )
}

fn lists(s: &Scenario) -> String {
    format!("{:?} {:?} {:?}", s.groups, s.targets, s.paths)
}

#[test]
fn lists_read_beside_the_parser_equal_the_parsers() {
    let fast = Scenario::parse(&listed(""), "listed.toml").expect("valid");
    let parsed = Scenario::parse(&listed("# through the parser\n"), "listed.toml").expect("valid");
    assert_eq!(fast.agent_count(), 300);
    assert_eq!(lists(&fast), lists(&parsed));
    assert!(lists(&fast).contains("-45.0, 0.2"), "the waypoint written as -4.5e1, 2E-1 is read");

    // With overrides, the lists stand aside while the document is edited and come back.
    let seed = overrides::parse_set("seed=9", "--set").expect("an override");
    let fast_set = overrides::parse(&listed(""), "listed.toml", &seed).expect("valid");
    let parsed_set = overrides::parse(&listed("# x\n"), "listed.toml", &seed).expect("valid");
    assert_eq!(fast_set.seed, 9);
    assert_eq!(lists(&fast_set), lists(&fast));
    assert_eq!(lists(&parsed_set), lists(&fast));

    // An override may replace a list outright.
    let two =
        overrides::parse_set("groups.crowd.spawn.points=[[1, 2], [3, 4]]", "--set").expect("an override");
    let replaced = overrides::parse(&listed(""), "listed.toml", &two).expect("valid");
    assert_eq!(replaced.agent_count(), 2);
    assert_eq!(lists(&replaced).matches("follow").count(), lists(&fast).matches("follow").count());
}

#[test]
fn an_error_in_a_long_list_is_placed_at_its_point() {
    let dir = scratch_dir("listed_points_error");
    for (name, inside) in [("fast.toml", ""), ("parsed.toml", "# via the parser\n")] {
        // Point 37: line 25 + 37 = 62 of the file, as `listed` writes one point a line from
        // line 25; a comment adds a line to each of the three lists before it.
        let bad = listed(inside).replace("[17.25, -1]", "[17.25, 1e12]");
        let path = write(&dir, name, bad.as_bytes());
        let line = 25 + 37 + 3 * usize::from(!inside.is_empty());
        let out = throng(&["check", path.to_str().expect("utf-8 path")]);
        assert_error_at(&out, &path, (line, 1), &["groups[0].spawn.points[37]", "found [17.25, 1e12]"]);
    }
}

#[test]
fn keys_after_a_list_on_its_line_are_placed_in_the_file_as_written() {
    let dir = scratch_dir("listed_points_after");
    // The error is placed at radius's value: its column counted in the line as written (the
    // list before it on the line is not cut there).
    let line = r#"spawn = { kind = "points", points = [[1, 2], [3, 4], [5, 6]], radius = 2 }"#;
    let text = super::BASE
        .replace("count = 6\n", "")
        .replace(r#"spawn = { kind = "rect", min = [0, 0], max = [20, 20] }"#, line);
    let path = write(&dir, "after.toml", text.as_bytes());
    let out = throng(&["check", path.to_str().expect("utf-8 path")]);
    let col = line.find("= 2 }").expect("radius") + 3;
    assert_error_at(&out, &path, (17, col), &["groups[0].spawn.radius", "\"points\" spawn"]);
}

#[test]
fn a_list_where_points_do_not_belong_reads_as_the_parser_reads_it() {
    let dir = scratch_dir("listed_points_misplaced");
    let bounds = super::BASE.replace("min = [0, 0]\n", "min = [[1, 2], [3, 4]]\n");
    let path = write(&dir, "bounds.toml", bounds.as_bytes());
    let out = throng(&["check", path.to_str().expect("utf-8 path")]);
    assert_error_at(&out, &path, (8, 7), &["bounds.min", "found [[1, 2], [3, 4]]"]);

    let unknown = super::BASE.replace("ticks = 10\n", "ticks = 10\ncorners = [[1, 2], [3, 4]]\n");
    let path = write(&dir, "unknown.toml", unknown.as_bytes());
    let out = throng(&["check", path.to_str().expect("utf-8 path")]);
    assert_error_at(&out, &path, (6, 1), &["unknown key `corners`"]);
}
