//! Batch expectations across points (`trend` + `along`): `throng report` splits the points into
//! series that differ only in the `along` key, judges each series' statistics in plan order
//! (rising, falling, equal, or the ratio of the last to the first), prints them under "across
//! points", writes `trends.csv`, and exits 1 when one fails. Bad entries are refused, located.

use super::{text, write};
use crate::common::{scratch_dir, throng};

/// One walker seeks (40, 0) from the origin and the run stops when it is within 1: its time
/// falls as its speed rises, about 39 / speed seconds.
const SCENE: &str = r#"version = 1
name = "walk"
seed = 1
dt = 0.1
ticks = 1000

[bounds]
min = [-1, -5]
max = [45, 5]

[[groups]]
name = "walker"
spawn = { kind = "points", points = [[0, 0]] }
max_speed = 1.0
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = [40, 0]

[[events]]
when = { region = { kind = "circle", centre = [40, 0], radius = 1 }, agent = 0 }
action = "stop"
"#;

/// Speeds 1, 2 and 4, twice: once with `radius` 0.5 and once 0.25 (two series), one seed.
const BATCH: &str = r#"version = 1

[[sweep]]
scenario = "walk.toml"
grid = { "groups.walker.radius" = [0.5, 0.25], "groups.walker.max_speed" = [1.0, 2.0, 4.0] }

[[expect]]
name = "faster is sooner"
metric = "time_s"
trend = "falling"
along = "groups.walker.max_speed"

[[expect]]
name = "four times the speed and a quarter of the time"
metric = "time_s"
trend = "ratio"
along = "groups.walker.max_speed"
min = 0.24
max = 0.27

[[expect]]
name = "the body's size does not matter"
metric = "time_s"
trend = "equal"
along = "groups.walker.radius"
tolerance = 0.001

[[expect]]
name = "faster is later (wrong)"
metric = "time_s"
trend = "rising"
along = "groups.walker.max_speed"
tolerance = 0.1
"#;

