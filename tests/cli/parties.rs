//! Parties (social groups) on small scenes: dealt by their shares among agents standing
//! together; the group force closing a gap under every model; a party leaving together; the
//! formation metrics in the metrics file and in expectations; bad entries rejected with their
//! position.

use throng_engine::world::{NO_PARTY, party_counts};
use throng_engine::{RunSettings, Scenario, Simulation};

use super::check_rejects;
use crate::common::{scratch_dir, throng};
use crate::fixtures::{text, write};

/// Walkers at the listed points walk east in an open 60 × 10 world, leaving east of x = 55;
/// `group` adds keys to the group (its model, its parties).
fn scene_text(points: &str, group: &str) -> String {
    let count = points.matches('[').count();
    format!(
        r#"version = 1
name = "parties"
seed = 4
dt = 0.02
ticks = 2000

[bounds]
min = [0, 0]
max = [60, 10]

[targets.east]
kind = "direction"
direction = [1, 0]

[[exits]]
name = "end"
kind = "rect"
min = [55, 0]
max = [60, 10]

[[groups]]
name = "walkers"
count = {count}
spawn = {{ kind = "points", points = [{points}] }}
max_speed = 1.3
max_force = 10.0
radius = 0.2
{group}

[[groups.behaviours]]
kind = "seek"
target = "east"
"#
    )
}

