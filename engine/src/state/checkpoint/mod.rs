//! Checkpoints: the whole [`World`] in a versioned, checksummed file, written atomically.
//!
//! The world is the entire state (the pipeline is scratch), so a checkpoint plus the same
//! engine continues a run bit for bit, with any thread count. A checkpoint is tied to the
//! scenario file's content hash and to the overrides the run was started with; loading it for
//! another scenario, other overrides or another engine version is an error, and so is any
//! corruption or truncation. Nothing is returned unless every check passes.
//!
//! ## Layout (all integers little-endian)
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `THRONGCK` |
//! | 4 | format version (u32, currently 7; versions 1 to 6 are still read) |
//! | 2 + n | engine version (u16 length, UTF-8) |
//! | 32 | BLAKE3 of the scenario file |
//! | 4 + … | overrides: u32 count, then each as u32 length + UTF-8 `key = value` (sorted) |
//! | 4 + n | (version 3) the run's plan: u32 length + UTF-8, empty when none |
//! | 4 | (version 5) the dimensions of the run's space: u32, 2 (the plane) or 3; earlier versions are planar |
//! | 4 + … | state layout: u32 count, then each column name as u16 length + UTF-8 |
//! | 8 + 8 | tick, seed (u64) |
//! | 8 | payload length (u64) |
//! | 32 | BLAKE3 of the payload |
//! | 32 | BLAKE3 of every header byte above |
//! | … | payload: the `World` in postcard, then (version 2) the run's metrics state, an `Option<MetricsState>` in postcard, then (version 4) what its expectations have seen, an `Option<WatchState>` in postcard, then (version 7) the spawns' spacing, an `Option<SpawnSpacing>` in postcard (`None` when no source or event keeps a distance) |
//!
//! The metrics state ([`MetricsState`]: stuck-agent anchors, counters, maxima) lets a resumed
//! run's metrics go on exactly as the uninterrupted run's would; it is `None` when the run
//! that wrote the checkpoint observed no metrics. It takes no part in the state hash. The watch
//! state ([`WatchState`]) does the same for the scenario's expectations.
//!
//! Encoding is deterministic (no timestamps, no maps), so save → load → save gives the same
//! bytes. The payload holds the agent rows in id order whatever order the live world keeps
//! them in (the pipeline may have put them in spatial order), so the bytes do not depend on
//! it either; a resumed pipeline reorders again on its own schedule, which changes no result.

use crate::expect::WatchState;
use crate::metrics::{MetricsState, MetricsStateV5};
use crate::state::fields;
use crate::world::{Dimension, SpawnSpacing, World};

mod error;
mod files;

pub use error::CheckpointError;
pub use files::{file_name, latest_in, load, load_header, save};

/// The 8 bytes every checkpoint starts with; a file without them is
/// [`CheckpointError::NotACheckpoint`].
pub const MAGIC: &[u8; 8] = b"THRONGCK";
/// The checkpoint format this engine writes (it also reads version 1, which has no metrics,
/// version 2, which has no plan, version 3, which has no expectations' state, version 4,
/// which does not say its dimensions: it is planar, version 5, whose metrics have no wall
/// crossings, and version 6, which has no spawns' spacing). Version 8 added the journeys: the
/// agents' `journey`, `stage` and `stage_since` columns and the world's stages and journeys,
/// so a state written by an engine before it (versions 1 to 7) does not decode, and the error
/// says so. Version 9 added the agents' `party` and `stage_from` columns (social groups, and
/// choosing again when a stage closes), the groups' `parties` and the stages' `closed`: a state
/// of version 8 or before does not decode either.
pub const FORMAT_VERSION: u32 = 9;
/// The first format version whose state has the columns this engine's agents have (`party`
/// and `stage_from` since version 9; `journey`, `stage` and `stage_since` since version 8).
pub const COLUMNS_FORMAT: u32 = 9;
/// The engine version written into checkpoints and golden files.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The file extension of checkpoints written by `throng run --checkpoint-every`.
pub const EXTENSION: &str = "ckpt";