#[test]
fn report_judges_trends_along_a_swept_key() {
    let dir = scratch_dir("batch_trends");
    write(&dir, "walk.toml", SCENE);
    let batch = write(&dir, "batch.toml", BATCH);
    let out_dir = dir.join("out");
    let out =
        throng(&["batch", batch.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8"), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = throng(&["report", out_dir.to_str().expect("utf-8")]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the wrong trend fails: {stdout}{}", text(&out.stderr));
    // Speed series: one per radius (2); radius series: one per speed (3).
    assert!(
        stdout.contains("batch expectations: 7 passed, 2 failed (over 6 points and 9 series)"),
        "{stdout}"
    );
    let line = |name: &str, radius: &str| {
        stdout
            .lines()
            .find(|l| l.contains(name) && l.contains(radius))
            .unwrap_or_else(|| panic!("a line for {name} at {radius}: {stdout}"))
            .to_string()
    };
    let falling = line("faster is sooner", "radius=0.5]");
    assert!(
        falling.trim_start().starts_with("PASS")
            && falling.contains("at 1.0, ")
            && falling.contains("at 4.0;"),
        "{falling}"
    );
    assert!(line("faster is later", "radius=0.25]").trim_start().starts_with("FAIL"));

    // trends.csv: one row per series, the values in plan order.
    let csv = std::fs::read_to_string(out_dir.join("trends.csv")).expect("trends.csv");
    let mut rows = csv.lines();
    assert_eq!(rows.next(), Some("expectation,series,along_values,values,standard_errors,measured,verdict"));
    let ratio: Vec<&str> = csv.lines().filter(|l| l.starts_with("four times")).collect();
    assert_eq!(ratio.len(), 2, "{csv}");
    for row in ratio {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields[2], "1.0; 2.0; 4.0", "{row}");
        let times: Vec<f64> = fields[3].split("; ").map(|t| t.parse().expect("a time")).collect();
        let measured: f64 = fields[5].parse().expect("a ratio");
        assert_eq!(measured, times[2] / times[0], "{row}");
        assert!(times[0] > 38.0 && times[0] < 41.0, "{row}");
        assert_eq!(fields[6], "pass", "{row}");
    }

    // --trend-charts: one picture per expectation across points, a PNG of the chart's size.
    let charts = dir.join("charts");
    let out = throng(&["report", out_dir.to_str().unwrap(), "--trend-charts", charts.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "the same verdicts: {}", text(&out.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&charts)
        .expect("the charts")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let across = BATCH.matches("trend = ").count();
    assert_eq!(names.len(), across, "{names:?}");
    assert!(names.contains(&"trend-faster-is-sooner.png".to_string()), "{names:?}");
    for name in &names {
        let png = std::fs::read(charts.join(name)).expect("a chart");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        let (w, h) = (
            u32::from_be_bytes(png[16..20].try_into().unwrap()),
            u32::from_be_bytes(png[20..24].try_into().unwrap()),
        );
        assert_eq!((w, h), (1040, 540), "{name}");
        assert!(text(&out.stdout).contains(name.as_str()), "the report names {name}");
    }
}

/// Writes `batch` as `dir/name` and checks that `throng batch` refuses it (exit 2) with every
/// text of `has` in its message.
fn refused(dir: &std::path::Path, name: &str, batch: String, has: &[&str]) {
    let path = write(dir, name, batch);
    let out = throng(&["batch", path.to_str().expect("utf-8"), "-o", dir.join("o").to_str().expect("utf-8")]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
    for h in has {
        assert!(stderr.contains(h), "{name}: wanted {h:?} in {stderr}");
    }
}

#[test]
fn bad_trends_are_refused_where_they_are_written() {
    let dir = scratch_dir("batch_trends_bad");
    write(&dir, "walk.toml", SCENE);
    let refuse = |name: &str, batch: String, has: &[&str]| refused(&dir, name, batch, has);
    refuse(
        "unknown_key.toml",
        BATCH.replace("along = \"groups.walker.radius\"", "along = \"groups.walker.radus\""),
        &[
            "unknown_key.toml:25:9",
            "no run of this batch sets \"groups.walker.radus\"; did you mean \"groups.walker.radius\"?",
        ],
    );
    refuse(
        "no_along.toml",
        BATCH.replace("along = \"groups.walker.radius\"\n", ""),
        &["no_along.toml:24:9", "a trend needs `along`"],
    );
    refuse(
        "bad_trend.toml",
        BATCH.replace("trend = \"equal\"", "trend = \"equals\""),
        &["bad_trend.toml:24:9", "unknown trend \"equals\"; did you mean `equal`?"],
    );
    refuse(
        "ratio_tolerance.toml",
        BATCH.replace("min = 0.24", "tolerance = 0.1"),
        &["ratio_tolerance.toml:16:9", "bounded by `min` and `max`, not `tolerance`"],
    );
    refuse(
        "falling_min.toml",
        BATCH.replace(
            "along = \"groups.walker.max_speed\"\n\n[[expect]]\nname = \"four",
            "along = \"groups.walker.max_speed\"\nmin = 1\n\n[[expect]]\nname = \"four",
        ),
        &["falling_min.toml", "a \"falling\" trend takes `tolerance` (relative), not `min` or `max`"],
    );
    refuse(
        "negative_tolerance.toml",
        BATCH.replace("tolerance = 0.001", "tolerance = -0.001"),
        &["negative_tolerance.toml:26:13", "expected a relative tolerance of 0 or more"],
    );
}

/// Speeds 1, 2 and 4 at two radii, judged against data: the walker's times are 40.0, 20.4 and
/// 10.7 s (it accelerates from rest).
const MATCHING: &str = r#"version = 1

[[sweep]]
scenario = "walk.toml"
grid = { "groups.walker.radius" = [0.5, 0.25], "groups.walker.max_speed" = [1.0, 2.0, 4.0] }

[[expect]]
name = "as measured"
metric = "time_s"
trend = "matches"
along = "groups.walker.max_speed"
tolerance = 0.05
where = { "groups.walker.radius" = 0.5 }
data = { "a" = [[1.0, 40.0], [2.0, 20.4]], "b" = [[2.0, 20.4], [4.0, 10.7]] }

[[expect]]
name = "a fifth slower than measured"
metric = "time_s"
trend = "matches"
along = "groups.walker.max_speed"
tolerance = 0.05
data = { "slow" = [[1.0, 48.0], [2.0, 24.48], [4.0, 12.84]] }
"#;

/// The relative number a report line gives (`... relative = 0.1667 (<= ...`).
fn relative(line: &str) -> f64 {
    line.split("relative = ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no relative number in {line}"))
}

#[test]
fn a_trend_matches_measured_data_where_it_is_asked_to() {
    let dir = scratch_dir("batch_trends_matches");
    write(&dir, "walk.toml", SCENE);
    let batch = write(&dir, "batch.toml", MATCHING);
    let out_dir = dir.join("out");
    let out =
        throng(&["batch", batch.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8"), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let charts = dir.join("charts");
    let out = throng(&["report", out_dir.to_str().unwrap(), "--trend-charts", charts.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the slow data fails: {stdout}{}", text(&out.stderr));
    // `where` judges one series of the first (radius 0.5), the second both.
    assert!(
        stdout.contains("batch expectations: 1 passed, 2 failed (over 6 points and 3 series)"),
        "{stdout}"
    );
    let matched: Vec<&str> = stdout.lines().filter(|l| l.contains("as measured:")).collect();
    assert_eq!(matched.len(), 1, "{stdout}");
    assert!(
        matched[0].trim_start().starts_with("PASS") && matched[0].contains("radius=0.5"),
        "{}",
        matched[0]
    );
    assert!(matched[0].contains("largest difference from the data, relative = "), "{}", matched[0]);
    // A sixth below the slow data (1.2 times the times): 1 − 1/1.2.
    let slow = stdout.lines().find(|l| l.contains("a fifth slower")).expect("a line");
    assert!(slow.trim_start().starts_with("FAIL"), "{slow}");
    let measured = relative(slow);
    assert!((measured - (1.0 - 1.0 / 1.2)).abs() < 1e-3, "{slow}");
    assert!(charts.join("trend-as-measured.png").exists());
}

#[test]
fn bad_data_is_refused_where_it_is_written() {
    let dir = scratch_dir("batch_trends_bad_data");
    write(&dir, "walk.toml", SCENE);
    let refuse = |name: &str, batch: String, has: &[&str]| refused(&dir, name, batch, has);
    refuse(
        "no_data.toml",
        MATCHING.replace("data = { \"slow\" = [[1.0, 48.0], [2.0, 24.48], [4.0, 12.84]] }\n", ""),
        &["no_data.toml:19:9", "a \"matches\" trend needs `data`"],
    );
    refuse(
        "no_tolerance.toml",
        MATCHING.replace("tolerance = 0.05\nwhere", "where"),
        &["no_tolerance.toml:10:9", "a \"matches\" trend needs `tolerance`"],
    );
    refuse(
        "falling_x.toml",
        MATCHING.replace("[[1.0, 48.0], [2.0, 24.48]", "[[2.0, 48.0], [1.0, 24.48]"),
        &["falling_x.toml:22:19", "`expect[1].data.slow`", "at least two points, their x rising"],
    );
    refuse(
        "not_pairs.toml",
        MATCHING.replace("[[1.0, 48.0], [2.0, 24.48]", "[[1.0, 48.0, 3], [2.0, 24.48]"),
        &["not_pairs.toml:22:19", "a list of [x, y] pairs of finite numbers"],
    );
    refuse(
        "data_without_trend.toml",
        MATCHING.replace(
            "trend = \"matches\"\nalong = \"groups.walker.max_speed\"\ntolerance = 0.05\ndata",
            "max = 100\ndata",
        ),
        &["data_without_trend.toml:20:8", "`data` belongs to a `trend` along a swept key"],
    );
}

/// Speeds 1, 2 and 4, one series: each point placed at its measured speed (`x`), its time
/// (about 40 / speed) judged against two bands: one it lies in (36 / speed to 44 / speed) and
/// one it lies above (20 / speed to 30 / speed).
const WITHIN: &str = r#"version = 1

[[sweep]]
scenario = "walk.toml"
grid = { "groups.walker.max_speed" = [1.0, 2.0, 4.0] }

[[expect]]
name = "inside the band"
metric = "time_s"
trend = "within"
along = "groups.walker.max_speed"
x = "mean_speed"
tolerance = 0.01
data = { "low" = [[0.5, 72.0], [1.0, 36.0], [2.0, 18.0], [4.0, 9.0], [5.0, 7.2]], "high" = [[0.5, 88.0], [1.0, 44.0], [2.0, 22.0], [4.0, 11.0], [5.0, 8.8]] }

[[expect]]
name = "above the band"
metric = "time_s"
trend = "within"
along = "groups.walker.max_speed"
x = "mean_speed"
tolerance = 0.1
data = { "low" = [[0.5, 40.0], [1.0, 20.0], [2.0, 10.0], [4.0, 5.0], [5.0, 4.0]], "high" = [[0.5, 60.0], [1.0, 30.0], [2.0, 15.0], [4.0, 7.5], [5.0, 6.0]] }
"#;

#[test]
fn a_trend_within_a_band_places_each_point_at_its_measured_x() {
    let dir = scratch_dir("batch_trends_within");
    write(&dir, "walk.toml", SCENE);
    let batch = write(&dir, "batch.toml", WITHIN);
    let out_dir = dir.join("out");
    let out =
        throng(&["batch", batch.to_str().expect("utf-8"), "-o", out_dir.to_str().expect("utf-8"), "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = throng(&["report", out_dir.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the second band fails: {stdout}");
    let line = |name: &str| stdout.lines().find(|l| l.contains(name)).expect("a line").to_string();
    let inside = line("inside the band");
    assert!(inside.trim_start().starts_with("PASS"), "{inside}");
    assert!(inside.contains("each point at the mean of mean_speed"), "{inside}");
    // Each time is written at the walker's measured speed, 1, 2 and 4 to four places.
    // Each time is written at the walker's measured speed, about 1, 2 and 4.
    assert!(inside.contains(" at 1.0000, ") && inside.contains(" at 2.0000, "), "{inside}");
    assert!(inside.contains("largest distance outside the data's band, relative = 0.0000 "), "{inside}");
    // The walker speeds up from rest, so its times are 40, 20.4 and 10.7 s; against the
    // band's top, 30 / speed, the farthest above is 10.7 at speed 4: 10.7 / 7.5 − 1 = 42.7 %.
    let above = line("above the band");
    assert!(above.trim_start().starts_with("FAIL"), "{above}");
    let measured = relative(&above);
    assert!((measured - (10.7 / 7.5 - 1.0)).abs() < 2e-3, "{above}");
}

#[test]
fn x_and_within_are_refused_where_they_do_not_belong() {
    let dir = scratch_dir("batch_trends_bad_within");
    write(&dir, "walk.toml", SCENE);
    let refuse = |name: &str, batch: String, has: &[&str]| refused(&dir, name, batch, has);
    refuse(
        "x_without_trend.toml",
        WITHIN.replacen("trend = \"within\"\nalong = \"groups.walker.max_speed\"\n", "max = 100\n", 1).replacen(
            "tolerance = 0.01\ndata = { \"low\" = [[0.5, 72.0], [1.0, 36.0], [2.0, 18.0], [4.0, 9.0], [5.0, 7.2]], \"high\" = [[0.5, 88.0], [1.0, 44.0], [2.0, 22.0], [4.0, 11.0], [5.0, 8.8]] }\n",
            "",
            1,
        ),
        &["x_without_trend.toml:11:5", "`x` belongs to a `trend` along a swept key"],
    );
    refuse(
        "within_without_data.toml",
        WITHIN.replacen(
            "data = { \"low\" = [[0.5, 72.0], [1.0, 36.0], [2.0, 18.0], [4.0, 9.0], [5.0, 7.2]], \"high\" = [[0.5, 88.0], [1.0, 44.0], [2.0, 22.0], [4.0, 11.0], [5.0, 8.8]] }\n",
            "",
            1,
        ),
        &["within_without_data.toml:10:9", "a \"within\" trend needs `data`"],
    );
}
