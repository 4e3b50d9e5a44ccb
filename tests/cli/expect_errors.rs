//! Bad `[[expect]]` entries: each rejected with its key and position (exit 2). Every case
//! appends one entry to `BASE` (24 lines): `[[expect]]` is line 26, its first key line 27.

use super::{BASE, check_rejects};

fn with_entry(keys: &str) -> String {
    format!("{BASE}\n[[expect]]\n{keys}\n")
}

const CIRCLE: &str = "region = { kind = \"circle\", centre = [5, 5], radius = 2 }";

#[test]
fn unknown_names_are_rejected_with_a_suggestion() {
    check_rejects(
        "expect_unknown_check",
        with_entry("check = \"evr\"\nmetric = \"agents_active\"\nmin = 1"),
        (27, 9),
        &["`expect[0].check`", "unknown value \"evr\"; did you mean `ever`?"],
    );
    check_rejects(
        "expect_unknown_metric",
        with_entry("metric = \"agent_active\"\nmax = 1"),
        (27, 10),
        &["`expect[0].metric`", "unknown metric \"agent_active\"; did you mean \"agents_active\"?"],
    );
    check_rejects(
        "expect_unknown_group",
        with_entry(&format!("check = \"reach\"\ngroup = \"walkrs\"\n{CIRCLE}\nbefore_s = 3")),
        (28, 9),
        &["`expect[0].group`", "no group is named \"walkrs\"; did you mean \"walkers\"?"],
    );
    check_rejects(
        "expect_unknown_key",
        with_entry("metric = \"agents_active\"\nmx = 1"),
        (28, 1),
        &["`expect[0].mx`", "unknown key `mx`; did you mean `max`?"],
    );
    check_rejects(
        "expect_unknown_agent",
        with_entry(&format!("check = \"reach\"\nagent = 6\n{CIRCLE}\nbefore_s = 3")),
        (28, 9),
        &["`expect[0].agent`", "no agent has id 6: this scenario's ids run from 0 to 5"],
    );
}

#[test]
fn bounds_and_keys_that_do_not_fit_the_check_are_rejected() {
    check_rejects(
        "expect_min_over_max",
        with_entry("metric = \"agents_active\"\nmin = 3\nmax = 1"),
        (28, 7),
        &["`expect[0].min`", "expected min <= max, found min 3 > max 1"],
    );
    check_rejects(
        "expect_no_bounds",
        with_entry("metric = \"agents_active\""),
        (26, 1),
        &["`expect[0]`", "an \"end\" expectation needs `min`, `max` or both"],
    );
    check_rejects(
        "expect_summary_over_time",
        with_entry("check = \"always\"\nmetric = \"mean_wait_s\"\nmax = 1"),
        (28, 10),
        &["`expect[0].metric`", "can only be checked at the end"],
    );
    check_rejects(
        "expect_key_of_another_check",
        with_entry("metric = \"agents_active\"\nmax = 1\nat_s = 3"),
        (29, 8),
        &[
            "`expect[0].at_s`",
            "is not a parameter of an \"end\" expectation (it takes: metric, minus, region, group, min, max)",
        ],
    );
    check_rejects(
        "expect_reach_whom",
        with_entry(&format!("check = \"reach\"\n{CIRCLE}\nbefore_s = 3")),
        (26, 1),
        &["`expect[0]`", "missing key `agent` or `group` for a \"reach\" expectation"],
    );
    check_rejects(
        "expect_negative_time",
        with_entry("check = \"at\"\nat_s = -1\nmetric = \"agents_active\"\nmin = 1"),
        (28, 8),
        &["`expect[0].at_s`", "expected a time from 0 to 1e9 seconds, found -1"],
    );
    check_rejects(
        "expect_window_backwards",
        with_entry("check = \"ever\"\nfrom_s = 0.5\nto_s = 0.2\nmetric = \"agents_active\"\nmin = 1"),
        (28, 10),
        &["`expect[0].from_s`", "expected from_s <= to_s"],
    );
    check_rejects(
        "expect_name_twice",
        format!(
            "{}\n[[expect]]\nname = \"x\"\nmetric = \"agents_active\"\nmin = 1\n",
            with_entry("name = \"x\"\nmetric = \"agents_active\"\nmin = 1")
        ),
        (32, 8),
        &["`expect[1].name`", "expectation name \"x\" is used twice"],
    );
}

#[test]
fn differences_and_group_statistics_are_checked() {
    check_rejects(
        "expect_minus_with_region",
        with_entry(&format!("{CIRCLE}\nminus = \"agents_active\"\nmax = 1")),
        (28, 9),
        &["`expect[0].minus`", "`minus` goes with `metric`"],
    );
    check_rejects(
        "expect_minus_other_kind",
        with_entry("metric = \"mean_wait_s\"\nminus = \"agents_active\"\nmax = 1"),
        (28, 9),
        &[
            "`expect[0].minus`",
            "\"mean_wait_s\" and \"agents_active\" are not read alike",
            "two of the same kind",
        ],
    );
    check_rejects(
        "expect_minus_unknown",
        with_entry("metric = \"agents_active\"\nminus = \"agents_activ\"\nmax = 1"),
        (28, 9),
        &["`expect[0].minus`", "unknown metric \"agents_activ\"; did you mean \"agents_active\"?"],
    );
    check_rejects(
        "expect_minus_summary_in_a_window",
        with_entry("check = \"always\"\nmetric = \"agents_active\"\nminus = \"mean_wait_s\"\nmax = 1"),
        (29, 9),
        &["`expect[0].minus`", "\"mean_wait_s\" is a summary of the whole run", "check = \"end\""],
    );
    check_rejects(
        "expect_group_statistic_unknown",
        with_entry("metric = \"groups.walkers.speed.median\"\nmax = 1"),
        (27, 10),
        &["`expect[0].metric`", "did you mean \"groups.walkers.speed.mean\"?"],
    );
}
