//! Measurement areas and lines (`[[measure]]`): their columns in the metrics CSV, their values
//! worked out by hand, expectations on them, and bad entries rejected with their position.

use super::{BASE, check_rejects, text, write};
use crate::common::{scratch_dir, throng};

/// One walker from (0, 50) seeking (100, 50) at 1 unit/s (its force reaches full speed in the
/// first tick), a still pair at (50, 20) and (60, 20) (no behaviours), an area around the pair
/// (30 × 20 = 600 square units) and a 100-unit line at x = 10 that the walker crosses once.
const SCENE: &str = r#"version = 1
name = "measured"
seed = 1
dt = 0.1
ticks = 200

[bounds]
min = [0, 0]
max = [100, 100]

[[groups]]
name = "walker"
spawn = { kind = "points", points = [[0, 50]] }
max_speed = 1.0
max_force = 100.0

[[groups.behaviours]]
kind = "seek"
target = [100, 50]

[[groups]]
name = "pair"
spawn = { kind = "points", points = [[50, 20], [60, 20]] }
max_speed = 1.0
max_force = 1.0

[[measure]]
name = "pen"
kind = "rect"
min = [40, 10]
max = [70, 30]

[[measure]]
name = "line10"
kind = "line"
from = [10, 0]
to = [10, 100]

[[expect]]
name = "two in the pen"
metric = "measures.pen.count"
min = 2
max = 2

[[expect]]
name = "the pen's density"
metric = "measures.pen.density"
min = 0.0033333
max = 0.0033334

[[expect]]
name = "the walker crosses the line once"
metric = "gates.line10.crossings"
min = 1
max = 1

[[expect]]
name = "the crossing's flow"
check = "ever"
metric = "gates.line10.flow"
min = 0.0999
max = 0.1001
"#;

