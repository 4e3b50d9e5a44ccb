//! `--trace run.sqlite` (JuPedSim's trajectory layout) read back with SQLite itself (the same
//! rows as the CSV trace, the frame rate, the walkable area of every frame as doors open) and
//! `--trace run.txt` (PedPy's text format) read back as text; killed and resumed runs of both;
//! and PedPy loading both (when Python has it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::{text, write};
use crate::common::{python, python_with, root, scratch_dir, throng};

/// 30 walkers crossing a 40 x 20 room east through a door in a wall at x = 20 that opens at
/// 2 s (a `door` obstacle opened by an event); 60 ticks of 0.1 s.
pub(super) const ROOM: &str = r#"version = 1
name = "room"
seed = 4
dt = 0.1
ticks = 60

obstacles = [
  { kind = "wall", points = [[20, 0], [20, 8]], thickness = 0.2 },
  { kind = "wall", points = [[20, 12], [20, 20]], thickness = 0.2 },
  { name = "door", kind = "wall", points = [[20, 8], [20, 12]], thickness = 0.2 },
  { kind = "circle", centre = [30, 10], radius = 1 },
]

[bounds]
min = [0, 0]
max = [40, 20]

[[groups]]
name = "walkers"
count = 30
spawn = { kind = "rect", min = [1, 1], max = [15, 19] }
max_speed = 1.5
max_force = 5.0
radius = 0.25

[[groups.behaviours]]
kind = "seek"
target = [39, 10]

[[events]]
at_s = 2
action = "open"
door = "door"
"#;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8")
}

fn ok(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
}

/// `trajectory_data` joined with `throng_agents`, ordered by frame and id: (frame, id, x, y,
/// ori_x, ori_y, group, vx, vy, radius).
type Row = (i64, i64, f64, f64, f64, f64, String, f64, f64, f64);

fn rows(db: &Connection) -> Vec<Row> {
    let mut q = db
        .prepare(
            "SELECT t.frame, t.id, t.pos_x, t.pos_y, t.ori_x, t.ori_y, a.grp, a.vel_x, a.vel_y, a.radius
             FROM trajectory_data t JOIN throng_agents a ON a.frame = t.frame AND a.id = t.id
             ORDER BY t.frame, t.id",
        )
        .expect("query");
    q.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
            r.get(8)?,
            r.get(9)?,
        ))
    })
    .expect("rows")
    .map(|r| r.expect("row"))
    .collect()
}

fn meta(db: &Connection, key: &str) -> String {
    db.query_row("SELECT value FROM metadata WHERE key = ?1", [key], |r| r.get(0))
        .unwrap_or_else(|e| panic!("{key}: {e}"))
}

