//! Reading a trace CSV written by `throng run --trace` (read whole, checked row by row) into
//! frames.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use throng_engine::math::Vec2;

use super::frame::{DEFAULT_RADIUS, Frame};
use crate::output::{TRACE_COLUMNS, TRACE_COLUMNS_WITHOUT_RADIUS, TRACE_COLUMNS_WITHOUT_TIME};

/// A trace read into memory: frames in tick order, rows in id order.
pub struct Trace {
    /// Group names, in the scenario's order when one was given, else in order of appearance.
    pub groups: Vec<String>,
    pub frames: Vec<Frame>,
}

/// Reads a trace. With `scenario_groups` (names and display radii), group names must be the
/// scenario's; without, groups are numbered in order of appearance. Agents are drawn with the
/// trace's `radius` column, or, in traces written before it, their group's display radius (the
/// default radius without a scenario).
pub fn read_trace(path: &Path, scenario_groups: Option<&[(String, f32)]>) -> Result<Trace> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{file}: no such trace file"),
        _ => anyhow!("{file}: cannot read the trace: {e}"),
    })?;
    let expected = TRACE_COLUMNS.join(",");
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        bail!(
            "{file}: the trace is empty; expected the header `{expected}` (write one with `throng run SCENARIO --trace {file}`)"
        );
    }
    let mut reader =
        csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(std::io::Cursor::new(&bytes));
    let header = reader.headers().map_err(|e| csv_error(&file, e))?.clone();
    // Traces written before `radius`, or `time_s`, was added have the same columns without it.
    let names: Vec<&str> = header.iter().map(str::trim).collect();
    let columns: &[&str] = if names == TRACE_COLUMNS {
        &TRACE_COLUMNS
    } else if names == TRACE_COLUMNS_WITHOUT_RADIUS {
        &TRACE_COLUMNS_WITHOUT_RADIUS
    } else if names == TRACE_COLUMNS_WITHOUT_TIME {
        &TRACE_COLUMNS_WITHOUT_TIME
    } else {
        bail!(
            "{file}:1: not a trace: expected the header `{expected}` (from `throng run --trace`), found `{}`",
            header.iter().collect::<Vec<_>>().join(",")
        );
    };
    let col = |name: &str| columns.iter().position(|c| *c == name).expect("every layout has the column");
    let (c_tick, c_id, c_group) = (col("tick"), col("id"), col("group"));
    let (c_x, c_y, c_vx, c_vy) = (col("x"), col("y"), col("vx"), col("vy"));
    let c_radius = columns.iter().position(|c| *c == "radius");

    let mut groups: Vec<String> =
        scenario_groups.map(|g| g.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
    let radius_of = |g: u16| scenario_groups.map_or(DEFAULT_RADIUS, |s| s[g as usize].1);
    let mut frames: Vec<Frame> = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(&file, e)),
        }
        let line = record.position().map_or(0, |p| p.line());
        let at = |col: usize| format!("{file}:{line}: column `{}`", columns[col]);
        let tick: u64 = record[c_tick].trim().parse().map_err(|_| {
            anyhow!("{}: expected a tick (a whole number >= 0), found `{}`", at(c_tick), &record[c_tick])
        })?;
        let id: u32 = record[c_id].trim().parse().map_err(|_| {
            anyhow!("{}: expected an agent id (a whole number >= 0), found `{}`", at(c_id), &record[c_id])
        })?;
        let name = record[c_group].trim();
        if name.is_empty() {
            bail!("{}: expected a group name, found nothing", at(c_group));
        }
        let num = |col: usize| -> Result<f32> {
            let text = record[col].trim();
            match text.parse::<f32>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => bail!("{}: expected a finite number, found `{}`", at(col), &record[col]),
            }
        };
        let (x, y, vx, vy) = (num(c_x)?, num(c_y)?, num(c_vx)?, num(c_vy)?);
        let group = match groups.iter().position(|g| g == name) {
            Some(g) => g as u16,
            None if scenario_groups.is_some() => bail!(
                "{}: group `{name}` is not a group of the scenario (its groups: {})",
                at(c_group),
                groups.join(", ")
            ),
            None if groups.len() >= u16::MAX as usize => bail!("{}: more than 65535 groups", at(c_group)),
            None => {
                groups.push(name.to_string());
                (groups.len() - 1) as u16
            }
        };
        match frames.last() {
            Some(f) if f.tick == tick => {}
            Some(f) if f.tick > tick => bail!(
                "{}: tick {tick} after tick {}; a trace lists its ticks in increasing order",
                at(c_tick),
                f.tick
            ),
            _ => frames.push(Frame { tick, ..Frame::default() }),
        }
        let f = frames.last_mut().expect("a frame was just pushed");
        if f.id.last() == Some(&id) {
            bail!("{}: agent {id} appears twice at tick {tick}", at(c_id));
        }
        f.id.push(id);
        f.group.push(group);
        f.position.push(Vec2::new(x, y));
        f.velocity.push(Vec2::new(vx, vy));
        let radius = match c_radius {
            Some(c) => {
                let r = num(c)?;
                if r <= 0.0 {
                    bail!("{}: expected a radius > 0, found `{}`", at(c), &record[c]);
                }
                r
            }
            None => radius_of(group),
        };
        f.radius.push(radius);
    }
    if frames.is_empty() {
        bail!("{file}: the trace has a header but no rows: the run traced no agents");
    }
    for f in &mut frames {
        sort_by_id(f);
        if let Some(w) = f.id.windows(2).find(|w| w[0] == w[1]) {
            bail!("{file}: agent {} appears twice at tick {}", w[0], f.tick);
        }
    }
    Ok(Trace { groups, frames })
}

fn csv_error(file: &str, e: csv::Error) -> anyhow::Error {
    let line = e.position().map(|p| p.line());
    match (e.kind(), line) {
        (csv::ErrorKind::UnequalLengths { expected_len, len, .. }, Some(line)) => anyhow!(
            "{file}:{line}: expected {expected_len} columns ({}), found {len}",
            TRACE_COLUMNS.join(",")
        ),
        (csv::ErrorKind::Utf8 { .. }, Some(line)) => anyhow!("{file}:{line}: not valid UTF-8"),
        (_, Some(line)) => anyhow!("{file}:{line}: {e}"),
        (_, None) => anyhow!("{file}: {e}"),
    }
}

/// Puts a frame's rows in id order (a trace from `throng run` already is).
fn sort_by_id(f: &mut Frame) {
    if f.id.is_sorted() {
        return;
    }
    let mut order: Vec<usize> = (0..f.len()).collect();
    order.sort_by_key(|&i| f.id[i]);
    *f = Frame {
        tick: f.tick,
        id: order.iter().map(|&i| f.id[i]).collect(),
        group: order.iter().map(|&i| f.group[i]).collect(),
        position: order.iter().map(|&i| f.position[i]).collect(),
        velocity: order.iter().map(|&i| f.velocity[i]).collect(),
        radius: order.iter().map(|&i| f.radius[i]).collect(),
        closed_doors: Vec::new(),
    };
}
