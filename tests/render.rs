//! `throng render` and `throng plot`, through the real binary: golden pictures compared byte for
//! byte, determinism (same input, same bytes, whatever the thread count), trace input, the GIF's
//! frames, the HTML player in headless Chromium, plots, and bad input (exit 2, never a panic).
//!
//! Re-mint the golden pictures after a deliberate change to the drawing or the simulation:
//!
//! ```sh
//! THRONG_REMINT=1 cargo test --test suite render
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{root, scratch_dir, throng};

/// A small scene with every kind of geometry: bounds, a circle and a rectangle obstacle, a path,
/// an exit, a spawn source and a gate, and two groups.
const SCENE: &str = r#"version = 1
name = "scene"
seed = 5
dt = 0.1
ticks = 30

obstacles = [
  { kind = "circle", centre = [20, 12], radius = 3 },
  { kind = "rect", min = [8, 20], max = [14, 24] },
]

[bounds]
kind = "open"
min = [0, 0]
max = [40, 30]

[targets.goal]
kind = "point"
position = [36, 26]

[paths.tour]
nodes = [[4, 4], [30, 4], [30, 16]]
radius = 1.5

[[exits]]
name = "out"
kind = "rect"
min = [34, 24]
max = [40, 30]

[[sources]]
name = "door"
group = "walkers"
kind = "circle"
centre = [4, 26]
radius = 2
rate = 4
max_agents = 6

[[gates]]
name = "line"
from = [26, 18]
to = [26, 30]

[[groups]]
name = "walkers"
count = 12
spawn = { kind = "rect", min = [2, 8], max = [12, 18] }
max_speed = 3.0
max_force = 3.0
radius = 0.6
initial_speed = 1.0

[[groups.behaviours]]
kind = "seek"
target = "goal"

[[groups.behaviours]]
kind = "avoid_obstacles"
weight = 2.0

[[groups]]
name = "guards"
count = 3
spawn = { kind = "points", points = [[4, 4], [6, 4], [8, 4]] }
max_speed = 2.0
max_force = 2.0
radius = 0.8

[[groups.behaviours]]
kind = "follow_path"
path = "tour"
mode = "loop"
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

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

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn scene(dir: &Path) -> PathBuf {
    let path = dir.join("scene.toml");
    std::fs::write(&path, SCENE).expect("write the scene");
    path
}

/// Compares `got` with the committed golden picture, or rewrites it when THRONG_REMINT is set.
fn golden(name: &str, got: &Path) {
    let want_path = root().join("tests/golden/render").join(name);
    let got_bytes = std::fs::read(got).expect("the rendered picture");
    if std::env::var_os("THRONG_REMINT").is_some() {
        std::fs::create_dir_all(want_path.parent().expect("a parent")).expect("golden dir");
        std::fs::write(&want_path, &got_bytes).expect("write the golden picture");
        return;
    }
    let want = std::fs::read(&want_path).unwrap_or_else(|e| {
        panic!("{}: {e}; mint it with THRONG_REMINT=1 cargo test --test suite render", want_path.display())
    });
    assert!(
        got_bytes == want,
        "{} differs from the golden {} ({} vs {} bytes). If the change is deliberate, look at both and \
         re-mint: THRONG_REMINT=1 cargo test --test suite render",
        got.display(),
        want_path.display(),
        got_bytes.len(),
        want.len()
    );
}

#[test]
fn golden_scene_frame() {
    let dir = scratch_dir("render_golden_scene");
    let scenario = scene(&dir);
    let out = dir.join("scene.png");
    ok(&throng(&[
        "render",
        s(&scenario),
        "--out",
        s(&out),
        "--tick",
        "12",
        "--trails",
        "6",
        "--size",
        "200x150",
    ]));
    golden("scene.png", &out);
}

#[test]
fn golden_doorway_frame() {
    let dir = scratch_dir("render_golden_doorway");
    let out = dir.join("doorway.png");
    ok(&throng(&[
        "render",
        "scenarios/doorway.toml",
        "--out",
        s(&out),
        "--tick",
        "250",
        "--size",
        "240x180",
    ]));
    golden("doorway.png", &out);
}