#[test]
fn the_sqlite_trace_holds_the_csv_traces_rows_and_the_walkable_area_of_every_frame() {
    let dir = scratch_dir("trace_sqlite");
    let scenario = write(&dir, "room.toml", ROOM);
    let (csv, db_path) = (dir.join("t.csv"), dir.join("t.sqlite"));
    for trace in [&csv, &db_path] {
        ok(&throng(&["run", s(&scenario), "--trace", s(trace), "--trace-every", "5", "--quiet"]));
    }
    let db = Connection::open(&db_path).expect("opens");
    assert_eq!(meta(&db, "version"), "2");
    assert_eq!(meta(&db, "fps"), "2", "1 / (0.1 s x 5)");
    assert_eq!(meta(&db, "throng.seed"), "4");
    let got = rows(&db);

    // The same values as the CSV trace, row for row (tick = frame x 5).
    let mut r = csv::Reader::from_path(&csv).expect("the CSV trace");
    let h: Vec<String> = r.headers().expect("header").iter().map(str::to_owned).collect();
    let col = |n: &str| h.iter().position(|x| x == n).expect("column");
    let want: Vec<(i64, i64, f32, f32, String, f32, f32)> = r
        .records()
        .map(|rec| {
            let rec = rec.expect("row");
            let f = |n: &str| rec[col(n)].parse::<f32>().expect("a number");
            let tick: i64 = rec[col("tick")].parse().expect("tick");
            (
                tick / 5,
                rec[col("id")].parse().expect("id"),
                f("x"),
                f("y"),
                rec[col("group")].to_string(),
                f("vx"),
                f("vy"),
            )
        })
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(want.len(), 13 * 30, "frames 0 to 12, 30 agents");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            (g.0, g.1, g.2 as f32, g.3 as f32, &g.6, g.7 as f32, g.8 as f32),
            (w.0, w.1, w.2, w.3, &w.4, w.5, w.6)
        );
        assert_eq!(g.9, 0.25);
        // The heading: the velocity's direction, or 0 when standing.
        let speed = (g.7 * g.7 + g.8 * g.8).sqrt();
        if speed > 0.0 {
            assert!(
                ((g.4 * g.4 + g.5 * g.5).sqrt() - 1.0).abs() < 1e-6 && (g.4 * g.8 - g.5 * g.7).abs() < 1e-4
            );
        } else {
            assert_eq!((g.4, g.5), (0.0, 0.0));
        }
    }
    let (lo, hi) =
        want.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), w| (lo.min(w.2), hi.max(w.2)));
    assert_eq!(meta(&db, "xmin").parse::<f64>().ok(), Some(lo as f64));
    assert_eq!(meta(&db, "xmax").parse::<f64>().ok(), Some(hi as f64));

    // The walkable area: the door opens at 2 s, before tick 21 runs, so frames 0 to 4 (ticks 0
    // to 20) have it closed and frames 5 to 12 open.
    let hashes: Vec<(i64, i64)> = db
        .prepare("SELECT frame, geometry_hash FROM frame_data ORDER BY frame")
        .expect("query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(hashes.len(), 13);
    assert!(hashes[..5].iter().all(|h| h.1 == hashes[0].1) && hashes[5..].iter().all(|h| h.1 == hashes[5].1));
    assert_ne!(hashes[0].1, hashes[5].1, "the door opened between frames 4 and 5");
    let wkt = |hash: i64| -> String {
        db.query_row("SELECT wkt FROM geometry WHERE hash = ?1", [hash], |r| r.get(0)).expect("a geometry")
    };
    // Closed: the wall splits the room in two (and the pillar is a hole in the east half).
    let (closed, open) = (wkt(hashes[0].1), wkt(hashes[5].1));
    assert!(closed.starts_with("MULTIPOLYGON ((("), "{closed}");
    assert!(open.starts_with("POLYGON ((") && open.matches("), (").count() == 1, "{open}");
}

/// The columns of a table or view, in order.
fn columns(db: &Connection, name: &str) -> Vec<String> {
    db.prepare(&format!("PRAGMA table_info({name})"))
        .expect("table_info")
        .query_map([], |r| r.get(1))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect()
}

