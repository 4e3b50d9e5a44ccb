//! Expectations in batches: each row records its scenario's verdicts (results.csv and
//! results.jsonl), `throng report` turns them into a pass rate per point, and judges the batch
//! file's own `[[expect]]` entries on statistics over the seeds (exit 1 when one fails).

use super::{text, write};
use crate::common::{scratch_dir, throng};

/// `count` still agents (no behaviours) in a rect; the expectation holds for 3 or fewer.
const SCENE: &str = r#"version = 1
name = "crowd"
seed = 1
dt = 0.1
ticks = 5

[bounds]
min = [0, 0]
max = [50, 50]

[[groups]]
name = "people"
count = 2
spawn = { kind = "rect", min = [10, 10], max = [40, 40] }
max_speed = 1.0
max_force = 1.0

[[expect]]
name = "few"
metric = "agents_active"
max = 3
"#;

/// Two points (2 and 5 agents) over two seeds; the batch expects every point's pass rate to
/// be 1 and its mean agent count at most 4.
const BATCH: &str = r#"version = 1

[[sweep]]
scenario = "crowd.toml"
seeds = [1, 2]
grid = { "groups.people.count" = [2, 5] }

[[expect]]
name = "always few"
metric = "expect.few"
min = 1

[[expect]]
metric = "agents_active"
stat = "max"
max = 4
"#;

#[test]
fn rows_record_verdicts_and_report_judges_the_batch() {
    let dir = scratch_dir("batch_expectations");
    write(&dir, "crowd.toml", SCENE);
    let batch = write(&dir, "batch.toml", BATCH);
    let out_dir = dir.join("out");
    let out =
        throng(&["batch", batch.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8"), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // results.csv: an `expect.few` column, pass for 2 agents and fail for 5.
    let csv = std::fs::read_to_string(out_dir.join("results.csv")).expect("results.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = header.iter().position(|h| *h == "expect.few").expect("an expect.few column");
    let count = header.iter().position(|h| *h == "set.groups.people.count").expect("the grid column");
    let verdicts: Vec<(String, String)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[count].to_string(), f[col].to_string())
        })
        .collect();
    assert_eq!(
        verdicts,
        [("2", "pass"), ("2", "pass"), ("5", "fail"), ("5", "fail")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );

    // The report: pass rates 1 and 0; the batch expectations pass at the first point, and at
    // the second "always few" fails (rate 0) and "max of agents_active" fails (5 > 4).
    let out = throng(&["report", out_dir.to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("PASS      always few: mean of expect.few = 1.0000 (>= 1.0000)"), "{stdout}");
    assert!(stdout.contains("FAIL      always few: mean of expect.few = 0.0000 (>= 1.0000)"), "{stdout}");
    assert!(
        stdout.contains("FAIL      max of agents_active: max of agents_active = 5.0000 (<= 4.0000)"),
        "{stdout}"
    );
    assert!(stdout.contains("batch expectations: 2 passed, 2 failed (over 2 points)"), "{stdout}");
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).expect("summary.csv");
    let header = summary.lines().next().expect("header");
    assert!(header.contains("expect.few.mean") && header.contains("check.always few"), "{header}");
}

#[test]
fn a_batch_expectation_on_an_unknown_number_is_an_error() {
    let dir = scratch_dir("batch_expectations_unknown");
    write(&dir, "crowd.toml", SCENE);
    let batch =
        write(&dir, "batch.toml", BATCH.replace("metric = \"agents_active\"", "metric = \"agent_active\""));
    let out_dir = dir.join("out");
    let out =
        throng(&["batch", batch.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8"), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = throng(&["report", out_dir.to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no result row has a number \"agent_active\"; did you mean \"agents_active\"?"),
        "{stderr}"
    );

    // A bad entry is refused by `throng batch` itself, located.
    let bad = write(&dir, "bad.toml", BATCH.replace("stat = \"max\"", "stat = \"maxx\""));
    let out =
        throng(&["batch", bad.to_str().expect("utf-8"), "-o", dir.join("bad").to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.toml:15:8")
            && stderr.contains("unknown statistic \"maxx\"; did you mean `max`?"),
        "{stderr}"
    );
}
