//! What expectations read of a group's agents (`groups.NAME.speed.*`, `groups.NAME.max_speed.*`),
//! a gate's flow while the crowd passes (`gates.NAME.passage_per_s`) and one metric minus
//! another (`minus`): values worked out by hand, and a drawn normal distribution's mean.

use super::{text, write};
use crate::common::{scratch_dir, throng};

/// Three walkers heading east (a `direction` target) at 1 unit/s: mass 0.1 and force 100 take
/// them to full speed in the first tick (v = 0 + 1 / 0.1 · 0.1), so after tick t the walker
/// starting at x0 is at x0 + 0.1·t. They start at x = 0.05, 1.05 and 2.05, so they cross the
/// gate at x = 5 in ticks 50, 40 and 30: the first crossing at tick 30, the last at tick 50,
/// (3 − 1) crossings over 20 ticks of 0.1 s = 1.0 per s while passing, and 3 in the run's 10 s
/// = 0.3 per s over the run. Two drifters have no behaviours and start at 0.25 unit/s (a
/// random direction, length 0.25), so they keep it. 100 ticks.
const SCENE: &str = r#"version = 1
name = "statistics"
seed = 5
dt = 0.1
ticks = 100

[bounds]
min = [0, 0]
max = [100, 100]

[targets.east]
kind = "direction"
direction = [1, 0]

[[gates]]
name = "x5"
from = [5, 0]
to = [5, 100]

[[groups]]
name = "walkers"
spawn = { kind = "points", points = [[0.05, 40], [1.05, 50], [2.05, 60]] }
max_speed = 1.0
max_force = 100.0
mass = 0.1

[[groups.behaviours]]
kind = "seek"
target = "east"

[[groups]]
name = "drifters"
spawn = { kind = "points", points = [[50, 80], [60, 80]] }
max_speed = 0.5
max_force = 1.0
initial_speed = 0.25

[[groups]]
name = "drawn"
count = 2000
spawn = { kind = "rect", min = [0, 0], max = [100, 30] }
max_speed = { mean = 1.34, sd = 0.26, min = 0.5, max = 2.2 }
max_force = 1.0
"#;

/// Each expectation with the line `throng run` prints for it.
const CASES: [(&str, &str); 8] = [
    (
        "name = \"walkers\"\ncheck = \"always\"\nfrom_s = 0.1\nmetric = \"groups.walkers.speed.min\"\nmin = 1\nmax = 1",
        "PASS      walkers: groups.walkers.speed.min between 1 and 1 at every tick from 0.10 s (held at every tick; lowest 1 at 0.10 s, highest 1 at 0.10 s)",
    ),
    (
        "name = \"at rest first\"\ncheck = \"at\"\nat_s = 0\nmetric = \"groups.walkers.speed.max\"\nmax = 0",
        "PASS      at rest first: groups.walkers.speed.max at 0.00 s <= 0 (was 0)",
    ),
    (
        "name = \"drifters\"\nmetric = \"groups.drifters.speed.mean\"\nmin = 0.2499999\nmax = 0.2500001",
        "PASS      drifters: groups.drifters.speed.mean at the end between 0.25 and 0.25 (was 0.25)",
    ),
    (
        "name = \"limits\"\nmetric = \"groups.drifters.max_speed.max\"\nmin = 0.5\nmax = 0.5",
        "PASS      limits: groups.drifters.max_speed.max at the end between 0.5 and 0.5 (was 0.5)",
    ),
    (
        "name = \"faster by\"\nmetric = \"groups.walkers.speed.mean\"\nminus = \"groups.drifters.speed.mean\"\nmin = 0.7499\nmax = 0.7501",
        "PASS      faster by: groups.walkers.speed.mean minus groups.drifters.speed.mean at the end between 0.7499 and 0.7501 (was 0.75)",
    ),
    (
        "name = \"passing\"\nmetric = \"gates.x5.passage_per_s\"\nmin = 0.9999\nmax = 1.0001",
        "PASS      passing: gates.x5.passage_per_s at the end between 0.9999 and 1.0001 (was 1)",
    ),
    (
        "name = \"passing beats the run\"\nmetric = \"gates.x5.passage_per_s\"\nminus = \"gates.x5.per_s\"\nmin = 0.6999\nmax = 0.7001",
        "PASS      passing beats the run: gates.x5.passage_per_s minus gates.x5.per_s at the end between 0.6999 and 0.7001 (was 0.7)",
    ),
    // Vadere's default speeds: N(1.34, 0.26) cut to [0.5, 2.2] has mean 1.34 + 0.26 · (φ(−3.231)
    // − φ(3.308)) / (Φ(3.308) − Φ(−3.231)) = 1.34 + 0.26 · (0.002161 − 0.001683) / 0.99891 =
    // 1.34012; 2,000 draws have a standard error of 0.0058, so ±0.025 is over 4 of them.
    (
        "name = \"drawn\"\nmetric = \"groups.drawn.max_speed.mean\"\nmin = 1.315\nmax = 1.365",
        "PASS      drawn: groups.drawn.max_speed.mean at the end between 1.315 and 1.365",
    ),
];

#[test]
fn group_statistics_passage_flow_and_differences_are_as_worked_out() {
    let dir = scratch_dir("agent_statistics");
    let mut scene = SCENE.to_string();
    for (entry, _) in CASES {
        scene.push_str("\n[[expect]]\n");
        scene.push_str(entry);
        scene.push('\n');
    }
    let path = write(&dir, "statistics.toml", scene);
    let out = throng(&["run", path.to_str().expect("utf-8"), "--expect", "--threads", "2"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for (_, line) in CASES {
        assert!(stdout.contains(&format!("  {line}")), "missing `{line}` in:\n{stdout}");
    }
    assert!(stdout.contains("gate x5: 3 crossings, 0.300 per s"), "{stdout}");
    assert!(stdout.contains("1.000 per s while passing"), "{stdout}");
    // The drawn speeds stay inside the cut, and differ from agent to agent.
    let lo = "metric = \"groups.drawn.max_speed.min\"\nmin = 0.5\nmax = 0.6";
    let hi = "metric = \"groups.drawn.max_speed.max\"\nmin = 2.0\nmax = 2.2";
    let scene = format!("{SCENE}\n[[expect]]\n{lo}\n\n[[expect]]\n{hi}\n");
    let path = write(&dir, "ends.toml", scene);
    let out = throng(&["run", path.to_str().expect("utf-8"), "--expect", "--ticks", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