/// What a checkpoint says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The file's format version: 1 (no metrics state) up to [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The [`ENGINE_VERSION`] of the engine that wrote it; only that engine resumes it.
    pub engine_version: String,
    /// BLAKE3 of the scenario file the run was started from.
    pub scenario_hash: [u8; 32],
    /// The run's overrides, canonical (`key = value`, sorted).
    pub overrides: Vec<String>,
    /// What the run was asked to do, as its program wrote it (empty when none, and in files
    /// of format versions 1 and 2); see the module documentation.
    pub plan: String,
    /// The dimensions of the run's space: 2 (the plane; every file before format version 5)
    /// or 3.
    pub dimensions: u32,
    /// The state's columns (see [`fields::layout`]).
    pub layout: Vec<String>,
    /// The world's tick when saved (ticks completed); it must equal the decoded world's.
    pub tick: u64,
    /// The run's seed; it must equal the decoded world's.
    pub seed: u64,
    /// Length of the payload after the header, in bytes.
    pub payload_len: u64,
    /// BLAKE3 of the payload.
    pub payload_checksum: [u8; 32],
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A decoded checkpoint of a run in the plane (`V = Vec2`) or in space.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint<V: Dimension = crate::math::Vec2> {
    /// What the file says about itself: versions, scenario hash, overrides, layout.
    pub header: Header,
    /// The saved state, agent rows in id order: step it to go on with the run.
    pub world: World<V>,
    /// The metrics state of the run that wrote it; `None` if it observed no metrics (or the
    /// file is of format version 1).
    pub metrics: Option<MetricsState<V>>,
    /// What the run's expectations had seen; `None` if it watched none (or the file is older
    /// than format version 4).
    pub watch: Option<WatchState>,
}

/// The bytes of a checkpoint of `world`, with the run's metrics state if it observes metrics,
/// tied to `run`.
pub fn encode<V: Dimension>(
    world: &World<V>,
    metrics: Option<&MetricsState<V>>,
    run: &RunIdentity<'_>,
) -> Vec<u8> {
    encode_as(ENGINE_VERSION, FORMAT_VERSION, world, metrics, None, run)
}

/// [`encode`], with what the run's expectations have seen.
pub fn encode_watched<V: Dimension>(
    world: &World<V>,
    metrics: Option<&MetricsState<V>>,
    watch: Option<&WatchState>,
    run: &RunIdentity<'_>,
) -> Vec<u8> {
    encode_as(ENGINE_VERSION, FORMAT_VERSION, world, metrics, watch, run)
}

/// What ties a checkpoint to its run: the scenario file's BLAKE3, the canonical overrides, and
/// the run's plan (stored, never checked by the engine).
#[derive(Clone, Copy, Debug)]
pub struct RunIdentity<'a> {
    /// BLAKE3 of the scenario file.
    pub scenario_hash: &'a [u8; 32],
    /// The canonical overrides ([`Scenario::overrides`](crate::Scenario::overrides)).
    pub overrides: &'a [String],
    /// The run's plan; empty for none.
    pub plan: &'a str,
}

fn encode_as<V: Dimension>(
    engine_version: &str,
    format_version: u32,
    world: &World<V>,
    metrics: Option<&MetricsState<V>>,
    watch: Option<&WatchState>,
    run: &RunIdentity<'_>,
) -> Vec<u8> {
    let RunIdentity { scenario_hash, overrides, plan } = *run;
    // A copy in id order when the rows are not: the live world is left as it is.
    let mut payload = postcard::to_stdvec(&*world.id_ordered()).expect("a World always serializes");
    if format_version >= 6 {
        payload.extend(postcard::to_stdvec(&metrics).expect("a metrics state always serializes"));
    } else if format_version >= 2 {
        let old = metrics.map(MetricsStateV5::from);
        payload.extend(postcard::to_stdvec(&old).expect("a metrics state always serializes"));
    }
    if format_version >= 4 {
        payload.extend(postcard::to_stdvec(&watch).expect("a watch state always serializes"));
    }
    if format_version >= 7 {
        let spacing = SpawnSpacing::of(world);
        payload.extend(postcard::to_stdvec(&spacing).expect("the spawns' spacing always serializes"));
    }
    let layout = fields::layout(world);
    let mut out = Vec::with_capacity(payload.len() + 512);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&format_version.to_le_bytes());
    out.extend_from_slice(&(engine_version.len() as u16).to_le_bytes());
    out.extend_from_slice(engine_version.as_bytes());
    out.extend_from_slice(scenario_hash);
    out.extend_from_slice(&(overrides.len() as u32).to_le_bytes());
    for o in overrides {
        out.extend_from_slice(&(o.len() as u32).to_le_bytes());
        out.extend_from_slice(o.as_bytes());
    }
    if format_version >= 3 {
        out.extend_from_slice(&(plan.len() as u32).to_le_bytes());
        out.extend_from_slice(plan.as_bytes());
    }
    if format_version >= 5 {
        out.extend_from_slice(&(V::DIMENSIONS as u32).to_le_bytes());
    }
    out.extend_from_slice(&(layout.len() as u32).to_le_bytes());
    for c in &layout {
        out.extend_from_slice(&(c.len() as u16).to_le_bytes());
        out.extend_from_slice(c.as_bytes());
    }
    out.extend_from_slice(&world.tick.to_le_bytes());
    out.extend_from_slice(&world.seed.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(&payload).as_bytes());
    let header_sum = blake3::hash(&out);
    out.extend_from_slice(header_sum.as_bytes());
    out.extend_from_slice(&payload);
    out
}

