//! The golden-file format: what a run was made from and what it gave, as line-per-record JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::GoldenError;
use crate::scenario::ScenarioError;
use crate::scenario::overrides::{self, Origin, Override};
use crate::world::{Dimension, World};

/// The `format` field of a golden file.
pub const FORMAT: &str = "throng-golden";
/// The golden-file format this engine writes. It reads this one and version 1, which is the same
/// without `digest` (so an edit to a version-1 file is not told from a changed engine).
pub const FORMAT_VERSION: u32 = 2;

/// A golden file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Golden {
    /// Always [`FORMAT`] (`"throng-golden"`): what marks the JSON as a golden file.
    pub format: String,
    /// The format version, [`FORMAT_VERSION`]; another is refused.
    pub format_version: u32,
    /// The engine version that recorded it (`ENGINE_VERSION`); another is only a note when
    /// verifying, since the hashes decide.
    pub engine_version: String,
    /// The state-hash layout tag (`hash::HASH_LAYOUT`) of the engine that recorded it.
    pub hash_layout: String,
    /// The scenario the run was made from, its text included.
    pub scenario: ScenarioRecord,
    /// `[key, value]` pairs, value in TOML inline syntax, sorted by key.
    pub overrides: Vec<(String, String)>,
    /// The seed of the recorded run (it replaces the scenario's `seed` when re-run).
    pub seed: u64,
    /// Ticks recorded: the run's length and the tick of the last record.
    pub ticks: u64,
    /// Records are kept every this many ticks (and at the last tick).
    pub every: u64,
    /// Threads and index of the recording run: a reference run re-uses them.
    pub recorded_with: Settings,
    /// Live agents at tick 0.
    pub agents: u64,
    /// The state's columns, in declaration order.
    pub columns: Vec<String>,
    /// The records, in increasing tick order: tick 0, every `every`-th tick, and `ticks`.
    pub records: Vec<Record>,
    /// Whole-world snapshots kept within the recording's byte budget, in tick order (possibly
    /// none).
    pub snapshots: Vec<Snapshot>,
    /// The state hash after the last tick, hex (64 digits).
    pub final_hash: String,
    /// BLAKE3 (hex) of every other field, as [`Golden::digest_of`] computes it: a file edited
    /// or damaged after it was recorded (a seed changed by hand, a record cut short) is refused
    /// as such, not reported as a changed engine. Empty in a version-1 file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
}

/// The scenario a golden file was recorded from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRecord {
    /// Relative to the golden file's directory (or absolute).
    pub path: String,
    /// The scenario's `name`, for reports.
    pub name: String,
    /// BLAKE3 of the file, hex.
    pub content_hash: String,
    /// The whole file, so a changed file can be shown and the recorded one re-run.
    pub text: String,
}

/// Where a run was made: results never depend on it, which is what verify checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Worker threads of the run.
    pub threads: usize,
    /// Neighbour-search backend of the run, by name (one of
    /// [`IndexKind::NAMES`](crate::IndexKind::NAMES)).
    pub index: String,
}

/// What the state was at one recorded tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The tick recorded (ticks completed; 0 is the world as built).
    pub tick: u64,
    /// `state_hash`, hex.
    pub hash: String,
    /// 16-hex-digit digests of the columns that changed since the previous record (of every
    /// column at tick 0), by column name.
    pub digests: BTreeMap<String, String>,
    /// Digests of the pass outputs of the tick that led here (none at tick 0).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passes: Vec<(String, String)>,
}

/// A whole world at one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The world's tick when taken.
    pub tick: u64,
    /// postcard of the `World`, base64.
    pub world: String,
}

impl Snapshot {
    /// A snapshot of `world`, agent rows in id order.
    pub fn of<V: Dimension>(world: &World<V>) -> Snapshot {
        let bytes = postcard::to_stdvec(&*world.id_ordered()).expect("a World always serializes");
        Snapshot { tick: world.tick, world: base64_encode(&bytes) }
    }

    /// The world stored in this snapshot (`V` the golden file's scenario's point type).
    pub fn decode<V: Dimension>(&self) -> Result<World<V>, SnapshotError> {
        let bytes = base64_decode(&self.world)?;
        match postcard::take_from_bytes::<World<V>>(&bytes) {
            Ok((w, [])) => Ok(w),
            Ok(_) => Err(SnapshotError::LeftOver),
            Err(e) => Err(SnapshotError::State(e.to_string())),
        }
    }
}

