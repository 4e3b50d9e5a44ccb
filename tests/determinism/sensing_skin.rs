//! Reused sensing candidates (`Pipeline::set_sensing_skin`) give the same neighbour lists and
//! the same state, bit for bit, as sensing afresh every tick: on every shipped scenario, with
//! skins too small to reuse anything, typical ones, and large ones (long candidate lists).

use throng_engine::pipeline::Passes;
use throng_engine::{IndexKind, Pipeline, Scenario, World, state_hash};

use crate::common::{load, shipped_scenarios, with_scenario};

/// Per tick: the state hash and every agent's neighbour list (ids and squared-distance bits),
/// agents in id order.
type Trace = Vec<(String, Vec<(u32, Vec<(u32, u32)>)>)>;

fn run<V: Passes>(scenario: &Scenario<V>, ticks: u64, skin: f32, index: IndexKind) -> (Trace, (u64, u64)) {
    run_moving(scenario, ticks, skin, index, |_, _| {})
}

/// As [`run`], with `before(world, tick)` called before each tick: what a program running the
/// simulation may do to the state between ticks.
fn run_moving<V: Passes>(
    scenario: &Scenario<V>,
    ticks: u64,
    skin: f32,
    index: IndexKind,
    mut before: impl FnMut(&mut World<V>, u64),
) -> (Trace, (u64, u64)) {
    let mut world: World<V> = scenario.build_world();
    let mut pipeline: Pipeline<V> = Pipeline::new(2, index).expect("thread pool");
    pipeline.set_sensing_skin(skin);
    let mut trace = Vec::new();
    for tick in 0..ticks {
        before(&mut world, tick);
        pipeline.step(&mut world).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        let ids = pipeline.sensed_ids();
        let n = pipeline.neighbours();
        let mut lists: Vec<(u32, Vec<(u32, u32)>)> = (0..ids.len())
            .map(|row| {
                let (rows, d) = n.of(row);
                (ids[row], rows.iter().zip(d).map(|(&r, d)| (ids[r as usize], d.to_bits())).collect())
            })
            .collect();
        lists.sort_unstable_by_key(|l| l.0);
        trace.push((state_hash(&world).to_hex(), lists));
    }
    (trace, pipeline.sensing_counts())
}

#[test]
fn reused_candidates_give_the_same_lists_and_hashes_on_every_shipped_scenario() {
    for path in shipped_scenarios() {
        with_scenario!(&path, |scenario| {
            let ticks = if scenario.agent_count() > 5_000 { 25 } else { 60 };
            let (fresh, (reused, _)) = run(&scenario, ticks, 0.0, IndexKind::Kd);
            assert_eq!(reused, 0, "{}: skin 0 never reuses", scenario.name);
            let mut reused_somewhere = false;
            for skin in [0.05, 0.5, 1.0, 3.0] {
                let (with_skin, (reused, sensed)) = run(&scenario, ticks, skin, IndexKind::Kd);
                assert_eq!(reused + sensed, ticks);
                reused_somewhere |= reused > 0;
                for (t, (a, b)) in fresh.iter().zip(&with_skin).enumerate() {
                    assert!(a.1 == b.1, "{} skin {skin}: neighbour lists differ at tick {t}", scenario.name);
                    assert_eq!(a.0, b.0, "{} skin {skin}: state hash differs at tick {t}", scenario.name);
                }
            }
            // Spawns and exits keep the candidates (`index/row_changes.rs`): every scene reuses.
            assert!(reused_somewhere, "{}: no skin ever reused candidates", scenario.name);
        })
    }
}

#[test]
fn reused_candidates_match_with_the_grid_and_brute_indexes() {
    let scenario = load(&crate::common::root().join("scenarios/flock.toml"));
    let (fresh, _) = run(&scenario, 40, 0.0, IndexKind::Kd);
    for index in [IndexKind::Grid, IndexKind::Brute] {
        let (with_skin, (reused, _)) = run(&scenario, 40, 1.0, index);
        assert!(reused > 0);
        assert!(fresh == with_skin, "{index}: lists or hashes differ");
    }
}

