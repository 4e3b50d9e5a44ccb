//! A batch's table of results: one row per finished run, as CSV (`results.csv`, and
//! `runs.csv` of a report), JSON lines (`results.jsonl`) and Parquet (`results.parquet`,
//! `runs.parquet`), every file replaced atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use throng_engine::state::files::write_atomically;

use super::Row;
use crate::output::parquet::{Cell, Column, Kind, write_whole};

/// A fixed column's value in a row.
enum Fixed {
    Int(i64),
    Real(f64),
    Text(String),
    /// Text that may be absent (empty in the CSV, null in Parquet).
    Maybe(Option<String>),
}

/// The fixed columns of the results, before the `set.`, `metric.` and `expect.` ones: name and
/// value, one list for every format.
type FixedColumn = (&'static str, fn(&Row) -> Fixed);

const FIXED: [FixedColumn; 14] = [
    ("index", |r| Fixed::Int(r.index as i64)),
    ("id", |r| Fixed::Text(r.id.clone())),
    ("point", |r| Fixed::Text(r.point.clone())),
    ("scenario", |r| Fixed::Text(r.scenario.clone())),
    ("scenario_file", |r| Fixed::Text(r.scenario_file.clone())),
    ("seed", |r| Fixed::Int(r.seed as i64)),
    ("ticks", |r| Fixed::Int(r.ticks as i64)),
    ("overrides", |r| {
        let list: Vec<String> = r.overrides.iter().map(|(k, v)| format!("{k}={}", value_text(v))).collect();
        Fixed::Text(list.join("; "))
    }),
    ("status", |r| Fixed::Text(r.status.clone())),
    ("error", |r| Fixed::Maybe(r.error.clone())),
    ("agents", |r| Fixed::Int(r.agents as i64)),
    ("final_hash", |r| Fixed::Text(r.final_hash.clone())),
    ("wall_s", |r| Fixed::Real(r.wall_s)),
    ("ms_per_tick", |r| Fixed::Real(r.ms_per_tick)),
];

/// A TOML-ish text for a JSON override value (numbers and strings as they are).
pub fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every metric and every expectation some row has, sorted.
fn names(rows: &[&Row]) -> (BTreeSet<String>, BTreeSet<String>) {
    let metrics = rows.iter().flat_map(|r| r.metrics.keys().cloned()).collect();
    let expectations = rows.iter().flat_map(|r| r.expectations.keys().cloned()).collect();
    (metrics, expectations)
}

/// The rows as CSV: fixed columns, then `set.KEY` for every override key, then `metric.NAME`
/// for every metric any row has (sorted), then `expect.NAME`.
pub fn csv_bytes(rows: &[&Row], keys: &[String]) -> Result<Vec<u8>> {
    let (metrics, expectations) = names(rows);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = FIXED.iter().map(|(name, _)| name.to_string()).collect();
    header.extend(keys.iter().map(|k| format!("set.{k}")));
    header.extend(metrics.iter().map(|m| format!("metric.{m}")));
    header.extend(expectations.iter().map(|e| format!("expect.{e}")));
    w.write_record(&header)?;
    for r in rows {
        let mut rec: Vec<String> = FIXED
            .iter()
            .map(|(_, value)| match value(r) {
                Fixed::Int(x) => x.to_string(),
                Fixed::Real(x) => x.to_string(),
                Fixed::Text(s) => s,
                Fixed::Maybe(s) => s.unwrap_or_default(),
            })
            .collect();
        rec.extend(keys.iter().map(|k| r.overrides.get(k).map(value_text).unwrap_or_default()));
        rec.extend(metrics.iter().map(|m| r.metrics.get(m).map(|x| x.to_string()).unwrap_or_default()));
        rec.extend(expectations.iter().map(|e| r.expectations.get(e).cloned().unwrap_or_default()));
        w.write_record(&rec)?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("cannot write CSV: {e}"))
}

/// The Parquet kind of an override key's column: whole numbers if every value is one,
/// numbers if every value is one, else text.
fn override_kind(rows: &[&Row], key: &str) -> Kind {
    let values: Vec<&serde_json::Value> = rows.iter().filter_map(|r| r.overrides.get(key)).collect();
    if values.iter().all(|v| v.is_i64()) {
        Kind::Int
    } else if values.iter().all(|v| v.is_number()) {
        Kind::F64
    } else {
        Kind::Text
    }
}

/// The override columns of `rows` (`set.KEY`, typed by their values), for the Parquet tables.
pub fn override_columns(rows: &[&Row], keys: &[String]) -> Vec<Column> {
    keys.iter().map(|k| Column::nullable(format!("set.{k}"), override_kind(rows, k))).collect()
}

/// One override of a row, as its `set.KEY` column holds it.
pub enum OverrideValue {
    Int(i64),
    F64(f64),
    Text(String),
    /// The row has no such key.
    Null,
}

impl OverrideValue {
    pub fn cell(&self) -> Cell<'_> {
        match self {
            OverrideValue::Int(x) => Cell::Int(*x),
            OverrideValue::F64(x) => Cell::F64(*x),
            OverrideValue::Text(s) => Cell::Text(s),
            OverrideValue::Null => Cell::Null,
        }
    }
}

