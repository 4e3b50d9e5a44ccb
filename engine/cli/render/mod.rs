//! `throng render`: draw a run as a PNG frame, an animated GIF, or a self-contained HTML player.
//! The input is a scenario (run here) or a trace CSV from `throng run --trace` (with
//! `--scenario` for its geometry). See docs/render.md.
//!
//! Everything is deterministic: the same input and options give the same bytes.

mod chart;
mod colour;
mod font;
mod frame;
mod gif;
mod html;
mod layout;
mod legend;
mod parties;
mod pen;
pub mod plot;
mod projection;
mod scene;
mod source;
mod stages;
mod targets;
mod trace;
pub mod xy_chart;

use crate::dimension::CliDimension;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use throng_engine::math::Vec3;
use throng_engine::world::Param;
use throng_engine::{RunSettings, Scenario, Simulation};

use frame::{Extent, Frame, Geometry, Scene, Style};
use layout::View;
use projection::{Projection, SpaceView};
use source::Source;
use trace::read_trace;

#[derive(Args)]
pub struct RenderArgs {
    /// A scenario (.toml, run here) or a trace (.csv, written by `throng run --trace`).
    input: PathBuf,
    /// Output file; the extension picks the format: .png (one frame), .gif (animation) or
    /// .html (interactive player).
    #[arg(long, short, value_name = "FILE")]
    out: PathBuf,
    /// With a trace: the scenario it came from, for the geometry, group colours, radii and dt.
    #[arg(long, value_name = "FILE.toml")]
    scenario: Option<PathBuf>,
    /// PNG: the tick to draw (default: the last).
    #[arg(long, value_name = "T")]
    tick: Option<u64>,
    /// GIF and HTML: one frame every K ticks (default: at most 300 GIF or 1000 HTML frames).
    #[arg(long, value_name = "K")]
    every: Option<u64>,
    /// GIF: frames per second (default 15, at most 50); HTML: frames per second at speed 1×.
    #[arg(long, value_name = "F")]
    fps: Option<f32>,
    /// PNG and GIF: trails through the last K ticks.
    #[arg(long, value_name = "K", default_value_t = 0)]
    trails: u64,
    /// Picture size in pixels (default: 800 wide, the height from the view's aspect ratio).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    size: Option<(u32, u32)>,
    /// The world rectangle to frame (default: the bounds and the geometry; for a trace without
    /// --scenario, the agents' extent over the whole trace).
    #[arg(long, value_name = "x0,y0,x1,y1", value_parser = parse_view, allow_hyphen_values = true)]
    view: Option<View>,
    /// Scenario input: ticks to run (default: the scenario's `ticks`; for a PNG, --tick).
    #[arg(long)]
    ticks: Option<u64>,
    /// Scenario input: seed (default: the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Scenario input: worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Leave out the legend (PNG and GIF).
    #[arg(long)]
    no_legend: bool,
    /// A run in space (PNG and GIF): where the picture looks from, `top`, `side` or `oblique`
    /// (the default); depth shows as size. The HTML player orbits instead.
    #[arg(long, value_enum, value_name = "VIEW")]
    projection: Option<Projection>,
    /// Overrides applied to the scenario (the input, or --scenario with a trace).
    #[command(flatten)]
    overrides: crate::args::ScenarioOverrides,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Png,
    Gif,
    Html,
}

/// The largest picture side, pixels.
const MAX_SIDE: u32 = 8192;
/// Default frame caps, when --every is not given.
const GIF_FRAMES: u64 = 300;
const HTML_FRAMES: u64 = 1000;

pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad =
        || format!("expected WIDTHxHEIGHT in pixels, e.g. 800x600 (each 16 to {MAX_SIDE}), found `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
    if !(16..=MAX_SIDE).contains(&w) || !(16..=MAX_SIDE).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

fn parse_view(s: &str) -> Result<View, String> {
    let bad = |why: &str| {
        format!("{why}: expected x0,y0,x1,y1 in world units with x0 < x1 and y0 < y1, found `{s}`")
    };
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 4 {
        return Err(bad("four numbers needed"));
    }
    let mut v = [0f32; 4];
    for (slot, p) in v.iter_mut().zip(&parts) {
        *slot = p.trim().parse::<f32>().map_err(|_| bad("not a number"))?;
        if !slot.is_finite() || slot.abs() > 1e7 {
            return Err(bad("not a finite number of magnitude at most 1e7"));
        }
    }
    if !(v[0] < v[2] && v[1] < v[3]) {
        return Err(bad("an empty rectangle"));
    }
    Ok(View { x0: v[0], y0: v[1], x1: v[2], y1: v[3] })
}

/// Where the output goes, checked before any work is done.
fn output(path: &Path, accepted: &[(&str, &str)]) -> Result<String> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    if !accepted.iter().any(|(e, _)| *e == ext) {
        let list: Vec<String> = accepted.iter().map(|(e, what)| format!(".{e} ({what})")).collect();
        let found = if ext.is_empty() { "no extension".to_string() } else { format!("`.{ext}`") };
        bail!("{}: unknown output format ({found}); use {}", path.display(), list.join(", "));
    }
    if path.is_dir() {
        bail!("{}: is a directory; expected an output file", path.display());
    }
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        bail!("cannot write {}: the directory {} does not exist", path.display(), parent.display());
    }
    Ok(ext)
}

/// The scene, the frames, and the default framing; for a run in space, how it is projected.
struct Input {
    scene: Scene,
    source: Source,
    default_view: View,
    space: Option<SpaceView>,
}

/// Draws `frame` over its `history` (older frames, oldest first): in the plane as they are,
/// in space projected (the scene's moving targets where they are at the frame's time).
fn draw_seen(
    scene: &Scene,
    space: Option<&SpaceView>,
    frame: &Frame,
    history: &[&Frame],
    camera: &layout::Camera,
    style: &Style,
) -> Result<tiny_skia::Pixmap> {
    let pixmap = match space {
        None => frame::draw(scene, frame, history, camera, style),
        Some(space) => {
            let time_s = scene.dt.map(|dt| frame.tick as f64 * dt as f64);
            let scene = Scene { geometry: Some(space.geometry(time_s)), ..scene.clone() };
            let older: Vec<Frame> = history.iter().map(|h| space.frame(h)).collect();
            let older: Vec<&Frame> = older.iter().collect();
            frame::draw(&scene, &space.frame(frame), &older, camera, style)
        }
    };
    pixmap.context("cannot allocate the picture")
}

/// The radius drawn for a group's agents when a trace does not give it: the middle of its
/// range, or its distribution's mean.
fn display_radius(p: &Param) -> f32 {
    match *p {
        Param::Value(v) => v,
        Param::Range { min, max } => 0.5 * (min + max),
        Param::Normal { mean, .. } => mean,
    }
}

fn load_scenario<V: CliDimension>(
    path: &Path,
    overrides: &crate::args::ScenarioOverrides,
    ticks: Option<u64>,
    quiet: bool,
) -> Result<Scenario<V>> {
    let scenario = overrides.load_for::<V>(path, ticks)?;
    if !quiet {
        for w in &scenario.warnings {
            eprintln!("warning: {w}");
        }
    }
    Ok(scenario)
}

fn open_input(args: &RenderArgs) -> Result<Input> {
    let ext =
        args.input.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
    match ext.as_str() {
        "toml" => {
            if args.scenario.is_some() {
                bail!("--scenario goes with a trace input; {} is already a scenario", args.input.display());
            }
            match crate::args::dimensions_of(&args.input) {
                3 => run_input::<Vec3>(args),
                _ => run_input::<throng_engine::math::Vec2>(args),
            }
        }
        "csv" | "parquet" => {
            for (given, name) in [
                (args.ticks.is_some(), "--ticks"),
                (args.seed.is_some(), "--seed"),
                (args.threads.is_some(), "--threads"),
            ] {
                if given {
                    bail!("{name} applies to a scenario input; {} is a trace", args.input.display());
                }
            }
            match args.scenario.as_deref().map(crate::args::dimensions_of) {
                Some(3) => trace_input::<Vec3>(args),
                _ => trace_input::<throng_engine::math::Vec2>(args),
            }
        }
        _ => bail!(
            "{}: cannot tell the input's kind from its extension; expected a scenario (.toml) or a trace (.csv, .parquet)",
            args.input.display()
        ),
    }
}

