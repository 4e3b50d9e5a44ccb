//! Reading a trace written by `throng run --trace` (CSV read whole, or Parquet), checked row
//! by row, into frames.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use throng_engine::math::Vec2;

use super::frame::{DEFAULT_RADIUS, Frame};
use crate::output::{
    TRACE_COLUMNS, TRACE_COLUMNS_IN_SPACE, TRACE_COLUMNS_WITHOUT_RADIUS, TRACE_COLUMNS_WITHOUT_TIME,
};

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
    let cannot = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow!("{file}: no such trace file"),
        _ => anyhow!("{file}: cannot read the trace: {e}"),
    };
    let mut opened = std::fs::File::open(path).map_err(cannot)?;
    let parquet = crate::output::parquet::starts_as_parquet(&mut opened);
    let mut frames = Frames::new(scenario_groups);
    if parquet {
        read_parquet(&file, opened, &mut frames)?;
    } else {
        read_csv(&file, &std::fs::read(path).map_err(cannot)?, &mut frames)?;
    }
    frames.finish(&file)
}

/// One row of a trace, as read; `radius` is absent in traces written before it was added.
struct Row<'a> {
    tick: u64,
    id: u32,
    group: &'a str,
    position: Vec2,
    velocity: Vec2,
    radius: Option<f32>,
    /// z and vz, in a trace of a run in space.
    height: Option<(f32, f32)>,
}

/// The frames being read, whatever the file's format.
struct Frames<'s> {
    scenario_groups: Option<&'s [(String, f32)]>,
    groups: Vec<String>,
    frames: Vec<Frame>,
}

impl<'s> Frames<'s> {
    fn new(scenario_groups: Option<&'s [(String, f32)]>) -> Frames<'s> {
        let groups = scenario_groups.map(|g| g.iter().map(|(n, _)| n.clone()).collect()).unwrap_or_default();
        Frames { scenario_groups, groups, frames: Vec::new() }
    }

    /// Adds a row; `at(column)` says where it stands, for messages.
    fn push(&mut self, row: Row, at: &dyn Fn(&str) -> String) -> Result<()> {
        let Row { tick, id, group: name, position, velocity, radius, height } = row;
        if name.is_empty() {
            bail!("{}: expected a group name, found nothing", at("group"));
        }
        for (column, v) in [("x", position.x), ("y", position.y), ("vx", velocity.x), ("vy", velocity.y)] {
            if !v.is_finite() {
                bail!("{}: expected a finite number, found `{v}`", at(column));
            }
        }
        let group = match self.groups.iter().position(|g| g == name) {
            Some(g) => g as u16,
            None if self.scenario_groups.is_some() => bail!(
                "{}: group `{name}` is not a group of the scenario (its groups: {})",
                at("group"),
                self.groups.join(", ")
            ),
            None if self.groups.len() >= u16::MAX as usize => {
                bail!("{}: more than 65535 groups", at("group"))
            }
            None => {
                self.groups.push(name.to_string());
                (self.groups.len() - 1) as u16
            }
        };
        match self.frames.last() {
            Some(f) if f.tick == tick => {}
            Some(f) if f.tick > tick => bail!(
                "{}: tick {tick} after tick {}; a trace lists its ticks in increasing order",
                at("tick"),
                f.tick
            ),
            _ => self.frames.push(Frame { tick, ..Frame::default() }),
        }
        let radius = match radius {
            Some(r) if r.is_finite() && r > 0.0 => r,
            Some(r) => bail!("{}: expected a radius > 0, found `{r}`", at("radius")),
            None => self.scenario_groups.map_or(DEFAULT_RADIUS, |s| s[group as usize].1),
        };
        let f = self.frames.last_mut().expect("a frame was just pushed");
        if f.id.last() == Some(&id) {
            bail!("{}: agent {id} appears twice at tick {tick}", at("id"));
        }
        f.id.push(id);
        f.group.push(group);
        f.position.push(position);
        f.velocity.push(velocity);
        f.radius.push(radius);
        if let Some((z, vz)) = height {
            f.z.push(z);
            f.vz.push(vz);
        }
        Ok(())
    }

    fn finish(mut self, file: &str) -> Result<Trace> {
        if self.frames.is_empty() {
            bail!("{file}: the trace has a header but no rows: the run traced no agents");
        }
        for f in &mut self.frames {
            sort_by_id(f);
            if let Some(w) = f.id.windows(2).find(|w| w[0] == w[1]) {
                bail!("{file}: agent {} appears twice at tick {}", w[0], f.tick);
            }
        }
        Ok(Trace { groups: self.groups, frames: self.frames })
    }
}

/// A CSV trace, in any of the layouts `throng run` has written.
fn read_csv(file: &str, bytes: &[u8], frames: &mut Frames) -> Result<()> {
    let expected = TRACE_COLUMNS.join(",");
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        bail!(
            "{file}: the trace is empty; expected the header `{expected}` (write one with `throng run SCENARIO --trace {file}`)"
        );
    }
    let mut reader =
        csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(std::io::Cursor::new(bytes));
    let header = reader.headers().map_err(|e| csv_error(file, e))?.clone();
    // Traces written before `radius`, or `time_s`, was added have the same columns without it.
    let names: Vec<&str> = header.iter().map(str::trim).collect();
    let columns: &[&str] = if names == TRACE_COLUMNS {
        &TRACE_COLUMNS
    } else if names == TRACE_COLUMNS_IN_SPACE {
        &TRACE_COLUMNS_IN_SPACE
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
    let c_height = columns.iter().position(|c| *c == "z").zip(columns.iter().position(|c| *c == "vz"));
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(file, e)),
        }
        let line = record.position().map_or(0, |p| p.line());
        let at = |name: &str| format!("{file}:{line}: column `{name}`");
        let tick: u64 = record[c_tick].trim().parse().map_err(|_| {
            anyhow!("{}: expected a tick (a whole number >= 0), found `{}`", at("tick"), &record[c_tick])
        })?;
        let id: u32 = record[c_id].trim().parse().map_err(|_| {
            anyhow!("{}: expected an agent id (a whole number >= 0), found `{}`", at("id"), &record[c_id])
        })?;
        let num = |col: usize| -> Result<f32> {
            let text = record[col].trim();
            match text.parse::<f32>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => bail!("{}: expected a finite number, found `{}`", at(columns[col]), &record[col]),
            }
        };
        let row = Row {
            tick,
            id,
            group: record[c_group].trim(),
            position: Vec2::new(num(c_x)?, num(c_y)?),
            velocity: Vec2::new(num(c_vx)?, num(c_vy)?),
            radius: c_radius.map(num).transpose()?,
            height: c_height.map(|(z, vz)| Ok::<_, anyhow::Error>((num(z)?, num(vz)?))).transpose()?,
        };
        frames.push(row, &at)?;
    }
    Ok(())
}