/// A bounds-checked reader over the header.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a str,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], CheckpointError> {
        if self.bytes.len() - self.at < n {
            return Err(CheckpointError::Truncated {
                path: self.path.into(),
                detail: format!("the file ends inside the header ({what}) after {} bytes", self.bytes.len()),
            });
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u16(&mut self, what: &str) -> Result<u16, CheckpointError> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self, what: &str) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self, what: &str) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().expect("8 bytes")))
    }
    fn hash(&mut self, what: &str) -> Result<[u8; 32], CheckpointError> {
        Ok(self.take(32, what)?.try_into().expect("32 bytes"))
    }
    fn text(&mut self, len: usize, what: &str) -> Result<String, CheckpointError> {
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| CheckpointError::Corrupted { path: self.path.into(), what: "header" })
    }
}

/// Decodes a checkpoint's bytes: every structural check and both checksums, then the state,
/// which must be of `V`'s dimensions. `path` names the file in errors.
pub fn decode<V: Dimension>(bytes: &[u8], path: &str) -> Result<Checkpoint<V>, CheckpointError> {
    let (header, payload) = decode_header(bytes, path)?;
    let p = || path.to_string();
    if header.dimensions as usize != V::DIMENSIONS {
        return Err(CheckpointError::Dimensions {
            path: p(),
            found: header.dimensions,
            expected: V::DIMENSIONS,
        });
    }
    let format_version = header.format_version;
    let decode_error = |message: String| CheckpointError::Decode { path: p(), message };
    let (world, rest) = postcard::take_from_bytes::<World<V>>(payload).map_err(|e| {
        decode_error(if format_version < COLUMNS_FORMAT {
            format!("{e}: format version {format_version} was written by an engine whose agents had fewer columns (journeys came with format 8, parties with format {COLUMNS_FORMAT}); run the scenario again from the start")
        } else {
            format!("{e}: the state layout of the engine that wrote it probably differs")
        })
    })?;
    let undecodable = |_| decode_error("the metrics state after the world does not decode".into());
    let (metrics, rest): (Option<MetricsState<V>>, &[u8]) = match format_version {
        1 => (None, rest),
        2..=5 => {
            let (old, rest): (Option<MetricsStateV5<V>>, &[u8]) =
                postcard::take_from_bytes(rest).map_err(undecodable)?;
            (old.map(MetricsState::from), rest)
        }
        _ => postcard::take_from_bytes(rest).map_err(undecodable)?,
    };
    let (watch, rest): (Option<WatchState>, &[u8]) = match format_version {
        1..=3 => (None, rest),
        _ => postcard::take_from_bytes(rest)
            .map_err(|_| decode_error("the expectations' state after the metrics does not decode".into()))?,
    };
    let (spacing, rest): (Option<SpawnSpacing>, &[u8]) = match format_version {
        1..=6 => (None, rest),
        _ => postcard::take_from_bytes(rest).map_err(|_| {
            decode_error("the spawns' spacing after the expectations' state does not decode".into())
        })?,
    };
    let mut world = world;
    if let Some(spacing) = spacing {
        spacing.restore(&mut world).map_err(decode_error)?;
    }
    if !rest.is_empty() {
        return Err(decode_error(format!(
            "{} bytes left over: the state layout of the engine that wrote it differs",
            rest.len()
        )));
    }
    let here = fields::layout(&world);
    if here != header.layout {
        let missing: Vec<&str> =
            header.layout.iter().filter(|c| !here.contains(c)).map(String::as_str).collect();
        let extra: Vec<&str> =
            here.iter().filter(|c| !header.layout.contains(c)).map(String::as_str).collect();
        return Err(CheckpointError::Layout {
            path: p(),
            detail: format!(
                "columns only in the checkpoint: [{}]; only in this engine: [{}]",
                missing.join(", "),
                extra.join(", ")
            ),
        });
    }
    check_world(&world, &header).map_err(|message| CheckpointError::Decode { path: p(), message })?;
    Ok(Checkpoint { header, world, metrics, watch })
}