impl Golden {
    /// JSON with one field per line and one record or snapshot per line, so a diff of two golden
    /// files reads tick by tick.
    pub fn to_json(&self) -> String {
        let v = serde_json::to_value(self).expect("a golden file always serializes");
        let map = v.as_object().expect("a struct serializes to an object");
        const ORDER: [&str; 16] = [
            "format",
            "format_version",
            "engine_version",
            "hash_layout",
            "scenario",
            "overrides",
            "seed",
            "ticks",
            "every",
            "recorded_with",
            "agents",
            "columns",
            "records",
            "snapshots",
            "final_hash",
            "digest",
        ];
        let compact = |v: &serde_json::Value| serde_json::to_string(v).expect("JSON values serialize");
        let mut out = String::from("{\n");
        let keys = ORDER.iter().copied().chain(map.keys().map(String::as_str).filter(|k| !ORDER.contains(k)));
        let keys: Vec<&str> = keys.filter(|k| map.contains_key(*k)).collect();
        for (i, key) in keys.iter().enumerate() {
            let value = &map[*key];
            out.push_str(&format!("  {}: ", compact(&serde_json::Value::String(key.to_string()))));
            // Records and snapshots serialized directly keep their fields in declaration order.
            let lines: Option<Vec<String>> = match *key {
                "records" => {
                    Some(self.records.iter().map(|r| serde_json::to_string(r).expect("serializes")).collect())
                }
                "snapshots" => Some(
                    self.snapshots.iter().map(|r| serde_json::to_string(r).expect("serializes")).collect(),
                ),
                _ => None,
            };
            match lines {
                Some(lines) if !lines.is_empty() => {
                    out.push_str("[\n");
                    for (j, line) in lines.iter().enumerate() {
                        out.push_str("    ");
                        out.push_str(line);
                        out.push_str(if j + 1 < lines.len() { ",\n" } else { "\n" });
                    }
                    out.push_str("  ]");
                }
                _ => out.push_str(&compact(value)),
            }
            out.push_str(if i + 1 < keys.len() { ",\n" } else { "\n" });
        }
        out.push_str("}\n");
        out
    }

