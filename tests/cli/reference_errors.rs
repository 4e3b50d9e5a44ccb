//! References between targets, groups and behaviours: unknown names suggest the nearest.

use super::{base_with, check_rejects};

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