#[test]
fn the_sqlite_trace_stores_a_row_per_agent_once_and_reads_a_frame_without_a_scan() {
    let dir = scratch_dir("trace_sqlite_layout");
    let scenario = write(&dir, "room.toml", ROOM);
    let path = dir.join("t.sqlite");
    ok(&throng(&["run", s(&scenario), "--trace", s(&path), "--trace-every", "5", "--quiet"]));
    let db = Connection::open(&path).expect("opens");
    // JuPedSim's relations as its layout names them, over one table clustered by frame and id.
    assert_eq!(columns(&db, "trajectory_data"), ["frame", "id", "pos_x", "pos_y", "ori_x", "ori_y"]);
    assert_eq!(columns(&db, "throng_agents"), ["frame", "id", "grp", "vel_x", "vel_y", "radius"]);
    let kind = |name: &str| -> String {
        db.query_row("SELECT type FROM sqlite_schema WHERE name = ?1", [name], |r| r.get(0)).expect(name)
    };
    assert_eq!((kind("trajectory_data"), kind("throng_agents")), ("view".into(), "view".into()));
    assert_eq!(kind("throng_trajectory"), "table");
    let stored: i64 =
        db.query_row("SELECT COUNT(*) FROM throng_trajectory", [], |r| r.get(0)).expect("count");
    assert_eq!(stored, 13 * 30, "one stored row per agent per frame");
    let groups: Vec<(i64, String)> = db
        .prepare("SELECT grp, name FROM throng_groups")
        .expect("query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(groups, [(0, "walkers".to_string())]);
    // A frame's rows, as JuPedSim's own reader asks for them, come by key, not by a scan.
    let plan: Vec<String> = db
        .prepare(
            "EXPLAIN QUERY PLAN SELECT id, pos_x, pos_y, ori_x, ori_y FROM trajectory_data
             WHERE frame == 3 ORDER BY id ASC",
        )
        .expect("plan")
        .query_map([], |r| r.get(3))
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(plan, ["SEARCH throng_trajectory USING PRIMARY KEY (frame=?)"]);
}

#[test]
fn resuming_into_a_sqlite_trace_of_the_older_layout_is_refused_by_name() {
    let dir = scratch_dir("trace_sqlite_older");
    let scenario = write(&dir, "room.toml", ROOM);
    let path = dir.join("t.sqlite");
    let ck = dir.join("ck");
    let args = ["run", s(&scenario), "--trace", s(&path), "--checkpoint-every", "20"];
    ok(&throng(&[&args[..], &["--checkpoint-dir", s(&ck), "--quiet"]].concat()));
    // The same trace as the layout before one table held it: JuPedSim's and throng's tables.
    std::fs::remove_file(&path).expect("remove");
    let db = Connection::open(&path).expect("creates");
    db.execute_batch(
        "CREATE TABLE metadata (key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
         INSERT INTO metadata VALUES ('throng.trace_every', '1'), ('throng.dt', '0.1');
         CREATE TABLE trajectory_data (frame INTEGER, id INTEGER, pos_x REAL, pos_y REAL, ori_x REAL, ori_y REAL);
         CREATE TABLE frame_data (frame INTEGER, geometry_hash INTEGER);
         CREATE TABLE geometry (hash INTEGER, wkt TEXT);
         CREATE TABLE throng_agents (frame INTEGER, id INTEGER, grp TEXT, vel_x REAL, vel_y REAL, radius REAL);",
    )
    .expect("the older layout");
    drop(db);
    let out = throng(&["run", "--resume", s(&ck.join("tick-0000000040.ckpt")), "--quiet"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("t.sqlite") && err.contains("older throng") && err.contains("afresh"), "{err}");
}
/// The frames of a PedPy text trace: (id, frame, x, y) rows, after its three header lines.
fn txt_rows(path: &Path) -> Vec<(i64, i64, f32, f32)> {
    let text = std::fs::read_to_string(path).expect("the text trace");
    assert!(text.ends_with('\n'), "whole lines only");
    text.lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            assert_eq!(f.len(), 4, "{l}");
            (
                f[0].parse().expect("id"),
                f[1].parse().expect("frame"),
                f[2].parse().expect("x"),
                f[3].parse().expect("y"),
            )
        })
        .collect()
}

#[test]
fn the_pedpy_text_trace_holds_the_csv_traces_positions() {
    let dir = scratch_dir("trace_txt");
    let scenario = write(&dir, "room.toml", ROOM);
    let (csv, txt) = (dir.join("t.csv"), dir.join("t.txt"));
    for trace in [&csv, &txt] {
        ok(&throng(&["run", s(&scenario), "--trace", s(trace), "--trace-every", "5", "--quiet"]));
    }
    let text = std::fs::read_to_string(&txt).expect("the text trace");
    let head: Vec<&str> = text.lines().take(3).collect();
    assert_eq!(head[0], "# framerate: 2", "1 / (0.1 s x 5), first");
    assert_eq!(head[2], "# id frame x/m y/m");
    let mut r = csv::Reader::from_path(&csv).expect("the CSV trace");
    let want: Vec<(i64, i64, f32, f32)> = r
        .records()
        .map(|rec| {
            let rec = rec.expect("row");
            let tick: i64 = rec[0].parse().expect("tick");
            (rec[2].parse().expect("id"), tick / 5, rec[4].parse().expect("x"), rec[5].parse().expect("y"))
        })
        .collect();
    assert_eq!(txt_rows(&txt), want);
}

#[test]
fn killed_sqlite_and_text_traces_keep_whole_frames_and_resume_to_the_uninterrupted_ones() {
    for ext in ["sqlite", "txt"] {
        killed_and_resumed(ext);
    }
}

