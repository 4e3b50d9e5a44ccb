//! The `throng` binary on bad and good input: every rejected scenario exits with code 2, never
//! panics, and names the file, the line and column, and the key; the happy paths print what
//! they promise.
//!
//! Expected positions are worked out by hand from the text written here (1-based lines, columns
//! counted in characters), not read back from the implementation.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{load, root, scratch_dir, throng};

/// A small valid scenario. Line numbers, for the expected positions below:
///
/// ```text
///  1 version = 1
///  2 name = "cli"
///  3 seed = 3
///  4 dt = 0.1
///  5 ticks = 10
///  6
///  7 [bounds]
///  8 min = [0, 0]
///  9 max = [100, 100]
/// 10
/// 11 [targets.home]
/// 12 kind = "point"
/// 13 position = [50, 50]
/// 14
/// 15 [[groups]]
/// 16 name = "walkers"
/// 17 count = 6
/// 18 spawn = { kind = "rect", min = [0, 0], max = [20, 20] }
/// 19 max_speed = 2.0
/// 20 max_force = 1.0
/// 21
/// 22 [[groups.behaviours]]
/// 23 kind = "seek"
/// 24 target = "home"
/// ```
const BASE: &str = r#"version = 1
name = "cli"
seed = 3
dt = 0.1
ticks = 10

[bounds]
min = [0, 0]
max = [100, 100]

[targets.home]
kind = "point"
position = [50, 50]

[[groups]]
name = "walkers"
count = 6
spawn = { kind = "rect", min = [0, 0], max = [20, 20] }
max_speed = 2.0
max_force = 1.0

[[groups.behaviours]]
kind = "seek"
target = "home"
"#;

/// `BASE` with the whole line `line` replaced by `with` (which may span several lines).
fn base_with(line: &str, with: &str) -> String {
    let needle = format!("\n{line}\n");
    assert_eq!(BASE.matches(&needle).count(), 1, "`{line}` is not exactly one line of BASE");
    BASE.replacen(&needle, &format!("\n{with}\n"), 1)
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write scratch file");
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the run failed cleanly: exit code 2, nothing on stdout, no panic, and one
/// `error: ` line on stderr that starts with `FILE:LINE:COL: ` and contains every piece of `has`.
#[track_caller]
fn assert_error_at(out: &Output, file: &Path, line_col: (usize, usize), has: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert!(out.stdout.is_empty(), "stdout should be empty: {}", text(&out.stdout));
    let (line, col) = line_col;
    let prefix = format!("error: {}:{line}:{col}: ", file.display());
    assert!(stderr.starts_with(&prefix), "expected stderr to start with `{prefix}`, got: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    for piece in has {
        assert!(stderr.contains(piece), "expected `{piece}` in: {stderr}");
    }
}

/// `throng check` on `contents` written to `name` in a fresh scratch dir; asserts the error.
#[track_caller]
fn check_rejects(test: &str, contents: impl AsRef<[u8]>, line_col: (usize, usize), has: &[&str]) {
    let dir = scratch_dir(test);
    let path = write(&dir, "scenario.toml", contents);
    let out = throng(&["check", path.to_str().expect("utf-8 path")]);
    assert_error_at(&out, &path, line_col, has);
}

// ---------------------------------------------------------------------------------------------
// Files that cannot be read or parsed.

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
    check_rejects("cli_syntax", base_with("dt = 0.1", "dt = 0.1.2"), (4, 9), &["invalid float"]);
}