/// The scene of a scenario's `world` (at tick 0) and, in space, how it is projected.
fn scene_of<V: CliDimension>(
    scenario: &Scenario<V>,
    world: &throng_engine::World<V>,
    projection: Option<Projection>,
) -> Result<(Scene, Option<SpaceView>)> {
    let (geometry, space) = match (V::plane(world), V::space(world)) {
        (Some(w), _) => {
            if projection.is_some() {
                bail!("--projection is for a run in space; {} is planar", scenario.origin);
            }
            (Geometry::of(w, &scenario.target_names), None)
        }
        (_, Some(w)) => {
            let name = |t: usize| scenario.target_names.get(t).cloned().unwrap_or_default();
            let targets = w.targets.iter().enumerate().map(|(t, target)| (name(t), target.clone())).collect();
            let view = SpaceView::new(
                projection.unwrap_or(Projection::Oblique),
                w.bounds,
                w.obstacles.clone(),
                targets,
            );
            (view.geometry(Some(0.0)), Some(view))
        }
        _ => unreachable!("a world is planar or in space"),
    };
    let scene = Scene {
        name: scenario.name.clone(),
        dt: Some(scenario.dt),
        groups: scenario.groups.iter().map(|g| g.group.name.clone()).collect(),
        geometry: Some(geometry),
    };
    Ok((scene, space))
}

/// A scenario input, run here, with points `V`.
fn run_input<V: CliDimension>(args: &RenderArgs) -> Result<Input> {
    let mut scenario = load_scenario::<V>(&args.input, &args.overrides, args.ticks, args.quiet)?;
    if let Some(seed) = args.seed {
        scenario.seed = seed;
    }
    let threads = crate::args::threads(args.threads, "--threads")?;
    let sim = Simulation::new(&scenario, RunSettings { threads, metrics: false, ..RunSettings::default() })?;
    let (scene, space) = scene_of(&scenario, sim.world(), args.projection)?;
    let default_view = scene
        .geometry
        .as_ref()
        .map_or(View { x0: 0.0, y0: 0.0, x1: 1.0, y1: 1.0 }, |g| g.extent().view(0.01));
    let ticks = args.ticks.unwrap_or(scenario.ticks);
    Ok(Input {
        scene,
        source: Source::Run { sim: Box::new(sim), ticks, origin: scenario.origin.clone(), fired: Vec::new() },
        default_view,
        space,
    })
}

/// A trace input, with its scenario's points `V` when `--scenario` gives one.
fn trace_input<V: CliDimension>(args: &RenderArgs) -> Result<Input> {
    let overridden = !args.overrides.set.is_empty() || args.overrides.agents.is_some();
    let scenario = match &args.scenario {
        Some(path) => Some(load_scenario::<V>(path, &args.overrides, None, args.quiet)?),
        None if overridden => {
            bail!("--set and --agents apply to a scenario; with a trace, give its --scenario")
        }
        None => None,
    };
    let groups: Option<Vec<(String, f32)>> = scenario.as_ref().map(|s| {
        s.groups.iter().map(|g| (g.group.name.clone(), display_radius(&g.group.params.radius))).collect()
    });
    let trace = read_trace(&args.input, groups.as_deref())?;
    let in_space = trace.frames.iter().any(|f| !f.z.is_empty());
    if scenario.is_some() && in_space != (V::DIMENSIONS == 3) {
        let (t, sc) = if in_space { ("in space (it has z)", "planar") } else { ("planar", "in space") };
        bail!("{} is the trace of a run {t}, and its --scenario is {sc}", args.input.display());
    }
    let (geometry, space) = match &scenario {
        Some(s) => {
            let world = s.try_build_world().map_err(|e| anyhow::anyhow!("{}: {e}", s.origin))?;
            let (scene, space) = scene_of(s, &world, args.projection)?;
            (scene.geometry, space)
        }
        None if in_space => {
            let view = SpaceView::of_frames(args.projection.unwrap_or(Projection::Oblique), &trace.frames);
            (Some(view.geometry(None)), Some(view))
        }
        None => {
            if args.projection.is_some() {
                bail!("--projection is for a run in space; {} is planar", args.input.display());
            }
            (None, None)
        }
    };
    let default_view = match &geometry {
        Some(g) => g.extent().view(0.01),
        None => {
            let mut e = Extent::default();
            for f in &trace.frames {
                for &p in &f.position {
                    e.add(p);
                }
            }
            e.view(0.05)
        }
    };
    let name = match &scenario {
        Some(s) => s.name.clone(),
        None => args.input.file_stem().map_or("trace".into(), |s| s.to_string_lossy().into_owned()),
    };
    let scene = Scene { name, dt: scenario.as_ref().map(|s| s.dt), groups: trace.groups, geometry };
    Ok(Input { scene, source: Source::Trace(trace.frames), default_view, space })
}

