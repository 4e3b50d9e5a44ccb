//! `throng report --series FILE.parquet`: every run's kept per-tick metrics (`keep =
//! ["metrics"]` in the batch file) in one long table, each row the run's id, point, scenario,
//! seed and swept values beside one tick's metrics, for plotting a sweep in one line.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use crate::batch::{OverrideValue, Row, kept_metrics_path, override_columns, override_values};
use crate::output::parquet::{Cell, Column, Kind, write_whole};

/// The columns of a run's metrics file, with their kinds.
fn metric_columns(reader: &SerializedFileReader<File>) -> Vec<(String, Kind)> {
    use parquet::basic::Type as Physical;
    reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| {
            let kind = match c.physical_type() {
                Physical::INT64 | Physical::INT32 => Kind::Int,
                Physical::DOUBLE | Physical::FLOAT => Kind::F64,
                _ => Kind::Text,
            };
            (c.name().to_string(), kind)
        })
        .collect()
}

fn open(path: &Path) -> Result<SerializedFileReader<File>> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    SerializedFileReader::new(file).map_err(|e| anyhow!("{}: not a whole Parquet file: {e}", path.display()))
}

/// Writes the series of `runs` (each row with the batch output directory it was read from),
/// in plan order, to `path`; `keys` are the batch's override keys.
pub fn write(path: &Path, runs: &[(&Row, &PathBuf)], keys: &[String]) -> Result<usize> {
    // Every run's file, checked first: a report never writes a part of the sweep.
    let mut files = Vec::new();
    for (row, dir) in runs {
        let file = kept_metrics_path(dir, &row.id);
        if !file.is_file() {
            bail!(
                "run {} (index {}) kept no metrics ({} is missing): add keep = [\"metrics\"] to the batch file and run `throng batch` again, which runs only what lacks them",
                row.id,
                row.index,
                file.display()
            );
        }
        files.push(file);
    }
    // The union of the runs' metric columns, in the order first seen (runs of different
    // scenarios may have different gates or areas).
    let mut metrics: Vec<(String, Kind)> = Vec::new();
    for file in &files {
        for (name, kind) in metric_columns(&open(file)?) {
            match metrics.iter().find(|(n, _)| *n == name) {
                Some((_, k)) if *k != kind => {
                    bail!("{}: column {name} holds other values than in the runs before it", file.display())
                }
                Some(_) => {}
                None => metrics.push((name, kind)),
            }
        }
    }
    let rows: Vec<&Row> = runs.iter().map(|(r, _)| *r).collect();
    let set = override_columns(&rows, keys);
    let mut columns = vec![
        Column::new("run_id", Kind::Text),
        Column::new("point", Kind::Text),
        Column::new("scenario", Kind::Text),
        Column::new("seed", Kind::Int),
    ];
    columns.extend(set.iter().cloned());
    columns.extend(metrics.iter().map(|(name, kind)| Column::nullable(name.clone(), *kind)));
    let key_values = [("throng.format".to_string(), "throng batch series".to_string())];
    let mut count = 0;
    write_whole(path, "series file", columns, &key_values, |table| {
        for ((row, _), file) in runs.iter().zip(&files) {
            let reader = open(file)?;
            let overrides = override_values(row, keys, &set);
            let index: BTreeMap<String, usize> =
                metric_columns(&reader).into_iter().enumerate().map(|(k, (name, _))| (name, k)).collect();
            for record in reader.get_row_iter(None).map_err(|e| anyhow!("{}: {e}", file.display()))? {
                let record = record.map_err(|e| anyhow!("{}: {e}", file.display()))?;
                let fields: Vec<&Field> = record.get_column_iter().map(|(_, f)| f).collect();
                let mut cells = vec![
                    Cell::Text(&row.id),
                    Cell::Text(&row.point),
                    Cell::Text(&row.scenario),
                    Cell::Int(row.seed as i64),
                ];
                cells.extend(overrides.iter().map(OverrideValue::cell));
                for (name, _) in &metrics {
                    cells.push(match index.get(name).map(|&k| fields[k]) {
                        Some(Field::Long(x)) => Cell::Int(*x),
                        Some(Field::Int(x)) => Cell::Int(*x as i64),
                        Some(Field::Double(x)) => Cell::F64(*x),
                        Some(Field::Float(x)) => Cell::F64(*x as f64),
                        Some(Field::Str(s)) => Cell::Text(s),
                        _ => Cell::Null,
                    });
                }
                table.push_row(&cells)?;
                count += 1;
            }
        }
        Ok(())
    })?;
    Ok(count)
}
