//! `throng plot`: a panel per metric, the same from a metrics file as from its scenario.

use super::{ok, s, scene};
use crate::common::{scratch_dir, throng};

#[test]
fn plots_from_a_metrics_file_and_from_its_scenario_match() {
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

/// `--panels` chooses the panels and their order, overlaps, stuck agents and penetrations
/// among them, the same from a metrics file as from its scenario; an unknown name is refused.
#[test]
fn panels_are_chosen_by_name() {
    let dir = scratch_dir("render_plot_panels");
    let scenario = scene(&dir);
    let metrics = dir.join("metrics.csv");
    ok(&throng(&["run", s(&scenario), "--metrics", s(&metrics), "--quiet"]));
    let panels = "stuck_agents,overlap_pairs,obstacle_penetrations,agents_spawned";
    let (from_file, from_scenario) = (dir.join("file.svg"), dir.join("scenario.svg"));
    let stdout = ok(&throng(&["plot", s(&metrics), "--out", s(&from_file), "--panels", panels]));
    assert!(stdout.contains("4 panels"), "{stdout}");
    ok(&throng(&["plot", s(&scenario), "--out", s(&from_scenario), "--panels", panels]));
    let (page, page2) = (
        std::fs::read_to_string(&from_file).expect("the SVG"),
        std::fs::read_to_string(&from_scenario).expect("the SVG"),
    );
    assert_eq!(page.replace("metrics: metrics per tick", "scene: metrics per tick"), page2);
    let order: Vec<usize> = ["stuck agents", "overlapping pairs", "obstacle penetrations", "agents spawned"]
        .iter()
        .map(|t| page.find(t).unwrap_or_else(|| panic!("panel `{t}`")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "in the order asked: {order:?}");
    assert!(!page.contains("mean speed") && !page.contains("throughput"), "only the panels asked");

    let out = throng(&["plot", s(&metrics), "--out", s(&dir.join("x.svg")), "--panels", "overlap_pair"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown panel `overlap_pair`; did you mean `overlap_pairs`?"), "{stderr}");
}
