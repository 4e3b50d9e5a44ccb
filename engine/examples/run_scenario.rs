//! Runs a scenario with the library and prints what a program would read from it: a few
//! agents' positions, the per-tick metrics as they go, and the run's summary.
//!
//! ```text
//! cargo run --release -p throng-engine --example run_scenario -- scenarios/doorway.toml 600
//! ```

use std::path::PathBuf;

use throng_engine::{RunSettings, Scenario, Simulation};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/doorway.toml"));
    let scenario = Scenario::load(&path)?;
    let ticks = match args.next() {
        Some(t) => t.parse()?,
        None => scenario.ticks,
    };
    for warning in &scenario.warnings {
        eprintln!("warning: {warning}");
    }

    let mut sim = Simulation::new(&scenario, RunSettings::default())?;
    // Ticks inside `enter` run on the pipeline's own workers: no hand-over per tick.
    sim.enter(|sim| -> Result<(), throng_engine::NonFinite> {
        for _ in 0..ticks {
            sim.step()?;
            if sim.tick() % 100 == 0 {
                let m = sim.metrics().expect("metrics are on by default").last();
                println!(
                    "t = {:>6.1} s  agents {:>6}  mean speed {:.3}  queue {}",
                    m.time_s, m.agents_active, m.mean_speed, m.queue_length
                );
            }
        }
        Ok(())
    })?;

    let world = sim.world();
    println!("\n{} agents after {} ticks; the first few:", world.agents.len(), sim.tick());
    let a = &world.agents;
    for row in 0..a.len().min(5) {
        let group = &world.groups[a.group[row] as usize].name;
        println!("  id {:>5} ({group}) at ({:.2}, {:.2})", a.id[row], a.position[row].x, a.position[row].y);
    }
    if let Some(s) = sim.summary() {
        println!(
            "exited {}, stuck at most {}, overlaps at most {}",
            s.agents_exited, s.stuck_agents, s.overlap_pairs
        );
    }
    println!("state hash {}", sim.hash());
    Ok(())
}