#[test]
fn the_same_input_gives_the_same_bytes_at_any_thread_count() {
    let dir = scratch_dir("render_determinism");
    let scenario = scene(&dir);
    for ext in ["png", "gif", "html"] {
        let a = dir.join(format!("a.{ext}"));
        let b = dir.join(format!("b.{ext}"));
        let extra: &[&str] = if ext == "png" { &["--trails", "5"] } else { &["--every", "3"] };
        for (path, threads) in [(&a, "1"), (&b, "3")] {
            let mut args =
                vec!["render", s(&scenario), "--out", s(path), "--threads", threads, "--size", "160x120"];
            args.extend_from_slice(extra);
            ok(&throng(&args));
        }
        let (a, b) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
        assert!(!a.is_empty());
        assert!(a == b, "{ext}: two renders of the same run differ");
    }
}

#[test]
fn a_trace_with_its_scenario_draws_the_same_frame_as_the_scenario() {
    let dir = scratch_dir("render_trace");
    let scenario = scene(&dir);
    let trace = dir.join("trace.csv");
    ok(&throng(&["run", s(&scenario), "--trace", s(&trace), "--trace-every", "2", "--quiet"]));

    // The trace holds positions as shortest round-trip decimals, and the radii are plain values,
    // so the frame is the same picture, byte for byte.
    let direct = dir.join("direct.png");
    let traced = dir.join("traced.png");
    ok(&throng(&["render", s(&scenario), "--out", s(&direct), "--tick", "10", "--size", "200x150"]));
    ok(&throng(&[
        "render",
        s(&trace),
        "--scenario",
        s(&scenario),
        "--out",
        s(&traced),
        "--tick",
        "10",
        "--size",
        "200x150",
    ]));
    assert!(std::fs::read(&direct).expect("direct") == std::fs::read(&traced).expect("traced"));

    // Without the scenario: no geometry, framed on the agents, groups in order of appearance.
    let bare = dir.join("bare.png");
    let stdout = ok(&throng(&["render", s(&trace), "--out", s(&bare), "--trails", "6"]));
    assert!(stdout.contains("tick 30"), "the last traced tick by default: {stdout}");
    let pixmap = tiny_skia::Pixmap::load_png(&bare).expect("a PNG");
    assert_eq!(pixmap.width(), 800);

    // A GIF and a player from the trace.
    let gif = dir.join("trace.gif");
    let stdout = ok(&throng(&["render", s(&trace), "--out", s(&gif), "--every", "4"]));
    assert!(stdout.contains("8 frames"), "ticks 0, 4, ..., 28 of a trace every 2 ticks: {stdout}");
    ok(&throng(&["render", s(&trace), "--scenario", s(&scenario), "--out", s(&dir.join("trace.html"))]));
}

/// The frames of a GIF as the viewer shows them: each frame's rectangle drawn over the picture
/// so far, transparent pixels keeping what was there. Also checks the frame delays.
fn gif_pictures(path: &Path, delay: u16) -> (u16, u16, Vec<Vec<u8>>) {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(std::fs::File::open(path).expect("the GIF")).expect("a GIF");
    let (w, h) = (decoder.width(), decoder.height());
    assert!(decoder.global_palette().expect("a global palette").len() / 3 <= 256);
    let mut picture = vec![0u8; w as usize * h as usize];
    let mut pictures = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        assert_eq!(frame.delay, delay);
        assert!(frame.palette.is_none(), "every frame uses the global palette");
        for y in 0..frame.height as usize {
            for x in 0..frame.width as usize {
                let index = frame.buffer[y * frame.width as usize + x];
                if Some(index) != frame.transparent {
                    picture[(frame.top as usize + y) * w as usize + frame.left as usize + x] = index;
                }
            }
        }
        pictures.push(picture.clone());
    }
    (w, h, pictures)
}