fn scene(points: &str, group: &str) -> Scenario {
    Scenario::parse(&scene_text(points, group), "parties.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn sim(s: &Scenario) -> Simulation {
    Simulation::new(s, RunSettings::default()).expect("simulation")
}

/// The x of each agent (in id order) after `ticks`.
fn xs_after(s: &Scenario, ticks: u64) -> Vec<f32> {
    let mut sim = sim(s);
    sim.run(ticks).expect("runs");
    let w = sim.world().id_ordered();
    w.agents.position.iter().map(|p| p.x).collect()
}

#[test]
fn agents_are_dealt_into_parties_by_their_shares_among_those_standing_near() {
    // 40 agents in pairs of columns 0.6 m apart, the pairs of columns 4 m apart: every party
    // of two takes its member's neighbour across the narrow gap.
    let points: Vec<String> = (0..40)
        .map(|k| {
            format!("[{}, {}]", 2.0 + 4.0 * (k / 10) as f32 + 0.6 * (k % 2) as f32, 1 + (k % 10) / 2 * 2)
        })
        .collect();
    let s = scene(&points.join(", "), "parties = { shares = [0.5, 0.5] }");
    let w = sim(&s).world().clone();
    let mut members = std::collections::BTreeMap::<u32, Vec<usize>>::new();
    for (row, &p) in w.agents.party.iter().enumerate() {
        if p != NO_PARTY {
            members.entry(p).or_default().push(row);
        }
    }
    let alone = w.agents.party.iter().filter(|&&p| p == NO_PARTY).count();
    assert_eq!((alone, members.len()), (20, 10), "{:?}", party_counts(&[0.5, 0.5], 40));
    for (party, rows) in &members {
        assert_eq!(rows.len(), 2);
        // The party's id is its smallest member id.
        assert_eq!(*party, rows.iter().map(|&r| w.agents.id[r]).min().unwrap());
        let (a, b) = (w.agents.position[rows[0]], w.agents.position[rows[1]]);
        assert!(a.distance(b) < 2.5, "party {party}: {a} and {b}");
    }
}

#[test]
fn a_member_ahead_waits_for_its_partner_under_every_model() {
    // A pair 3 m apart one behind the other, both walking east at 1.3 m/s: alone, the gap
    // stays; as a party, the one ahead sees its partner straight behind (90° outside its view)
    // and slows (gaze), the one behind is drawn on (attraction), and the gap closes.
    for model in ["steering", "orca", "cfsm", "social_force"] {
        let alone = scene("[5, 5], [2, 5]", &format!("model = \"{model}\""));
        let party = scene("[5, 5], [2, 5]", &format!("model = \"{model}\"\nparties = {{ shares = [0, 1] }}"));
        let gap = |s: &Scenario| {
            let x = xs_after(s, 400);
            x[0] - x[1]
        };
        let (apart, together) = (gap(&alone), gap(&party));
        assert!((apart - 3.0).abs() < 0.3, "{model}: alone the gap stays 3 m, found {apart}");
        assert!(together < 1.6, "{model}: as a party the gap closes, found {together}");
    }
}

#[test]
fn a_pair_side_by_side_walks_abreast_and_the_metrics_read_it() {
    // Two walkers 3 m apart across the corridor: attraction draws them to within 1 m of each
    // other ((2 − 1)/2 m from their centre), side by side.
    let dir = scratch_dir("parties_metrics");
    let toml = scene_text("[2, 2], [2, 5]", "model = \"social_force\"\nparties = { shares = [0, 1] }");
    let expect = "\n[[expect]]\nname = \"walking abreast\"\ncheck = \"end\"\nmetric = \"parties.angle_deg\"\nmin = 80\n\n[[expect]]\nname = \"close\"\ncheck = \"end\"\nmetric = \"parties.spread\"\nmax = 0.55\n";
    let path = write(&dir, "pair.toml", format!("{toml}{expect}"));
    let metrics = dir.join("metrics.csv");
    let out = throng(&[
        "run",
        path.to_str().unwrap(),
        "--ticks",
        "1000",
        "--metrics",
        metrics.to_str().unwrap(),
        "--expect",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let csv = std::fs::read_to_string(&metrics).expect("metrics file");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    let column =
        |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name}: {header:?}"));
    for name in [
        "party_walking",
        "party_spread",
        "party_angle_deg",
        "party_v_depth",
        "party_abreast",
        "party_v",
        "party_river",
    ] {
        column(name);
    }
    assert_eq!(last[column("party_walking")], "1");
    assert_eq!(last[column("party_abreast")].parse::<f64>().unwrap(), 1.0);
    let spread: f64 = last[column("party_spread")].parse().unwrap();
    assert!((0.3..0.55).contains(&spread), "{spread}");
    assert!(text(&out.stdout).contains("parties: over"), "{}", text(&out.stdout));
}

/// The exit ticks of each agent (in id order): the first tick after which it was gone.
fn exit_ticks(s: &Scenario, ticks: u64) -> Vec<Option<u64>> {
    let mut sim = sim(s);
    let n = sim.world().agents.len();
    let mut gone = vec![None; n];
    for _ in 0..ticks {
        sim.step().expect("steps");
        let w = sim.world();
        for (id, g) in gone.iter_mut().enumerate() {
            if g.is_none() && w.row_of(id as u32).is_none() {
                *g = Some(w.tick);
            }
        }
    }
    gone
}

#[test]
fn a_party_that_leaves_together_waits_inside_the_exit_for_its_last_member() {
    // Three walkers in a triple, one 10 m behind the others, with neither gaze nor attraction
    // (so each walks on at its own pace): alone each leaves when it reaches the exit; leaving
    // together, the first two stand inside the exit until the third is in too, and all three
    // leave on one tick.
    let points = "[48, 4], [48, 6], [38, 5]";
    let apart = scene_text(points, "parties = { shares = [0, 0, 1], attraction = 0, gaze = 0 }");
    let together = apart.replace("gaze = 0 }", "gaze = 0, leave_together = true }");
    let apart = exit_ticks(&Scenario::parse(&apart, "a.toml").expect("valid"), 1500);
    let together = exit_ticks(&Scenario::parse(&together, "t.toml").expect("valid"), 1500);
    assert!(apart.iter().all(Option::is_some) && apart[0] < apart[2], "{apart:?}");
    assert!(together.iter().all(|&t| t == together[2]), "{together:?}");
    assert_eq!(together[2], apart[2], "the last leaves when it would have: {together:?} {apart:?}");
}

#[test]
fn bad_parties_are_rejected_with_their_position() {
    let ok = scene_text("[2, 2], [2, 5]", "parties = { shares = [0.5, 0.5] }");
    let line = ok.lines().position(|l| l.starts_with("parties")).unwrap() + 1;
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [0.5, 0.3]");
    check_rejects(
        "parties_sum",
        &bad,
        (line, 22),
        &["groups[0].parties.shares", "the shares add up to 0.8 (0.5 + 0.3); they must add up to 1"],
    );
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [0.5, 0.1, 0.1, 0.1, 0.1, 0.1]");
    check_rejects("parties_sizes", &bad, (line, 22), &["expected 1 to 5 shares", "found 6"]);
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [-0.5, 1.5]");
    check_rejects("parties_share_range", &bad, (line, 23), &["groups[0].parties.shares[0]", "-0.5"]);
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [0.5, 0.5], vision_deg = 200");
    check_rejects("parties_vision", &bad, (line, 47), &["groups[0].parties.vision_deg", "200"]);
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [0.5, 0.5], response_s = 0");
    check_rejects("parties_response", &bad, (line, 47), &["groups[0].parties.response_s", "0"]);
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = [0.5, 0.5], atraction = 2");
    check_rejects(
        "parties_unknown_key",
        &bad,
        (line, 34),
        &["unknown key `atraction`; did you mean `attraction`?"],
    );
    let bad = ok.replace("shares = [0.5, 0.5]", "shares = \"half\"");
    check_rejects("parties_shares_type", &bad, (line, 22), &["expected an array, found the text \"half\""]);
    // Parties walk in the plane.
    let space = "version = 1\nname = \"space\"\ndimensions = 3\nseed = 1\ndt = 0.1\nticks = 10\n\n[bounds]\nmin = [0, 0, 0]\nmax = [10, 10, 10]\n\n[[groups]]\nname = \"birds\"\ncount = 4\nspawn = { kind = \"box\", min = [1, 1, 1], max = [9, 9, 9] }\nmax_speed = 1\nmax_force = 1\nparties = { shares = [0, 1] }\n";
    check_rejects("parties_space", space, (18, 11), &["parties (social groups) walk in the plane"]);
}

#[test]
fn a_group_without_agents_at_spawn_is_warned_that_its_sources_walk_alone() {
    let toml = scene_text("[2, 2]", "parties = { shares = [0, 1] }").replace(
        "count = 1\nspawn = { kind = \"points\", points = [[2, 2]] }",
        "count = 0\nspawn = { kind = \"rect\", min = [1, 1], max = [2, 2] }",
    ) + "\n[[sources]]\nname = \"door\"\ngroup = \"walkers\"\nkind = \"circle\"\ncentre = [2, 2]\nradius = 0.5\nrate = 1\nmax_agents = 5\n";
    let dir = scratch_dir("parties_sourced");
    let path = write(&dir, "sourced.toml", toml);
    let out = throng(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("agents that sources, events or a program add walk alone"),
        "{}",
        text(&out.stderr)
    );
}
