//! `throng check` and `throng run` on valid scenarios: what they print and write.

use super::{BASE, base_with, run_json, text, write};
use crate::common::{load, root, scratch_dir, throng};

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
    for pass in
        ["events", "sensing_due", "build_index", "headings", "sense_neighbours", "steer", "integrate", "wait"]
    {
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
    assert_eq!(header, "tick,time_s,id,group,x,y,vx,vy,radius");
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Ticks 0, 2 and 4 are traced; 9 agents each.
    assert_eq!(rows.len(), 9 * 3, "{csv}");
    for (r, row) in rows.iter().enumerate() {
        let (tick, id) = ((r / 9) * 2, r % 9);
        let group = if id < 6 { "walkers" } else { "idlers" };
        assert_eq!(row.len(), 9, "{row:?}");
        assert_eq!(row[8], "0.5", "the default radius: {row:?}");
        assert_eq!((row[0], row[2], row[3]), (tick.to_string().as_str(), id.to_string().as_str(), group));
        // dt = 0.1: the time as the scenario writes it.
        assert_eq!(row[1], format!("{:.1}", tick as f64 / 10.0), "{row:?}");
        for value in &row[4..] {
            assert!(value.parse::<f32>().is_ok_and(f32::is_finite) && *value != "-0", "{row:?}");
        }
    }
    // Points spawns put agent k at points[k] at tick 0.
    assert_eq!((rows[6][4], rows[6][5]), ("1", "1"));
    assert_eq!((rows[8][4], rows[8][5]), ("3", "3"));
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
        text(&out.stdout).contains("\"pasture\", 301 agents (sheep x300 steering, dog x1 steering)"),
        "{}",
        text(&out.stdout)
    );
}

/// The run report names the overrides it ran with and accounts for every agent: at tick 0,
/// spawned, exited, active (not only the final live count).
#[test]
fn the_run_report_names_its_overrides_and_accounts_for_every_agent() {
    let r = run_json(&["run", "scenarios/evacuation.toml", "--ticks", "150", "--agents", "2000", "--json"]);
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k}: {r}"));
    assert_eq!(n("agents_initial"), 2000, "{r}");
    assert!(n("agents_spawned") > 0 && n("agents_exited") > 0, "spawns and exits in 15 s: {r}");
    assert_eq!(n("agents_initial") + n("agents_spawned") - n("agents_exited"), n("agents_active"), "{r}");
    assert_eq!(n("agents"), n("agents_active"));
    assert_eq!(r["overrides"], serde_json::json!(["agents = 2000"]), "{r}");
    let out = throng(&["run", "scenarios/doorway.toml", "--ticks", "5", "--set", "dt=0.05"]);
    let report = text(&out.stdout);
    assert!(report.contains("overrides  dt = 0.05"), "{report}");
    assert!(report.contains("agents     150 at tick 0, 0 spawned, 0 exited, 150 active"), "{report}");
}

/// The run report says which sensing skin a run ended with and how often it reused
/// candidates: the corridor's pedestrians keep the 0.5 m `"auto"` picks; a skin of 0 prints
/// no line.
#[test]
fn the_run_report_shows_the_sensing_skin_in_use() {
    let out = throng(&["run", "scenarios/models/corridor_fd.toml", "--ticks", "100", "--no-metrics"]);
    let report = text(&out.stdout);
    let line = report.lines().find(|l| l.starts_with("sensing ")).unwrap_or_else(|| panic!("{report}"));
    assert!(line.contains("skin 0.5 at the end: candidates reused on"), "{line}");
    let reused: u64 =
        line.split("reused on ").nth(1).and_then(|t| t.split(' ').next()?.parse().ok()).expect("a count");
    assert!(reused >= 50 && line.ends_with("of 100 ticks"), "{line}");
    let out = throng(&[
        "run",
        "scenarios/models/corridor_fd.toml",
        "--ticks",
        "10",
        "--no-metrics",
        "--sensing-skin",
        "0",
    ]);
    assert!(!text(&out.stdout).contains("sensing "), "{}", text(&out.stdout));
}

/// `check`, `render` and `plot` take the overrides `run` takes, so a swept variant can be
/// validated and drawn; a bad override is an error there too.
#[test]
fn check_render_and_plot_take_set_and_agents() {
    let out = throng(&["check", "scenarios/doorway.toml", "--set", "dt=0.05", "--agents", "300"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("300 agents") && stdout.contains("ticks of 0.05 s"), "{stdout}");
    let out = throng(&["check", "scenarios/doorway.toml", "--set", "dt=fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--set: `dt`"), "{}", text(&out.stderr));

    let dir = scratch_dir("cli_overrides_render_plot");
    let png = dir.join("door.png");
    let args =
        ["render", "scenarios/doorway.toml", "--out", png.to_str().unwrap(), "--tick", "5", "--agents", "40"];
    let out = throng(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(png.is_file());
    let svg = dir.join("door.svg");
    let args = [
        "plot",
        "scenarios/doorway.toml",
        "--out",
        svg.to_str().unwrap(),
        "--ticks",
        "5",
        "--set",
        "dt=0.05",
    ];
    let out = throng(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(svg.is_file());
}

/// The metrics CSV starts with the state at tick 0, and its agent counts are totals since
/// tick 0 (spawned like exited), ending at the run report's.
#[test]
fn the_metrics_file_starts_at_tick_0_and_counts_agents_since_then() {
    let dir = scratch_dir("cli_metrics_tick0");
    let csv = dir.join("m.csv");
    let r = run_json(&[
        "run",
        "scenarios/evacuation.toml",
        "--ticks",
        "30",
        "--agents",
        "2000",
        "--metrics",
        csv.to_str().unwrap(),
        "--json",
    ]);
    let text = std::fs::read_to_string(&csv).expect("metrics file");
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 31, "ticks 0 to 30");
    assert_eq!((rows[0][0], rows[0][1], rows[0][4]), ("0", "0.0", "0"), "the tick-0 row: {:?}", rows[0]);
    assert_eq!(rows[1][1], "0.1");
    let spawned: Vec<u64> = rows.iter().map(|r| r[4].parse().expect("a count")).collect();
    assert!(spawned.windows(2).all(|w| w[0] <= w[1]), "a running total: {spawned:?}");
    assert_eq!(spawned.last().copied(), r["agents_spawned"].as_u64(), "{r}");
}

/// Any u64 is a seed, and one beyond i64 survives the overrides, which edit the document as
/// TOML values (that hold at most i64): `--ticks` and `--set` give the run of the file itself.
#[test]
fn the_largest_seed_runs_with_overrides() {
    let dir = scratch_dir("cli_largest_seed");
    let path = write(&dir, "wide.toml", base_with("seed = 3", "seed = 18446744073709551615"));
    let p = path.to_str().unwrap();
    let plain = run_json(&["run", p, "--json"]);
    assert_eq!(plain["seed"], u64::MAX);
    assert_eq!(plain["ticks"], 10);
    let ticked = run_json(&["run", p, "--ticks", "10", "--json"]);
    let set = run_json(&["run", p, "--set", "dt=0.1", "--json"]);
    assert_eq!((&ticked["seed"], &ticked["hash"]), (&plain["seed"], &plain["hash"]));
    assert_eq!((&set["seed"], &set["hash"]), (&plain["seed"], &plain["hash"]));
}
