//! A group's `model`: bad values rejected at their key with what was expected (an unknown
//! model with the nearest name, a table without `kind`, an unknown key, a number out of range,
//! a neighbour count that is not whole), and the two forms of a valid one.

use super::{base_with, check_rejects};

/// `BASE` with `model = VALUE` on the group (line 21).
fn with(model: &str) -> String {
    base_with("max_force = 1.0", &format!("max_force = 1.0\nmodel = {model}"))
}

#[test]
fn bad_models_are_rejected_at_their_key() {
    check_rejects(
        "model_unknown",
        with("\"orka\""),
        (21, 9),
        &["`groups[0].model`", "unknown value \"orka\"; did you mean `orca`?", "steering, orca"],
    );
    check_rejects(
        "model_number",
        with("3"),
        (21, 9),
        &["`groups[0].model`", "or a table { kind = .., ... }, found 3"],
    );
    check_rejects(
        "model_without_kind",
        with("{ time_horizon = 2 }"),
        (21, 9),
        &["`groups[0].model`", "missing key `kind`"],
    );
    check_rejects(
        "model_unknown_key",
        with("{ kind = \"orca\", time_horizn = 2 }"),
        (21, 26),
        &["`groups[0].model.time_horizn`", "did you mean `time_horizon`?", "model `orca` takes:"],
    );
    check_rejects(
        "model_zero_horizon",
        with("{ kind = \"orca\", time_horizon = 0 }"),
        (21, 41),
        &["`groups[0].model.time_horizon`", "expected a finite number > 0", "found 0"],
    );
    check_rejects(
        "model_fractional_neighbours",
        with("{ kind = \"orca\", max_neighbours = 2.5 }"),
        (21, 43),
        &["`groups[0].model.max_neighbours`", "expected a whole number, found 2.5"],
    );
    check_rejects(
        "model_unknown_preset",
        with("{ kind = \"cfsm\", preset = \"coridor\" }"),
        (21, 35),
        &["`groups[0].model.preset`", "unknown value \"coridor\"; did you mean `corridor`?"],
    );
    check_rejects(
        "model_preset_of_orca",
        with("{ kind = \"orca\", preset = \"bottleneck\" }"),
        (21, 35),
        &[
            "`groups[0].model.preset`",
            "model `orca` has no presets (cfsm has \"bottleneck\", \"corridor\"; social_force has \"bottleneck\")",
        ],
    );
    check_rejects(
        "model_steering_with_keys",
        with("{ kind = \"steering\", time_horizon = 2 }"),
        (21, 30),
        &["`groups[0].model.time_horizon`", "model `steering` takes: no parameters"],
    );
}

#[test]
fn a_model_by_name_or_by_table_is_accepted() {
    use throng_engine::Scenario;
    use throng_engine::world::Model;
    let by_name = Scenario::parse(&with("\"orca\""), "m.toml").expect("valid");
    let Model::Orca(orca) = by_name.groups[0].group.model else { panic!("orca") };
    assert_eq!((orca.time_horizon, orca.neighbour_dist, orca.max_neighbours), (5.0, 15.0, 10));
    assert_eq!(orca.preferred_speed, None);
    // The group's neighbour list is stretched to what the model reads.
    assert_eq!((by_name.groups[0].group.sensing_radius, by_name.groups[0].group.max_neighbours), (15.0, 10));
    let table =
        Scenario::parse(&with("{ kind = \"orca\", neighbour_dist = 4, preferred_speed = 1.3 }"), "m.toml")
            .expect("valid");
    let Model::Orca(orca) = table.groups[0].group.model else { panic!("orca") };
    assert_eq!((orca.neighbour_dist, orca.preferred_speed), (4.0, Some(1.3)));
    let steering = Scenario::parse(&with("\"steering\""), "m.toml").expect("valid");
    assert_eq!(steering.groups[0].group.model, Model::Steering);
}

#[test]
fn a_preset_sets_its_parameters_and_the_files_own_keys_win() {
    use throng_engine::Scenario;
    use throng_engine::world::Model;
    let model = |text: &str| Scenario::parse(&with(text), "m.toml").expect("valid").groups[0].group.model;
    let Model::Cfsm(m) = model("{ kind = \"cfsm\", preset = \"bottleneck\" }") else { panic!("cfsm") };
    assert_eq!(
        (m.time_gap, m.strength, m.range, m.wall_strength),
        (0.4, 16.0, 0.1, 5.0),
        "the preset, then defaults"
    );
    let Model::Cfsm(m) = model("{ kind = \"cfsm\", preset = \"corridor\" }") else { panic!("cfsm") };
    assert_eq!((m.time_gap, m.strength, m.range, m.wall_strength), (0.6, 10.0, 0.3, 5.0));
    let Model::Cfsm(m) = model("{ kind = \"cfsm\", preset = \"bottleneck\", time_gap = 0.8 }") else {
        panic!("cfsm")
    };
    assert_eq!((m.time_gap, m.strength), (0.8, 16.0), "the file's time_gap wins");
    let Model::SocialForce(sf) = model("{ kind = \"social_force\", preset = \"bottleneck\" }") else {
        panic!("sf")
    };
    assert_eq!((sf.strength, sf.range, sf.wall_strength, sf.body), (50.0, 0.12, 10.0, 1500.0));
    // Without a preset, the walls push as hard as agents unless told otherwise.
    let Model::SocialForce(sf) = model("{ kind = \"social_force\", strength = 30 }") else { panic!("sf") };
    assert_eq!(sf.wall_strength, 30.0);
    let Model::SocialForce(sf) = model("{ kind = \"social_force\", wall_strength = 4 }") else {
        panic!("sf")
    };
    assert_eq!((sf.strength, sf.wall_strength), (25.0, 4.0));
}

