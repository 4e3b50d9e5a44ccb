//! Running a golden file's inputs again, and comparing a run's state with a record.

use std::collections::BTreeMap;

use super::error::GoldenError;
use super::format::{Golden, Record, hex64};
use crate::index::IndexKind;
use crate::pipeline::Passes;
use crate::pipeline::Pipeline;
use crate::scenario::Scenario;
use crate::simulation::{RunSettings, Simulation};
use crate::state::fields;
use crate::state::hash::state_hash;
use crate::world::World;

/// One run of a scenario, for verification: no metrics, results never depend on the settings.
pub(super) fn simulation<V: Passes>(
    scenario: &Scenario<V>,
    threads: usize,
    index: IndexKind,
    reorder_every: u64,
) -> Result<Simulation<V>, GoldenError> {
    let settings = RunSettings {
        threads,
        index: Some(index),
        reorder_every,
        sensing_skin: None,
        metrics: false,
        keep_awake: true,
    };
    Ok(Simulation::new(scenario, settings)?)
}

/// Compares a record with the current state: differing columns, differing and matching passes.
pub(super) fn compare<V: Passes>(
    golden: &Golden,
    rec: &Record,
    full: &BTreeMap<String, String>,
    world: &World<V>,
    pipeline: &Pipeline<V>,
) -> (bool, Vec<String>, Vec<String>, Vec<String>) {
    let hash_same = state_hash(world).to_hex() == rec.hash;
    let digests = fields::column_digests(world);
    let mut columns = Vec::new();
    for name in &golden.columns {
        match (digests.iter().find(|c| &c.name == name), full.get(name)) {
            (Some(c), Some(want)) if &hex64(c.digest) == want => {}
            _ => columns.push(name.clone()),
        }
    }
    for c in &digests {
        if !golden.columns.contains(&c.name) {
            columns.push(c.name.clone());
        }
    }
    let (mut passes, mut matching) = (Vec::new(), Vec::new());
    if !rec.passes.is_empty() {
        let now = pass_digests(pipeline);
        for (pass, want) in &rec.passes {
            match now.iter().find(|(p, _)| p == pass) {
                Some((_, d)) if d == want => matching.push(pass.clone()),
                Some(_) => passes.push(pass.clone()),
                None => {}
            }
        }
    }
    (hash_same && columns.is_empty() && passes.is_empty(), columns, passes, matching)
}

/// Digests of the pass outputs the pipeline exposes, in pass order. Agents are read in id
/// order, and a neighbour is named by its row in id order (its rank among the ids sensed that
/// tick): when the rows are in id order that is the row itself, so the bytes are those of a
/// plain row-order digest, and a spatial reordering of the rows changes nothing.
pub(super) fn pass_digests<V: Passes>(pipeline: &Pipeline<V>) -> Vec<(String, String)> {
    let ids = pipeline.sensed_ids();
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    if !ids.is_sorted() {
        order.sort_unstable_by_key(|&r| ids[r as usize]);
    }
    let mut rank = vec![0u32; ids.len()];
    for (k, &r) in order.iter().enumerate() {
        rank[r as usize] = k as u32;
    }
    let n = pipeline.neighbours();
    debug_assert_eq!(n.count.len(), ids.len(), "one neighbour list per sensed row");
    let mut h = blake3::Hasher::new();
    h.update(&(n.count.len() as u64).to_le_bytes());
    for &i in &order {
        let (rows, dist_sq) = n.of(i as usize);
        h.update(&(rows.len() as u32).to_le_bytes());
        for (&r, d) in rows.iter().zip(dist_sq) {
            h.update(&rank[r as usize].to_le_bytes()).update(&d.to_bits().to_le_bytes());
        }
    }
    let neighbours = u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"));
    let blocked = pipeline.blocked();
    let mut h = blake3::Hasher::new();
    h.update(&(blocked.len() as u64).to_le_bytes());
    for &i in &order {
        h.update(&[blocked[i as usize] as u8]);
    }
    let blocked = u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"));
    vec![("sense_neighbours".into(), hex64(neighbours)), ("queue_brake".into(), hex64(blocked))]
}