#[test]
fn a_gif_has_one_frame_every_k_ticks_on_a_fixed_palette() {
    let dir = scratch_dir("render_gif");
    let scenario = scene(&dir);
    let every5 = dir.join("every5.gif");
    let every30 = dir.join("every30.gif");
    ok(&throng(&[
        "render",
        s(&scenario),
        "--out",
        s(&every5),
        "--every",
        "5",
        "--fps",
        "20",
        "--size",
        "160x120",
    ]));
    ok(&throng(&[
        "render",
        s(&scenario),
        "--out",
        s(&every30),
        "--every",
        "30",
        "--fps",
        "4",
        "--size",
        "160x120",
    ]));
    let (w, h, five) = gif_pictures(&every5, 5);
    assert_eq!((w, h), (160, 120));
    assert_eq!(five.len(), 7, "ticks 0, 5, ..., 30");
    let (_, _, thirty) = gif_pictures(&every30, 25);
    assert_eq!(thirty.len(), 2, "ticks 0 and 30");
    // Stored as differences from different frames, tick 30 still shows the same picture.
    assert!(five[0] == thirty[0] && five[6] == thirty[1], "frames stored as differences add up to the frame");
    assert!(five[0] != five[6], "the agents moved");
}

#[test]
fn the_html_player_is_one_self_contained_file() {
    let dir = scratch_dir("render_html_file");
    let scenario = scene(&dir);
    let out = dir.join("scene.html");
    let stdout = ok(&throng(&["render", s(&scenario), "--out", s(&out), "--every", "2"]));
    assert!(stdout.contains("16 frames"), "{stdout}");
    let page = std::fs::read_to_string(&out).expect("the page");
    for banned in ["http://", "https://", "<script src", "<link", "<img", "@import", "url("] {
        assert!(!page.contains(banned), "the page refers to something outside it: {banned}");
    }
    assert_eq!(page.matches("id=\"throng-data\"").count(), 1);
    assert!(page.contains("<title>throng: scene</title>"));
}

/// The Chromium executable: $THRONG_CHROMIUM, or the first of the usual names on the PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("THRONG_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the HTML player test needs headless Chromium and found none on the PATH. Install it: \
         `apt-get install -y chromium` (Debian/Ubuntu; .ci/run does this when it is missing), \
         or point THRONG_CHROMIUM at a Chrome or Chromium executable"
    );
}

/// Runs Chromium headless on `url` with `extra` flags, killing it after `limit`.
fn headless(profile: &Path, url: &str, extra: &[&str], limit: Duration) -> (String, String) {
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Chromium starts");
    // Drain both pipes on threads so a chatty browser never blocks on a full pipe.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait for Chromium").is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish within {limit:?} on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (out.join().expect("stdout reader"), err.join().expect("stderr reader"))
}

/// Messages the page wrote to the console (Chromium logs them as `INFO:CONSOLE`); the player
/// writes none, so any is an error or a warning.
fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// The value of attribute `name` of the first `<body>` tag of a dumped DOM, unescaped.
fn body_attribute(dom: &str, name: &str) -> Option<String> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let value = &tag[start..start + tag[start..].find('"')?];
    Some(value.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
}