#[test]
fn social_force_warns_of_a_time_step_past_its_stable_range() {
    use throng_engine::Scenario;
    // BASE's dt is 0.1 s; the defaults' stable step is 1 / √(1500 + 25 / 0.08) = 0.0235 s.
    let long = Scenario::parse(&with("\"social_force\""), "sf.toml").expect("valid, with a warning");
    let warning = long.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>().join("\n");
    assert!(warning.contains("sf.toml:21:9"), "at the model: {warning}");
    assert!(
        warning.contains("dt 0.1 s is longer than social force's stable step") && warning.contains("0.0235"),
        "{warning}"
    );
    let short = Scenario::parse(&with("\"social_force\"").replace("dt = 0.1", "dt = 0.02"), "sf.toml")
        .expect("valid");
    assert!(short.warnings.is_empty(), "no warning at 0.02 s");
    // Softer forces are stable at longer steps: 1 / √(0 + 2 / 0.5) = 0.5 s.
    let soft = with("{ kind = \"social_force\", body = 0, strength = 2, range = 0.5 }");
    assert!(Scenario::parse(&soft, "sf.toml").expect("valid").warnings.is_empty());
}

#[test]
fn a_velocity_model_ignores_the_avoidance_behaviours_and_says_so() {
    use throng_engine::{RunSettings, Scenario, Simulation};
    // Twelve walkers on a 4 x 3 lattice 0.6 apart, so separation (radius 1.5) would push.
    let lattice = "spawn = { kind = \"points\", points = [[2, 2], [2.6, 2], [3.2, 2], [3.8, 2], [2, 2.6], [2.6, 2.6], [3.2, 2.6], [3.8, 2.6], [2, 3.2], [2.6, 3.2], [3.2, 3.2], [3.8, 3.2]] }";
    let plain = base_with("spawn = { kind = \"rect\", min = [0, 0], max = [20, 20] }", lattice)
        .replace("count = 6\n", "")
        .replace("max_force = 1.0", "max_force = 1.0\nradius = 0.2\nmodel = \"cfsm\"");
    let avoiding = format!(
        "{plain}\n[[groups.behaviours]]\nkind = \"separation\"\nweight = 2\nradius = 1.5\n\n[[groups.behaviours]]\nkind = \"queue\"\n"
    );
    let positions = |text: &str| {
        let scenario = Scenario::parse(text, "m.toml").expect("valid");
        let mut sim = Simulation::new(&scenario, RunSettings { threads: 2, ..RunSettings::default() })
            .expect("simulation");
        for _ in 0..10 {
            sim.step().expect("a tick");
        }
        let a = &sim.world().agents;
        a.position.iter().zip(&a.velocity).map(|(p, v)| [p.x, p.y, v.x, v.y]).collect::<Vec<_>>()
    };
    assert_eq!(positions(&plain), positions(&avoiding), "separation and queue change nothing under cfsm");
    // Under steering they act.
    let steering = |t: &str| t.replace("model = \"cfsm\"", "model = \"steering\"");
    assert_ne!(positions(&steering(&plain)), positions(&steering(&avoiding)));
    // Each unused entry is named at its `kind`, with the model.
    let warnings: Vec<String> = Scenario::parse(&avoiding, "m.toml")
        .expect("valid, with warnings")
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("`groups[0].behaviours[1].kind`"), "{warnings:?}");
    assert!(warnings[0].contains("`separation` is not used under model \"cfsm\""), "{warnings:?}");
    assert!(warnings[1].contains("`queue` is not used under model \"cfsm\""), "{warnings:?}");
    assert!(Scenario::parse(&steering(&avoiding), "m.toml").expect("valid").warnings.is_empty());
}

#[test]
fn an_override_naming_a_models_kind_replaces_the_whole_model() {
    // A batch sweeping `{ kind = "cfsm" }` over a file's `{ kind = "cfsm", preset = "bottleneck" }`
    // means JuPedSim's defaults: the file's preset and keys do not carry over. An override of
    // one parameter alone keeps the rest of the file's model.
    use throng_engine::scenario::overrides::{self, parse_set};
    use throng_engine::world::Model;
    let text = with("{ kind = \"cfsm\", preset = \"bottleneck\", range = 0.2 }");
    let model = |set: &str| {
        let set = parse_set(set, "--set").expect("an override");
        overrides::parse(&text, "m.toml", &set).expect("valid").groups[0].group.model
    };
    let Model::Cfsm(m) = model("groups.walkers.model={ kind = \"cfsm\" }") else { panic!("cfsm") };
    assert_eq!((m.time_gap, m.strength, m.range), (1.0, 8.0, 0.1), "JuPedSim's defaults");
    let Model::Cfsm(m) = model("groups.walkers.model={ kind = \"cfsm\", preset = \"corridor\" }") else {
        panic!("cfsm")
    };
    assert_eq!((m.time_gap, m.strength, m.range), (0.6, 10.0, 0.3), "the other preset alone");
    let Model::Cfsm(m) = model("groups.walkers.model.time_gap=0.8") else { panic!("cfsm") };
    assert_eq!((m.time_gap, m.strength, m.range), (0.8, 16.0, 0.2), "the file's preset and range kept");
    let Model::Orca(_) = model("groups.walkers.model.kind=orca") else { panic!("orca, without cfsm's keys") };
}
