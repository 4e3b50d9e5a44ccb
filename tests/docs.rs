//! Docs generated from the code stay equal to it: the behaviour table of docs/scenarios.md is
//! the parameter tables of `engine/src/behaviours`, the model table of docs/models.md those of
//! `engine/src/models/kinds.rs`, the README's metrics columns and docs/render.md's plot
//! panels the list of `engine/src/metrics/catalogue.rs` (`THRONG_REGEN_DOCS=1` rewrites them).

use std::path::Path;

/// Keeps the table between `<!-- NAME:` and `<!-- end of NAME -->` in `doc` equal to `table`
/// (or, with `THRONG_REGEN_DOCS` set, rewrites it).
pub fn generated_table(doc: &str, name: &str, table: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{doc}: {e}"));
    let start = text.find(&format!("<!-- {name}:")).unwrap_or_else(|| panic!("the {name} start marker"));
    let body = start + text[start..].find('\n').expect("a line after the marker") + 1;
    let end =
        text.find(&format!("<!-- end of {name} -->")).unwrap_or_else(|| panic!("the {name} end marker"));
    if std::env::var_os("THRONG_REGEN_DOCS").is_some() {
        let new = format!("{}{table}{}", &text[..body], &text[end..]);
        std::fs::write(&path, new).unwrap_or_else(|e| panic!("rewrite {doc}: {e}"));
        return;
    }
    assert!(
        text[body..end] == *table,
        "{doc}'s {name} differs from the code's tables; regenerate it: \
         THRONG_REGEN_DOCS=1 cargo test --test suite docs"
    );
}

#[test]
fn the_docs_behaviour_table_is_the_parameter_tables() {
    generated_table("docs/scenarios.md", "behaviour-table", &throng_engine::behaviours::docs_table());
}

#[test]
fn the_docs_model_table_is_the_models_parameter_tables() {
    generated_table("docs/models.md", "model-table", &throng_engine::models::kinds::docs_table());
}

#[test]
fn the_readme_metrics_table_is_the_tick_metric_list() {
    generated_table("README.md", "metrics-columns", &throng_engine::metrics::docs_table());
}

#[test]
fn the_docs_plot_panel_table_is_the_tick_metric_list() {
    generated_table("docs/render.md", "plot-panels", &throng_engine::metrics::panels_table());
}

#[test]
fn every_kind_takes_only_keys_its_table_lists_and_defaults_in_range() {
    use throng_engine::behaviours::KINDS;
    use throng_engine::behaviours::params::{Default, Kind};
    for k in KINDS {
        let mut seen = Vec::new();
        for p in k.params {
            assert!(!seen.contains(&p.key), "{}: `{}` twice", k.name, p.key);
            seen.push(p.key);
            match p.kind {
                Kind::Number(range, Default::Value(v)) => {
                    assert!(range.holds(v), "{}.{}: default {v} outside {range:?}", k.name, p.key)
                }
                Kind::Number(_, Default::SameAs(other)) => {
                    assert!(seen.contains(&other), "{}.{}: defaults to a later key", k.name, p.key)
                }
                Kind::Choice(options, default) => {
                    assert!(options.contains(&default), "{}.{}: default not an option", k.name, p.key)
                }
                _ => {}
            }
        }
    }
}

/// Every Python block in the docs is a copy of an example file that a test runs, marked by
/// `<!-- example: docs/examples/NAME.py, run by the tests -->` on the line above it: the docs
/// show users only code that the suite has run. docs/python.md is the exception: its
/// walk-through's blocks run in order in one namespace, as the Python package's own test
/// (`engine/python/tests/test_docs.py`) runs them.
#[test]
fn every_python_block_in_the_docs_is_an_example_the_tests_run() {
    let tests: String =
        ["tests/cli/trace_formats.rs", "tests/cli/parquet_output.rs", "tests/cli/batch_outputs.rs"]
            .iter()
            .map(|f| std::fs::read_to_string(crate::common::root().join(f)).expect("a test file"))
            .collect();
    let docs = std::fs::read_dir(crate::common::root().join("docs")).expect("docs/");
    for entry in docs.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "python.md") {
            let runner =
                std::fs::read_to_string(crate::common::root().join("engine/python/tests/test_docs.py"))
                    .expect("the Python package's docs test");
            assert!(runner.contains(r#""docs" / "python.md""#), "test_docs.py runs docs/python.md's blocks");
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a doc");
        let lines: Vec<&str> = text.lines().collect();
        for (k, line) in lines.iter().enumerate() {
            if *line != "```python" {
                continue;
            }
            let marker = k.checked_sub(1).map(|p| lines[p]).unwrap_or_default();
            let name = marker
                .strip_prefix("<!-- example: ")
                .and_then(|m| m.strip_suffix(", run by the tests -->"))
                .unwrap_or_else(|| {
                    panic!("{}:{}: a Python block without its example marker", path.display(), k + 1)
                });
            let end = lines[k + 1..].iter().position(|l| *l == "```").expect("a closed block") + k + 1;
            let block: String = lines[k + 1..end].iter().map(|l| format!("{l}\n")).collect();
            let file = std::fs::read_to_string(crate::common::root().join(name))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(block, file, "{}:{}: the block is not {name}", path.display(), k + 1);
            assert!(tests.contains(name), "{name}: no test runs it");
        }
    }
}
