//! The trace in PedPy's text format (`--trace run.txt`), which `pedpy.load_trajectory_from_txt`
//! reads with its frame rate and unit from the header: `#`-comment lines, then one line per
//! agent per traced tick, `id frame x y` separated by spaces, frame = tick / trace interval,
//! positions in metres (the scenario's units). Rows reach the file whole, and a resumed run cuts
//! the frames past its checkpoint and appends, as the CSV trace does.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use throng_engine::World;

use super::file::WholeRows;
use super::frame::Frame;
use super::meta::RunInfo;

/// A trace being written in PedPy's text format.
pub struct TraceTxt {
    path: PathBuf,
    out: WholeRows,
    every: u64,
}

/// The header: the frame rate first (PedPy takes the first number on the first line holding
/// `framerate`, so nothing from the scenario can come before it), what ran, and the unit
/// last (PedPy reads `x/m` as metres; the last line naming a unit wins).
fn header(world: &World, run: &RunInfo, every: u64) -> String {
    let dt: f64 = run.dt.to_string().parse().unwrap_or(world.dt as f64);
    let fps = 1.0 / (dt * every as f64);
    format!(
        "# framerate: {fps}\n\
         # throng trace of scenario \"{}\" ({}), seed {}, dt {} s, every {} ticks, engine {}\n\
         # id frame x/m y/m\n",
        run.scenario.replace('\n', " "),
        run.scenario_file.display(),
        run.seed,
        run.dt,
        every,
        run.engine
    )
}

impl TraceTxt {
    /// Opens the trace: a new file, or, for a run resumed at tick `resumed_at`, the file it was
    /// writing cut back to its frames up to that tick.
    pub fn open(
        path: &Path,
        world: &World,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<TraceTxt> {
        let head = header(world, run, every);
        let file = match resumed_at {
            None => {
                let mut file = File::create(path)
                    .with_context(|| format!("cannot create trace file {}", path.display()))?;
                file.write_all(head.as_bytes())
                    .with_context(|| format!("cannot write trace file {}", path.display()))?;
                file
            }
            Some(tick) => {
                let keep = frames_up_to(path, &head, tick / every)?;
                let mut file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("cannot open trace file {} to continue it", path.display()))?;
                file.set_len(keep)
                    .with_context(|| format!("cannot cut trace file {} back", path.display()))?;
                file.seek(SeekFrom::End(0))?;
                file
            }
        };
        Ok(TraceTxt { path: path.to_owned(), out: WholeRows::new(file), every })
    }

    /// Writes every agent of `frame`.
    pub fn write(&mut self, frame: &Frame) -> Result<()> {
        let number = frame.tick / self.every;
        let mut text = String::with_capacity(frame.len() * 32);
        for (id, p) in frame.id.iter().zip(&frame.position) {
            // Never `-0` (adding +0 turns -0 into 0); the shortest decimal of the f32.
            text.push_str(&format!("{id} {number} {} {}\n", p.x + 0.0, p.y + 0.0));
        }
        self.out
            .write_all(text.as_bytes())
            .with_context(|| format!("cannot write trace file {}", self.path.display()))
    }

    /// Writes out what is buffered, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.out.flush().with_context(|| format!("cannot write trace file {}", self.path.display()))
    }

    pub fn finish(mut self) -> Result<()> {
        self.flush()
    }
}

/// The length of `path`'s header and its rows of frames up to `last`, after checking the header
/// is this run's and that the rows reach frame `last`.
fn frames_up_to(path: &Path, head: &str, last: u64) -> Result<u64> {
    let shown = path.display();
    let file = File::open(path).with_context(|| {
        format!(
            "cannot continue trace file {shown}, which the resumed run was writing (was it moved or deleted?)"
        )
    })?;
    let mut reader = BufReader::new(file);
    let mut keep = 0u64;
    let mut line = String::new();
    for expected in head.lines() {
        line.clear();
        keep += reader.read_line(&mut line)? as u64;
        if line.trim_end() != expected {
            bail!("{shown}: not the trace this run writes (its header should start `{expected}`)");
        }
    }
    let mut seen = None;
    for number in (head.lines().count() + 1).. {
        line.clear();
        let n = reader.read_line(&mut line)?;
        if n == 0 || !line.ends_with('\n') {
            break; // the end, or a line cut short when the run was stopped
        }
        let frame: u64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|f| f.parse().ok())
            .with_context(|| format!("{shown}:{number}: a row should be `id frame x y`"))?;
        if frame > last {
            break;
        }
        keep += n as u64;
        seen = Some(frame);
    }
    if seen != Some(last) {
        let ends = seen.map_or("has no rows".to_string(), |f| format!("ends at frame {f}"));
        bail!(
            "{shown} {ends}, but the checkpoint is at frame {last}: the trace cannot be continued from there. \
             Resume from an earlier checkpoint (--resume FILE) that the trace reaches, or start the run again"
        );
    }
    Ok(keep)
}