#[test]
fn agents_that_jump_keep_every_list_exact_while_the_others_reuse_their_candidates() {
    // Every tick a few agents jump two to three metres, far beyond what the skin allows: they
    // and the agents around where they land take the movers' candidates (`index::mover_pairs`),
    // everyone else keeps reusing. Lists and hashes are those of sensing afresh every tick, with
    // every index, in the open world of `scenarios/zombies.toml` and on the wrapped standard crowd.
    let root = crate::common::root();
    for (path, agents) in [("scenarios/zombies.toml", None), ("scenarios/bench/crowd.toml", Some(3_000))] {
        let scenario = load(&root.join(path));
        let scenario = match agents {
            Some(n) => scenario.scaled(n).expect("scaled"),
            None => scenario,
        };
        let jump = |world: &mut World, tick: u64| {
            for k in 0..4u32 {
                let id = (tick as u32 * 37 + k * 101) % world.agents.len() as u32;
                if let Some(row) = world.agents.row_of(id) {
                    let step = throng_engine::math::Vec2::new(2.0 + k as f32 * 0.3, -1.5 + k as f32);
                    world.agents.position[row] = world.bounds.wrap(world.agents.position[row] + step);
                }
            }
        };
        let (fresh, _) = run_moving(&scenario, 30, 0.0, IndexKind::Kd, jump);
        for index in [IndexKind::Kd, IndexKind::Grid, IndexKind::Auto, IndexKind::Brute] {
            let (reusing, (reused, _)) = run_moving(&scenario, 30, 1.0, index, jump);
            assert!(reused >= 10, "{path} {index}: only {reused} of 30 ticks reused candidates");
            for (t, (a, b)) in fresh.iter().zip(&reusing).enumerate() {
                assert!(a.1 == b.1, "{path} {index}: neighbour lists differ at tick {t}");
                assert_eq!(a.0, b.0, "{path} {index}: state hash differs at tick {t}");
            }
        }
    }
}

#[test]
fn the_standard_crowd_reuses_candidates_on_most_ticks() {
    // Its scenario sets `sensing_skin = 1.0`: agents move at most 0.16 a tick, so candidates
    // hold for two ticks after each sensing tick (and the rows are reordered every 20).
    let scenario = load(&crate::common::root().join("scenarios/bench/crowd.toml"));
    assert_eq!(scenario.sensing_skin, 1.0);
    let (_, (reused, sensed)) = run(&scenario, 30, scenario.sensing_skin, IndexKind::Kd);
    assert!(reused >= 15 && sensed >= 8, "reused {reused}, sensed {sensed}");
}

#[test]
fn reordering_rows_never_costs_a_sensing_tick() {
    // A reorder voids reused candidates, so once its interval has passed it waits for a tick
    // that senses anyway: the crowd senses on exactly the same ticks with rows reordered every
    // 5 ticks as with rows never reordered, and reaches the same state.
    let scenario =
        load(&crate::common::root().join("scenarios/bench/crowd.toml")).scaled(2_000).expect("scaled");
    let counts = |reorder_every: u64| {
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("thread pool");
        pipeline.set_sensing_skin(scenario.sensing_skin);
        pipeline.set_reorder_every(reorder_every);
        let mut sensed_on = Vec::new();
        let mut reordered = 0;
        for tick in 0..40 {
            let before = pipeline.sensing_counts().1;
            let ids = world.agents.id.clone();
            pipeline.step(&mut world).expect("finite state");
            if pipeline.sensing_counts().1 > before {
                sensed_on.push(tick);
            }
            reordered += usize::from(world.agents.id != ids);
        }
        (sensed_on, reordered, state_hash(&world))
    };
    let (never, none, hash) = counts(0);
    let (every5, reorders, hash5) = counts(5);
    assert_eq!(none, 0);
    assert!(reorders >= 4, "rows were reordered {reorders} times");
    assert!(never.len() >= 8 && never.len() < 30, "sensed on {never:?}");
    assert_eq!(every5, never);
    assert_eq!(hash5, hash);
}