/// A checkpoint's header, every structural check and both checksums passed, and its payload.
/// `path` names the file in errors.
pub fn decode_header<'a>(bytes: &'a [u8], path: &str) -> Result<(Header, &'a [u8]), CheckpointError> {
    let p = || path.to_string();
    if bytes.len() < MAGIC.len() {
        if MAGIC.starts_with(bytes) {
            return Err(CheckpointError::Truncated {
                path: p(),
                detail: format!("only {} bytes", bytes.len()),
            });
        }
        return Err(CheckpointError::NotACheckpoint { path: p() });
    }
    if &bytes[..8] != MAGIC {
        return Err(CheckpointError::NotACheckpoint { path: p() });
    }
    let mut r = Reader { bytes, at: 8, path };
    let format_version = r.u32("format version")?;
    if !(1..=FORMAT_VERSION).contains(&format_version) {
        return Err(CheckpointError::Format { path: p(), found: format_version });
    }
    let n = r.u16("engine version")? as usize;
    let engine_version = r.text(n, "engine version")?;
    let scenario_hash = r.hash("scenario hash")?;
    let count = r.u32("override count")? as usize;
    let mut overrides = Vec::new();
    for _ in 0..count {
        let n = r.u32("override")? as usize;
        overrides.push(r.text(n, "override")?);
    }
    let plan = match format_version {
        1 | 2 => String::new(),
        _ => {
            let n = r.u32("plan")? as usize;
            r.text(n, "plan")?
        }
    };
    let dimensions = match format_version {
        1..=4 => 2,
        _ => r.u32("dimensions")?,
    };
    let count = r.u32("column count")? as usize;
    let mut layout = Vec::new();
    for _ in 0..count {
        let n = r.u16("column name")? as usize;
        layout.push(r.text(n, "column name")?);
    }
    let tick = r.u64("tick")?;
    let seed = r.u64("seed")?;
    let payload_len = r.u64("payload length")?;
    let payload_checksum = r.hash("payload checksum")?;
    let header_end = r.at;
    let header_sum = r.hash("header checksum")?;
    if blake3::hash(&bytes[..header_end]).as_bytes() != &header_sum {
        return Err(CheckpointError::Corrupted { path: p(), what: "header" });
    }
    let payload = &bytes[r.at..];
    if (payload.len() as u64) < payload_len {
        return Err(CheckpointError::Truncated {
            path: p(),
            detail: format!("the state should be {payload_len} bytes, the file holds {}", payload.len()),
        });
    }
    if payload.len() as u64 > payload_len {
        return Err(CheckpointError::Corrupted { path: p(), what: "payload length" });
    }
    if blake3::hash(payload).as_bytes() != &payload_checksum {
        return Err(CheckpointError::Corrupted { path: p(), what: "payload" });
    }
    let header = Header {
        format_version,
        engine_version,
        scenario_hash,
        overrides,
        plan,
        dimensions,
        layout,
        tick,
        seed,
        payload_len,
        payload_checksum,
    };
    if header.engine_version != ENGINE_VERSION {
        return Err(CheckpointError::EngineVersion { path: p(), found: header.engine_version });
    }
    Ok((header, payload))
}

/// Consistency checks on a decoded world, so that a bad file is an error here and never a
/// panic mid-tick.
fn check_world<V: Dimension>(world: &World<V>, header: &Header) -> Result<(), String> {
    if world.tick != header.tick || world.seed != header.seed {
        return Err("the header's tick or seed disagrees with the state".into());
    }
    struct Lens(Vec<(String, usize)>);
    impl fields::Sink for Lens {
        fn leaf(&mut self, path: &[fields::Seg], leaf: fields::Leaf<'_>) {
            if let ([fields::Seg::Field(fields::AGENTS), fields::Seg::Field(c)], fields::Leaf::Len(n)) =
                (path, leaf)
            {
                self.0.push((c.to_string(), n));
            }
        }
    }
    // The length of every agent column, whatever columns this engine has.
    let mut lens = Lens(Vec::new());
    fields::walk(world, &mut lens).map_err(|e| e.to_string())?;
    let n = world.agents.len();
    if let Some((c, len)) = lens.0.iter().find(|(_, len)| *len != n) {
        return Err(format!("column `{c}` has {len} rows, `id` has {n}"));
    }
    if world.agents.id.windows(2).any(|w| w[0] >= w[1]) {
        return Err("agent ids are not in increasing order".into());
    }
    if world.agents.id.last().is_some_and(|&id| id >= world.next_id) {
        return Err("an agent id is not below `next_id`".into());
    }
    if world.agents.group.iter().any(|&g| g as usize >= world.groups.len()) {
        return Err("an agent belongs to a group that does not exist".into());
    }
    Ok(())
}

/// Checks that a checkpoint belongs to this run: the same scenario file and the same overrides.
pub fn check_run(
    header: &Header,
    path: &str,
    scenario: &str,
    scenario_hash: &[u8; 32],
    overrides: &[String],
) -> Result<(), CheckpointError> {
    if &header.scenario_hash != scenario_hash {
        return Err(CheckpointError::Scenario {
            path: path.into(),
            scenario: scenario.into(),
            found: hex(&header.scenario_hash),
            expected: hex(scenario_hash),
        });
    }
    if header.overrides != overrides {
        return Err(CheckpointError::Overrides {
            path: path.into(),
            found: header.overrides.join(", "),
            expected: overrides.join(", "),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