#[test]
fn the_html_player_plays_in_headless_chromium() {
    let dir = scratch_dir("render_html_browser");
    let scenario = scene(&dir);
    let page = dir.join("scene.html");
    ok(&throng(&["render", s(&scenario), "--out", s(&page)]));
    let url = format!("file://{}#selftest", std::fs::canonicalize(&page).expect("the page").display());

    // The page checks itself (canvas drawn, play advances the tick, pause, scrub, speed, zoom,
    // pan, dots when zoomed out, hover shows an agent, no errors) and writes the verdict into
    // <body data-selftest>; --virtual-time-budget lets its timers run before the DOM is dumped.
    let (dom, stderr) = headless(
        &dir.join("profile-dom"),
        &url,
        &["--virtual-time-budget=15000", "--dump-dom"],
        Duration::from_secs(90),
    );
    let verdict = body_attribute(&dom, "data-selftest");
    let detail = body_attribute(&dom, "data-selftest-detail").unwrap_or_default();
    assert_eq!(
        verdict.as_deref(),
        Some("pass"),
        "the player's self-test: {detail}\nChromium stderr:\n{stderr}"
    );
    let detail: serde_json::Value = serde_json::from_str(&detail).expect("the self-test detail is JSON");
    let after = detail["tickAfterPlay"].as_str().expect("tickAfterPlay");
    assert!(!after.starts_with("tick 0 "), "playing advanced the tick display: {after}");
    assert!(detail["tip"].as_str().is_some_and(|t| t.starts_with("id ")), "hover: {detail}");
    assert_eq!(console_lines(&stderr), Vec::<&str>::new(), "console messages");

    // A screenshot of the player after its self-test, kept in the scratch dir for a look.
    let shot = dir.join("player.png");
    let (_, stderr) = headless(
        &dir.join("profile-shot"),
        &url,
        &[
            "--virtual-time-budget=15000",
            "--window-size=800,600",
            &format!("--screenshot={}", shot.display()),
        ],
        Duration::from_secs(90),
    );
    assert_eq!(console_lines(&stderr), Vec::<&str>::new(), "console messages");
    let pixmap =
        tiny_skia::Pixmap::load_png(&shot).unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", shot.display()));
    assert_eq!((pixmap.width(), pixmap.height()), (800, 600));
    let mut colours: Vec<u32> = pixmap
        .pixels()
        .iter()
        .map(|p| (p.red() as u32) << 16 | (p.green() as u32) << 8 | p.blue() as u32)
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 20, "the screenshot is nearly blank: {} colours", colours.len());
}

#[test]
fn plots_from_a_metrics_file_and_from_a_scenario() {
    let dir = scratch_dir("render_plot");
    let scenario = scene(&dir);
    let metrics = dir.join("metrics.csv");
    ok(&throng(&["run", s(&scenario), "--metrics", s(&metrics), "--quiet"]));

    let svg = dir.join("metrics.svg");
    let stdout = ok(&throng(&["plot", s(&metrics), "--out", s(&svg)]));
    assert!(stdout.contains("6 panels"), "five metrics and one gate: {stdout}");
    let page = std::fs::read_to_string(&svg).expect("the SVG");
    assert!(page.starts_with("<svg"));
    for title in [
        "agents active",
        "agents exited",
        "mean speed (units/s)",
        "queue length",
        "polarisation",
        "gate line throughput",
    ] {
        assert!(page.contains(title), "missing panel `{title}`");
    }
    assert_eq!(page.matches("<polyline").count(), 6);
    assert!(page.contains("1 tick = 0.1 s"), "the tick axis says its unit");

    // From the scenario directly: the same series, so the same SVG (but for the name).
    let svg2 = dir.join("scenario.svg");
    ok(&throng(&["plot", s(&scenario), "--out", s(&svg2)]));
    let page2 = std::fs::read_to_string(&svg2).expect("the SVG");
    assert_eq!(page.replace("metrics: metrics per tick", "scene: metrics per tick"), page2);

    let png = dir.join("metrics.png");
    ok(&throng(&["plot", s(&metrics), "--out", s(&png), "--size", "640x720"]));
    let pixmap = tiny_skia::Pixmap::load_png(&png).expect("a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (640, 720));
    let again = dir.join("again.png");
    ok(&throng(&["plot", s(&metrics), "--out", s(&again), "--size", "640x720"]));
    assert!(std::fs::read(&png).expect("png") == std::fs::read(&again).expect("again"));
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
    fails(&["render", s(&t), "--out", o], &["empty.csv", "empty", "tick,id,group,x,y,vx,vy"]);
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
    fails(&["render", s(&dir.join("x.txt")), "--out", o], &["scenario (.toml) or a trace (.csv)"]);
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
