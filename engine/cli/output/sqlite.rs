//! The trace as a SQLite file in JuPedSim's trajectory layout (version 2), which PedPy loads
//! with `load_trajectory_from_jupedsim_sqlite` and `load_walkable_area_from_jupedsim_sqlite`:
//!
//! - `trajectory_data(frame, id, pos_x, pos_y, ori_x, ori_y)`: one row per agent per traced
//!   tick, frame = tick / trace interval, ori the unit heading (0, 0 when standing);
//! - `metadata(key, value)`: `version` 2, `fps` = 1 / (dt · interval), the extent of the
//!   positions (`xmin` ...), and throng's own keys (`throng.*`: scenario, its BLAKE3, seed, dt,
//!   interval, overrides, engine);
//! - `geometry(hash, wkt)` and `frame_data(frame, geometry_hash)`: the walkable area (the bounds
//!   minus the standing obstacles) of every frame, a new geometry whenever a door opens or
//!   closes;
//! - `throng_agents(frame, id, grp, vel_x, vel_y, radius)`: what PedPy's table has no room for,
//!   keyed like it.
//!
//! `trajectory_data` and `throng_agents` are views over one table, `throng_trajectory`, one
//! row per agent per frame clustered by (frame, id) (`WITHOUT ROWID`), with the group as its
//! number in `throng_groups`. SQLite's cost is per row, not per column: two tables of a row
//! per agent each, plus their frame indexes built at the end, took twice the CPU time
//! (docs/benchmarks.md), and the clustering is the frame index, so nothing is built at the end.
//! Readers see the two relations as the layout names them (PedPy and JuPedSim select their
//! columns by name).
//!
//! Frames are committed in transactions of many rows, and at every flush (before each
//! checkpoint): a run killed outright leaves a file holding every frame committed (SQLite's
//! journal rolls the rest back when the file is next opened). A resumed run deletes the frames
//! past its checkpoint and goes on.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, params};
use throng_engine::World;
use throng_engine::math::norm;

use super::frame::Frame;
use super::meta::RunInfo;

/// JuPedSim's trajectory format version written (PedPy 1.x reads 1 and 2).
const FORMAT_VERSION: &str = "2";
/// Rows per transaction, beyond which a frame commits what it wrote.
const ROWS_PER_COMMIT: usize = 1 << 20;
/// At most this long between commits, so a long run of few agents does not keep its frames
/// only in the open transaction.
const MAX_COMMIT_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// SQLite's page size for a new file: 32 KiB pages take a tenth off the writer's time per row
/// against the default 4 KiB (fewer page splits per row).
const PAGE_SIZE: &str = "PRAGMA page_size = 32768;";

