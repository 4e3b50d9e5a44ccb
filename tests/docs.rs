//! Docs generated from the code stay equal to it: the behaviour table of docs/scenarios.md is
//! the parameter tables of `engine/src/behaviours` (`THRONG_REGEN_DOCS=1` rewrites it).

use std::path::Path;

const START: &str = "<!-- behaviour-table:";
const END: &str = "<!-- end of behaviour-table -->";

#[test]
fn the_docs_behaviour_table_is_the_parameter_tables() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenarios.md");
    let text = std::fs::read_to_string(&path).expect("docs/scenarios.md");
    let start = text.find(START).expect("the behaviour-table start marker");
    let body = start + text[start..].find('\n').expect("a line after the marker") + 1;
    let end = text.find(END).expect("the behaviour-table end marker");
    let table = throng_engine::behaviours::docs_table();
    if std::env::var_os("THRONG_REGEN_DOCS").is_some() {
        let new = format!("{}{table}{}", &text[..body], &text[end..]);
        std::fs::write(&path, new).expect("rewrite docs/scenarios.md");
        return;
    }
    assert!(
        text[body..end] == table,
        "docs/scenarios.md's behaviour table differs from the parameter tables; regenerate it: \
         THRONG_REGEN_DOCS=1 cargo test --test suite docs"
    );
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
