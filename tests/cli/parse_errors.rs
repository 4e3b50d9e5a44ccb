//! Scenario files that cannot be read or parsed: each error located in the file.

use super::{BASE, base_with, check_rejects, text, write};
use crate::common::{scratch_dir, throng};

#[test]
fn base_scenario_is_valid() {
    let dir = scratch_dir("cli_base_valid");
    let path = write(&dir, "base.toml", BASE);
    let out = throng(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with(&format!("ok     {}: \"cli\", 6 agents", path.display())));
}

#[test]
fn missing_file_is_an_error_without_position() {
    let dir = scratch_dir("cli_missing_file");
    let path = dir.join("nowhere.toml");
    for cmd in ["check", "run"] {
        let out = throng(&[cmd, path.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr, format!("error: {}: no such file\n", path.display()));
    }
}

#[test]
fn directory_is_an_error_without_position() {
    let dir = scratch_dir("cli_directory");
    for cmd in ["check", "run"] {
        let out = throng(&[cmd, dir.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.starts_with(&format!("error: {}: is a directory", dir.display())), "{cmd}: {stderr}");
    }
}

#[test]
fn empty_file_is_reported_at_1_1() {
    check_rejects("cli_empty", "", (1, 1), &["the file is empty"]);
    // Only whitespace counts as empty too.
    check_rejects("cli_blank", " \n\t\n", (1, 1), &["the file is empty"]);
}

#[test]
fn non_utf8_byte_is_located_in_characters() {
    // Line 2 is `name = "café <0xFF>"`: 13 characters (14 bytes, é is two) precede the bad
    // byte, so it is at column 14.
    let mut bytes = b"version = 1\nname = \"caf\xC3\xA9 ".to_vec();
    bytes.extend_from_slice(b"\xFF\"\n");
    check_rejects("cli_non_utf8", bytes, (2, 14), &["not valid UTF-8"]);
}

#[test]
fn toml_syntax_error_is_located() {
    // `dt = 0.1.2`: the second `.` is the 9th character.
    check_rejects("cli_syntax", base_with("dt = 0.1", "dt = 0.1.2"), (4, 9), &["`dt`", "not a number"]);
}

#[test]
fn wrong_type_names_key_and_expected_type() {
    // The value starts after `dt = `, at column 6.
    check_rejects(
        "cli_wrong_type",
        base_with("dt = 0.1", r#"dt = "fast""#),
        (4, 6),
        &["`dt`", "expected a number, found the text \"fast\""],
    );
    // Inside a [[groups]] table: `count = ` is 8 characters.
    check_rejects(
        "cli_wrong_type_group",
        base_with("count = 6", "count = -1"),
        (17, 9),
        &["`groups[0].count`", "expected a whole number of 0 or more, found the whole number -1"],
    );
}

#[test]
fn unknown_key_at_top_level_suggests_nearest() {
    check_rejects(
        "cli_unknown_top",
        base_with("seed = 3", "seed = 3\nsede = 4"),
        (4, 1),
        &["`sede`", "unknown key `sede`", "did you mean `seed`?"],
    );
}

#[test]
fn unknown_key_in_group_suggests_nearest() {
    check_rejects(
        "cli_unknown_group",
        base_with("max_force = 1.0", "max_force = 1.0\nmas = 2.0"),
        (21, 1),
        &["`groups[0].mas`", "unknown key `mas`", "did you mean `mass`?"],
    );
}

#[test]
fn unknown_key_in_behaviour_suggests_nearest() {
    check_rejects(
        "cli_unknown_behaviour",
        base_with(r#"target = "home""#, r#"taget = "home""#),
        (24, 1),
        &["`groups[0].behaviours[0].taget`", "unknown key `taget`", "did you mean `target`?"],
    );
}

#[test]
fn unknown_key_in_inline_table_is_located() {
    // `spawn = { kind = "rect", min = [0, 0], max = [20, 20], ` is 55 characters.
    check_rejects(
        "cli_unknown_inline",
        base_with(
            r#"spawn = { kind = "rect", min = [0, 0], max = [20, 20] }"#,
            r#"spawn = { kind = "rect", min = [0, 0], max = [20, 20], maxx = 1 }"#,
        ),
        (18, 56),
        &["`groups[0].spawn.maxx`", "unknown key `maxx`"],
    );
}

#[test]
fn missing_key_is_named() {
    // A missing top-level key has no better place than the start of the file.
    check_rejects("cli_missing_dt", base_with("dt = 0.1", ""), (1, 1), &["missing key `dt`"]);
    // A missing key of a [[groups]] entry points at its header.
    check_rejects(
        "cli_missing_max_speed",
        base_with("max_speed = 2.0", ""),
        (15, 1),
        &["`groups[0]`", "missing key `max_speed`"],
    );
    // And of a [[groups.behaviours]] entry at that header.
    check_rejects(
        "cli_missing_kind",
        base_with(r#"kind = "seek""#, ""),
        (22, 1),
        &["`groups[0].behaviours[0]`", "missing key `kind`"],
    );
}

/// A batch file given to `check` (or a scenario given to `batch`) is named for what it is,
/// not reported as an unknown key.
#[test]
fn the_wrong_kind_of_file_is_named() {
    let out = throng(&["check", "scenarios/batches/flock_sweep.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("this is a batch file") && !stderr.contains("did you mean"), "{stderr}");
    let out = throng(&["batch", "scenarios/flock.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("this is a scenario file") && !stderr.contains("did you mean"), "{stderr}");
}

/// Whole numbers beyond what the reader holds are named at their own key, with the number as
/// written, wherever they stand: a behaviour's parameter, a model's table, a number key.
#[test]
fn numbers_too_large_to_read_are_named_at_their_key() {
    // Beyond i64, in a behaviour's parameters (kept raw until the behaviour's kind checks them):
    // serde places it at the behaviour's header and names neither key nor number.
    check_rejects(
        "cli_huge_param",
        base_with(r#"target = "home""#, "target = 18446744073709551615"),
        (24, 10),
        &[
            "`groups[0].behaviours[0].target`",
            "found the whole number 18446744073709551615, too large to read",
        ],
    );
    // Beyond u64, in a model's table: `model = { kind = "orca", time_horizon = ` is 40 characters.
    check_rejects(
        "cli_huge_model",
        base_with(
            "max_force = 1.0",
            "max_force = 1.0\nmodel = { kind = \"orca\", time_horizon = 99999999999999999999 }",
        ),
        (21, 41),
        &["`groups[0].model.time_horizon`", "found the whole number 99999999999999999999, too large to read"],
    );
    // Where a number is expected: it is one, but too large.
    check_rejects(
        "cli_huge_number",
        base_with("dt = 0.1", "dt = 99999999999999999999"),
        (4, 6),
        &["`dt`", "expected a number, found the whole number 99999999999999999999, too large to read"],
    );
    // A whole number above its key's range says the range (not "of 0 or more").
    check_rejects(
        "cli_huge_cap",
        base_with("max_force = 1.0", "max_force = 1.0\nmax_neighbours = 4294967296"),
        (21, 18),
        &[
            "`groups[0].max_neighbours`",
            "expected a whole number from 0 to 4294967295, found the whole number 4294967296",
        ],
    );
    // A number out of range is shown as written in exponent form, not as thirty-one digits.
    check_rejects(
        "cli_huge_force",
        base_with("max_force = 1.0", "max_force = 1e30"),
        (20, 13),
        &["`groups[0].max_force`", "expected a finite number > 0 and <= 1e9, found 1e30"],
    );
}

/// A table header given twice names the table, not just "duplicate key".
#[test]
fn a_table_given_twice_is_named() {
    check_rejects(
        "cli_twice",
        base_with("max = [100, 100]", "max = [100, 100]\n\n[bounds]"),
        (11, 2),
        &["`bounds`", "the table `[bounds]` is given twice"],
    );
}

/// A whole value written as a float where a whole number is asked for says how to write it,
/// and shows the float as written (`5.0`, not `5`).
#[test]
fn a_whole_number_written_as_a_float_says_how_to_write_it() {
    check_rejects(
        "cli_float_ticks",
        base_with("ticks = 10", "ticks = 1e3"),
        (5, 9),
        &["`ticks`", "found the number 1000.0; write it without a point or an exponent: 1000"],
    );
    check_rejects(
        "cli_float_count",
        base_with("count = 6", "count = 6.0"),
        (17, 9),
        &["`groups[0].count`", "found the number 6.0; write it without a point or an exponent: 6"],
    );
    // Not whole: no hint, the number as written.
    check_rejects(
        "cli_float_half",
        base_with("ticks = 10", "ticks = 2.5"),
        (5, 9),
        &["found the number 2.5"],
    );
}
