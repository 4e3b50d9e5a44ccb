//! Scenario values out of range: each rejected with its key and position.

use super::{base_with, check_rejects, text};
use crate::common::throng;

#[test]
fn bad_sensing_skins_are_rejected() {
    check_rejects(
        "cli_negative_skin",
        base_with("ticks = 10", "ticks = 10\nsensing_skin = -0.5"),
        (6, 16),
        &["`sensing_skin`", "-0.5"],
    );
    check_rejects(
        "cli_nan_skin",
        base_with("ticks = 10", "ticks = 10\nsensing_skin = nan"),
        (6, 16),
        &["`sensing_skin`", "NaN"],
    );
    check_rejects(
        "cli_word_skin",
        base_with("ticks = 10", "ticks = 10\nsensing_skin = \"atuo\""),
        (6, 16),
        &["`sensing_skin`", "\"atuo\"", "did you mean `auto`"],
    );
    check_rejects(
        "cli_bool_skin",
        base_with("ticks = 10", "ticks = 10\nsensing_skin = true"),
        (6, 16),
        &["`sensing_skin`", "a distance of 0 or more, or \"auto\""],
    );
    // On the command line too (clap's usage error, exit 2).
    let out = throng(&["run", "scenarios/seek_arrive.toml", "--ticks", "1", "--sensing-skin=-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected a finite distance of 0 or more"), "{}", text(&out.stderr));
}

