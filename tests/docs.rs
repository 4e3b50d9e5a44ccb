//! Docs generated from the code stay equal to it: the behaviour table of docs/scenarios.md is
//! the parameter tables of `engine/src/behaviours`, the model table of docs/models.md those of
//! `engine/src/models/kinds.rs` (`THRONG_REGEN_DOCS=1` rewrites them).

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
