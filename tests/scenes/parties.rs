//! Parties (social groups): the formations of pairs and triples walking freely, and what
//! parties do to a bottleneck's flow, as docs/scenarios.md ("Social groups") reports them from
//! `scenarios/batches/parties_formations.toml` and `parties_bottleneck.toml`.

use throng_engine::metrics::Summary;
use throng_engine::{RunSettings, Scenario, Simulation};

use crate::common::root;

/// Runs `scenarios/parties/NAME.toml` to its end (or its `stop`) with its group's shares and
/// the seed replaced; the metrics summary.
fn run(name: &str, from: &str, shares: &str, seed: u64) -> Summary {
    let path = root().join(format!("scenarios/parties/{name}.toml"));
    let text = std::fs::read_to_string(&path).expect("the scene");
    assert!(text.contains(from), "{name}: {from}");
    let text = text.replace(from, &format!("shares = {shares}")).replacen(
        "seed = ",
        &format!("seed = {seed}\n# "),
        1,
    );
    let scenario = Scenario::parse(&text, name).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Simulation::new(&scenario, RunSettings::default()).expect("simulation");
    while !sim.stopped() && sim.tick() < scenario.ticks {
        sim.run(100.min(scenario.ticks - sim.tick())).expect("runs");
    }
    sim.summary().expect("metrics")
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = values.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn pairs_walk_abreast_and_triples_with_their_middle_behind() {
    let shares = "shares = [0.25, 0.5, 0.25]";
    let pairs: Vec<_> = (1..=3).map(|seed| run("walking_parties", shares, "[0, 1]", seed)).collect();
    let triples: Vec<_> = (1..=3).map(|seed| run("walking_parties", shares, "[0, 0, 1]", seed)).collect();
    let of = |runs: &[Summary], f: fn(&throng_engine::metrics::PartySummary) -> f64| {
        mean(runs.iter().map(|s| f(s.parties.as_ref().expect("parties"))))
    };
    let (pair_angle, pair_abreast) = (of(&pairs, |p| p.angle_deg), of(&pairs, |p| p.abreast));
    let (triple_angle, triple_depth) = (of(&triples, |p| p.angle_deg), of(&triples, |p| p.v_depth));
    println!(
        "pairs: {pair_angle:.1}°, {pair_abreast:.3} abreast; triples: {triple_angle:.1}°, V depth {triple_depth:.3} m"
    );
    // Measured: pairs 78.1°, 0.981 abreast; triples 80.7°, V depth 0.164 m.
    assert!(pair_angle > 70.0 && pair_abreast > 0.9, "pairs {pair_angle}° {pair_abreast}");
    assert!(triple_angle > 70.0 && triple_depth > 0.05, "triples {triple_angle}° {triple_depth} m");
}

#[test]
fn the_more_people_walk_in_parties_the_slower_a_bottleneck_empties() {
    let shares = "shares = [0.2, 0.5, 0.3]";
    let point = |s: &str| -> (f64, f64) {
        let runs: Vec<_> = (1..=2).map(|seed| run("bottleneck_parties", shares, s, seed)).collect();
        (mean(runs.iter().map(|r| r.time_s)), mean(runs.iter().map(|r| r.gates[0].passage_per_s)))
    };
    let (none, half, most) = (point("[1.0]"), point("[0.5, 0.5]"), point("[0.2, 0.5, 0.3]"));
    println!("time and flow: 0 % {none:?}, 50 % {half:?}, 80 % {most:?}");
    // Measured (seeds 1 and 2): 40.7 s / 2.65 per s, 58.0 s / 1.82, 68.8 s / 1.54.
    assert!(none.0 < half.0 && half.0 < most.0, "times {none:?} {half:?} {most:?}");
    assert!(none.1 > half.1 && half.1 > most.1, "flows {none:?} {half:?} {most:?}");
    assert!(most.0 > 1.3 * none.0, "80 % in parties takes at least 30 % longer: {most:?} {none:?}");
}
