//! The verification suite's cases (`scenarios/verification/`) pass their published criteria
//! under every velocity model: each case is run with its group's `model` set to steering, ORCA,
//! the collision-free speed model and social force in turn (`throng run --set ... --expect`,
//! as a user would), and every expectation must pass.

use crate::common::{root, throng};

/// Every case file, with the name of its one group.
fn cases() -> Vec<(std::path::PathBuf, &'static str)> {
    vec![
        (root().join("scenarios/verification/rimea_01_corridor.toml"), "walker"),
        (root().join("scenarios/verification/rimea_06_corner.toml"), "walkers"),
    ]
}

#[test]
fn every_case_passes_its_published_criteria_under_every_model() {
    let listed = std::fs::read_dir(root().join("scenarios/verification")).expect("the folder").count();
    assert_eq!(listed, cases().len(), "every case in scenarios/verification is listed here");
    for (case, group) in cases() {
        for model in ["steering", "orca", "cfsm", "social_force"] {
            let set = format!("groups.{group}.model=\"{model}\"");
            let path = case.to_str().expect("utf-8 path");
            let out = throng(&["run", path, "--set", &set, "--expect", "--quiet"]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{} under {model}: {stdout}{stderr}", case.display());
            assert!(stderr.is_empty(), "{} under {model}: no warning: {stderr}", case.display());
        }
    }
}
