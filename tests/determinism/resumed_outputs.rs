//! A run's checkpoints carry its plan: `throng run --resume DIR` alone continues it to its
//! planned end, from any directory, and continues its trace and metrics files, so that a run
//! stopped anywhere (even mid-write, even killed) finishes with the uninterrupted run's files,
//! byte for byte. Anything given again must agree with the plan.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use throng_engine::state::checkpoint;

use crate::common::{scratch_dir, throng};
use crate::fixtures::{assert_error, s, small, text, write};

/// The outputs a run writes, by name, and their bytes.
fn read_all(files: &[&Path]) -> Vec<Vec<u8>> {
    files.iter().map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))).collect()
}

fn ok(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// The first bytes of a CSV whose rows start with their tick: the header and every row up to
/// tick `tick`, then `partial` bytes of the next row.
fn cut_after(csv: &[u8], tick: u64, partial: usize) -> Vec<u8> {
    let mut end = 0;
    for (i, line) in csv.split_inclusive(|&b| b == b'\n').enumerate() {
        let first = String::from_utf8_lossy(line.split(|&b| b == b',').next().expect("a field")).into_owned();
        if i > 0 && first.parse::<u64>().expect("a tick") > tick {
            break;
        }
        end += line.len();
    }
    csv[..(end + partial).min(csv.len())].to_vec()
}

/// The doorway for 60 ticks, traced every 7 ticks, with metrics and a checkpoint every 20.
/// Stopped after each checkpoint, at a tick between checkpoints and mid-row, it resumes from
/// its checkpoint directory alone and ends with the straight run's trace, metrics, sidecars
/// and checkpoints.
#[test]
fn an_interrupted_run_finishes_with_the_uninterrupted_files() {
    let dir = scratch_dir("resumed_outputs");
    let (trace, metrics, cdir) = (dir.join("trace.csv"), dir.join("metrics.csv"), dir.join("ck"));
    ok(&throng(&[
        "run",
        "scenarios/doorway.toml",
        "--ticks",
        "60",
        "--quiet",
        "--trace",
        s(&trace),
        "--trace-every",
        "7",
        "--metrics",
        s(&metrics),
        "--checkpoint-every",
        "20",
        "--checkpoint-dir",
        s(&cdir),
    ]));
    let ckpts: Vec<PathBuf> = [20, 40, 60].iter().map(|&t| cdir.join(checkpoint::file_name(t))).collect();
    let (trace_meta, metrics_meta) = (dir.join("trace.csv.meta.json"), dir.join("metrics.csv.meta.json"));
    let files = [trace.as_path(), &metrics, &trace_meta, &metrics_meta];
    let straight = read_all(&files);
    let straight_ckpts = read_all(&ckpts.iter().map(|p| p.as_path()).collect::<Vec<_>>());
    let meta: serde_json::Value = serde_json::from_slice(&straight[2]).expect("sidecar JSON");
    assert_eq!((meta["format"].as_str(), meta["every"].as_u64()), (Some("throng trace"), Some(7)), "{meta}");
    assert_eq!((meta["scenario"].as_str(), meta["seed"].as_u64()), (Some("doorway"), Some(21)), "{meta}");

    // (the last checkpoint left, the last tick whose rows were written whole, bytes of the
    // next row written before it stopped)
    for (last, written, partial) in [(40, 59, 5), (40, 45, 3), (20, 33, 0), (20, 20, 7)] {
        for (t, path) in [20, 40, 60].iter().zip(&ckpts) {
            if *t > last {
                let _ = std::fs::remove_file(path);
            }
        }
        std::fs::write(&trace, cut_after(&straight[0], written, partial)).expect("cut trace");
        std::fs::write(&metrics, cut_after(&straight[1], written, partial)).expect("cut metrics");
        let out = throng(&["run", "--resume", s(&cdir), "--threads", "1", "--json"]);
        ok(&out);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!((r["resumed_from"].as_u64(), r["ticks"].as_u64()), (Some(last), Some(60)), "{r}");
        assert!(
            read_all(&files) == straight,
            "resumed at tick {last}: the files differ from the straight run's"
        );
        assert!(
            read_all(&ckpts.iter().map(|p| p.as_path()).collect::<Vec<_>>()) == straight_ckpts,
            "resumed at tick {last}: the checkpoints differ"
        );
    }
}

/// A run killed while it runs resumes from its checkpoint directory alone, given from another
/// working directory, and ends with the files of a run never stopped.
#[test]
fn a_killed_run_resumes_from_its_directory_alone() {
    let dir = scratch_dir("killed_run");
    let scenario = write(&dir, "small.toml", small(5, 200));
    let outputs = |name: &str| -> Vec<String> {
        ["trace.csv", "metrics.csv", "ck"]
            .iter()
            .map(|f| s(&dir.join(format!("{name}-{f}"))).to_owned())
            .collect()
    };
    let args = |o: &[String]| -> Vec<String> {
        let mut a: Vec<String> = ["run", s(&scenario), "--ticks", "3000", "--quiet", "--trace-every", "100"]
            .map(String::from)
            .to_vec();
        a.extend(
            ["--trace", &o[0], "--metrics", &o[1], "--checkpoint-every", "100", "--checkpoint-dir", &o[2]]
                .map(String::from),
        );
        a
    };
    let (straight, killed) = (outputs("straight"), outputs("killed"));
    ok(&throng(&args(&straight).iter().map(String::as_str).collect::<Vec<_>>()));

    let mut child = Command::new(env!("CARGO_BIN_EXE_throng")).args(args(&killed)).spawn().expect("starts");
    let first = Path::new(&killed[2]).join(checkpoint::file_name(100));
    let started = Instant::now();
    while !first.exists() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("killed");
    child.wait().expect("waited");
    assert!(first.exists(), "no checkpoint within two minutes");
    // From the scratch directory, naming the checkpoints relatively.
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["run", "--resume", "killed-ck", "--json"])
        .current_dir(&dir)
        .output()
        .expect("runs");
    ok(&out);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["ticks"].as_u64(), Some(3000), "{r}");
    eprintln!("killed at or after tick 100, resumed from tick {}", r["resumed_from"]);
    for (a, b) in straight.iter().zip(&killed).take(2) {
        assert!(
            std::fs::read(a).expect("straight") == std::fs::read(b).expect("killed"),
            "{b} differs from {a}"
        );
    }
    let last = checkpoint::file_name(3000);
    let (a, b) = (
        checkpoint::load::<throng_engine::math::Vec2>(&Path::new(&straight[2]).join(&last)),
        checkpoint::load(&Path::new(&killed[2]).join(&last)),
    );
    assert_eq!(a.expect("straight").world, b.expect("killed").world, "the final states differ");
}

