//! Scenarios with paths, leaders, obstacles, spawn sources, exits and queues: what `check`
//! rejects, warns about and accepts.

use super::{BASE, base_with, check_rejects, text, write};
use crate::common::{scratch_dir, throng};

/// `BASE` with its behaviour (lines 23-24, `kind = "seek"` and `target = "home"`) replaced by
/// `behaviour`, which starts at line 23, and `extra` appended after it.
fn with_behaviour(behaviour: &str, extra: &str) -> String {
    let head =
        BASE.strip_suffix("kind = \"seek\"\ntarget = \"home\"\n").expect("BASE ends with its behaviour");
    format!("{head}{behaviour}\n{extra}")
}

/// `throng check` on `contents` succeeds with nothing on stderr.
#[track_caller]
fn check_accepts(test: &str, contents: impl AsRef<[u8]>) -> String {
    let dir = scratch_dir(test);
    let path = write(&dir, "scenario.toml", contents);
    let out = throng(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn follow_path_of_an_unknown_path_suggests_the_nearest() {
    // 23 kind = "follow_path" / 24 path = "rout" / 25 mode = "patrol" / 26 / 27 [paths.route] ...
    // `path = ` is 7 characters: the value is at column 8 of line 24.
    let text = with_behaviour(
        "kind = \"follow_path\"\npath = \"rout\"\nmode = \"patrol\"",
        "\n[paths.route]\nnodes = [[0, 0], [10, 0]]\nradius = 1.0\n",
    );
    check_rejects(
        "cli_unknown_path",
        &text,
        (24, 8),
        &[
            "`groups[0].behaviours[0].path`",
            r#"no path is named "rout"; did you mean "route"?"#,
            "(paths: route)",
        ],
    );
    // The same file with the right name is valid.
    check_accepts("cli_known_path", text.replacen(r#"path = "rout""#, r#"path = "route""#, 1));
}

#[test]
fn follow_leader_of_an_unknown_target_suggests_the_nearest() {
    // 24 leader = "hom": `leader = ` is 9 characters, the value is at column 10.
    check_rejects(
        "cli_unknown_leader",
        with_behaviour("kind = \"follow_leader\"\nleader = \"hom\"", ""),
        (24, 10),
        &["`groups[0].behaviours[0].leader`", r#"no target is named "hom"; did you mean "home"?"#],
    );
}

#[test]
fn follow_leader_needs_an_agent_target() {
    // "home" is a point target.
    check_rejects(
        "cli_leader_not_agent",
        with_behaviour("kind = \"follow_leader\"\nleader = \"home\"", ""),
        (24, 10),
        &[
            "`groups[0].behaviours[0].leader`",
            r#"the leader must be a target of kind "agent"; "home" is not"#,
        ],
    );
}

#[test]
fn follow_leader_cannot_follow_its_own_group() {
    // 23 kind = "follow_leader" / 24 leader = "boss" / 25 / 26 [targets.boss] / 27 kind /
    // 28 agent = 2. The walkers are agents 0-5, so agent 2 leads its own group.
    let text = with_behaviour(
        "kind = \"follow_leader\"\nleader = \"boss\"",
        "\n[targets.boss]\nkind = \"agent\"\nagent = 2\n",
    );
    check_rejects(
        "cli_leader_itself",
        &text,
        (24, 10),
        &[
            "`groups[0].behaviours[0].leader`",
            r#"agent 2 belongs to group "walkers" itself"#,
            "cannot follow itself",
        ],
    );
    // A leader in a group of its own (agent 6, the first of the second group) is fine.
    let chief = "agent = 6\n\n[[groups]]\nname = \"chief\"\ncount = 1\n\
                 spawn = { kind = \"points\", points = [[50, 50]] }\nmax_speed = 1.0\nmax_force = 1.0\n";
    let stdout = check_accepts("cli_leader_other_group", text.replacen("agent = 2\n", chief, 1));
    assert!(stdout.contains("7 agents (walkers x6 steering, chief x1 steering)"), "{stdout}");
}

#[test]
fn loop_and_patrol_need_a_path_of_two_nodes() {
    // 23 kind = "follow_path" / 24 path = "stop" / 25 mode = "..." / 26 / 27 [paths.stop] /
    // 28 nodes = [[5, 5]] / 29 radius = 1.0. `mode = ` is 7 characters: column 8.
    let path = "\n[paths.stop]\nnodes = [[5, 5]]\nradius = 1.0\n";
    for mode in ["loop", "patrol"] {
        check_rejects(
            &format!("cli_short_path_{mode}"),
            with_behaviour(&format!("kind = \"follow_path\"\npath = \"stop\"\nmode = \"{mode}\""), path),
            (25, 8),
            &[
                "`groups[0].behaviours[0].mode`",
                &format!(r#"path "stop" has 1 node; mode "{mode}" needs at least 2"#),
            ],
        );
    }
    // Without `mode` the default is loop; the problem is reported at the behaviour's header,
    // `[[groups.behaviours]]` on line 22.
    check_rejects(
        "cli_short_path_default",
        with_behaviour("kind = \"follow_path\"\npath = \"stop\"", path),
        (22, 1),
        &["`groups[0].behaviours[0].mode`", r#"mode "loop" needs at least 2"#],
    );
    // A one-node path is fine for `once`.
    check_accepts(
        "cli_short_path_once",
        with_behaviour("kind = \"follow_path\"\npath = \"stop\"\nmode = \"once\"", path),
    );
    // And a path needs at least one node: line 28 `nodes = []`, the value at column 9.
    check_rejects(
        "cli_empty_path",
        with_behaviour(
            "kind = \"follow_path\"\npath = \"stop\"\nmode = \"once\"",
            "\n[paths.stop]\nnodes = []\nradius = 1.0\n",
        ),
        (28, 9),
        &["`paths.stop.nodes`", "expected at least one node"],
    );
}

#[test]
fn obstacle_sizes_must_be_positive() {
    // Line 6 becomes `obstacles = [{ kind = "circle", centre = [50, 50], radius = R }]`; the
    // 60 characters before R put it at column 61.
    for (i, r) in ["0", "-1", "0.0"].iter().enumerate() {
        let line = format!(
            r#"ticks = 10
obstacles = [{{ kind = "circle", centre = [50, 50], radius = {r} }}]"#
        );
        check_rejects(
            &format!("cli_obstacle_radius_{i}"),
            base_with("ticks = 10", &line),
            (6, 61),
            &[
                "`obstacles[0].radius`",
                "expected a finite number > 0",
                &format!("found {}", r.trim_end_matches(".0")),
            ],
        );
    }
}

#[test]
fn inverted_or_empty_obstacle_rectangle_is_rejected() {
    // `obstacles = [{ kind = "rect", min = [10, 10], max = ` is 52 characters: column 53.
    for (i, max) in ["[5, 20]", "[20, 5]", "[10, 20]"].iter().enumerate() {
        let line = format!(
            r#"ticks = 10
obstacles = [{{ kind = "rect", min = [10, 10], max = {max} }}]"#
        );
        check_rejects(
            &format!("cli_obstacle_rect_{i}"),
            base_with("ticks = 10", &line),
            (6, 53),
            &["`obstacles[0].max`", "an inverted or empty rectangle", "max > min"],
        );
    }
}

/// A spawn source appended to `BASE`: lines 26-33 (`[[sources]]` on 26, `group` on 28,
/// `rate` on 32).
fn with_source(group: &str, rate: &str) -> String {
    format!(
        "{BASE}\n[[sources]]\nname = \"door\"\ngroup = \"{group}\"\nkind = \"rect\"\nmin = [0, 0]\nmax = [5, 5]\nrate = {rate}\nmax_agents = 10\n"
    )
}

#[test]
fn spawn_source_rate_must_not_be_negative() {
    // `rate = ` is 7 characters: column 8 of line 32.
    check_rejects(
        "cli_source_rate",
        with_source("walkers", "-1"),
        (32, 8),
        &["`sources[0].rate`", "expected a finite number >= 0", "found -1"],
    );
    check_rejects(
        "cli_source_rate_small",
        with_source("walkers", "-0.5"),
        (32, 8),
        &["`sources[0].rate`", "found -0.5"],
    );
    check_accepts("cli_source_rate_zero", with_source("walkers", "0"));
}

#[test]
fn spawn_source_distances_must_not_be_negative() {
    // Line 34, after `max_agents`; `min_distance = ` is 15 characters: column 16.
    check_rejects(
        "cli_source_min_distance",
        with_source("walkers", "2") + "min_distance = -0.4\n",
        (34, 16),
        &["`sources[0].min_distance`", "expected a finite number >= 0", "found -0.4"],
    );
    check_rejects(
        "cli_source_wall_distance",
        with_source("walkers", "2") + "wall_distance = \"far\"\n",
        (34, 17),
        &["`sources[0].wall_distance`", "expected a number", "found the text \"far\""],
    );
    check_accepts(
        "cli_source_distances",
        with_source("walkers", "2") + "min_distance = 0.5\nwall_distance = 0.3\n",
    );
}

#[test]
fn spawn_source_of_an_unknown_group_suggests_the_nearest() {
    // `group = ` is 8 characters: column 9 of line 28.
    check_rejects(
        "cli_source_group",
        with_source("walker", "2"),
        (28, 9),
        &[
            "`sources[0].group`",
            r#"no group is named "walker"; did you mean "walkers"?"#,
            "(groups: walkers)",
        ],
    );
}

#[test]
fn exit_for_an_unknown_group_is_located_in_its_list() {
    // 26 [[exits]] ... 31 groups = ["walkers", "runners"]: `groups = ["walkers", ` is 21
    // characters, so "runners" is at column 22.
    let text = format!(
        "{BASE}\n[[exits]]\nname = \"out\"\nkind = \"circle\"\ncentre = [50, 50]\nradius = 5\ngroups = [\"walkers\", \"runners\"]\n"
    );
    check_rejects(
        "cli_exit_group",
        text,
        (31, 22),
        &["`exits[0].groups[1]`", r#"no group is named "runners""#],
    );
}

#[test]
fn exit_outside_the_bounds_is_a_warning_for_check_and_run() {
    // 26 [[exits]] / 27 name = "far" / 28 kind / 29 centre = [500, 500] / 30 radius = 5: the
    // circle lies wholly outside the 100 x 100 bounds. The warning points at the exit's header.
    let dir = scratch_dir("cli_exit_outside");
    let path = write(
        &dir,
        "far.toml",
        format!("{BASE}\n[[exits]]\nname = \"far\"\nkind = \"circle\"\ncentre = [500, 500]\nradius = 5\n"),
    );
    let p = path.to_str().unwrap();
    let warning = format!(
        "warning: {p}:26:1: `exits[0]`: exit \"far\" lies outside the bounds; agents must leave the bounds to reach it"
    );
    let out = throng(&["check", p]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.starts_with(&format!("ok     {p}: \"cli\", 6 agents")), "{stdout}");
    assert_eq!(stderr.lines().collect::<Vec<_>>(), [warning.as_str()], "{stderr}");
    let out = throng(&["run", p, "--ticks", "2", "--quiet"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{stderr}");
    assert_eq!(stderr.lines().next(), Some(warning.as_str()), "{stderr}");
    assert_eq!(stderr.matches("warning: ").count(), 1, "{stderr}");
}

#[test]
fn queue_takes_no_weight() {
    // `weight = ` is 9 characters: column 10 of line 24.
    check_rejects(
        "cli_queue_weight",
        with_behaviour("kind = \"queue\"\nweight = 2.0", ""),
        (24, 10),
        &["`groups[0].behaviours[0].weight`", "`queue` takes no weight"],
    );
}

#[test]
fn a_group_has_at_most_one_queue() {
    // 23 kind = "seek" / 24 target = "home" / 25 / 26 [[groups.behaviours]] / 27 kind = "queue" /
    // 28 / 29 [[groups.behaviours]] / 30 kind = "queue": the second one's kind, column 8.
    let text = format!(
        "{BASE}\n[[groups.behaviours]]\nkind = \"queue\"\n\n[[groups.behaviours]]\nkind = \"queue\"\nqueue_radius = 0.8\n"
    );
    check_rejects(
        "cli_two_queues",
        text,
        (30, 8),
        &["`groups[0].behaviours[2].kind`", "a group may have only one `queue` behaviour"],
    );
}

#[test]
fn sensing_radius_must_cover_the_queue_look_ahead() {
    // Line 21 becomes `sensing_radius = 2.5` (value at column 18); the group's behaviours move
    // down one line and a queue with queue_ahead 2 + queue_radius 1 = 3 is appended.
    let text = |r: &str| {
        let text = base_with("max_force = 1.0", &format!("max_force = 1.0\nsensing_radius = {r}"));
        format!("{text}\n[[groups.behaviours]]\nkind = \"queue\"\nqueue_ahead = 2.0\nqueue_radius = 1.0\n")
    };
    check_rejects(
        "cli_queue_sensing",
        text("2.5"),
        (21, 18),
        &[
            "`groups[0].sensing_radius`",
            "sensing_radius 2.5 is smaller than a behaviour's or the model's neighbour radius (3)",
        ],
    );
    check_accepts("cli_queue_sensing_ok", text("3"));
}
