//! Overrides: keys split and joined, tables into leaves, arrays addressed by name, kind or
//! index, and the document edited in place.

use super::*;

#[test]
fn keys_split_and_join_with_quotes() {
    assert_eq!(split_key("groups.boids.max_speed").unwrap(), ["groups", "boids", "max_speed"]);
    assert_eq!(split_key(r#"groups."my group".count"#).unwrap(), ["groups", "my group", "count"]);
    assert_eq!(join_key(&["groups", "my group", "count"]), r#"groups."my group".count"#);
    assert!(split_key("a..b").is_err());
    assert!(split_key("a b").is_err());
    assert!(split_key(r#"a."b"#).is_err());
}

#[test]
fn agents_scales_after_every_other_override() {
    let text = "version = 1\nname = \"s\"\nseed = 1\ndt = 0.1\nticks = 5\n[bounds]\nkind = \"wrap\"\nmin = [0, 0]\nmax = [40, 40]\n[[groups]]\nname = \"a\"\ncount = 30\nspawn = { kind = \"rect\", min = [0, 0], max = [40, 40] }\nmax_speed = 1.0\nmax_force = 1.0\n";
    let mut sets = parse_set("groups.a.count=10", "--set").unwrap();
    sets.push(agents_override(40, Origin::Other("--agents".into())));
    let s = parse(text, "s.toml", &sets).unwrap();
    // Four times the overridden 10 agents: the world's sides double (not × √(40/30)).
    assert_eq!(s.agent_count(), 40);
    assert_eq!(s.bounds.max, crate::math::Vec2::new(80.0, 80.0));
    assert_eq!(s.content_hash, Scenario::parse(text, "s.toml").unwrap().content_hash);
    for bad in ["agents=0", "agents=1.5", "agents=\"many\"", "agents=20000001"] {
        let e = parse(text, "s.toml", &parse_set(bad, "--set").unwrap()).unwrap_err();
        assert_eq!((e.file.as_str(), e.key.as_str()), ("--set", "agents"), "{bad}");
        assert!(e.message.starts_with("expected a whole number of agents from 1 to 20000000"), "{bad}: {e}");
    }
}

#[test]
fn listed_points_scale_only_to_their_own_count() {
    let text = "version = 1\nname = \"s\"\nseed = 1\ndt = 0.1\nticks = 5\n[bounds]\nmin = [0, 0]\nmax = [40, 40]\n[[groups]]\nname = \"a\"\ncount = 2\nspawn = { kind = \"points\", points = [[1, 1], [2, 2]] }\nmax_speed = 1.0\nmax_force = 1.0\n";
    let s = Scenario::parse(text, "s.toml").unwrap();
    // Its own count: the same scenario, name and all (bench and --agents ask this).
    let same = s.scaled(2).unwrap();
    assert_eq!((same.name.as_str(), same.agent_count(), same.bounds.max), ("s", 2, s.bounds.max));
    let e = s.scaled(3).unwrap_err();
    assert_eq!(e.to_string(), "group \"a\" spawns at listed points, which cannot be scaled");
}

#[test]
fn tables_split_into_leaves() {
    let out = parse_set("groups.boids.max_speed={ min = 1, max = 2 }", "--set").unwrap();
    let keys: Vec<&str> = out.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(keys, ["groups.boids.max_speed.max", "groups.boids.max_speed.min"]);
    assert_eq!(parse_set("index=brute", "--set").unwrap()[0].value, toml::Value::String("brute".into()));
    assert!(parse_set("dt=0.1.2", "--set").is_err());
    assert!(parse_set("dt", "--set").is_err());
}

#[test]
fn arrays_select_by_name_kind_or_index() {
    let mut doc: toml::Value = toml::Value::Table(
        r#"
[[groups]]
name = "a"
[[groups.behaviours]]
kind = "seek"
[[groups.behaviours]]
kind = "separation"
[[groups.behaviours]]
kind = "separation"
"#
        .parse::<toml::Table>()
        .unwrap(),
    );
    let seg = |s: &str| split_key(s).unwrap();
    let v = toml::Value::Float(2.0);
    assert_eq!(
        set(&mut doc, &seg("groups.a.behaviours.seek.weight"), v.clone()).unwrap(),
        "groups[0].behaviours[0].weight"
    );
    assert_eq!(
        set(&mut doc, &seg("groups.0.behaviours.2.weight"), v.clone()).unwrap(),
        "groups[0].behaviours[2].weight"
    );
    let e = set(&mut doc, &seg("groups.a.behaviours.separation.weight"), v.clone()).unwrap_err();
    assert!(e.contains("2 elements of kind `separation`"), "{e}");
    let e = set(&mut doc, &seg("groups.b.count"), v.clone()).unwrap_err();
    assert!(e.contains("did you mean `a`?"), "{e}");
    let e = set(&mut doc, &seg("groupz.a.count"), v).unwrap_err();
    assert!(e.contains("did you mean `groups`?"), "{e}");
}
