//! PNG frames and GIF animations: golden pictures compared byte for byte, the same bytes at any
//! thread count, a trace drawn as its scenario, and the GIF's frames and palette.

use std::path::Path;

use super::{ok, s, scene};
use crate::common::{root, scratch_dir, throng};

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
fn the_scene_frame_matches_its_golden_picture() {
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
fn the_doorway_frame_matches_its_golden_picture() {
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
    assert!(pixmap.width() > 800, "800 pixels of world and the legend's strip: {}", pixmap.width());

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

/// The darkest channel-sum near pixel (x, y) (within one pixel): targets are black marks.
fn darkness_near(p: &tiny_skia::Pixmap, x: u32, y: u32) -> u32 {
    let mut best = u32::MAX;
    for yy in y - 1..=y + 1 {
        for xx in x - 1..=x + 1 {
            let c = p.pixel(xx, yy).expect("inside the picture");
            best = best.min(c.red() as u32 + c.green() as u32 + c.blue() as u32);
        }
    }
    best
}

/// Targets are drawn where they are: a fixed point, a moving point where the loop has taken it
/// by the frame's time (not where it started), and a ring around an agent target. With
/// `--view 0,0,100,100 --size 212x212` a world point (x, y) is pixel (6 + 2x, 206 − 2y).
#[test]
fn targets_are_drawn_where_they_are() {
    let dir = scratch_dir("render_targets");
    let out = dir.join("targets.png");
    let scenario = root().join("tests/render/targets.toml");
    ok(&throng(&[
        "render",
        s(&scenario),
        "--out",
        s(&out),
        "--view",
        "0,0,100,100",
        "--size",
        "212x212",
        "--no-legend",
        "--tick",
        "100",
    ]));
    let p = tiny_skia::Pixmap::load_png(&out).expect("a PNG");
    let px = |x: f32, y: f32| ((6.0 + 2.0 * x) as u32, (206.0 - 2.0 * y) as u32);
    // At tick 100 (10 s at 2 units/s) the loop's point is 20 units along: (40, 50).
    for (what, (x, y)) in
        [("post", px(70.0, 80.0)), ("loop at 10 s", px(40.0, 50.0)), ("sentry's ring", (113, 166))]
    {
        assert!(darkness_near(&p, x, y) < 150, "{what}: no dark mark near pixel ({x}, {y})");
    }
    // Where the loop's point started, only its dashed loop (grey) is drawn.
    let (x, y) = px(20.0, 50.0);
    assert!(darkness_near(&p, x + 3, y + 3) > 600, "the moving target is still drawn at its start");
}

/// The legend takes a strip beside the world, so it covers nothing: the world part of a
/// picture with the legend is, pixel for pixel, the picture without it at the world's size.
#[test]
fn the_legend_covers_nothing() {
    let dir = scratch_dir("render_legend");
    let (with, without) = (dir.join("with.png"), dir.join("without.png"));
    ok(&throng(&["render", "scenarios/patrol.toml", "--out", s(&with), "--tick", "40"]));
    let a = tiny_skia::Pixmap::load_png(&with).expect("a PNG");
    assert!(a.width() > 800, "no room was made for the legend: {} pixels wide", a.width());
    let size = format!("800x{}", a.height());
    ok(&throng(&[
        "render",
        "scenarios/patrol.toml",
        "--out",
        s(&without),
        "--tick",
        "40",
        "--no-legend",
        "--size",
        &size,
    ]));
    let b = tiny_skia::Pixmap::load_png(&without).expect("a PNG");
    for y in 0..a.height() {
        for x in 0..800 {
            assert!(a.pixel(x, y) == b.pixel(x, y), "the legend reaches into the world at pixel ({x}, {y})");
        }
    }
    // A picture too narrow for a strip puts the legend in the emptiest corner instead.
    let narrow = dir.join("narrow.png");
    ok(&throng(&["render", "scenarios/patrol.toml", "--out", s(&narrow), "--size", "240x180"]));
    assert_eq!(tiny_skia::Pixmap::load_png(&narrow).expect("a PNG").width(), 240);
}

/// Doors are drawn in each frame's state: the closing scene's east door (x 40 to 41, y 18.5 to
/// 21.5) is open, a dashed outline, at 10 s and closed, filled, at 40 s. With `--view
/// 35,14,47,26 --size 300x300` a world point (x, y) is pixel (25 (x − 35), 25 (26 − y)).
#[test]
fn doors_are_drawn_open_or_closed_as_each_frame_has_them() {
    let dir = scratch_dir("render_doors");
    let scenario = root().join("scenarios/closing.toml");
    let centre_darkness = |tick: &str| {
        let out = dir.join(format!("closing-{tick}.png"));
        let args = ["render", s(&scenario), "--out", s(&out), "--view", "35,14,47,26", "--size", "300x300"];
        ok(&throng(&[&args[..], &["--no-legend", "--tick", tick]].concat()));
        let p = tiny_skia::Pixmap::load_png(&out).expect("a PNG");
        // The door's middle, (40.5, 20): filled only while closed.
        let c = p.pixel(137, 150).expect("inside");
        c.red() as u32 + c.green() as u32 + c.blue() as u32
    };
    assert!(centre_darkness("100") > 600, "open at 10 s: the door's middle is background");
    assert!(centre_darkness("400") < 300, "closed at 40 s: the door's middle is filled");
}

/// A run that an event stops ends there: the last frame is the tick it stopped at (not a hang
/// waiting for ticks that never run).
#[test]
fn a_run_stopped_by_an_event_renders_up_to_its_last_tick() {
    let dir = scratch_dir("render_stopped");
    let out = dir.join("closing.png");
    let stdout = ok(&throng(&["render", s(&root().join("scenarios/closing.toml")), "--out", s(&out)]));
    assert!(stdout.contains("tick 1022, 0 agents"), "{stdout}");
}