/// `row`'s value of each key, in the kind of its column (from [`override_columns`]).
pub fn override_values(row: &Row, keys: &[String], columns: &[Column]) -> Vec<OverrideValue> {
    keys.iter()
        .zip(columns)
        .map(|(key, column)| match (row.overrides.get(key), column.kind) {
            (None, _) => OverrideValue::Null,
            (Some(v), Kind::Int) => v.as_i64().map_or(OverrideValue::Null, OverrideValue::Int),
            (Some(v), Kind::F64) => v.as_f64().map_or(OverrideValue::Null, OverrideValue::F64),
            (Some(v), _) => OverrideValue::Text(value_text(v)),
        })
        .collect()
}

/// Writes the rows as a Parquet file (atomically), the columns of [`csv_bytes`] typed: counts
/// as int64, times and metrics as double, an override key's column as its values' type,
/// `error`, a missing override, metric or expectation as null.
pub fn rows_parquet(path: &Path, rows: &[&Row], keys: &[String]) -> Result<()> {
    let (metrics, expectations) = names(rows);
    let sample = Row::default();
    let mut columns: Vec<Column> = FIXED
        .iter()
        .map(|(name, value)| match value(&sample) {
            Fixed::Int(_) => Column::new(*name, Kind::Int),
            Fixed::Real(_) => Column::new(*name, Kind::F64),
            Fixed::Text(_) => Column::new(*name, Kind::Text),
            Fixed::Maybe(_) => Column::nullable(*name, Kind::Text),
        })
        .collect();
    let set = override_columns(rows, keys);
    columns.extend(set.iter().cloned());
    columns.extend(metrics.iter().map(|m| Column::nullable(format!("metric.{m}"), Kind::F64)));
    columns.extend(expectations.iter().map(|e| Column::nullable(format!("expect.{e}"), Kind::Text)));
    let key_values = [("throng.format".to_string(), "throng batch results".to_string())];
    write_whole(path, "results file", columns, &key_values, |table| {
        for r in rows {
            let fixed: Vec<Fixed> = FIXED.iter().map(|(_, value)| value(r)).collect();
            let mut cells: Vec<Cell> = fixed
                .iter()
                .map(|f| match f {
                    Fixed::Int(x) => Cell::Int(*x),
                    Fixed::Real(x) => Cell::F64(*x),
                    Fixed::Text(s) => Cell::Text(s),
                    Fixed::Maybe(s) => s.as_deref().map_or(Cell::Null, Cell::Text),
                })
                .collect();
            let overrides = override_values(r, keys, &set);
            cells.extend(overrides.iter().map(OverrideValue::cell));
            cells.extend(metrics.iter().map(|m| r.metrics.get(m).map_or(Cell::Null, |x| Cell::F64(*x))));
            cells.extend(
                expectations.iter().map(|e| r.expectations.get(e).map_or(Cell::Null, |x| Cell::Text(x))),
            );
            table.push_row(&cells)?;
        }
        Ok(())
    })
}

/// Rewrites results.csv, results.jsonl and results.parquet from every finished row,
/// atomically.
pub(super) fn write_results(out: &Path, rows: &BTreeMap<usize, Row>, keys: &[String]) -> Result<()> {
    let list: Vec<&Row> = rows.values().collect();
    let csv = csv_bytes(&list, keys)?;
    let path = out.join("results.csv");
    write_atomically(&path, &csv).with_context(|| format!("cannot write {}", path.display()))?;
    let mut jsonl = String::new();
    for r in &list {
        jsonl.push_str(&serde_json::to_string(r)?);
        jsonl.push('\n');
    }
    let path = out.join("results.jsonl");
    write_atomically(&path, jsonl.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    rows_parquet(&out.join("results.parquet"), &list, keys)
}
