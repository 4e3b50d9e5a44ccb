//! What a `set` event does to the live world: a group's per-agent parameters, redrawn for each
//! of its live agents from a generator of their own (seed, the event's firing, the agent's id),
//! and its behaviours' fields, copied from the patched behaviour into the live one. Serial: a
//! pass over the group's rows, once per firing.

use crate::rng::{self, Purpose};
use crate::world::{AgentParam, Behaviour, BehaviourPatch, Dimension, Param, World};

/// Applies a `set` event's changes to group `g`; `spawner` keys the redraws (the event's name
/// and firing).
pub fn set<V: Dimension>(
    world: &mut World<V>,
    g: u16,
    params: &[(AgentParam, Param)],
    patches: &[BehaviourPatch],
    spawner: u64,
) {
    let group = &mut world.groups[g as usize];
    for &(which, value) in params {
        let slot = match which {
            AgentParam::MaxSpeed => &mut group.params.max_speed,
            AgentParam::MaxForce => &mut group.params.max_force,
            AgentParam::Mass => &mut group.params.mass,
            AgentParam::Radius => &mut group.params.radius,
        };
        *slot = value;
    }
    let mut new_path = None;
    for patch in patches {
        let live = &mut group.behaviours[patch.behaviour as usize];
        copy_fields(live, patch);
        if let Behaviour::FollowPath { path, .. } | Behaviour::FollowPathField { path, .. } = live.behaviour
            && patch.fields.iter().any(|f| f == "path")
        {
            new_path = Some(path);
        }
    }
    let seed = world.seed;
    let a = &mut world.agents;
    for row in 0..a.len() {
        if a.group[row] != g {
            continue;
        }
        if !params.is_empty() {
            let mut draws = rng::agent_rng(seed, rng::agent_key(spawner, a.id[row] as u64), Purpose::Set);
            for &(which, value) in params {
                let v = value.draw(&mut draws);
                match which {
                    AgentParam::MaxSpeed => a.max_speed[row] = v,
                    AgentParam::MaxForce => a.max_force[row] = v,
                    AgentParam::Mass => a.mass[row] = v,
                    AgentParam::Radius => a.radius[row] = v,
                }
            }
        }
        // On a new path, each follower heads for its nearest node (ties: the first).
        if let Some(path) = new_path {
            let nodes = &world.paths[path as usize].nodes;
            let p = a.position[row];
            let d = |n: &V| world.bounds.offset(p, *n).length_squared();
            let nearest =
                (0..nodes.len()).min_by(|&i, &j| d(&nodes[i]).total_cmp(&d(&nodes[j])).then(i.cmp(&j)));
            a.path_node[row] = nearest.unwrap_or(0) as u32;
            a.path_dir[row] = 1;
        }
    }
}

/// Copies the patch's fields into the live behaviour (same kind): through their serde form,
/// whose field names are the scenario's keys.
fn copy_fields(live: &mut crate::world::WeightedBehaviour, patch: &BehaviourPatch) {
    for field in &patch.fields {
        if field == "weight" {
            live.weight = patch.patched.weight;
        }
    }
    let mut now = serde_json::to_value(&live.behaviour).expect("a behaviour always serializes");
    let new = serde_json::to_value(&patch.patched.behaviour).expect("a behaviour always serializes");
    let (Some(now_fields), Some(new_fields)) = (variant_fields(&mut now), variant_fields_ref(&new)) else {
        return;
    };
    for field in &patch.fields {
        if let Some(v) = new_fields.get(field) {
            now_fields.insert(field.clone(), v.clone());
        }
    }
    live.behaviour = serde_json::from_value(now).expect("the same kind with values it was built with");
}

/// The fields of an externally tagged variant (`{"Kind": {fields}}`).
fn variant_fields(v: &mut serde_json::Value) -> Option<&mut serde_json::Map<String, serde_json::Value>> {
    v.as_object_mut()?.values_mut().next()?.as_object_mut()
}

fn variant_fields_ref(v: &serde_json::Value) -> Option<&serde_json::Map<String, serde_json::Value>> {
    v.as_object()?.values().next()?.as_object()
}