#[test]
fn exits_and_spawns_keep_the_candidates_of_the_agents_that_stay() {
    // Two streams of social-force walkers enter from spawn sources and leave through exits at
    // the corridor's ends: from about tick 1,500 rows go and come every few ticks. The rows of
    // today keep the candidates of the rows they were (less the removed), and an added agent
    // is sensed as a mover until sensing is next due. Lists and hashes are those of sensing
    // afresh on every tick, at every thread count; and most ticks after a change of rows
    // still reuse candidates.
    let scenario = load(&crate::common::root().join("scenarios/models/counterflow.toml"));
    let ticks = 2_400;
    let run = |threads: usize, skin: f32| {
        let mut world = scenario.build_world();
        let mut pipeline = Pipeline::new(threads, IndexKind::Grid).expect("thread pool");
        pipeline.set_sensing_skin(skin);
        let (mut hashes, mut lists) = (Vec::new(), Vec::new());
        let (mut changed, mut reused_after_change) = (0, 0);
        // Rows go and come at the end of a tick (the exits and spawns passes): the next tick
        // is the first to see it.
        let mut rows_changed = false;
        for _ in 0..ticks {
            let reused_before = pipeline.sensing_counts().0;
            pipeline.step(&mut world).expect("finite state");
            if rows_changed {
                changed += 1;
                reused_after_change += usize::from(pipeline.sensing_counts().0 > reused_before);
            }
            rows_changed = world.agents.id != pipeline.sensed_ids();
            let ids = pipeline.sensed_ids();
            let n = pipeline.neighbours();
            let mut tick_lists: Vec<(u32, Vec<u32>)> = (0..ids.len())
                .map(|row| (ids[row], n.of(row).0.iter().map(|&r| ids[r as usize]).collect()))
                .collect();
            tick_lists.sort_unstable();
            lists.push(tick_lists);
            hashes.push(state_hash(&world).to_hex());
        }
        (hashes, lists, changed, reused_after_change)
    };
    let (fresh, fresh_lists, changed, _) = run(2, 0.0);
    assert!(changed >= 40, "rows changed on only {changed} ticks");
    for threads in [1, 2, 3, 4, 8] {
        let (hashes, lists, _, reused_after_change) = run(threads, 0.5);
        assert!(
            2 * reused_after_change >= changed,
            "{threads} threads: only {reused_after_change} of {changed} ticks after a change of rows reused"
        );
        for t in 0..ticks {
            assert!(lists[t] == fresh_lists[t], "{threads} threads: neighbour lists differ at tick {t}");
            assert_eq!(hashes[t], fresh[t], "{threads} threads: state hash differs at tick {t}");
        }
    }
}