#[test]
fn an_unknown_index_is_rejected_with_the_names_it_takes() {
    check_rejects(
        "cli_unknown_index",
        base_with("ticks = 10", "ticks = 10\nindex = \"quadtree\""),
        (6, 9),
        &["`index`", "\"quadtree\"", "auto, kd, brute, grid"],
    );
    let out = throng(&["run", "scenarios/seek_arrive.toml", "--ticks", "1", "--index", "quadtree"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("auto"), "{}", text(&out.stderr));
}

#[test]
fn nan_and_inf_are_rejected() {
    check_rejects("cli_nan_dt", base_with("dt = 0.1", "dt = nan"), (4, 6), &["`dt`", "finite", "NaN"]);
    check_rejects(
        "cli_inf_speed",
        base_with("max_speed = 2.0", "max_speed = inf"),
        (19, 13),
        &["`groups[0].max_speed`", "finite", "found inf"],
    );
    check_rejects(
        "cli_neg_inf_point",
        base_with("position = [50, 50]", "position = [50, -inf]"),
        (13, 12),
        &["`targets.home.position`", "found [50, -inf]"],
    );
    // `max_force = { min = 1, max = ` is 29 characters.
    check_rejects(
        "cli_nan_range",
        base_with("max_force = 1.0", "max_force = { min = 1, max = nan }"),
        (20, 30),
        &["`groups[0].max_force.max`", "NaN"],
    );
}

#[test]
fn dt_must_be_positive() {
    for (i, dt) in ["0", "0.0", "-0.5", "1e-45", "0.00009", "10.5"].iter().enumerate() {
        check_rejects(
            &format!("cli_dt_{i}"),
            base_with("dt = 0.1", &format!("dt = {dt}")),
            (4, 6),
            &["`dt`", "a finite number from 0.0001 to 10"],
        );
    }
}

#[test]
fn agent_parameters_must_be_positive() {
    // (replacement for `max_force = 1.0` or `max_speed = 2.0`, line, column, key)
    let cases = [
        ("max_speed = 2.0", "max_speed = 0", (19, 13), "`groups[0].max_speed`"),
        ("max_speed = 2.0", "max_speed = -3.0", (19, 13), "`groups[0].max_speed`"),
        ("max_force = 1.0", "max_force = 1.0\nmass = 0", (21, 8), "`groups[0].mass`"),
        ("max_force = 1.0", "max_force = 1.0\nmass = -1", (21, 8), "`groups[0].mass`"),
        ("max_force = 1.0", "max_force = 1.0\nradius = 0", (21, 10), "`groups[0].radius`"),
        ("max_force = 1.0", "max_force = 1.0\nradius = -0.5", (21, 10), "`groups[0].radius`"),
        // `mass = { min = ` is 15 characters: the range's `min` is at column 16.
        ("max_force = 1.0", "max_force = 1.0\nmass = { min = 0, max = 1 }", (21, 16), "`groups[0].mass.min`"),
    ];
    for (i, (line, with, at, key)) in cases.into_iter().enumerate() {
        check_rejects(&format!("cli_param_{i}"), base_with(line, with), at, &[key, "> 0"]);
    }
    // A mass above zero but below the floor has its own message.
    check_rejects(
        "cli_param_tiny_mass",
        base_with("max_force = 1.0", "max_force = 1.0\nmass = 1e-7"),
        (21, 8),
        &["`groups[0].mass`", ">= 1e-6"],
    );
}

#[test]
fn count_must_be_between_1_and_max_agents() {
    for (i, count) in ["0", "100000000000"].iter().enumerate() {
        check_rejects(
            &format!("cli_count_{i}"),
            base_with("count = 6", &format!("count = {count}")),
            (17, 9),
            &["`groups[0].count`", "from 1 to 20000000", &format!("found {count}")],
        );
    }
    // Beyond u64 the TOML layer rejects it, still located.
    check_rejects(
        "cli_count_huge",
        base_with("count = 6", "count = 100000000000000000000"),
        (17, 9),
        &["`groups[0].count`"],
    );
}

#[test]
fn total_agent_count_is_capped() {
    // Two groups of 15,000,000: each is allowed, together they are not. The error is on the
    // first [[groups]] header (line 15).
    let second = r#"max_force = 1.0

[[groups]]
name = "more"
count = 15000000
spawn = { kind = "rect", min = [0, 0], max = [20, 20] }
max_speed = 2.0
max_force = 1.0"#;
    let text = base_with("count = 6", "count = 15000000");
    let text = text.replacen(
        "max_force = 1.0\n\n[[groups.behaviours]]",
        &format!("{second}\n\n[[groups.behaviours]]"),
        1,
    );
    check_rejects(
        "cli_total_count",
        text,
        (15, 1),
        &["`groups`", "30000000 agents in all", "at most 20000000"],
    );
}

/// A point takes exactly two numbers: a third (or a word) is refused at the value, never
/// dropped, in the file and in `--set`.
#[test]
fn points_with_more_than_two_numbers_are_rejected() {
    check_rejects(
        "cli_point_three",
        base_with("min = [0, 0]", "min = [-10, -5, 3]"),
        (8, 7),
        &[
            "`bounds.min`",
            "expected a point [x, y] of two numbers (three coordinates need `dimensions = 3` at the top of the scenario), found [-10, -5, 3]",
        ],
    );
    check_rejects(
        "cli_point_four",
        base_with("position = [50, 50]", r#"position = [42, 15, 99, "x"]"#),
        (13, 12),
        &["`targets.home.position`", r#"found [42, 15, 99, "x"]"#],
    );
    check_rejects(
        "cli_spawn_point_three",
        base_with(
            "spawn = { kind = \"rect\", min = [0, 0], max = [20, 20] }",
            "count = 1\nspawn = { kind = \"points\", points = [[40, 40, 5]] }",
        )
        .replacen("count = 6\n", "", 1),
        // At the point itself (the list starts a column before).
        (18, 38),
        &["`groups[0].spawn.points[0]`", "found [40, 40, 5]"],
    );
    let out =
        throng(&["run", "scenarios/seek_arrive.toml", "--ticks", "1", "--set", "bounds.max=[110, 15, 7]"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("--set") && stderr.contains("found [110, 15, 7]"), "{stderr}");
}

/// `--ticks 0` is refused as a scenario's `ticks = 0` is.
#[test]
fn zero_ticks_are_refused_on_the_command_line_too() {
    for cmd in ["run", "record"] {
        let mut args = vec![cmd, "scenarios/seek_arrive.toml", "--ticks", "0"];
        if cmd == "record" {
            args.extend(["-o", "target/test-scratch/zero-ticks.golden.json"]);
        }
        let out = throng(&args);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(text(&out.stderr).contains("--ticks must be at least 1"), "{cmd}: {}", text(&out.stderr));
    }
}

/// Type errors name types as an author does ("a whole number", "a number", "a table") and
/// say what was found, never Rust's names (u64, f32, struct GroupToml, i128).
#[test]
fn type_errors_speak_the_authors_words() {
    check_rejects(
        "cli_words_count",
        base_with("count = 6", r#"count = "eighty""#),
        (17, 9),
        &["`groups[0].count`", "expected a whole number of 0 or more, found the text \"eighty\""],
    );
    check_rejects(
        "cli_words_seed",
        base_with("seed = 3", "seed = 18446744073709551616"),
        (3, 8),
        &["`seed`", "expected a whole number from 0 to 18446744073709551615"],
    );
    for (set, want) in [
        ("dt=fast", "expected a number, found the text \"fast\""),
        ("groups.walkers=1", "expected a table, found the whole number 1"),
    ] {
        let dir = crate::common::scratch_dir("cli_words_set");
        let path = super::write(&dir, "scenario.toml", super::BASE);
        let out = throng(&["run", path.to_str().expect("utf-8"), "--ticks", "1", "--set", set]);
        let stderr = text(&out.stderr);
        assert!(stderr.contains(want), "--set {set}: {stderr}");
        for jargon in ["u64", "f32", "struct", "i128", "invalid type"] {
            assert!(!stderr.contains(jargon), "--set {set}: {stderr}");
        }
    }
}

/// A group that only a spawn source fills may start empty (`count = 0`); any other group
/// needs agents, and says why 0 is refused.
#[test]
fn a_group_filled_only_by_a_source_may_start_empty() {
    let late = "\n[[groups]]\nname = \"late\"\ncount = 0\nspawn = { kind = \"rect\", min = [0, 0], max = [5, 5] }\nmax_speed = 1.0\nmax_force = 1.0\n";
    let source = "\n[[sources]]\nname = \"door\"\ngroup = \"late\"\nkind = \"rect\"\nmin = [0, 0]\nmax = [5, 5]\nrate = 10\nmax_agents = 50\n";
    let dir = crate::common::scratch_dir("cli_source_only_group");
    let ok = super::write(&dir, "ok.toml", format!("{}{late}{source}", super::BASE));
    let out = throng(&["run", ok.to_str().expect("utf-8"), "--ticks", "10", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("JSON");
    assert_eq!((r["agents_initial"].as_u64(), r["agents_spawned"].as_u64()), (Some(6), Some(10)), "{r}");
    check_rejects(
        "cli_empty_group",
        format!("{}{late}", super::BASE),
        (28, 9),
        &[
            "`groups[1].count`",
            "found 0 (0 is allowed only for a group a [[sources]] entry or an event fills, or one steered by an `own` target, whose agents a program spawns)",
        ],
    );
}

#[test]
fn a_direction_target_needs_a_direction_that_is_not_zero() {
    let text = base_with("position = [50, 50]", "direction = [0, 0]")
        .replace("kind = \"point\"", "kind = \"direction\"");
    check_rejects("cli_zero_direction", text, (13, 13), &["`targets.home.direction`", "not zero", "[0, 0]"]);
}

#[test]
fn normal_distributions_are_checked() {
    let normal = |with: &str| base_with("max_speed = 2.0", with);
    check_rejects(
        "cli_normal_mean_outside",
        normal("max_speed = { mean = 3, sd = 0.2, min = 1, max = 2 }"),
        (19, 22),
        &["`groups[0].max_speed.mean`", "expected a mean between min 1 and max 2, found 3"],
    );
    check_rejects(
        "cli_normal_sd_zero",
        normal("max_speed = { mean = 1.5, sd = 0, min = 1, max = 2 }"),
        (19, 32),
        &["`groups[0].max_speed.sd`", "> 0", "found 0"],
    );
    check_rejects(
        "cli_normal_no_sd",
        normal("max_speed = { mean = 1.5, min = 1, max = 2 }"),
        (19, 13),
        &["`groups[0].max_speed`", "a normal distribution needs `sd` beside `mean`"],
    );
    check_rejects(
        "cli_normal_min_over_max",
        normal("max_speed = { mean = 1.5, sd = 0.1, min = 3, max = 2 }"),
        (19, 43),
        &["`groups[0].max_speed.min`", "min <= max, found min 3 > max 2"],
    );
    // A `set` event's new distribution is checked as the group's own.
    let set = format!(
        "{}\n[[events]]\nat_s = 0.5\naction = \"set\"\nset = {{ \"groups.walkers.max_speed\" = {{ mean = 5, sd = 0.1, min = 1, max = 2 }} }}\n",
        super::BASE
    );
    check_rejects(
        "cli_normal_set_mean_outside",
        set,
        (29, 47),
        &[
            "`events[0].set.groups.walkers.max_speed.mean`",
            "expected a mean between min 1 and max 2, found 5",
        ],
    );
}

/// An `own` target takes no keys: its points come from the program (`Simulation::set_goal`).
#[test]
fn an_own_target_takes_no_keys() {
    let text = base_with("kind = \"point\"", "kind = \"own\"");
    check_rejects(
        "cli_own_target_keys",
        text,
        (13, 12),
        &["`targets.home.position`", "`position` is not a parameter of an \"own\" target (it takes none)"],
    );
}
