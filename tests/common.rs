//! Helpers shared by the test modules.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use throng_engine::math::{Vec2, Vec3};
use throng_engine::pipeline::DEFAULT_REORDER_EVERY;
use throng_engine::pipeline::Passes;
use throng_engine::{IndexKind, Pipeline, Scenario, state_hash};

/// The reorder intervals the order-independence tests compare: never, every tick, every 7
/// ticks (out of step with everything else) and the default (20).
pub const REORDER_INTERVALS: [u64; 4] = [0, 1, 7, DEFAULT_REORDER_EVERY];

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every shipped scenario (`scenarios/*.toml`, `scenarios/bench/*.toml`,
/// `scenarios/walls/*.toml`, `scenarios/models/*.toml`, `scenarios/parties/*.toml` and
/// `scenarios/verification/*.toml`), sorted.
pub fn shipped_scenarios() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [
        root().join("scenarios"),
        root().join("scenarios").join("bench"),
        root().join("scenarios").join("walls"),
        root().join("scenarios").join("models"),
        root().join("scenarios").join("parties"),
        root().join("scenarios").join("verification"),
    ] {
        v.extend(
            std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.expect("readable entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "toml")),
        );
    }
    v.sort();
    v
}

pub fn load(path: &Path) -> Scenario {
    Scenario::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// A shipped scenario of either dimension (see [`with_scenario`]).
pub enum Shipped {
    Plane(Scenario),
    Space(Scenario<Vec3>),
}

/// Loads the scenario at `path` in the dimensions it declares.
pub fn load_any(path: &Path) -> Shipped {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match throng_engine::scenario::declared_dimensions(&text) {
        Some(3) => Shipped::Space(Scenario::load_in_space(path).unwrap_or_else(|e| panic!("{e}"))),
        _ => Shipped::Plane(load(path)),
    }
}

/// Runs `$body` with `$s` the scenario at `$path` loaded in its own dimensions: the body is
/// compiled once for the plane and once for space, so a test over every shipped scenario
/// covers both.
macro_rules! with_scenario {
    ($path:expr, |$s:ident| $body:block) => {
        match crate::common::load_any($path) {
            crate::common::Shipped::Plane($s) => $body,
            crate::common::Shipped::Space($s) => $body,
        }
    };
}
pub(crate) use with_scenario;

/// Runs `ticks` ticks with rows always in id order (no spatial reordering: the reference) and
/// returns the state hash after every tick (tick 0 first).
pub fn hashes<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    threads: usize,
    index: IndexKind,
) -> Vec<String> {
    hashes_reordered(scenario, ticks, threads, index, 0)
}

/// As [`hashes`], with the rows put in spatial order every `reorder_every` ticks.
pub fn hashes_reordered<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    threads: usize,
    index: IndexKind,
    reorder_every: u64,
) -> Vec<String> {
    run_reordered(scenario, ticks, threads, index, reorder_every).0
}

/// As [`hashes`], with sensing candidates reused within each radius plus `skin`
/// (`Pipeline::set_sensing_skin`; the scenario's own skin is not read).
pub fn hashes_with_skin<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    threads: usize,
    index: IndexKind,
    skin: f32,
) -> Vec<String> {
    run_with(scenario, ticks, threads, index, 0, skin).0
}

/// As [`hashes_reordered`], and whether the rows were ever out of id order after a tick (so a
/// test can tell that the reordering really happened).
pub fn run_reordered<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    threads: usize,
    index: IndexKind,
    reorder_every: u64,
) -> (Vec<String>, bool) {
    run_with(scenario, ticks, threads, index, reorder_every, 0.0)
}

/// [`run_reordered`] with a sensing skin.
fn run_with<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    threads: usize,
    index: IndexKind,
    reorder_every: u64,
    skin: f32,
) -> (Vec<String>, bool) {
    let mut world = scenario.build_world();
    let mut pipeline: Pipeline<V> = Pipeline::new(threads, index).expect("thread pool");
    pipeline.set_reorder_every(reorder_every);
    pipeline.set_sensing_skin(skin);
    let mut out = vec![state_hash(&world).to_hex()];
    let mut reordered = false;
    for _ in 0..ticks {
        pipeline.step(&mut world).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        out.push(state_hash(&world).to_hex());
        reordered |= !world.agents.is_id_ordered();
    }
    (out, reordered)
}

/// Runs the real `throng` binary.
pub fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the throng binary runs")
}

/// A fresh, empty scratch directory under the target dir, named after the test.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = root().join("target").join("test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Shorthand for `Vec2::new` in formula tests.
pub fn v(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y)
}

/// `actual` equals `expected` within 1e-5 per component (relative for values above 1).
#[track_caller]
pub fn assert_close(actual: Vec2, expected: Vec2) {
    let err = (actual - expected).abs().max_element();
    let tol = 1e-5 * expected.abs().max_element().max(1.0);
    assert!(err <= tol, "expected {expected}, got {actual} (error {err})");
}

/// A small deterministic generator (SplitMix64), independent of the engine's.
pub struct Rand(pub u64);

impl Rand {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        // Never `hi` itself, which a wrapped world excludes.
        (lo + (hi - lo) * u).min(hi.next_down())
    }

    pub fn point(&mut self, lo: Vec2, hi: Vec2) -> Vec2 {
        Vec2::new(self.range(lo.x, hi.x), self.range(lo.y, hi.y))
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// A shipped scene under `scenarios/models/`, with its `model = ...` line replaced by
/// `model = MODEL` when one is given.
pub fn models_scene(name: &str, model: Option<&str>) -> Scenario {
    let text =
        std::fs::read_to_string(root().join(format!("scenarios/models/{name}.toml"))).expect("the scene");
    let text = match model {
        Some(m) => {
            let line = text.lines().find(|l| l.starts_with("model = ")).expect("a model line");
            text.replace(line, &format!("model = {m}"))
        }
        None => text,
    };
    Scenario::parse(&text, &format!("{name}.toml")).expect("valid")
}

/// Tells whoever runs the tests that `test` did not run and why. The line goes straight to the
/// process's stderr, which the test harness does not capture (it captures `eprintln!`), so it
/// shows in a plain `cargo test`. A reason already given (several tests needing the same
/// package) is named again in short.
pub fn skip(test: &str, why: &str) {
    use std::io::Write;
    static GIVEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    let line = if given.iter().any(|g| g == why) {
        format!("SKIPPED {test}: as above")
    } else {
        given.push(why.to_string());
        format!("SKIPPED {test}: {why}")
    };
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The Python the tests run: `THRONG_PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("THRONG_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether the tests' Python imports every module of `modules`. When it does not, `test` is
/// skipped with a message saying how to get them, or, with the variable `require` set (as
/// .ci/run sets it), the test fails.
pub fn python_with(modules: &[&str], require: &str, test: &str) -> bool {
    python_with_packages(modules, &modules.join(" "), require, test)
}

/// [`python_with`], naming the pip packages to install when they are not the modules' names
/// (a pinned version: `jupedsim==1.4.2 shapely`).
pub fn python_with_packages(modules: &[&str], packages: &str, require: &str, test: &str) -> bool {
    let imports = modules.iter().map(|m| format!("import {m}")).collect::<Vec<_>>().join("; ");
    let has = Command::new(python()).args(["-c", &imports]).output().is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but `{} -c '{imports}'` fails",
            python()
        );
        skip(
            test,
            &format!(
                "`{} -c '{imports}'` fails; `python3 -m venv v && v/bin/pip install {packages}` and set THRONG_PYTHON=v/bin/python",
                python(),
            ),
        );
    }
    has
}
