//! Checkpoints: a run resumed in a fresh process, with another thread count and reorder
//! interval, from a checkpoint at tick 1, N/2 or N−1 gives the straight run's per-tick hashes,
//! also from a world whose rows were in spatial order when saved; save → load → save is
//! byte-identical; corrupted, truncated or mismatched checkpoints are refused with one clear
//! error, and nothing runs.

use std::path::Path;

use throng_engine::state::checkpoint;
use throng_engine::{IndexKind, Pipeline, World, state_hash};

use crate::common::{REORDER_INTERVALS, load, scratch_dir, shipped_scenarios, throng, with_scenario};
use crate::fixtures::{assert_error, s, small, text, write};

const N: u64 = 12;

/// `throng run ... --json --hash-every 1` → [(tick, hash)].
fn run_hashes(args: &[&str]) -> (Vec<(u64, String)>, serde_json::Value) {
    let out = throng(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (serde_json::from_value(v["hashes"].clone()).expect("hashes"), v)
}

/// What ties a checkpoint to a run, with no plan.
fn no_plan<'a>(scenario_hash: &'a [u8; 32], overrides: &'a [String]) -> checkpoint::RunIdentity<'a> {
    checkpoint::RunIdentity { scenario_hash, overrides, plan: "" }
}

fn ckpt(dir: &Path, tick: u64) -> String {
    s(&dir.join(checkpoint::file_name(tick))).to_owned()
}

#[test]
fn resumed_runs_give_the_straight_runs_hashes() {
    let dir = scratch_dir("checkpoint_resume");
    let scenario = write(&dir, "small.toml", small(5, 40));
    let cdir = dir.join("ckpt");
    let n = N.to_string();
    let (straight, _) = run_hashes(&[
        "run",
        s(&scenario),
        "--ticks",
        &n,
        "--threads",
        "2",
        "--hash-every",
        "1",
        "--json",
        "--checkpoint-every",
        "1",
        "--checkpoint-dir",
        s(&cdir),
    ]);
    assert_eq!(straight.len(), N as usize + 1);
    assert_ne!(straight[1].1, straight[N as usize].1, "the state moves");
    // The straight run reorders its rows every 20 ticks (the default), so at tick 0 only; the
    // resumed runs at other intervals, on their own schedules.
    for (t, threads, every) in [(1, "1", "0"), (N / 2, "3", "1"), (N - 1, "4", "7")] {
        let (resumed, v) = run_hashes(&[
            "run",
            s(&scenario),
            "--ticks",
            &n,
            "--threads",
            threads,
            "--reorder-every",
            every,
            "--hash-every",
            "1",
            "--json",
            "--resume",
            &ckpt(&cdir, t),
        ]);
        assert_eq!(v["resumed_from"], t, "{v}");
        assert_eq!(
            resumed,
            straight[t as usize..],
            "resumed at tick {t} on {threads} threads, reordering every {every} ticks"
        );
        assert_eq!(v["hash"].as_str(), Some(straight[N as usize].1.as_str()));
    }
    // A directory resumes from its latest checkpoint (tick N: nothing left to run).
    let (resumed, v) = run_hashes(&[
        "run",
        s(&scenario),
        "--ticks",
        &n,
        "--hash-every",
        "1",
        "--json",
        "--resume",
        s(&cdir),
    ]);
    assert_eq!(v["resumed_from"], N);
    assert_eq!(resumed, straight[N as usize..]);
    // Every checkpoint written is whole: no temporary file is left.
    for e in std::fs::read_dir(&cdir).expect("dir") {
        let name = e.expect("entry").file_name().to_string_lossy().into_owned();
        assert!(name.starts_with("tick-") && name.ends_with(".ckpt"), "{name}");
    }
}

/// A checkpoint of a world whose rows are in spatial order holds them in id order: the same
/// bytes as a run that never reorders, and the live world is left as it was. Resumed at any
/// reorder interval, it gives the straight run's per-tick hashes: the resumed pipeline
/// reorders at the ticks that are multiples of its interval, which changes no result.
#[test]
fn checkpoints_of_reordered_worlds_resume_to_the_same_hashes() {
    const SAVE_AT: u64 = 10;
    const END: u64 = 30;
    let mut reordered_scenes = 0;
    for path in shipped_scenarios() {
        with_scenario!(&path, |scenario| {
            let run = |world: &mut World<_>, every: u64, to: u64| -> Vec<String> {
                let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
                pipeline.set_reorder_every(every);
                let mut hashes = Vec::new();
                while world.tick < to {
                    pipeline.step(world).unwrap_or_else(|e| panic!("{e}"));
                    hashes.push(state_hash(world).to_hex());
                }
                hashes
            };
            // Reordered at tick 7, so in spatial order at tick 10.
            let mut world = scenario.build_world();
            let mut straight = run(&mut world, 7, SAVE_AT);
            reordered_scenes += usize::from(!world.agents.is_id_ordered());
            let live = world.clone();
            let bytes = checkpoint::encode(&world, None, &no_plan(&scenario.content_hash, &[]));
            assert_eq!(world, live, "{}: saving changed the live world", scenario.name);
            straight.extend(run(&mut world, 7, END));

            let mut plain = scenario.build_world();
            run(&mut plain, 0, SAVE_AT);
            assert!(
                checkpoint::encode(&plain, None, &no_plan(&scenario.content_hash, &[])) == bytes,
                "{}: the checkpoint depends on the row order",
                scenario.name
            );
            for every in REORDER_INTERVALS {
                let mut resumed = checkpoint::decode(&bytes, "ckpt").expect("decodes").world;
                assert!(resumed.agents.is_id_ordered());
                let hashes = run(&mut resumed, every, END);
                assert_eq!(
                    hashes,
                    straight[SAVE_AT as usize..],
                    "{}: resumed at tick {SAVE_AT}, reordering every {every} ticks",
                    scenario.name
                );
            }
        })
    }
    assert!(reordered_scenes >= 8, "only {reordered_scenes} scenes had their rows out of id order");
}

#[test]
fn save_load_save_is_byte_identical() {
    let dir = scratch_dir("checkpoint_bytes");
    let scenario = write(&dir, "small.toml", small(5, 40));
    let cdir = dir.join("ckpt");
    let out = throng(&[
        "run",
        s(&scenario),
        "--ticks",
        "6",
        "--quiet",
        "--set",
        "groups.walkers.max_force=1.25",
        "--checkpoint-every",
        "3",
        "--checkpoint-dir",
        s(&cdir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for tick in [3, 6] {
        let path = cdir.join(checkpoint::file_name(tick));
        let bytes = std::fs::read(&path).expect("checkpoint");
        let checkpoint::Checkpoint { header, world, metrics, watch } =
            checkpoint::load::<throng_engine::math::Vec2>(&path).expect("loads");
        assert_eq!(world.tick, tick);
        assert_eq!(header.overrides, ["groups.walkers.max_force = 1.25"]);
        assert!(metrics.is_some(), "a run observing metrics saves their state");
        let run = checkpoint::RunIdentity {
            scenario_hash: &header.scenario_hash,
            overrides: &header.overrides,
            plan: &header.plan,
        };
        let again = checkpoint::encode_watched(&world, metrics.as_ref(), watch.as_ref(), &run);
        assert!(again == bytes, "tick {tick}: save → load → save changed the bytes");
    }
    // Continuing from tick 3 writes the same tick-6 checkpoint (plan included) as the straight
    // run did: the checkpoint alone says what to do.
    let straight = std::fs::read(cdir.join(checkpoint::file_name(6))).expect("straight");
    std::fs::remove_file(cdir.join(checkpoint::file_name(6))).expect("remove");
    let out =
        throng(&["run", "--resume", s(&cdir.join(checkpoint::file_name(3))), "--threads", "1", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let resumed = std::fs::read(cdir.join(checkpoint::file_name(6))).expect("resumed");
    assert!(resumed == straight, "the resumed run's tick-6 checkpoint differs from the straight run's");
}

#[test]
fn bad_checkpoints_are_refused_and_nothing_runs() {
    let dir = scratch_dir("checkpoint_bad");
    let scenario = write(&dir, "small.toml", small(5, 40));
    let cdir = dir.join("ckpt");
    let out = throng(&[
        "run",
        s(&scenario),
        "--ticks",
        "4",
        "--quiet",
        "--checkpoint-every",
        "2",
        "--checkpoint-dir",
        s(&cdir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let good = std::fs::read(cdir.join(checkpoint::file_name(2))).expect("checkpoint");

    let mut flipped_payload = good.clone();
    let last = flipped_payload.len() - 10;
    flipped_payload[last] ^= 1;
    let mut flipped_header = good.clone();
    flipped_header[20] ^= 1; // inside the engine version or the scenario hash
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.ckpt", Vec::new(), "truncated checkpoint"),
        ("short.ckpt", good[..5].to_vec(), "truncated checkpoint"),
        ("header.ckpt", good[..60].to_vec(), "truncated checkpoint: the file ends inside the header"),
        ("payload.ckpt", good[..good.len() - 1].to_vec(), "truncated checkpoint: the state should be"),
        ("flipped.ckpt", flipped_payload, "corrupted checkpoint: the payload checksum does not match"),
        ("flipped-header.ckpt", flipped_header, "corrupted checkpoint: the header checksum does not match"),
        ("text.ckpt", b"version = 1\n".to_vec(), "not a throng checkpoint"),
    ];
    for (name, bytes, has) in cases {
        let p = write(&dir, name, bytes);
        let out = throng(&["run", s(&scenario), "--ticks", "4", "--resume", s(&p)]);
        assert_error(&out, &[name, has]);
        assert!(out.stdout.is_empty(), "{name}: nothing runs");
    }
    let p = cdir.join(checkpoint::file_name(2));
    // Another scenario: same text but another seed.
    let other = write(&dir, "other.toml", small(6, 40));
    assert_error(
        &throng(&["run", s(&other), "--resume", s(&p)]),
        &["written for another scenario", "other.toml has"],
    );
    // Other overrides.
    assert_error(
        &throng(&["run", s(&scenario), "--resume", s(&p), "--set", "dt=0.05"]),
        &["written with other overrides", "this run has [dt = 0.05]"],
    );
    // Missing file, empty directory.
    assert_error(
        &throng(&["run", s(&scenario), "--resume", s(&dir.join("nope.ckpt"))]),
        &["nope.ckpt: no such file"],
    );
    let empty = dir.join("empty-dir");
    std::fs::create_dir_all(&empty).expect("dir");
    assert_error(&throng(&["run", s(&scenario), "--resume", s(&empty)]), &["no checkpoint"]);
}

#[test]
fn checkpoint_options_are_checked() {
    let dir = scratch_dir("checkpoint_options");
    let scenario = write(&dir, "small.toml", small(5, 10));
    let cdir = dir.join("ckpt");
    let sc = s(&scenario);
    assert_error(
        &throng(&["run", sc, "--checkpoint-every", "0", "--checkpoint-dir", s(&cdir)]),
        &["--checkpoint-every must be at least 1"],
    );
    assert_error(
        &throng(&["run", sc, "--checkpoint-every", "2"]),
        &["--checkpoint-every needs --checkpoint-dir"],
    );
    assert_error(
        &throng(&["run", sc, "--checkpoint-dir", s(&cdir)]),
        &["--checkpoint-dir needs --checkpoint-every"],
    );
    assert!(!cdir.exists(), "nothing was created");
    let out = throng(&[
        "run",
        sc,
        "--ticks",
        "4",
        "--quiet",
        "--checkpoint-every",
        "4",
        "--checkpoint-dir",
        s(&cdir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let p = ckpt(&cdir, 4);
    assert_error(
        &throng(&["run", sc, "--resume", &p, "--seed", "3"]),
        &["--seed 3 disagrees with", "which holds the run's seed (5)"],
    );
    assert_error(
        &throng(&["run", sc, "--resume", &p, "--ticks", "2"]),
        &["--ticks 2 disagrees with the run being resumed", "a run with --ticks 4", "Leave --ticks out"],
    );
}

/// `throng run --agents N` scales the scenario as `throng bench` does (the library's
/// `Scenario::scaled`, hash for hash); its checkpoints record the count, so a resume with the
/// same `--agents`, or none, continues bit for bit and one with another count is refused.
#[test]
fn scaled_runs_checkpoint_and_resume_with_their_agent_count() {
    let dir = scratch_dir("checkpoint_scaled");
    let cdir = dir.join("ckpt");
    let crowd = "scenarios/bench/crowd.toml";
    let straight_args = ["run", crowd, "--agents", "3000", "--ticks", "8", "--hash-every", "1", "--json"];
    let (straight, v) = run_hashes(&straight_args);
    assert_eq!(v["agents"], 3000, "{v}");
    // The library's scaling, stepped tick by tick, with the scenario's sensing skin.
    let scenario = load(&crate::common::root().join(crowd)).scaled(3000).expect("scaled crowd");
    let mut world = scenario.build_world();
    let mut pipeline = Pipeline::new(2, IndexKind::Kd).expect("pool");
    pipeline.set_sensing_skin(scenario.sensing_skin);
    let mut lib = vec![(0, state_hash(&world).to_hex())];
    for _ in 0..8 {
        pipeline.step(&mut world).expect("finite");
        lib.push((world.tick, state_hash(&world).to_hex()));
    }
    assert_eq!(straight, lib, "throng run --agents and Scenario::scaled disagree");

    let out = throng(&[
        "run",
        crowd,
        "--agents",
        "3000",
        "--ticks",
        "8",
        "--quiet",
        "--checkpoint-every",
        "4",
        "--checkpoint-dir",
        s(&cdir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (resumed, _) = run_hashes(&[
        "run",
        crowd,
        "--agents",
        "3000",
        "--ticks",
        "8",
        "--threads",
        "1",
        "--hash-every",
        "1",
        "--json",
        "--resume",
        &ckpt(&cdir, 4),
    ]);
    assert_eq!(resumed, straight[4..], "resumed from tick 4");
    // Without --agents, the checkpoint's plan supplies it.
    let (resumed, _) = run_hashes(&["run", "--hash-every", "1", "--json", "--resume", &ckpt(&cdir, 4)]);
    assert_eq!(resumed, straight[4..], "resumed from tick 4 with the plan's --agents");
    assert_error(
        &throng(&["run", crowd, "--agents", "3001", "--resume", s(&cdir)]),
        &["written with other overrides: the checkpoint has [agents = 3000]"],
    );
    assert_error(
        &throng(&["run", crowd, "--agents", "0"]),
        &["--agents: `agents`: expected a whole number of agents from 1 to 20000000"],
    );
}

/// A checkpoint holds the run's metrics state, so a resumed run's per-tick metrics and its
/// summary are the uninterrupted run's: maxima, waiting time and gate throughput (the
/// doorway), and stuck agents counted against anchors set before the checkpoint (the crowd,
/// whose stuck-agent windows end every 100 ticks, on both sides of the checkpoint).
#[test]
fn resumed_runs_go_on_with_the_straight_runs_metrics() {
    let dir = scratch_dir("checkpoint_metrics");
    let root = crate::common::root();
    let door = s(&root.join("scenarios/doorway.toml")).to_owned();
    let crowd = s(&root.join("scenarios/bench/crowd.toml")).to_owned();
    let path = |name: &str| s(&dir.join(name)).to_owned();
    let rows = |path: &str| -> Vec<String> {
        std::fs::read_to_string(path).expect("metrics CSV").lines().map(str::to_owned).collect()
    };
    for (name, scene, extra) in [("door", &door, &[][..]), ("crowd", &crowd, &["--agents", "1500"][..])] {
        let csv = path(&format!("{name}.csv"));
        let cdir = path(&format!("{name}-ckpt"));
        let mut args = vec!["run", scene, "--ticks", "260", "--hash-every", "260", "--json"];
        args.extend_from_slice(extra);
        let mut first = args.clone();
        first.extend(["--metrics", &csv, "--checkpoint-every", "150", "--checkpoint-dir", &cdir]);
        let (_, straight) = run_hashes(&first);
        let all = rows(&csv);
        // Stopped mid-write at tick 206, after the rows of ticks 0 to 205.
        std::fs::write(&csv, all[..207].join("\n") + "\n206,20.6,1").expect("cut");
        let (_, resumed) =
            run_hashes(&["run", "--threads", "1", "--hash-every", "260", "--json", "--resume", &cdir]);
        assert_eq!(resumed["resumed_from"], 150, "{name}");
        assert_eq!(resumed["hash"], straight["hash"], "{name}");
        assert_eq!(resumed["metrics"], straight["metrics"], "{name}: the summaries differ");
        // The header, the starting state (tick 0), then ticks 1 to 260.
        assert_eq!(all.len(), 262, "{name}");
        assert!(all[1].starts_with("0,0.0,"), "{name}: the tick-0 row: {}", all[1]);
        assert_eq!(rows(&csv), all, "{name}: the continued metrics file");
        let m = &straight["metrics"];
        match name {
            "door" => assert!(
                m["gates"][0]["crossings"].as_u64() > Some(0) && m["mean_wait_s"].as_f64() > Some(0.0),
                "{m}"
            ),
            _ => assert!(m["stuck_agents"].as_u64() > Some(0), "{m}"),
        }
    }

    // A run without metrics resumes without them: its plan says so.
    let bare = path("bare");
    let out = throng(&[
        "run",
        &door,
        "--ticks",
        "160",
        "--quiet",
        "--no-metrics",
        "--checkpoint-every",
        "150",
        "--checkpoint-dir",
        &bare,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = throng(&["run", "--json", "--resume", &bare]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!((r["resumed_from"].as_u64(), r.get("metrics")), (Some(150), None), "{r}");
}

/// A resumed run reports the ticks it ran, and from which tick it resumed, in JSON and in the
/// human report: not the planned end as if it had run from tick 0.
#[test]
fn a_resumed_run_reports_the_ticks_it_ran_and_where_it_resumed() {
    let dir = scratch_dir("ckpt_resume_report");
    let sc = "scenarios/seek_arrive.toml";
    let cdir = dir.join("ck");
    let out = throng(&[
        "run",
        sc,
        "--ticks",
        "20",
        "--checkpoint-every",
        "5",
        "--checkpoint-dir",
        s(&cdir),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let resume = ckpt(&cdir, 5);
    let out = throng(&["run", "--resume", &resume, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("JSON");
    assert_eq!(
        (r["ticks"].as_u64(), r["ticks_run"].as_u64(), r["resumed_from"].as_u64()),
        (Some(20), Some(15), Some(5))
    );
    let out = throng(&["run", "--resume", &resume]);
    let report = text(&out.stdout);
    assert!(report.contains("ticks      15 (resumed from tick 5, to tick 20) in "), "{report}");
    let out = throng(&["run", sc, "--ticks", "20", "--json"]);
    let r: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).expect("JSON");
    assert_eq!((r["ticks_run"].as_u64(), r.get("resumed_from")), (Some(20), None));
}