/// A Parquet trace (`throng run --trace FILE.parquet`): its columns must be the CSV trace's,
/// typed as `throng run` writes them.
fn read_parquet(file: &str, opened: std::fs::File, frames: &mut Frames) -> Result<()> {
    use parquet::file::reader::FileReader;
    use parquet::record::{Field, RowAccessor};
    let reader = crate::output::parquet::open_whole(file, opened)?;
    let names = crate::output::parquet::column_names(&reader);
    let space = names == TRACE_COLUMNS_IN_SPACE;
    if names != TRACE_COLUMNS && !space {
        bail!(
            "{file}: not a trace: expected the columns {} (from `throng run --trace FILE.parquet`; in space with z and vz), found {}",
            TRACE_COLUMNS.join(", "),
            names.join(", ")
        );
    }
    let columns: &[&str] = if space { &TRACE_COLUMNS_IN_SPACE } else { &TRACE_COLUMNS };
    let col = |name: &str| columns.iter().position(|c| *c == name).expect("a trace column");
    let rows = reader.get_row_iter(None).map_err(|e| anyhow!("{file}: {e}"))?;
    for (k, row) in rows.enumerate() {
        let row = row.map_err(|e| anyhow!("{file}: row {}: {e}", k + 1))?;
        let at = |name: &str| format!("{file}: row {}, column `{name}`", k + 1);
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let whole = |c: usize| match fields[c] {
            &Field::Long(v) if v >= 0 => Ok(v as u64),
            other => Err(anyhow!("{}: expected a whole number >= 0, found {other}", at(columns[c]))),
        };
        let float = |c: usize| match fields[c] {
            &Field::Float(v) => Ok(v),
            other => Err(anyhow!("{}: expected a number, found {other}", at(columns[c]))),
        };
        let id = u32::try_from(whole(2)?).map_err(|_| anyhow!("{}: an agent id past 2^32", at("id")))?;
        let group = row.get_string(3).map_err(|e| anyhow!("{}: {e}", at("group")))?;
        let row = Row {
            tick: whole(0)?,
            id,
            group,
            position: Vec2::new(float(col("x"))?, float(col("y"))?),
            velocity: Vec2::new(float(col("vx"))?, float(col("vy"))?),
            radius: Some(float(col("radius"))?),
            height: space
                .then(|| Ok::<_, anyhow::Error>((float(col("z"))?, float(col("vz"))?)))
                .transpose()?,
        };
        frames.push(row, &at)?;
    }
    Ok(())
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
        z: if f.z.is_empty() { Vec::new() } else { order.iter().map(|&i| f.z[i]).collect() },
        vz: if f.vz.is_empty() { Vec::new() } else { order.iter().map(|&i| f.vz[i]).collect() },
        radius: order.iter().map(|&i| f.radius[i]).collect(),
        closed_doors: Vec::new(),
    };
}