const SCHEMA: &str = "
CREATE TABLE metadata (key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE geometry (hash INTEGER NOT NULL, wkt TEXT NOT NULL);
CREATE TABLE frame_data (frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);
CREATE TABLE throng_groups (grp INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE throng_trajectory (frame INTEGER NOT NULL, id INTEGER NOT NULL,
    pos_x REAL NOT NULL, pos_y REAL NOT NULL, ori_x REAL NOT NULL, ori_y REAL NOT NULL,
    grp INTEGER NOT NULL, vel_x REAL NOT NULL, vel_y REAL NOT NULL, radius REAL NOT NULL,
    PRIMARY KEY (frame, id)) WITHOUT ROWID;
CREATE VIEW trajectory_data AS
    SELECT frame, id, pos_x, pos_y, ori_x, ori_y FROM throng_trajectory;
CREATE VIEW throng_agents AS
    SELECT t.frame AS frame, t.id AS id, g.name AS grp, t.vel_x AS vel_x, t.vel_y AS vel_y,
        t.radius AS radius
    FROM throng_trajectory t JOIN throng_groups g ON g.grp = t.grp;
";

/// A trace being written to SQLite.
pub struct TraceSqlite {
    path: PathBuf,
    db: Connection,
    every: u64,
    /// Rows written since the last commit, whether a transaction is open, and when the last
    /// commit was.
    pending_rows: usize,
    in_transaction: bool,
    last_commit: std::time::Instant,
    /// The hash of the walkable area of the last frame written.
    geometry: Option<i64>,
    /// Extent of the positions written: (xmin, xmax, ymin, ymax).
    extent: Option<(f64, f64, f64, f64)>,
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("cannot write trace file {}: {e}", path.display())
}

impl TraceSqlite {
    /// Opens the trace of a run tracing every `every` ticks: a new file (any old one
    /// replaced), or, for a run resumed at tick `resumed_at`, the file it was writing, with
    /// the frames past that tick deleted.
    pub fn open(
        path: &Path,
        world: &World,
        run: &RunInfo,
        every: u64,
        resumed_at: Option<u64>,
    ) -> Result<TraceSqlite> {
        let fresh = resumed_at.is_none();
        if fresh {
            for p in [path.to_path_buf(), journal(path)] {
                match std::fs::remove_file(&p) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e).with_context(|| format!("cannot replace {}", p.display())),
                }
            }
        } else if !path.is_file() {
            bail!("cannot continue trace file {}: it does not exist", path.display());
        }
        let db = Connection::open(path).map_err(sql(path))?;
        db.execute_batch("PRAGMA journal_mode = DELETE; PRAGMA synchronous = NORMAL;").map_err(sql(path))?;
        let mut trace = TraceSqlite {
            path: path.to_owned(),
            db,
            every,
            pending_rows: 0,
            in_transaction: false,
            last_commit: std::time::Instant::now(),
            geometry: None,
            extent: None,
        };
        // The step as written (0.1, not f32's 0.100000001), so 10 frames a second is 10.
        let dt: f64 = run.dt.to_string().parse().unwrap_or(world.dt as f64);
        let fps = 1.0 / (dt * every as f64);
        if fresh {
            trace.db.execute_batch(PAGE_SIZE).map_err(sql(path))?;
            trace.db.execute_batch(SCHEMA).map_err(sql(path))?;
            let mut meta = run.key_values("throng trace");
            meta.extend([
                ("version".into(), FORMAT_VERSION.into()),
                ("fps".into(), fps.to_string()),
                ("throng.trace_every".into(), every.to_string()),
            ]);
            meta.sort();
            let tx = trace.db.transaction().map_err(sql(path))?;
            for (k, v) in &meta {
                tx.execute("INSERT INTO metadata (key, value) VALUES (?1, ?2)", params![k, v])
                    .map_err(sql(path))?;
            }
            for (number, group) in world.groups.iter().enumerate() {
                tx.execute(
                    "INSERT INTO throng_groups (grp, name) VALUES (?1, ?2)",
                    params![number as i64, group.name],
                )
                .map_err(sql(path))?;
            }
            tx.commit().map_err(sql(path))?;
        } else {
            let tick = resumed_at.unwrap_or(0);
            let current: bool = trace
                .db
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'throng_trajectory')",
                    [],
                    |r| r.get(0),
                )
                .map_err(sql(path))?;
            if !current {
                bail!(
                    "cannot continue trace file {}: it has no table throng_trajectory, so an older throng wrote it in another layout; resume with the throng that began the run, or start the run afresh",
                    path.display()
                );
            }
            let read = |k: &str| -> Result<String> {
                trace
                    .db
                    .query_row("SELECT value FROM metadata WHERE key = ?1", [k], |r| r.get(0))
                    .with_context(|| {
                        format!("cannot continue trace file {}: no `{k}` in its metadata", path.display())
                    })
            };
            if read("throng.trace_every")? != every.to_string() || read("throng.dt")? != run.dt.to_string() {
                bail!(
                    "cannot continue trace file {}: it was written with another time step or interval",
                    path.display()
                );
            }
            let last = (tick / every) as i64;
            let tx = trace.db.transaction().map_err(sql(path))?;
            for table in ["throng_trajectory", "frame_data"] {
                tx.execute(&format!("DELETE FROM {table} WHERE frame > ?1"), [last]).map_err(sql(path))?;
            }
            tx.execute("DELETE FROM geometry WHERE hash NOT IN (SELECT geometry_hash FROM frame_data)", [])
                .map_err(sql(path))?;
            tx.commit().map_err(sql(path))?;
            trace.extent = trace
                .db
                .query_row(
                    "SELECT MIN(pos_x), MAX(pos_x), MIN(pos_y), MAX(pos_y) FROM throng_trajectory",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .ok()
                .and_then(|e: (Option<f64>, Option<f64>, Option<f64>, Option<f64>)| {
                    Some((e.0?, e.1?, e.2?, e.3?))
                });
        }
        Ok(trace)
    }

    /// Writes every agent of `frame` as one frame, with `geometry`, the walkable area as WKT,
    /// when it changed since the last frame.
    pub fn write(&mut self, frame: &Frame, geometry: Option<&str>) -> Result<()> {
        let path = self.path.clone();
        if !self.in_transaction {
            self.db.execute_batch("BEGIN").map_err(sql(&path))?;
            self.in_transaction = true;
        }
        let number = (frame.tick / self.every) as i64;
        if let Some(wkt) = geometry {
            let digest = blake3::hash(wkt.as_bytes());
            let hash = i64::from_le_bytes(digest.as_bytes()[..8].try_into().expect("8 bytes"));
            let known: bool = self
                .db
                .query_row("SELECT EXISTS (SELECT 1 FROM geometry WHERE hash = ?1)", [hash], |r| r.get(0))
                .map_err(sql(&path))?;
            if !known {
                self.db
                    .execute("INSERT INTO geometry (hash, wkt) VALUES (?1, ?2)", params![hash, wkt])
                    .map_err(sql(&path))?;
            }
            self.geometry = Some(hash);
        }
        let Some(hash) = self.geometry else {
            bail!("cannot write trace file {}: a frame without its walkable area", path.display());
        };
        self.db
            .execute("INSERT INTO frame_data (frame, geometry_hash) VALUES (?1, ?2)", params![number, hash])
            .map_err(sql(&path))?;
        let mut extent = self.extent;
        let rows: Vec<usize> = (0..frame.len()).collect();
        // Many rows per statement: SQLite's cost per statement, not per value, dominates.
        for chunk in rows.chunks(ROWS_PER_INSERT) {
            let mut insert = self.db.prepare_cached(&insert_sql(chunk.len())).map_err(sql(&path))?;
            for (n, &r) in chunk.iter().enumerate() {
                let (p, v) = (frame.position[r], frame.velocity[r]);
                let ori = norm(v);
                let (x, y) = (p.x as f64, p.y as f64);
                let k = COLUMNS * n + 1;
                let bind =
                    |insert: &mut rusqlite::CachedStatement, at: usize, value: &dyn rusqlite::ToSql| {
                        insert.raw_bind_parameter(k + at, value).map_err(sql(&path))
                    };
                bind(&mut insert, 0, &number)?;
                bind(&mut insert, 1, &frame.id[r])?;
                bind(&mut insert, 2, &x)?;
                bind(&mut insert, 3, &y)?;
                bind(&mut insert, 4, &(ori.x as f64))?;
                bind(&mut insert, 5, &(ori.y as f64))?;
                bind(&mut insert, 6, &frame.group[r])?;
                bind(&mut insert, 7, &(v.x as f64))?;
                bind(&mut insert, 8, &(v.y as f64))?;
                bind(&mut insert, 9, &(frame.radius[r] as f64))?;
                extent = Some(match extent {
                    None => (x, x, y, y),
                    Some((x0, x1, y0, y1)) => (x0.min(x), x1.max(x), y0.min(y), y1.max(y)),
                });
            }
            insert.raw_execute().map_err(sql(&path))?;
        }
        self.extent = extent;
        self.pending_rows += frame.len();
        if self.pending_rows >= ROWS_PER_COMMIT || self.last_commit.elapsed() >= MAX_COMMIT_INTERVAL {
            self.commit()?;
        }
        Ok(())
    }

    /// Commits the frames written (with the extent so far in the metadata).
    fn commit(&mut self) -> Result<()> {
        let path = self.path.clone();
        if !self.in_transaction {
            return Ok(());
        }
        if let Some((x0, x1, y0, y1)) = self.extent {
            for (k, v) in [("xmin", x0), ("xmax", x1), ("ymin", y0), ("ymax", y1)] {
                self.db
                    .execute(
                        "INSERT OR REPLACE INTO metadata (key, value) VALUES (?1, ?2)",
                        params![k, v.to_string()],
                    )
                    .map_err(sql(&path))?;
            }
        }
        self.db.execute_batch("COMMIT").map_err(sql(&path))?;
        self.in_transaction = false;
        self.pending_rows = 0;
        self.last_commit = std::time::Instant::now();
        Ok(())
    }

    /// Commits what is written, e.g. before a checkpoint.
    pub fn flush(&mut self) -> Result<()> {
        self.commit()
    }

    /// Commits the rest (the rows are clustered by frame and id: nothing to index).
    pub fn finish(mut self) -> Result<()> {
        self.commit()
    }
}

/// The columns of a row of `throng_trajectory`, in order.
const COLUMNS: usize = 10;
/// Rows per INSERT statement (10 values each, well under SQLite's 32,766 parameters).
const ROWS_PER_INSERT: usize = 256;

/// `INSERT INTO throng_trajectory VALUES (?, ...), ...` for `rows` rows.
fn insert_sql(rows: usize) -> String {
    let one = format!("({})", ["?"; COLUMNS].join(", "));
    let mut q = String::from("INSERT INTO throng_trajectory VALUES ");
    for k in 0..rows {
        if k > 0 {
            q.push_str(", ");
        }
        q.push_str(&one);
    }
    q
}

/// SQLite's rollback journal beside `path`.
fn journal(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-journal");
    PathBuf::from(name)
}