#[test]
fn an_automatic_skin_is_kept_where_lists_hold_every_neighbour_and_dropped_where_they_are_capped() {
    // The corridor's pedestrians (CFSM, dt 0.02 s, reach 3 m) get 0.5 m from `sensing_skin`'s
    // default, "auto", and keep it: their lists hold every neighbour within reach. ORCA's
    // uniform scene keeps 10 of the 40 or so agents within 15 m; given an automatic skin of
    // 2.5 m (what its file would get at dt 0.02 s), a run drops it on its first sensing tick.
    // Either way the hashes are those of sensing afresh, at every thread count, with the grid
    // and the k-d tree.
    let root = crate::common::root();
    let corridor = load(&root.join("scenarios/models/corridor_fd.toml"));
    assert!(corridor.sensing_skin_auto);
    assert_eq!(corridor.sensing_skin, 0.5);
    let orca = load(&root.join("scenarios/bench/orca_uniform.toml")).scaled(2_000).expect("scaled");
    assert!(orca.sensing_skin_auto);
    assert_eq!(orca.sensing_skin, 0.0, "at dt 0.25 s ORCA's agents move too far a tick for a skin");
    let ticks = 60;
    for (scenario, skin, kept) in [(&corridor, 0.5, true), (&orca, 2.5, false)] {
        let fresh = crate::common::hashes(scenario, ticks, 1, IndexKind::Grid);
        for (threads, index) in
            [1, 2, 3, 4, 8].into_iter().flat_map(|t| [(t, IndexKind::Grid), (t, IndexKind::Kd)])
        {
            let mut world = scenario.build_world();
            let mut pipeline = Pipeline::new(threads, index).expect("thread pool");
            pipeline.set_auto_sensing_skin(skin);
            let mut hashes = vec![state_hash(&world).to_hex()];
            for _ in 0..ticks {
                pipeline.step(&mut world).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
                hashes.push(state_hash(&world).to_hex());
            }
            let name = &scenario.name;
            assert!(
                hashes == fresh,
                "{name}, {threads} threads, {index}: the hashes differ from sensing afresh"
            );
            let (reused, sensed) = pipeline.sensing_counts();
            if kept {
                assert_eq!(pipeline.sensing_skin(), skin, "{name}");
                assert!(reused >= ticks / 2, "{name}: reused on {reused} of {ticks} ticks");
            } else {
                assert_eq!(pipeline.sensing_skin(), 0.0, "{name}: the skin was kept");
                assert_eq!((reused, sensed), (0, ticks), "{name}");
            }
        }
    }
}

#[test]
fn the_automatic_skin_is_a_sixth_of_the_shortest_reach_where_candidates_last_five_ticks() {
    // A CFSM group reaches 3 m: the skin would be 0.5 m, and lasts while the fastest agent
    // moves 0.45 × 0.5 = 0.225 m in 5 ticks or more: up to 2.25 m/s at dt 0.02 s.
    let scene = |skin_line: &str, speed: f32, other_reach: f32| {
        let text = format!(
            r#"version = 1
name = "auto"
seed = 1
dt = 0.02
ticks = 10
{skin_line}
[bounds]
min = [0, 0]
max = [50, 50]
[targets.east]
kind = "point"
position = [49, 25]
[[groups]]
name = "walkers"
count = 20
spawn = {{ kind = "rect", min = [1, 1], max = [20, 49] }}
max_speed = 1.34
max_force = 5.0
radius = 0.2
model = "cfsm"
[[groups.behaviours]]
kind = "seek"
target = "east"
[[groups]]
name = "others"
count = 5
spawn = {{ kind = "rect", min = [1, 1], max = [20, 49] }}
max_speed = {speed}
max_force = 5.0
sensing_radius = {other_reach}
max_neighbours = 4
[[groups.behaviours]]
kind = "separation"
radius = 1.0
"#
        );
        let s = Scenario::parse(&text, "auto.toml").unwrap_or_else(|e| panic!("{e}"));
        (s.sensing_skin, s.sensing_skin_auto)
    };
    assert_eq!(scene("", 2.2, 3.0), (0.5, true));
    assert_eq!(scene("sensing_skin = \"auto\"", 2.2, 3.0), (0.5, true));
    assert_eq!(scene("", 2.3, 3.0), (0.0, true), "at 2.3 m/s candidates last 4.9 ticks");
    // The shortest reach of a group that senses sets it: 2.4 m gives 0.4 m, which lasts while
    // agents move 0.18 m in 5 ticks (up to 1.8 m/s).
    let (skin, auto) = scene("", 1.7, 2.4);
    assert!((skin - 0.4).abs() < 1e-6 && auto, "{skin}");
    assert_eq!(scene("", 1.9, 2.4), (0.0, true), "at 1.9 m/s candidates last 4.7 ticks");
    // A skin the file sets is kept as it is.
    assert_eq!(scene("sensing_skin = 0.7", 20.0, 3.0), (0.7, false));
    assert_eq!(scene("sensing_skin = 0", 1.0, 3.0), (0.0, false));
}
