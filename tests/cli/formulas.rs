//! Parameters and formulas (`[params]`, `"= 5 + width / 2"`): a formula becomes its number
//! before the scenario is read, an override of a parameter moves every value computed from it,
//! and a bad formula or parameter is an error at its own line and column.

use throng_engine::Scenario;
use throng_engine::math::Vec2;
use throng_engine::scenario::overrides::{self, parse_set};
use throng_engine::world::Obstacle;

use super::check_rejects;
use crate::common::root;

#[test]
fn one_width_moves_the_walls_and_the_gate_together() {
    let path = root().join("scenarios/models/bottleneck_flow.toml");
    let text = std::fs::read_to_string(&path).expect("the scene");
    let corridor = |s: &Scenario| {
        let Obstacle::Wall { points, .. } = &s.obstacles[0] else { panic!("a wall") };
        // The corridor's two sides, centre lines 0.05 outside the clear width.
        (points[0].y - points[7].y - 0.1, s.gates[0].from, s.gates[0].to)
    };
    let default = Scenario::parse(&text, "flow.toml").expect("valid");
    let (width, from, to) = corridor(&default);
    assert!((width - 1.2).abs() < 1e-6, "the file's width, 1.2: {width}");
    assert_eq!((from, to), (Vec2::new(11.0, 4.35), Vec2::new(11.0, 5.65)));
    let set = parse_set("params.width=1.6", "--set").expect("an override");
    let wider = overrides::parse(&text, "flow.toml", &set).expect("valid");
    let (width, from, to) = corridor(&wider);
    assert!((width - 1.6).abs() < 1e-6, "{width}");
    assert_eq!((from, to), (Vec2::new(11.0, 4.15), Vec2::new(11.0, 5.85)));
}

/// A minimal scene whose group count is a formula (line 9) over `[params]` (line 15).
fn scene(count: &str, params: &str) -> String {
    format!(
        "version = 1\nname = \"f\"\nseed = 1\ndt = 0.1\nticks = 10\n\n[[groups]]\nname = \"g\"\ncount = {count}\nspawn = {{ kind = \"rect\", min = [0, 0], max = [10, 10] }}\nmax_speed = 1.0\nmax_force = 1.0\n\n{params}\n\n[bounds]\nmin = [0, 0]\nmax = [10, 10]\n"
    )
}

#[test]
fn a_whole_valued_formula_counts_agents() {
    let s = Scenario::parse(&scene("\"= rows * 4\"", "[params]\nrows = 3"), "f.toml").expect("valid");
    assert_eq!(s.groups[0].count, 12);
}

#[test]
fn bad_formulas_and_parameters_are_errors_at_their_place() {
    check_rejects(
        "formula_unknown_name",
        scene("\"= rws * 4\"", "[params]\nrows = 3"),
        (9, 9),
        &[
            "`groups[0].count`",
            "the formula `= rws * 4`: no parameter `rws` in [params]; did you mean `rows`?",
        ],
    );
    check_rejects(
        "formula_unreadable",
        scene("\"= (rows * 4\"", "[params]\nrows = 3"),
        (9, 9),
        &["`groups[0].count`", "a `(` is not closed"],
    );
    check_rejects(
        "formula_division_by_zero",
        scene("\"= 4 / (rows - 3)\"", "[params]\nrows = 3"),
        (9, 9),
        &["`groups[0].count`", "its value is inf (a division by zero?)"],
    );
    check_rejects(
        "formula_parameter_not_a_number",
        scene("\"= rows\"", "[params]\nrows = \"three\""),
        (15, 8),
        &["`params.rows`", "expected a number, found string"],
    );
    check_rejects(
        "formula_no_params",
        scene("\"= rows\"", ""),
        (9, 9),
        &["no parameter `rows`: the file has no [params]"],
    );
    check_rejects(
        "formula_fractional_count",
        scene("\"= rows / 2\"", "[params]\nrows = 3"),
        (9, 9),
        &["`groups[0].count`"],
    );
}