fn killed_and_resumed(ext: &str) {
    let dir = scratch_dir(&format!("trace_{ext}_resume"));
    let scenario = write(&dir, "room.toml", ROOM.replace("ticks = 60", "ticks = 3000"));
    let args = |name: &str| -> Vec<String> {
        [
            "run",
            s(&scenario),
            "--trace",
            s(&dir.join(format!("{name}.{ext}"))),
            "--trace-every",
            "3",
            "--checkpoint-every",
            "100",
            "--checkpoint-dir",
            s(&dir.join(format!("{name}-ck"))),
            "--quiet",
        ]
        .map(String::from)
        .to_vec()
    };
    ok(&throng(&args("straight").iter().map(String::as_str).collect::<Vec<_>>()));

    // Killed outright once its first checkpoint is written (the trace commits before it).
    kill_once_written(&args("killed"), &dir.join("killed-ck").join("tick-0000000100.ckpt"));
    // The file opens and holds whole frames, in order from 0, at least to the checkpoint's.
    let path = dir.join(format!("killed.{ext}"));
    let frames: Vec<(i64, i64)> = if ext == "txt" {
        let mut counts: Vec<(i64, i64)> = Vec::new();
        for (_, frame, _, _) in txt_rows(&path) {
            match counts.last_mut() {
                Some((f, n)) if *f == frame => *n += 1,
                _ => counts.push((frame, 1)),
            }
        }
        // The last frame may be cut short by the kill (rows reach the file whole, frames need
        // not); a resume cuts it back.
        if counts.last().is_some_and(|(_, n)| *n < 30) {
            counts.pop();
        }
        counts
    } else {
        let db = Connection::open(&path).expect("opens after the kill");
        let check: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("checks");
        assert_eq!(check, "ok");
        db.prepare("SELECT frame, COUNT(*) FROM trajectory_data GROUP BY frame ORDER BY frame")
            .expect("query")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert!(frames.len() >= 34, "{ext}: frames 0 to 33 (tick 99) at least: {}", frames.len());
    for (k, (frame, n)) in frames.iter().enumerate() {
        assert_eq!((*frame, *n), (k as i64, 30), "{ext}: whole frames, in order");
    }
    // Resumed from its last checkpoint: the frames past it are deleted and written again.
    ok(&throng(&["run", "--resume", s(&dir.join("killed-ck")), "--quiet"]));
    if ext == "txt" {
        let (a, b) = (dir.join("straight.txt"), dir.join("killed.txt"));
        assert_eq!(txt_rows(&a).len(), 1001 * 30, "frames 0 to 1000");
        assert_eq!(
            std::fs::read(&a).expect("straight"),
            std::fs::read(&b).expect("resumed"),
            "the same bytes"
        );
        return;
    }
    let open = |name: &str| Connection::open(dir.join(format!("{name}.sqlite"))).expect("opens");
    let (a, b) = (open("straight"), open("killed"));
    assert_eq!(rows(&a).len(), 1001 * 30, "frames 0 to 1000");
    assert_eq!(rows(&a), rows(&b));
    for key in ["xmin", "xmax", "ymin", "ymax", "fps"] {
        assert_eq!(meta(&a, key), meta(&b, key), "{key}");
    }
}

/// Starts `throng ARGS` and kills it outright (SIGKILL) as soon as `file` exists.
pub(super) fn kill_once_written(args: &[String], file: &Path) {
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_throng")).args(args).current_dir(root()).spawn().expect("starts");
    let started = Instant::now();
    while !file.exists() {
        assert!(started.elapsed() < Duration::from_secs(120), "no {} in two minutes", file.display());
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("killed");
    child.wait().expect("waited");
}

/// What a docs example printed on stdout.
pub(super) struct Printed(pub(super) String);

impl Printed {
    /// The number after `key` on the line that starts with it.
    pub(super) fn value(&self, key: &str) -> f64 {
        let out = &self.0;
        let line = out.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key} in {out}"));
        line[key.len()..].trim().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
    }
}

/// Runs the docs' example at `path` (`docs/examples/NAME.py`, written out so that
/// tests/docs.rs finds it named here) as the docs show it, `python NAME ARG`, with the tests'
/// Python; a failed run fails the test.
pub(super) fn run_example(path: &str, arg: &Path) -> Printed {
    let script = std::fs::read_to_string(root().join(path)).expect("the docs' example");
    let out = Command::new(python()).arg("-c").arg(&script).arg(arg).output().expect("python runs");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{path}: {stdout}{}", text(&out.stderr));
    Printed(stdout)
}

#[test]
fn pedpy_loads_the_sqlite_trace_and_computes_density_and_speed() {
    if !python_with(
        &["pedpy"],
        "THRONG_REQUIRE_PEDPY",
        "pedpy_loads_the_sqlite_trace_and_computes_density_and_speed",
    ) {
        return;
    }
    let dir = scratch_dir("trace_sqlite_pedpy");
    let scenario = write(&dir, "room.toml", ROOM.replace("ticks = 60", "ticks = 300"));
    let path = dir.join("room.sqlite");
    ok(&throng(&["run", s(&scenario), "--trace", s(&path), "--trace-every", "2", "--quiet"]));
    // What the example prints: the frame rate, the frames and walkers, the walkable area, a
    // classic density in a 4 x 4 area east of the door and the mean speed there.
    let printed = run_example("docs/examples/pedpy_sqlite.py", &path);
    let value = |key: &str| printed.value(key);
    assert_eq!(value("frame rate:"), 5.0, "1 / (0.1 s x 2)");
    assert_eq!(value("frames:"), 151.0);
    assert_eq!(value("pedestrians:"), 30.0);
    // PedPy unions the frames' areas: the open door's. 40 x 20 less the two walls either side
    // of it (8 x 0.2 each, with a half-disc end inside the room) and the pillar (a 64-gon of
    // radius 1, 3.1365).
    let area = value("walkable area:");
    assert!((area - (800.0 - 2.0 * 0.2 * 8.0 - std::f64::consts::PI)).abs() < 0.1, "{area}");
    assert!(value("max density:") > 0.0, "walkers pass east of the door");
    assert!((0.0..=1.5).contains(&value("mean speed:")), "{}", printed.0);

    // The text format, as the docs load it.
    let txt = dir.join("room.txt");
    ok(&throng(&["run", s(&scenario), "--trace", s(&txt), "--trace-every", "2", "--quiet"]));
    let load = std::fs::read_to_string(root().join("docs/examples/pedpy_txt.py")).expect("the docs' example");
    let out = Command::new(python()).arg("-c").arg(load).arg(&txt).output().expect("python runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let words: Vec<String> = text(&out.stdout).split_whitespace().map(str::to_owned).collect();
    assert_eq!(&words[..3], ["5.0", "151", "30"], "{words:?}");

    // The SQLite trace in pandas with throng's columns, as the docs join them.
    let script =
        std::fs::read_to_string(root().join("docs/examples/sqlite_pandas.py")).expect("the docs' example");
    let out = Command::new(python()).arg("-c").arg(&script).arg(&path).output().expect("python runs");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("rows: 4530\n"), "151 frames of 30 walkers: {stdout}");
    assert!(stdout.contains("last time: 30.0\n"), "frame 150 at 5 frames a second: {stdout}");
    assert!(stdout.contains("groups: ['walkers']"), "{stdout}");
}

/// The README's pedestrian quick start, as written there: the bottleneck's SQLite trace, and
/// PedPy's flow at the bottleneck's line and density in front of it beside throng's own gate.
#[test]
fn the_pedestrian_quick_start_gives_the_flow_the_readme_shows() {
    if !python_with(
        &["pedpy"],
        "THRONG_REQUIRE_PEDPY",
        "the_pedestrian_quick_start_gives_the_flow_the_readme_shows",
    ) {
        return;
    }
    let dir = scratch_dir("trace_quick_start");
    let trace = dir.join("bottleneck.sqlite");
    let scenario = root().join("scenarios/models/bottleneck.toml");
    let out = throng(&["run", s(&scenario), "--trace", s(&trace), "--trace-every", "5", "--json"]);
    ok(&out);
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let gate = &run["metrics"]["gates"][0];
    assert_eq!(gate["crossings"], 60);
    let printed = run_example("docs/examples/bottleneck_pedpy.py", &trace);
    let value = |key: &str| printed.value(key);
    // The README's figures.
    assert_eq!(value("crossed the line:"), 60.0);
    assert!((value("flow (persons/s):") - 1.302).abs() < 1e-9, "{}", printed.0);
    let throng_flow = gate["passage_per_s"].as_f64().expect("a number");
    assert!((throng_flow - 1.331).abs() < 5e-4, "throng's own: {throng_flow}");
    assert!(
        (value("mean density in front of the bottleneck while it empties (1/m²):") - 2.49).abs() < 1e-9,
        "{}",
        printed.0
    );
}