/// What a resume is given again must agree with the run's plan; a missing or short output
/// file, or a scenario that is gone, is refused with the reason and a way out. Nothing runs.
#[test]
fn a_resume_refuses_what_disagrees_with_its_plan() {
    let dir = scratch_dir("resume_plan");
    let scenario = write(&dir, "small.toml", small(5, 20));
    let (trace, metrics, cdir) = (dir.join("t.csv"), dir.join("m.csv"), dir.join("ck"));
    let run = [
        "run",
        s(&scenario),
        "--ticks",
        "10",
        "--quiet",
        "--trace",
        s(&trace),
        "--metrics",
        s(&metrics),
        "--checkpoint-every",
        "5",
        "--checkpoint-dir",
        s(&cdir),
    ];
    ok(&throng(&run));
    let five = cdir.join(checkpoint::file_name(5));
    std::fs::remove_file(cdir.join(checkpoint::file_name(10))).expect("remove");
    let c = s(&cdir);
    let refused: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["--ticks", "12"],
            &["--ticks 12 disagrees with the run being resumed", "a run with --ticks 10"],
        ),
        (vec!["--trace", "other.csv"], &["--trace other.csv disagrees", "t.csv"]),
        (vec!["--metrics", "other.csv"], &["--metrics other.csv disagrees"]),
        (vec!["--trace-every", "2"], &["--trace-every 2 disagrees", "--trace-every 1"]),
        (vec!["--checkpoint-every", "3"], &["--checkpoint-every 3 disagrees", "--checkpoint-every 5"]),
        (vec!["--checkpoint-dir", "elsewhere"], &["--checkpoint-dir elsewhere disagrees"]),
        (vec!["--no-metrics"], &["--no-metrics", "disagrees", "metrics on"]),
        (vec!["--seed", "6"], &["--seed 6 disagrees", "(5)"]),
        (vec!["--set", "dt=0.05"], &["written with other overrides"]),
    ];
    let before = (std::fs::read(&trace).expect("trace"), std::fs::read(&metrics).expect("metrics"));
    for (extra, has) in refused {
        let mut args = vec!["run", "--resume", c];
        args.extend(extra);
        assert_error(&throng(&args), has);
    }
    // The same values given again are fine: the scenario (any copy), the ticks, the seed.
    let copy = write(&dir, "copy.toml", small(5, 20));
    ok(&throng(&["run", s(&copy), "--resume", s(&five), "--ticks", "10", "--seed", "5", "--quiet"]));
    let after = (std::fs::read(&trace).expect("trace"), std::fs::read(&metrics).expect("metrics"));
    assert!(before == after, "a resume of a finished run changed its files");

    // Output files that cannot be continued.
    std::fs::write(&metrics, "tick,time_s\n0,0.0\n").expect("write");
    assert_error(&throng(&["run", "--resume", s(&five)]), &["m.csv: not the metrics file this run writes"]);
    std::fs::write(&metrics, cut_after(&after.1, 3, 0)).expect("write");
    assert_error(
        &throng(&["run", "--resume", s(&five)]),
        &["m.csv ends at tick 3, but the checkpoint is at tick 5", "Resume from an earlier checkpoint"],
    );
    std::fs::remove_file(&trace).expect("remove");
    assert_error(&throng(&["run", "--resume", s(&five)]), &["cannot continue trace file", "t.csv"]);
    // The scenario gone.
    std::fs::remove_file(&scenario).expect("remove");
    assert_error(&throng(&["run", "--resume", s(&five)]), &["small.toml, is gone: give the scenario file"]);
    // Neither a scenario nor --resume.
    assert_error(&throng(&["run", "--ticks", "3"]), &["give a scenario file to run, or --resume DIR"]);
}