pub fn render(args: RenderArgs) -> Result<ExitCode> {
    let ext =
        output(&args.out, &[("png", "one frame"), ("gif", "animation"), ("html", "interactive player")])?;
    let format = match ext.as_str() {
        "png" => Format::Png,
        "gif" => Format::Gif,
        _ => Format::Html,
    };
    match format {
        Format::Png => {
            if args.every.is_some() || args.fps.is_some() {
                bail!("--every and --fps are for an animation (.gif or .html); a PNG is one frame (--tick)");
            }
        }
        Format::Gif | Format::Html => {
            if args.tick.is_some() {
                bail!("--tick picks the frame of a PNG; an animation shows a frame every --every ticks");
            }
            if args.every == Some(0) {
                bail!("--every must be at least 1");
            }
        }
    }
    if format == Format::Html && (args.trails > 0 || args.no_legend) {
        bail!("--trails and --no-legend are for PNG and GIF; the HTML player has its own legend");
    }
    let fps = args.fps.unwrap_or(15.0);
    let max_fps = if format == Format::Gif { 50.0 } else { 240.0 };
    if !(fps.is_finite() && fps > 0.0 && fps <= max_fps) {
        bail!("--fps must be more than 0 and at most {max_fps}, found {fps}");
    }

    let start = Instant::now();
    let mut input = open_input(&args)?;
    let view = args.view.unwrap_or(input.default_view);
    let spans = [view.x1 - view.x0, view.y1 - view.y0];
    if !spans.iter().all(|d| d.is_finite() && *d > 0.0) {
        bail!("the agents spread too far to frame (beyond f32 range); pass --view x0,y0,x1,y1");
    }
    let layout = layout::layout(view, args.size, &input.scene, format != Format::Html && !args.no_legend);
    let camera = layout.camera;
    let (width, height) = (camera.width, camera.height);
    let style = Style { legend: layout.legend };
    let mut draw_time = Duration::ZERO;
    let mut encode_time = Duration::ZERO;

    let (bytes, what, run_time) = match format {
        Format::Png => {
            let last = input.source.last_tick();
            let tick = args.tick.unwrap_or(last);
            if let (Source::Run { .. }, Some(ticks), Some(t)) = (&input.source, args.ticks, args.tick)
                && t > ticks
            {
                bail!("--tick {t} is after the last tick of the run (--ticks {ticks})");
            }
            if let Source::Trace(frames) = &input.source
                && !frames.iter().any(|f| f.tick == tick)
            {
                bail!("{}: tick {tick} is not in the trace ({})", args.input.display(), traced_ticks(frames));
            }
            let first = tick.saturating_sub(args.trails);
            let mut window: Vec<Frame> = Vec::new();
            let run_time = input.source.walk(
                tick,
                |t| t >= first,
                |f, _| {
                    window.push(f);
                    Ok(())
                },
                args.quiet,
            )?;
            let Some(frame) = window.pop() else { bail!("no frame at tick {tick}") };
            let history: Vec<&Frame> = window.iter().collect();
            let t = Instant::now();
            let pixmap = draw_seen(&input.scene, input.space.as_ref(), &frame, &history, &camera, &style)?;
            draw_time += t.elapsed();
            let t = Instant::now();
            let png = pixmap.encode_png().context("cannot encode the PNG")?;
            encode_time += t.elapsed();
            (png, format!("{width}x{height}, tick {}, {} agents", frame.tick, frame.len()), run_time)
        }
        Format::Gif | Format::Html => {
            let cap = if format == Format::Gif { GIF_FRAMES } else { HTML_FRAMES };
            let every = args.every.unwrap_or_else(|| default_every(&input.source, cap));
            let until = input.source.last_tick();
            let trails = args.trails;
            // A tick is needed if it is shown, or within `trails` ticks before one that is.
            let wanted = move |t: u64| t.next_multiple_of(every) - t <= trails;
            let mut history: VecDeque<Frame> = VecDeque::new();
            let mut gif = (format == Format::Gif)
                .then(|| gif::GifWriter::new(width, height, fps, &colour::palette(input.scene.groups.len())))
                .transpose()?;
            let mut page = html::HtmlBuilder::default();
            let scene = &input.scene;
            let space = input.space.as_ref();
            let run_time = input.source.walk(
                until,
                wanted,
                |f, last| {
                    if !f.tick.is_multiple_of(every) && !last {
                        history.push_back(f);
                        return Ok(());
                    }
                    match gif.as_mut() {
                        Some(gif) => {
                            while history.front().is_some_and(|h| h.tick + trails < f.tick) {
                                history.pop_front();
                            }
                            let older: Vec<&Frame> = history.iter().collect();
                            let t = Instant::now();
                            let pixmap = draw_seen(scene, space, &f, &older, &camera, &style)?;
                            draw_time += t.elapsed();
                            let t = Instant::now();
                            gif.push(&pixmap)?;
                            encode_time += t.elapsed();
                        }
                        None => page.push(&f),
                    }
                    if trails > 0 {
                        history.push_back(f);
                    }
                    Ok(())
                },
                args.quiet,
            )?;
            let t = Instant::now();
            let (bytes, frames) = match gif {
                Some(gif) => {
                    let frames = gif.frames;
                    (gif.finish()?, frames)
                }
                None => {
                    let frames = page.frames();
                    let fired = match &input.source {
                        Source::Run { fired, .. } => fired.as_slice(),
                        Source::Trace(_) => &[],
                    };
                    if frames > 0 {
                        (page.finish(scene, view, fps, args.size, fired, space)?.into_bytes(), frames)
                    } else {
                        (Vec::new(), 0)
                    }
                }
            };
            encode_time += t.elapsed();
            if frames == 0 {
                bail!("no frame to draw: no tick up to {until} is a multiple of --every {every}");
            }
            let kind = if format == Format::Gif { format!("{width}x{height}, ") } else { String::new() };
            let every = if every == 1 { "every tick".to_string() } else { format!("every {every} ticks") };
            (bytes, format!("{kind}{frames} frames, {every}"), run_time)
        }
    };
    std::fs::write(&args.out, &bytes).with_context(|| format!("cannot write {}", args.out.display()))?;
    if !args.quiet {
        let total = start.elapsed().as_secs_f64();
        println!(
            "wrote {} ({what}, {} bytes) in {total:.2} s: input {:.2} s (simulation {:.2} s), draw {:.2} s, encode {:.2} s",
            args.out.display(),
            bytes.len(),
            (total - draw_time.as_secs_f64() - encode_time.as_secs_f64()).max(0.0),
            run_time.as_secs_f64(),
            draw_time.as_secs_f64(),
            encode_time.as_secs_f64(),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The default --every: 1, or enough to keep to about `cap` frames.
fn default_every(source: &Source, cap: u64) -> u64 {
    match source {
        Source::Run { ticks, .. } => ticks.div_ceil(cap).max(1),
        Source::Trace(frames) => {
            let step = match frames.as_slice() {
                [a, b, ..] => (b.tick - a.tick).max(1),
                _ => 1,
            };
            step * (frames.len() as u64).div_ceil(cap).max(1)
        }
    }
}

/// "ticks 0 to 100, 21 in all" for error messages.
fn traced_ticks(frames: &[Frame]) -> String {
    match (frames.first(), frames.last()) {
        (Some(a), Some(b)) => format!("its ticks run from {} to {}, {} in all", a.tick, b.tick, frames.len()),
        _ => "it is empty".into(),
    }
}