#[test]
fn areas_and_lines_are_measured_as_worked_out() {
    let dir = scratch_dir("measures_values");
    let path = write(&dir, "measured.toml", SCENE);
    let csv = dir.join("m.csv");
    let out = throng(&[
        "run",
        path.to_str().expect("utf-8"),
        "--metrics",
        csv.to_str().expect("utf-8"),
        "--expect",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("expectations: 4 of 4 passed"), "{stdout}");
    assert!(stdout.contains("gate line10: 1 crossings") && stdout.contains("area pen: density"), "{stdout}");
    // The summary: one crossing in 200 ticks of 0.1 s over 100 units is 0.05 per s, 0.0005 per
    // s per unit; the pen holds 2 agents in 600 square units at every tick, none moving.
    let out = throng(&["run", path.to_str().expect("utf-8"), "--json", "--quiet"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let (gate, area) = (&v["metrics"]["gates"][0], &v["metrics"]["areas"][0]);
    let close = |x: &serde_json::Value, want: f64| (x.as_f64().expect("a number") - want).abs() < 1e-9;
    assert!(close(&gate["per_s"], 0.05) && close(&gate["flow"], 0.0005), "{gate}");
    assert!(close(&area["density_mean"], 2.0 / 600.0) && close(&area["density_max"], 2.0 / 600.0), "{area}");
    assert!(close(&area["speed_mean"], 0.0), "{area}");

    let text = std::fs::read_to_string(&csv).expect("metrics CSV");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let tail = &header[header.len() - 5..];
    assert_eq!(
        tail,
        ["gate_line10", "gate_line10_flow", "measure_pen_count", "measure_pen_density", "measure_pen_speed"]
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect("column");
    let crossing: Vec<&Vec<&str>> = rows.iter().filter(|r| r[col("gate_line10")] == "1").collect();
    assert_eq!(crossing.len(), 1, "one tick with the crossing");
    assert_eq!(crossing[0][col("gate_line10_flow")].parse::<f64>().ok(), Some(1.0 / 0.1f32 as f64 / 100.0));
    assert!(rows.iter().all(|r| r[col("measure_pen_count")] == "2"));
}

#[test]
fn bad_measures_are_rejected() {
    let with = |entry: &str| format!("{BASE}\n[[measure]]\n{entry}\n");
    check_rejects(
        "measure_unknown_kind",
        with("name = \"m\"\nkind = \"lin\"\nfrom = [0, 0]\nto = [1, 1]"),
        (28, 8),
        &["`measure[0].kind`", "unknown value \"lin\"; did you mean `line`?"],
    );
    check_rejects(
        "measure_line_without_end",
        with("name = \"m\"\nkind = \"line\"\nfrom = [0, 0]"),
        (26, 1),
        &["`measure[0]`", "missing key `to` for a \"line\" measure"],
    );
    check_rejects(
        "measure_area_with_from",
        with("name = \"m\"\nkind = \"rect\"\nmin = [0, 0]\nmax = [1, 1]\nfrom = [0, 0]"),
        (31, 8),
        &["`measure[0].from`", "is not a parameter of a \"rect\" measure"],
    );
    check_rejects(
        "measure_name_twice",
        format!(
            "{}\n[[measure]]\nname = \"m\"\nkind = \"circle\"\ncentre = [5, 5]\nradius = 1\n",
            with("name = \"m\"\nkind = \"circle\"\ncentre = [5, 5]\nradius = 1")
        ),
        (33, 8),
        &["`measure[1].name`", "measure name \"m\" is used twice"],
    );
    let gate = format!(
        "{BASE}\n[[gates]]\nname = \"door\"\nfrom = [0, 0]\nto = [0, 5]\n\n[[measure]]\nname = \"door\"\nkind = \"line\"\nfrom = [1, 0]\nto = [1, 5]\n"
    );
    check_rejects(
        "measure_line_named_as_gate",
        gate,
        (32, 8),
        &["`measure[0].name`", "already a gate's name"],
    );
}

/// `start_s` leaves the start out of an area's summary: the walker crosses a 10.05 × 10 area
/// at x 0 to 10.05 early in the run; the summary from 5 s is the mean of the per-tick readings
/// (the metrics CSV) from tick 50 on, and not that of every tick.
#[test]
fn an_area_summarises_from_its_start() {
    let dir = scratch_dir("measures_start");
    let area = "[[measure]]\nname = \"lane\"\nkind = \"rect\"\nmin = [0, 45]\nmax = [10.05, 55]\n";
    let csv = dir.join("m.csv");
    let summary = |extra: &str| {
        let path = write(&dir, "lane.toml", format!("{SCENE}\n{area}{extra}\n"));
        let (p, c) = (path.to_str().expect("utf-8"), csv.to_str().expect("utf-8"));
        let out = throng(&["run", p, "--json", "--quiet", "--metrics", c]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let lane = &v["metrics"]["areas"][1];
        (lane["density_mean"].as_f64().expect("a number"), lane["speed_mean"].as_f64().expect("a number"))
    };
    let by_tick = |from: u64| {
        let text = std::fs::read_to_string(&csv).expect("metrics CSV");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).expect("column");
        let rows: Vec<Vec<f64>> =
            lines.map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect()).collect();
        let kept: Vec<&Vec<f64>> = rows.iter().filter(|r| r[col("tick")] as u64 >= from).collect();
        let density: f64 =
            kept.iter().map(|r| r[col("measure_lane_density")]).sum::<f64>() / kept.len() as f64;
        let occupied: Vec<f64> = kept
            .iter()
            .filter(|r| r[col("measure_lane_count")] > 0.0)
            .map(|r| r[col("measure_lane_speed")])
            .collect();
        (density, occupied.iter().sum::<f64>() / occupied.len() as f64)
    };
    let close = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-6;
    let whole = summary("");
    assert!(close(whole, by_tick(1)), "{whole:?} vs {:?}", by_tick(1));
    let late = summary("start_s = 5");
    assert!(close(late, by_tick(50)), "{late:?} vs {:?}", by_tick(50));
    assert!(late.0 < whole.0 && late.1 > whole.1, "the walker left, at full speed: {late:?} vs {whole:?}");
    let bad = write(&dir, "bad.toml", format!("{SCENE}\n{area}start_s = -1\n"));
    let out = throng(&["check", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`measure[2].start_s`: expected a time from 0 to 1e9 seconds, found -1")
    );
}