    /// Reads a golden file.
    pub fn load(path: &Path) -> Result<Golden, GoldenError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| GoldenError::Io {
            path: name.clone(),
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".into(),
                _ => format!("cannot read: {e}"),
            },
        })?;
        Golden::parse(&text, &name)
    }

    /// Parses golden-file JSON; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Golden, GoldenError> {
        let format = |message: String| GoldenError::Format { path: name.into(), message };
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format(format!("invalid JSON at line {}, column {}: {e}", e.line(), e.column())))?;
        if v.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(format(format!("expected \"format\": \"{FORMAT}\"")));
        }
        let version = v.get("format_version").and_then(|f| f.as_u64());
        if !matches!(version, Some(1) | Some(2)) {
            return Err(format(format!(
                "format version {}; this engine reads versions 1 and {FORMAT_VERSION}",
                version.map_or("missing".into(), |v| v.to_string())
            )));
        }
        let g: Golden = serde_json::from_value(v).map_err(|e| format(e.to_string()))?;
        if g.records.is_empty() || g.records[0].tick != 0 || g.every == 0 {
            return Err(format("a golden file needs `every` >= 1 and a record at tick 0".into()));
        }
        for (k, pair) in g.records.windows(2).enumerate() {
            if pair[0].tick >= pair[1].tick {
                return Err(format(format!(
                    "record {} (tick {}) comes after tick {}: records must be in increasing tick order",
                    k + 1,
                    pair[1].tick,
                    pair[0].tick
                )));
            }
        }
        if let Some(last) = g.records.last()
            && last.tick != g.ticks
        {
            return Err(format(format!(
                "the last record is at tick {}, not at `ticks` ({})",
                last.tick, g.ticks
            )));
        }
        if g.columns.iter().any(|c| !g.records[0].digests.contains_key(c))
            || g.records.iter().any(|r| r.digests.keys().any(|k| !g.columns.contains(k)))
        {
            return Err(format("the records' digests do not match `columns`".into()));
        }
        for (k, r) in g.records.iter().enumerate() {
            let at = |what: &str| format!("record {k} (tick {}): {what}", r.tick);
            if !is_hex(&r.hash, 64) {
                return Err(format(at(&format!("the hash `{}` is not 64 hex digits", r.hash))));
            }
            if let Some((column, d)) = r.digests.iter().find(|(_, d)| !is_hex(d, 16)) {
                return Err(format(at(&format!("the digest of `{column}`, `{d}`, is not 16 hex digits"))));
            }
            if let Some((pass, d)) = r.passes.iter().find(|(_, d)| !is_hex(d, 16)) {
                return Err(format(at(&format!("the digest of pass `{pass}`, `{d}`, is not 16 hex digits"))));
            }
        }
        if !is_hex(&g.final_hash, 64) || g.records.last().is_some_and(|r| r.hash != g.final_hash) {
            return Err(format("`final_hash` is not the last record's hash".into()));
        }
        let scenario_hash = blake3::hash(g.scenario.text.as_bytes()).to_hex();
        if !is_hex(&g.scenario.content_hash, 64) || scenario_hash.as_str() != g.scenario.content_hash {
            return Err(format(format!(
                "the embedded scenario text does not match its recorded hash (the text hashes to {}, the file says {}): the scenario part of the file was edited or damaged",
                &scenario_hash.as_str()[..16],
                g.scenario.content_hash.get(..16).unwrap_or(&g.scenario.content_hash)
            )));
        }
        if g.snapshots.windows(2).any(|w| w[0].tick >= w[1].tick)
            || g.snapshots.iter().any(|s| !g.records.iter().any(|r| r.tick == s.tick))
        {
            return Err(format("snapshots must be in increasing tick order, each at a recorded tick".into()));
        }
        if g.format_version >= 2 {
            let digest = g.digest_of();
            if g.digest != digest {
                return Err(format(format!(
                    "the file was edited or damaged after it was recorded: its contents hash to {}, its `digest` says {} (record it again with `throng record`)",
                    &digest[..16],
                    g.digest.get(..16).unwrap_or(&g.digest)
                )));
            }
        }
        Ok(g)
    }

    /// BLAKE3 (hex) of every field but `digest`, each as its JSON: what `digest` must be.
    pub fn digest_of(&self) -> String {
        let mut v = serde_json::to_value(self).expect("a golden file always serializes");
        v.as_object_mut().expect("a struct serializes to an object").remove("digest");
        blake3::hash(v.to_string().as_bytes()).to_hex().to_string()
    }

    /// Sets `digest` to what the other fields hash to (and the format to the version that has
    /// one): how a recording is closed.
    pub fn seal(&mut self) {
        self.format_version = FORMAT_VERSION;
        self.digest = self.digest_of();
    }

    /// The overrides, ready to apply; `name` is where they are said to come from in messages.
    pub fn overrides(&self, name: &str) -> Result<Vec<Override>, ScenarioError> {
        self.overrides
            .iter()
            .map(|(key, value)| {
                let origin = Origin::Other(format!("{name} (override `{key}`)"));
                let value = overrides::parse_value(value).map_err(|e| ScenarioError {
                    file: name.into(),
                    location: None,
                    key: key.clone(),
                    message: e.to_string(),
                })?;
                Ok(Override { key: key.clone(), value, origin })
            })
            .collect()
    }

    /// Every record's digests of every column (carried forward from earlier records).
    pub(super) fn expanded(&self) -> Vec<BTreeMap<String, String>> {
        let mut current = BTreeMap::new();
        self.records
            .iter()
            .map(|r| {
                current.extend(r.digests.iter().map(|(k, v)| (k.clone(), v.clone())));
                current.clone()
            })
            .collect()
    }

    pub(super) fn snapshot_at<V: Dimension>(
        &self,
        tick: u64,
        name: &str,
    ) -> Result<Option<World<V>>, GoldenError> {
        let Some(s) = self.snapshots.iter().find(|s| s.tick == tick) else { return Ok(None) };
        s.decode().map(Some).map_err(|e| GoldenError::Snapshot {
            path: name.into(),
            tick,
            message: e.to_string(),
        })
    }
}

/// `bytes` as lowercase hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A 64-bit digest as 16 lowercase hex digits.
pub(super) fn hex64(v: u64) -> String {
    format!("{v:016x}")
}

/// Whether `text` is exactly `digits` lowercase hex digits.
fn is_hex(text: &str, digits: usize) -> bool {
    text.len() == digits && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Standard base64 (RFC 4648, with padding) of `bytes`: how snapshots store a world.
pub fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The bytes of standard base64 text (RFC 4648, with padding); anything else is
/// [`SnapshotError::Base64`].
pub fn base64_decode(text: &str) -> Result<Vec<u8>, SnapshotError> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| SnapshotError::Base64(e.to_string()))
}

/// Why a stored snapshot cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    /// The text is not base64.
    #[error("invalid base64: {0}")]
    Base64(String),
    /// The bytes are not a state of this engine's layout.
    #[error("{0} (another state layout?)")]
    State(String),
    /// Bytes follow the state.
    #[error("bytes left over after the state (another state layout?)")]
    LeftOver,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..20usize {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&bytes)).unwrap(), bytes);
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
    }
}