#[test]
fn wrong_type_names_key_and_expected_type() {
    // The value starts after `dt = `, at column 6.
    check_rejects("cli_wrong_type", base_with("dt = 0.1", r#"dt = "fast""#), (4, 6), &["`dt`", "f32"]);
    // Inside a [[groups]] table: `count = ` is 8 characters.
    check_rejects(
        "cli_wrong_type_group",
        base_with("count = 6", "count = -1"),
        (17, 9),
        &["`groups[0].count`", "u64"],
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

// ---------------------------------------------------------------------------------------------
// Values out of range.

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
    // On the command line too (clap's usage error, exit 2).
    let out = throng(&["run", "scenarios/seek_arrive.toml", "--ticks", "1", "--sensing-skin=-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected a finite distance of 0 or more"), "{}", text(&out.stderr));
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
    for (i, dt) in ["0", "0.0", "-0.5"].iter().enumerate() {
        check_rejects(
            &format!("cli_dt_{i}"),
            base_with("dt = 0.1", &format!("dt = {dt}")),
            (4, 6),
            &["`dt`", "> 0"],
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

// ---------------------------------------------------------------------------------------------
// References between targets, groups and behaviours.

#[test]
fn nearest_target_of_unknown_group_suggests_nearest() {
    // Lines 12 and 13 become `kind = "nearest"` and `group = "walker"`; the value is at column 9.
    let text = base_with(r#"kind = "point""#, r#"kind = "nearest""#);
    let text = text.replacen("position = [50, 50]", r#"group = "walker""#, 1);
    check_rejects(
        "cli_nearest_unknown_group",
        text,
        (13, 9),
        &["`targets.home.group`", r#"no group is named "walker"; did you mean "walkers"?"#],
    );
}

#[test]
fn group_cannot_target_nearest_of_itself() {
    let text = base_with(r#"kind = "point""#, r#"kind = "nearest""#);
    let text = text.replacen("position = [50, 50]", r#"group = "walkers""#, 1);
    check_rejects(
        "cli_nearest_own_group",
        text,
        (24, 10),
        &["`groups[0].behaviours[0].target`", "cannot target the nearest of its own members"],
    );
}

#[test]
fn unknown_target_name_suggests_nearest() {
    check_rejects(
        "cli_unknown_target",
        base_with(r#"target = "home""#, r#"target = "hom""#),
        (24, 10),
        &["`groups[0].behaviours[0].target`", r#"no target is named "hom"; did you mean "home"?"#],
    );
}

#[test]
fn parameter_of_another_behaviour_kind_is_rejected() {
    check_rejects(
        "cli_foreign_param",
        base_with(r#"target = "home""#, "target = \"home\"\njitter = 0.5"),
        (25, 10),
        &["`groups[0].behaviours[0].jitter`", "`jitter` is not a parameter of `seek`", "target"],
    );
}

#[test]
fn unknown_behaviour_kind_suggests_nearest() {
    check_rejects(
        "cli_unknown_kind",
        base_with(r#"kind = "seek""#, r#"kind = "wandr""#),
        (23, 8),
        &["`groups[0].behaviours[0].kind`", r#"unknown value "wandr""#, "did you mean `wander`?"],
    );
}

#[test]
fn range_with_min_above_max_is_rejected() {
    // `max_speed = { min = ` is 20 characters: `min`'s value is at column 21.
    check_rejects(
        "cli_range_order",
        base_with("max_speed = 2.0", "max_speed = { min = 3, max = 2 }"),
        (19, 21),
        &["`groups[0].max_speed.min`", "min <= max", "min 3 > max 2"],
    );
}

#[test]
fn wrapped_world_must_be_wider_than_twice_the_sensing_radius() {
    // `kind = "wrap"` is inserted as line 8, so the group's lines move down by one:
    // `sensing_radius = 50` is line 22 and its value starts at column 18. 2 × 50 is not < 100.
    let text = base_with("[bounds]", "[bounds]\nkind = \"wrap\"");
    let text = text.replacen("max_force = 1.0\n", "max_force = 1.0\nsensing_radius = 50\n", 1);
    check_rejects(
        "cli_wrap_narrow",
        text,
        (22, 18),
        &["`groups[0].sensing_radius`", "wider than twice the sensing radius (50)", "100 x 100"],
    );
}

// ---------------------------------------------------------------------------------------------
// `throng check` and `throng run`.

#[test]
fn check_several_files_reports_each() {
    let dir = scratch_dir("cli_check_several");
    let good = write(&dir, "good.toml", BASE);
    let bad = write(&dir, "bad.toml", base_with("dt = 0.1", "dt = 0"));
    // The bad file first: checking carries on after an error.
    let out = throng(&["check", bad.to_str().unwrap(), good.to_str().unwrap(), "scenarios/flock.toml"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let ok: Vec<&str> = stdout.lines().collect();
    assert_eq!(ok.len(), 2, "{stdout}");
    assert!(ok[0].starts_with(&format!("ok     {}: ", good.display())), "{stdout}");
    assert!(ok[1].starts_with("ok     scenarios/flock.toml: \"flock\""), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: {}:4:6: `dt`", bad.display())), "{stderr}");
}

#[test]
fn check_shipped_flock_succeeds() {
    let out = throng(&["check", "scenarios/flock.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let agents = load(&root().join("scenarios/flock.toml")).agent_count();
    assert!(
        stdout.starts_with(&format!("ok     scenarios/flock.toml: \"flock\", {agents} agents")),
        "{stdout}"
    );
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Runs the binary, expects success and exactly one JSON line on stdout.
fn run_json(args: &[&str]) -> serde_json::Value {
    let out = throng(args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout}");
    serde_json::from_str(&stdout).expect("stdout is a JSON object")
}

#[test]
fn run_json_reports_the_run() {
    let scenario = load(&root().join("scenarios/flock.toml"));
    let v = run_json(&["run", "scenarios/flock.toml", "--ticks", "5", "--threads", "2", "--json"]);
    assert_eq!(v["scenario"], "flock");
    assert_eq!(v["seed"], scenario.seed);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["index"], scenario.index.name());
    assert_eq!(v["agents"], scenario.agent_count());
    assert_eq!(v["ticks"], 5);
    assert!(is_hex64(v["hash"].as_str().expect("hash is a string")), "{v}");
    assert!(v["ms_per_tick"].as_f64().is_some_and(|ms| ms >= 0.0), "{v}");
    let passes = v["passes"].as_object().expect("passes is an object");
    for pass in ["build_index", "sense_neighbours", "steer", "integrate"] {
        assert!(passes.get(pass).and_then(|ms| ms.as_f64()).is_some_and(|ms| ms >= 0.0), "{pass}: {v}");
    }
    assert!(v.get("hashes").is_none(), "no hashes without --hash-every: {v}");
    // --seed overrides the scenario's seed.
    let v = run_json(&["run", "scenarios/flock.toml", "--ticks", "1", "--seed", "99", "--json"]);
    assert_eq!(v["seed"], 99);
}

#[test]
fn run_hash_every_lists_ticks_including_zero() {
    let v = run_json(&["run", "scenarios/flock.toml", "--ticks", "5", "--hash-every", "2", "--json"]);
    let hashes = v["hashes"].as_array().expect("hashes is an array");
    let ticks: Vec<u64> = hashes.iter().map(|h| h[0].as_u64().expect("tick")).collect();
    assert_eq!(ticks, [0, 2, 4]);
    for h in hashes {
        assert_eq!(h.as_array().map(Vec::len), Some(2), "[tick, hex]: {h}");
        assert!(is_hex64(h[1].as_str().expect("hex string")), "{h}");
    }
    assert_ne!(hashes[0][1], hashes[2][1], "the state should change");
    // The last listed hash is the final hash when the run ends on a multiple of K.
    let dir = scratch_dir("cli_hash_every");
    let path = write(&dir, "base.toml", BASE);
    let v = run_json(&["run", path.to_str().unwrap(), "--ticks", "4", "--hash-every", "2", "--json"]);
    let hashes = v["hashes"].as_array().expect("hashes");
    assert_eq!(hashes.len(), 3);
    assert_eq!(hashes[2][0], 4);
    assert_eq!(hashes[2][1], v["hash"]);
}

#[test]
fn run_trace_writes_one_row_per_agent_per_traced_tick() {
    // Two groups: ids are sequential across groups in file order (walkers 0-5, then 6-8).
    let extra = r#"target = "home"

[[groups]]
name = "idlers"
count = 3
spawn = { kind = "points", points = [[1, 1], [2, 2], [3, 3]] }
max_speed = 1.0
max_force = 1.0"#;
    let dir = scratch_dir("cli_trace");
    let scenario = write(&dir, "two.toml", base_with(r#"target = "home""#, extra));
    let trace = dir.join("trace.csv");
    let out = throng(&[
        "run",
        scenario.to_str().unwrap(),
        "--ticks",
        "5",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-every",
        "2",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "--quiet prints nothing: {}", text(&out.stdout));
    let csv = std::fs::read_to_string(&trace).expect("trace written");
    let mut lines = csv.lines();
    let header = lines.next().expect("header");
    assert!(header.starts_with("tick,id,"), "{header}");
    assert_eq!(header, "tick,id,group,x,y,vx,vy");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Ticks 0, 2 and 4 are traced; 9 agents each.
    assert_eq!(rows.len(), 9 * 3, "{csv}");
    for (r, row) in rows.iter().enumerate() {
        let (tick, id) = ((r / 9) * 2, r % 9);
        let group = if id < 6 { "walkers" } else { "idlers" };
        assert_eq!(row.len(), 7, "{row:?}");
        assert_eq!((row[0], row[1], row[2]), (tick.to_string().as_str(), id.to_string().as_str(), group));
        for value in &row[3..] {
            assert!(value.parse::<f32>().is_ok_and(f32::is_finite), "{row:?}");
        }
    }
    // Points spawns put agent k at points[k] at tick 0.
    assert_eq!((rows[6][3], rows[6][4]), ("1", "1"));
    assert_eq!((rows[8][3], rows[8][4]), ("3", "3"));
}

#[test]
fn run_trace_into_missing_directory_fails_cleanly() {
    let dir = scratch_dir("cli_trace_missing_dir");
    let scenario = write(&dir, "base.toml", BASE);
    let trace = dir.join("no").join("such").join("trace.csv");
    let out =
        throng(&["run", scenario.to_str().unwrap(), "--ticks", "2", "--trace", trace.to_str().unwrap()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: cannot create trace file {}: ", trace.display())),
        "{stderr}"
    );
    assert!(!trace.exists());
}

#[test]
fn run_rejects_zero_counts_in_options() {
    let dir = scratch_dir("cli_zero_options");
    let scenario = write(&dir, "base.toml", BASE);
    let s = scenario.to_str().unwrap();
    let trace = dir.join("t.csv");
    let t = trace.to_str().unwrap();
    for (args, message) in [
        (vec!["run", s, "--threads", "0"], "error: --threads must be at least 1"),
        (vec!["run", s, "--hash-every", "0"], "error: --hash-every must be at least 1"),
        (vec!["run", s, "--trace", t, "--trace-every", "0"], "error: --trace-every must be at least 1"),
    ] {
        let out = throng(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(stderr.trim_end(), message, "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// The complete example in docs/scenarios.md is a valid scenario.
#[test]
fn docs_example_scenario_is_valid() {
    let doc = std::fs::read_to_string(root().join("docs/scenarios.md")).expect("docs/scenarios.md");
    let section = doc.split("## A complete example").nth(1).expect("the example section");
    let example =
        section.split("```toml\n").nth(1).and_then(|s| s.split("```").next()).expect("a toml block");
    let dir = scratch_dir("cli_docs_example");
    let path = write(&dir, "pasture.toml", example);
    let out = throng(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"pasture\", 301 agents (sheep x300, dog x1)"),
        "{}",
        text(&out.stdout)
    );
}

// ---------------------------------------------------------------------------------------------
// Paths, leaders, obstacles, sources, exits and queues.

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
    assert!(stdout.contains("7 agents (walkers x6, chief x1)"), "{stdout}");
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
            "sensing_radius 2.5 is smaller than a behaviour's neighbour radius (3)",
        ],
    );
    check_accepts("cli_queue_sensing_ok", text("3"));
}

/// A number out of a JSON object, or a failure naming the key.
fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is a number: {v}"))
}

#[test]
fn bench_reports_every_size_and_thread_count_as_json_and_csv() {
    let dir = scratch_dir("cli_bench");
    let csv = dir.join("bench.csv");
    let csv_arg = csv.to_str().expect("utf-8 path");
    let v = run_json(&[
        "bench",
        "scenarios/bench/crowd.toml",
        "--agents",
        "1600,400",
        "--threads",
        "1,2",
        "--ticks",
        "3",
        "--repeats",
        "3",
        "--warmup",
        "2",
        "--index",
        "kd,grid",
        "--json",
        "--csv",
        csv_arg,
    ]);
    assert_eq!(v["scenario"], "crowd");
    assert_eq!(v["index"], "kd,grid");
    assert_eq!(v["floor_runs"], 3, "three floors after each repeat");
    let results = v["results"].as_array().expect("results is a list");
    // Sizes ascending; at each, every index in the order given, at every thread count.
    let expected: Vec<(u64, &str, u64)> = [400, 1600]
        .into_iter()
        .flat_map(|a| ["kd", "grid"].into_iter().flat_map(move |i| [1, 2].map(|t| (a, i, t))))
        .collect();
    assert_eq!(results.len(), expected.len(), "{v}");
    for (r, &(agents, index, threads)) in results.iter().zip(&expected) {
        assert_eq!(r["agents"], agents, "{r}");
        assert_eq!(r["index"], index, "{r}");
        assert_eq!(r["threads"], threads, "{r}");
        // Density kept as the crowd scales: about 10 neighbours within the sensing radius.
        assert!((9.0..11.0).contains(&num(r, "neighbours")), "{r}");
        let (ms, lo, hi) = (num(r, "ms_per_tick"), num(r, "ms_per_tick_min"), num(r, "ms_per_tick_max"));
        assert!(0.0 < lo && lo <= ms && ms <= hi, "min <= median <= max: {r}");
        let floor = num(r, "floor_ms");
        assert!(floor > 0.0, "{r}");
        assert!((num(r, "ratio_to_floor") - ms / floor).abs() <= 1e-9 * ms / floor, "{r}");
        assert!(num(r, "ideal_pass_ms") > 0.0, "{r}");
        assert!((num(r, "ticks_per_s") - 1e3 / ms).abs() <= 1e-6 * 1e3 / ms, "{r}");
        assert!(
            (num(r, "agent_ticks_per_s") - agents as f64 * 1e3 / ms).abs() <= 1e-3 * agents as f64 / ms,
            "{r}"
        );
        assert!(num(r, "peak_rss_mb") > 0.0, "{r}");
        let passes = r["passes"].as_object().expect("passes is an object");
        for pass in throng_engine::Pass::ALL.iter().map(|p| p.name()) {
            assert!(passes.get(pass).and_then(|ms| ms.as_f64()).is_some_and(|ms| ms >= 0.0), "{pass}: {r}");
        }
        // The crowd reuses sensing candidates (`sensing_skin = 1.0`), so some ticks sense.
        assert_eq!(num(r, "sensing_skin"), 1.0, "{r}");
        assert!((0.0..=1.0).contains(&num(r, "sensed_fraction")), "{r}");
    }
    // The same results as CSV: a header, then one row per (agents, threads).
    let text = std::fs::read_to_string(&csv).expect("the CSV was written");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    for key in [
        "agents",
        "index",
        "threads",
        "ms_per_tick",
        "floor_ms",
        "ratio_to_floor",
        "ideal_pass_ms",
        "sensed_fraction",
        "peak_rss_mb",
    ] {
        assert!(header.contains(&key), "{key} in {header:?}");
    }
    assert!(header.contains(&"pass_sense_neighbours_ms"), "{header:?}");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), expected.len(), "{text}");
    let col = |key: &str| header.iter().position(|h| *h == key).expect("column");
    for (row, &(agents, index, threads)) in rows.iter().zip(&expected) {
        assert_eq!(row.len(), header.len(), "{text}");
        assert_eq!(row[col("agents")], agents.to_string(), "{text}");
        assert_eq!(row[col("index")], index, "{text}");
        assert_eq!(row[col("threads")], threads.to_string(), "{text}");
        assert!(row[col("ms_per_tick")].parse::<f64>().is_ok_and(|ms| ms > 0.0), "{text}");
    }
}

/// `--set` overrides the scenario before it is scaled, and the report says so: without a
/// sensing skin every timed tick senses with the index.
#[test]
fn bench_set_overrides_the_scenario_and_is_reported() {
    let dir = scratch_dir("cli_bench_set");
    let csv = dir.join("bench.csv");
    let v = run_json(&[
        "bench",
        "scenarios/bench/crowd.toml",
        "--agents",
        "600",
        "--threads",
        "1",
        "--ticks",
        "4",
        "--repeats",
        "1",
        "--warmup",
        "1",
        "--set",
        "sensing_skin=0",
        "--set",
        "groups.crowd.max_neighbours=4",
        "--json",
        "--csv",
        csv.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(v["overrides"], serde_json::json!(["groups.crowd.max_neighbours = 4", "sensing_skin = 0"]));
    let r = &v["results"][0];
    assert_eq!((num(r, "sensing_skin"), num(r, "sensed_fraction")), (0.0, 1.0), "{r}");
    assert_eq!(r["agents"], 600);
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("header").clone();
    let row = reader.records().next().expect("a row").expect("a record");
    let col = |key: &str| header.iter().position(|h| h == key).expect("column");
    assert_eq!(&row[col("overrides")], "groups.crowd.max_neighbours = 4; sensing_skin = 0");
    assert_eq!(&row[col("sensed_fraction")], "1.000");
}

/// `--csv` gets each row as soon as it is measured: a sweep stopped after its first size keeps
/// that size's row, whole, under the header.
#[test]
fn bench_csv_keeps_the_rows_of_a_stopped_sweep() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = scratch_dir("cli_bench_stopped");
    let csv = dir.join("bench.csv");
    // The first size takes a fraction of a second; the second, 25 times as many agents over
    // a thousand ticks, far longer than the test waits.
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["bench", "scenarios/bench/crowd.toml", "--agents", "200,5000", "--threads", "1"])
        .args(["--ticks", "500", "--repeats", "2", "--warmup", "0", "--quiet", "--csv"])
        .arg(&csv)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("throng starts");
    let started = Instant::now();
    let lines = |path: &Path| std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0);
    while lines(&csv) < 2 {
        assert!(child.try_wait().expect("wait").is_none(), "the sweep ended before its second size");
        assert!(started.elapsed() < Duration::from_secs(300), "no row after 300 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    let still_running = child.try_wait().expect("wait").is_none();
    child.kill().expect("SIGKILL");
    child.wait().expect("wait");
    assert!(still_running, "the second size was still running when the first row appeared");
    let text = std::fs::read_to_string(&csv).expect("the CSV");
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "the header and the first size only: {text}");
    assert!(text.ends_with('\n'), "the row is whole: {text:?}");
    let header = &rows[0];
    assert_eq!(rows[1].len(), header.len(), "{text}");
    let col = |key: &str| header.iter().position(|h| *h == key).expect("column");
    assert_eq!(rows[1][col("agents")], "200", "{text}");
    assert!(rows[1][col("ms_per_tick")].parse::<f64>().is_ok_and(|ms| ms > 0.0), "{text}");
}

#[test]
fn bench_rejects_bad_options_with_exit_2() {
    let cases: [(&[&str], &str); 10] = [
        (&["--index", "kd,nope"], "invalid value 'nope' for '--index"),
        (&["--set", "agents=500"], "--set agents=...: throng bench scales the scenario with --agents"),
        (&["--set", "groups.crowd.max_neighbour=5"], "--set: `groups.crowd.max_neighbour`: unknown key"),
        (&["--agents", "0"], "cannot scale to 0 agents"),
        // Every size is scaled before any runs, so a bad last size fails at once.
        (&["--agents", "400,30000000"], "cannot scale to 30000000 agents"),
        (
            &["--agents", "400", "--csv", "target/no/such/dir/bench.csv"],
            "cannot write target/no/such/dir/bench.csv",
        ),
        (&["--threads", "0"], "--threads must be at least 1"),
        (&["--repeats", "0"], "--ticks and --repeats must be at least 1"),
        (&["--neighbours=-1"], "--neighbours must be positive"),
        (&["--agents", "ten"], "invalid value 'ten' for '--agents"),
    ];
    for (extra, message) in cases {
        let mut args =
            vec!["bench", "scenarios/bench/crowd.toml", "--ticks", "1", "--warmup", "0", "--quiet"];
        args.extend_from_slice(extra);
        let out = throng(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{extra:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{extra:?}: {}", text(&out.stdout));
    }
    let out = throng(&["bench", "scenarios/no_such.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("scenarios/no_such.toml"), "{}", text(&out.stderr));
}
