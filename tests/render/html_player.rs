//! The HTML player: one self-contained file that plays in headless Chromium.

use std::io::Read;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{ok, s, scene};
use crate::common::{scratch_dir, throng};

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
    // The scene's point target goes to the player, to be drawn like the PNG's.
    assert!(page.contains(r#""targets":[{"name":"goal","point":[36.0,26.0]}]"#), "no targets in the data");
}

/// The Chromium executable: $THRONG_CHROMIUM, or the first of the usual names on the PATH;
/// `None` when there is none.
fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("THRONG_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].iter().find_map(|name| {
        std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
    })
}

/// How to get the browser, for the skip and failure messages.
const INSTALL: &str = "install it (`apt-get install -y chromium` on Debian/Ubuntu; .ci/run does this) or \
                       point THRONG_CHROMIUM at a Chrome or Chromium executable";

/// The browser for the player test. Without one the test is skipped with a message on stderr,
/// unless THRONG_REQUIRE_BROWSER=1 (as .ci/run sets), which makes a missing browser a failure.
fn chromium() -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("THRONG_REQUIRE_BROWSER").is_none_or(|v| v == "0"),
            "THRONG_REQUIRE_BROWSER is set and the HTML player test found no headless Chromium on the PATH: {INSTALL}"
        );
        // Straight to the process's stderr, which the test harness does not capture, so the skip
        // shows in a plain `cargo test` run.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_html_player_plays_in_headless_chromium: no Chromium on the PATH; to run it, {INSTALL}"
        );
    }
    found
}

/// Runs Chromium headless on `url` with `extra` flags, killing it after `limit`.
fn headless(browser: &Path, profile: &Path, url: &str, extra: &[&str], limit: Duration) -> (String, String) {
    let mut child = Command::new(browser)
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

/// Runs a player's own self-test (`url` ends in `#selftest`): the page writes its verdict into
/// `<body data-selftest>` and its findings into `data-selftest-detail`, and
/// --virtual-time-budget lets its timers run before the DOM is dumped. Asserts it passed;
/// returns the findings and Chromium's stderr.
fn selftest(browser: &Path, profile: &Path, url: &str) -> (serde_json::Value, String) {
    let (dom, stderr) = headless(
        browser,
        profile,
        url,
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
    (serde_json::from_str(&detail).expect("the self-test detail is JSON"), stderr)
}

#[test]
fn the_html_player_plays_in_headless_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = scratch_dir("render_html_browser");
    let scenario = scene(&dir);
    let page = dir.join("scene.html");
    ok(&throng(&["render", s(&scenario), "--out", s(&page)]));
    let url = format!("file://{}#selftest", std::fs::canonicalize(&page).expect("the page").display());

    // The page checks itself (canvas drawn, play advances the tick, pause, scrub, speed, zoom,
    // pan, dots when zoomed out, hover shows an agent, no errors).
    let (detail, stderr) = selftest(&browser, &dir.join("profile-dom"), &url);
    let after = detail["tickAfterPlay"].as_str().expect("tickAfterPlay");
    assert!(!after.starts_with("tick 0 "), "playing advanced the tick display: {after}");
    assert!(detail["tip"].as_str().is_some_and(|t| t.starts_with("id ")), "hover: {detail}");
    assert_eq!(console_lines(&stderr), Vec::<&str>::new(), "console messages");

    // A screenshot of the player after its self-test, kept in the scratch dir for a look.
    let shot = dir.join("player.png");
    let (_, stderr) = headless(
        &browser,
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
fn the_player_carries_doors_per_frame_and_the_events_timeline() {
    let dir = scratch_dir("render_html_events");
    let page = dir.join("closing.html");
    ok(&throng(&[
        "render",
        s(&crate::common::root().join("scenarios/closing.toml")),
        "--out",
        s(&page),
        "--every",
        "100",
    ]));
    let html = std::fs::read_to_string(&page).expect("the page");
    let start = html.find("id=\"throng-data\">").expect("data") + "id=\"throng-data\">".len();
    let end = start + html[start..].find("</script>").expect("end of data");
    let data: serde_json::Value = serde_json::from_str(&html[start..end]).expect("JSON");
    assert_eq!(data["doors"][0]["name"], "east_door");
    assert_eq!(data["door_states"], serde_json::json!(["0", "1"]), "open, then closed");
    // Frames at ticks 0, 100, 200, 300, 400, ... and 1022; the door closes as tick 301 starts
    // (the event's tick is 300: ticks completed), so the frame at 300 still shows it open.
    let states: Vec<u64> =
        data["frames"].as_array().expect("frames").iter().map(|f| f[2].as_u64().expect("state")).collect();
    assert_eq!(&states[..5], [0, 0, 0, 0, 1]);
    assert_eq!(data["ticks"].as_array().and_then(|t| t.last()).and_then(|t| t.as_u64()), Some(1022));
    assert_eq!(
        data["events"],
        serde_json::json!([[300, "the east door closes"], [1022, "stop when the room is empty"]])
    );
    // In the browser, the timeline marks and the legend's last event pass the self-test (on
    // the first 60 s, while the room still has agents to draw).
    let Some(browser) = chromium() else { return };
    let closing = crate::common::root().join("scenarios/closing.toml");
    ok(&throng(&["render", s(&closing), "--out", s(&page), "--every", "10", "--ticks", "600"]));
    let url = format!("file://{}#selftest", std::fs::canonicalize(&page).expect("the page").display());
    let (dom, stderr) = headless(
        &browser,
        &dir.join("profile"),
        &url,
        &["--virtual-time-budget=15000", "--dump-dom"],
        Duration::from_secs(90),
    );
    let detail = body_attribute(&dom, "data-selftest-detail").unwrap_or_default();
    assert_eq!(body_attribute(&dom, "data-selftest").as_deref(), Some("pass"), "{detail}\n{stderr}");
    assert!(detail.contains("event: the east door closes (tick 300, 30.0 s)"), "{detail}");
}

/// The player of a run in space plays in headless Chromium: drawn, played, paused, scrubbed,
/// orbited by a drag and by the arrow keys (the angles and the picture change), seen from
/// straight above, zoomed and reset, with no error and no console message.
#[test]
fn the_space_player_orbits_in_headless_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = scratch_dir("render_html_space_browser");
    let page = dir.join("birds.html");
    ok(&throng(&["render", "scenarios/birds.toml", "--out", s(&page), "--every", "10"]));
    let url = format!("file://{}#selftest", std::fs::canonicalize(&page).expect("the page").display());
    let (detail, stderr) = selftest(&browser, &dir.join("profile"), &url);
    assert_ne!(detail["orbit"]["still"], detail["orbit"]["turned"], "orbiting changed the picture: {detail}");
    assert_eq!(console_lines(&stderr), Vec::<&str>::new(), "console messages");
}
