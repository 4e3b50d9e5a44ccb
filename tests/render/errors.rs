//! Bad input to `throng render` and `throng plot`: exit 2 with a clear message, never a panic,
//! and no output.

use std::path::{Path, PathBuf};

use super::{ok, s, scene, text};
use crate::common::{scratch_dir, throng};

/// Runs `throng`, expects exit 2 and a message containing every one of `needles`.
fn fails(args: &[&str], needles: &[&str]) {
    let out = throng(args);
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: expected exit 2\nstdout: {}\nstderr: {err}",
        text(&out.stdout)
    );
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected `{n}` in the error, got: {err}");
    }
}

/// Writes a trace whose body is `rows` (after the standard header unless `header` is given).
fn write_trace(dir: &Path, name: &str, contents: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write the trace");
    path
}

#[test]
fn bad_traces_are_errors_with_a_line_number() {
    let dir = scratch_dir("render_bad_traces");
    let out = dir.join("out.png");
    let o = s(&out);
    const HEADER: &str = "tick,id,group,x,y,vx,vy\n";

    fails(&["render", s(&dir.join("missing.csv")), "--out", o], &["missing.csv", "no such trace file"]);
    let t = write_trace(&dir, "empty.csv", "");
    fails(&["render", s(&t), "--out", o], &["empty.csv", "empty", "tick,time_s,id,group,x,y,vx,vy,radius"]);
    let t = write_trace(&dir, "header.csv", HEADER);
    fails(&["render", s(&t), "--out", o], &["header.csv", "no rows"]);
    let t = write_trace(&dir, "columns.csv", "tick,id,x,y\n0,1,2,3\n");
    fails(&["render", s(&t), "--out", o], &["columns.csv:1:", "not a trace", "tick,id,x,y"]);
    let t = write_trace(&dir, "short.csv", &format!("{HEADER}0,0,a,1,2,0,0\n0,1,a,1,2\n"));
    fails(&["render", s(&t), "--out", o], &["short.csv:3:", "expected 7 columns", "found 5"]);
    let t = write_trace(&dir, "word.csv", &format!("{HEADER}0,0,a,1,2,0,0\n0,1,a,abc,2,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["word.csv:3:", "column `x`", "`abc`"]);
    let t = write_trace(&dir, "nan.csv", &format!("{HEADER}0,0,a,1,NaN,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["nan.csv:2:", "column `y`", "finite"]);
    let t = write_trace(&dir, "tick.csv", &format!("{HEADER}-1,0,a,1,2,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["tick.csv:2:", "column `tick`"]);
    let t = write_trace(&dir, "order.csv", &format!("{HEADER}5,0,a,1,2,0,0\n3,0,a,1,2,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["order.csv:3:", "tick 3 after tick 5"]);
    let t = write_trace(&dir, "twice.csv", &format!("{HEADER}0,4,a,1,2,0,0\n0,4,a,1,2,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["twice.csv:3:", "agent 4 appears twice"]);

    const WITH_RADIUS: &str = "tick,time_s,id,group,x,y,vx,vy,radius\n";
    let t = write_trace(&dir, "radius.csv", &format!("{WITH_RADIUS}0,0,0,a,1,2,0,0,0\n"));
    fails(&["render", s(&t), "--out", o], &["radius.csv:2:", "column `radius`", "expected a radius > 0"]);

    let good = write_trace(&dir, "good.csv", &format!("{HEADER}0,0,a,1,2,0,0\n2,0,a,1.5,2,0,0\n"));
    fails(&["render", s(&good), "--out", o, "--tick", "1"], &["tick 1 is not in the trace", "from 0 to 2"]);
    let odd = write_trace(&dir, "odd.csv", &format!("{HEADER}1,0,a,1,2,0,0\n3,0,a,1.5,2,0,0\n"));
    fails(
        &["render", s(&odd), "--out", s(&dir.join("odd.gif")), "--every", "2"],
        &["no frame to draw", "--every 2"],
    );
    let scenario = scene(&dir);
    fails(
        &["render", s(&good), "--scenario", s(&scenario), "--out", o],
        &["group `a` is not a group of the scenario", "walkers, guards"],
    );
    fails(&["render", s(&good), "--out", o, "--ticks", "5"], &["--ticks applies to a scenario input"]);
    fails(&["render", s(&dir.join("x.txt")), "--out", o], &["scenario (.toml) or a trace (.csv, .parquet)"]);
    assert!(!out.exists(), "no output after an error");
}

#[test]
fn bad_outputs_and_options_are_errors() {
    let dir = scratch_dir("render_bad_options");
    let scenario = scene(&dir);
    let sc = s(&scenario);
    let png = dir.join("out.png");
    let p = s(&png);

    let nested = dir.join("no/such/dir/out.png");
    fails(&["render", sc, "--out", s(&nested)], &["does not exist", "no/such/dir"]);
    fails(
        &["render", sc, "--out", s(&dir.join("out.bmp"))],
        &["unknown output format", "`.bmp`", ".png", ".gif", ".html"],
    );
    fails(&["render", sc, "--out", s(&dir.join("out"))], &["unknown output format", "no extension"]);
    fails(&["plot", sc, "--out", s(&dir.join("out.gif"))], &["unknown output format", ".svg", ".png"]);
    for bad in ["abc", "0x10", "100000x100", "800", "800x-5"] {
        fails(&["render", sc, "--out", p, "--size", bad], &["--size", "WIDTHxHEIGHT"]);
    }
    for bad in ["1,2,3", "5,0,1,1", "0,5,1,1", "a,b,c,d", "nan,0,1,1", "0,0,inf,1"] {
        fails(&["render", sc, "--out", p, "--view", bad], &["--view", "x0,y0,x1,y1"]);
    }
    fails(&["render", sc, "--out", p, "--every", "2"], &["--every and --fps are for an animation"]);
    fails(
        &["render", sc, "--out", s(&dir.join("a.gif")), "--tick", "2"],
        &["--tick picks the frame of a PNG"],
    );
    fails(&["render", sc, "--out", s(&dir.join("a.gif")), "--every", "0"], &["--every must be at least 1"]);
    fails(&["render", sc, "--out", s(&dir.join("a.gif")), "--fps", "0"], &["--fps must be more than 0"]);
    fails(&["render", sc, "--out", s(&dir.join("a.gif")), "--fps", "100"], &["at most 50"]);
    fails(&["render", sc, "--out", s(&dir.join("a.html")), "--trails", "3"], &["--trails"]);
    fails(
        &["render", sc, "--out", p, "--tick", "40", "--ticks", "30"],
        &["--tick 40 is after the last tick"],
    );
    fails(&["render", sc, "--out", p, "--threads", "0"], &["--threads must be at least 1"]);
    fails(&["render", sc, "--scenario", sc, "--out", p], &["--scenario goes with a trace input"]);
    fails(&["render", s(&dir.join("nope.toml")), "--out", p], &["nope.toml", "no such file"]);
    assert!(!png.exists(), "no output after an error");
    // A view framing a small region is fine.
    ok(&throng(&["render", sc, "--out", p, "--view", "-5,-5,20,15", "--tick", "3"]));
}

#[test]
fn bad_metrics_files_are_errors() {
    let dir = scratch_dir("render_bad_metrics");
    let out = dir.join("out.svg");
    let o = s(&out);
    const HEADER: &str = "tick,time_s,agents_active,agents_exited,agents_spawned,mean_speed,overlap_pairs,\
                          obstacle_penetrations,stuck_agents,queue_length,polarisation\n";
    fails(&["plot", s(&dir.join("missing.csv")), "--out", o], &["no such metrics file"]);
    let m = write_trace(&dir, "empty.csv", "");
    fails(&["plot", s(&m), "--out", o], &["empty.csv", "empty"]);
    let m = write_trace(&dir, "header.csv", HEADER);
    fails(&["plot", s(&m), "--out", o], &["header.csv", "no rows"]);
    let m = write_trace(&dir, "trace.csv", "tick,id,group,x,y,vx,vy\n0,0,a,1,2,0,0\n");
    fails(&["plot", s(&m), "--out", o], &["trace.csv:1:", "missing columns", "time_s", "mean_speed"]);
    let m = write_trace(
        &dir,
        "word.csv",
        &format!("{HEADER}1,0.1,5,0,0,1.5,0,0,0,0,0.5\n2,0.2,5,0,0,fast,0,0,0,0,0.5\n"),
    );
    fails(&["plot", s(&m), "--out", o], &["word.csv:3:", "column `mean_speed`", "`fast`"]);
    let m = write_trace(
        &dir,
        "order.csv",
        &format!("{HEADER}2,0.2,5,0,0,1.5,0,0,0,0,0.5\n1,0.1,5,0,0,1,0,0,0,0,0.5\n"),
    );
    fails(&["plot", s(&m), "--out", o], &["order.csv:3:", "increasing tick order"]);
    assert!(!out.exists(), "no output after an error");
}
