//! Checkpoint format tests: save → load → save, versions, forged lengths, every truncation and
//! flipped byte, the plan, and run matching.
use super::*;
use crate::Scenario;
use crate::math::{Vec2, Vec3};

/// [`super::decode`] of a planar run (the tests' worlds are planar).
fn decode(bytes: &[u8], path: &str) -> Result<Checkpoint, CheckpointError> {
    super::decode::<Vec2>(bytes, path)
}

fn id<'a>(scenario_hash: &'a [u8; 32], overrides: &'a [String]) -> RunIdentity<'a> {
    RunIdentity { scenario_hash, overrides, plan: "" }
}

fn world() -> World {
    let text = r#"
version = 1
name = "t"
seed = 9
dt = 0.1
ticks = 5
[bounds]
min = [0, 0]
max = [10, 10]
[[groups]]
name = "g"
count = 7
spawn = { kind = "rect", min = [0, 0], max = [10, 10] }
max_speed = 1.0
max_force = 1.0
[[groups.behaviours]]
kind = "wander"
"#;
    let s = Scenario::parse(text, "t.toml").expect("valid");
    let mut w = s.build_world();
    let mut p = crate::Pipeline::new(1, crate::IndexKind::Kd).expect("pool");
    for _ in 0..3 {
        p.step(&mut w).expect("finite");
    }
    w
}

#[test]
fn save_load_save_is_byte_identical() {
    let w = world();
    let bytes = encode(&w, None, &id(&[7; 32], &["dt = 0.1".into()]));
    let Checkpoint { header: h, world: back, metrics, watch } = decode(&bytes, "x").expect("decodes");
    assert_eq!(back, *w.id_ordered());
    assert_eq!((metrics, watch), (None, None));
    assert_eq!((h.tick, h.seed, h.overrides.clone()), (3, 9, vec!["dt = 0.1".to_string()]));
    assert_eq!(encode(&back, None, &id(&h.scenario_hash, &h.overrides)), bytes);
}

/// The pipeline's spatial order is not saved: the rows go in id order, the bytes are those
/// of the id-ordered world, and the live world keeps its rows.
#[test]
fn a_reordered_world_is_saved_in_id_order() {
    let mut w = world();
    w.agents.permute_rows(&[3, 0, 6, 1, 5, 2, 4]);
    let live = w.clone();
    let bytes = encode(&w, None, &id(&[7; 32], &[]));
    assert_eq!(w, live, "saving changed the live world");
    assert_eq!(bytes, encode(&w.id_ordered(), None, &id(&[7; 32], &[])));
    let back = decode(&bytes, "x").expect("decodes").world;
    assert!(back.agents.is_id_ordered());
    assert_eq!(crate::state_hash(&back), crate::state_hash(&w));
}

/// Format version 1 (no metrics section) is still read; a version 2 file carries the
/// metrics state through, and one whose world and metrics sections disagree with the
/// version in its header is refused.
#[test]
fn format_1_is_read_and_later_formats_carry_the_metrics_state() {
    let w = world();
    let v1 = encode_as(ENGINE_VERSION, 1, &w, None, None, &id(&[7; 32], &[]));
    let c = decode(&v1, "x").expect("a version 1 file decodes");
    assert_eq!((c.header.format_version, c.metrics), (1, None));
    assert_eq!(c.world, *w.id_ordered());
    let metrics = crate::metrics::MetricsCollector::new(Default::default(), &w).state().clone();
    let v2 = encode(&w, Some(&metrics), &id(&[7; 32], &[]));
    let c = decode(&v2, "x").expect("decodes");
    assert_eq!((c.header.format_version, &c.metrics), (FORMAT_VERSION, &Some(metrics.clone())));
    assert_eq!(encode(&c.world, c.metrics.as_ref(), &id(&[7; 32], &[])), v2);
    // A version 2 payload under a version 1 header (checksums recomputed): refused.
    let forged = encode_as(ENGINE_VERSION, 1, &w, None, None, &id(&[7; 32], &[]));
    let mut payload = postcard::to_stdvec(&*w.id_ordered()).unwrap();
    payload.extend(postcard::to_stdvec(&Some(&metrics)).unwrap());
    let header_len = forged.len() - postcard::to_stdvec(&*w.id_ordered()).unwrap().len() - 32 - 32 - 8;
    let mut b = forged[..header_len].to_vec();
    b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    b.extend_from_slice(blake3::hash(&payload).as_bytes());
    let sum = blake3::hash(&b);
    b.extend_from_slice(sum.as_bytes());
    b.extend_from_slice(&payload);
    assert!(matches!(decode(&b, "x"), Err(CheckpointError::Decode { .. })), "{:?}", decode(&b, "x").err());
}

/// A version 5 file (metrics without the wall crossings) is still read: its metrics state
/// comes back with the wall counts at 0, as a fresh collector's.
#[test]
fn format_5_metrics_are_read_without_wall_crossings() {
    let w = world();
    let metrics = crate::metrics::MetricsCollector::new(Default::default(), &w).state().clone();
    let v5 = encode_as(ENGINE_VERSION, 5, &w, Some(&metrics), None, &id(&[7; 32], &[]));
    let now = encode_as(ENGINE_VERSION, 6, &w, Some(&metrics), None, &id(&[7; 32], &[]));
    // Two fields fewer in both the summary and the last tick's metrics: a whole number (one
    // byte for 0) and a float (eight bytes) each; and the journey stages' three lists (the
    // state's queue maxima, the summary's and the last tick's stages: one byte each, empty);
    // and the parties' totals (two whole numbers at 0 and six floats: 2 + 48 bytes), the
    // summary's and the last tick's parties (`None`: one byte each).
    assert_eq!(now.len() - v5.len(), 2 * (1 + 8) + 3 + (2 + 48) + 2);
    let c = decode(&v5, "x").expect("a version 5 file decodes");
    assert_eq!((c.header.format_version, &c.metrics), (5, &Some(metrics)));
}

/// A version 6 file (no spawns' spacing) is still read, and a world without spacing costs a
/// version 7 file one byte (`None`).
#[test]
fn format_6_files_are_read_without_spawn_spacing() {
    let w = world();
    let v6 = encode_as(ENGINE_VERSION, 6, &w, None, None, &id(&[7; 32], &[]));
    let now = encode_as(ENGINE_VERSION, FORMAT_VERSION, &w, None, None, &id(&[7; 32], &[]));
    assert_eq!(now.len() - v6.len(), 1);
    let c = decode(&v6, "x").expect("a version 6 file decodes");
    assert_eq!((c.header.format_version, &c.world), (6, &*w.id_ordered()));
}

#[test]
fn another_engine_version_is_refused() {
    let bytes = encode_as("9.9.9", FORMAT_VERSION, &world(), None, None, &id(&[7; 32], &[]));
    let e = decode(&bytes, "x").unwrap_err();
    assert!(matches!(&e, CheckpointError::EngineVersion { found, .. } if found == "9.9.9"), "{e}");
    assert!(e.to_string().contains("written by throng-engine 9.9.9"), "{e}");
}

#[test]
fn another_format_version_is_refused_before_anything_else() {
    let mut bytes = encode(&world(), None, &id(&[7; 32], &[]));
    bytes[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert!(
        matches!(decode(&bytes, "x"), Err(CheckpointError::Format { found, .. }) if found == FORMAT_VERSION + 1)
    );
    bytes[8..12].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(decode(&bytes, "x"), Err(CheckpointError::Format { found: 0, .. })));
}

#[test]
fn every_truncation_and_every_flipped_byte_is_an_error() {
    let w = world();
    let metrics = crate::metrics::MetricsCollector::new(Default::default(), &w).state().clone();
    let bytes = encode(&w, Some(&metrics), &id(&[7; 32], &["a = 1".into()]));
    for len in 0..bytes.len() {
        let e = decode(&bytes[..len], "x").unwrap_err();
        assert!(
            matches!(
                e,
                CheckpointError::Truncated { .. }
                    | CheckpointError::NotACheckpoint { .. }
                    | CheckpointError::Corrupted { .. }
            ),
            "{len}: {e}"
        );
    }
    for at in 0..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        assert!(decode(&b, "x").is_err(), "a flipped byte at {at} went unnoticed");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode(&longer, "x").is_err());
}

/// Forged length fields (the override count, an override's length, the plan's length, the
/// column count, the payload length) and dimensions, with the header checksum recomputed so only the
/// length is wrong: each is an error, never a panic or a huge allocation.
#[test]
fn forged_length_fields_are_errors() {
    let w = world();
    let run = RunIdentity { scenario_hash: &[7; 32], overrides: &["a = 1".into()], plan: "{}" };
    let bytes = encode(&w, None, &run);
    let version_len = ENGINE_VERSION.len();
    // magic 8, format 4, engine version 2 + n, scenario hash 32: the override count follows.
    let count_at = 8 + 4 + 2 + version_len + 32;
    let override_len_at = count_at + 4;
    let plan_len_at = override_len_at + 4 + "a = 1".len();
    let dimensions_at = plan_len_at + 4 + 2;
    let columns_at = dimensions_at + 4;
    let header_end = bytes.len() - decode(&bytes, "x").expect("decodes").header.payload_len as usize - 32;
    let payload_len_at = header_end - 32 - 8;
    // The offsets hold what they should before forging.
    let h = decode(&bytes, "x").expect("decodes").header;
    let read = |at: usize, width: usize| {
        let mut v = [0u8; 8];
        v[..width].copy_from_slice(&bytes[at..at + width]);
        u64::from_le_bytes(v)
    };
    assert_eq!(
        (read(count_at, 4), read(override_len_at, 4), read(plan_len_at, 4), read(columns_at, 4)),
        (1, 5, 2, h.layout.len() as u64)
    );
    assert_eq!(read(payload_len_at, 8), h.payload_len);
    assert_eq!(read(dimensions_at, 4), 2);
    for (what, at, width) in [
        ("dimensions", dimensions_at, 4),
        ("override count", count_at, 4),
        ("override length", override_len_at, 4),
        ("plan length", plan_len_at, 4),
        ("column count", columns_at, 4),
        ("payload length", payload_len_at, 8),
    ] {
        for forged in [u64::MAX, u32::MAX as u64, 1 << 20] {
            let mut b = bytes.clone();
            b[at..at + width].copy_from_slice(&forged.to_le_bytes()[..width]);
            // Recompute the header checksum, as a forger would.
            let sum = blake3::hash(&b[..header_end]);
            b[header_end..header_end + 32].copy_from_slice(sum.as_bytes());
            assert!(decode(&b, "x").is_err(), "{what} forged to {forged} went unnoticed");
        }
    }
}

/// A plan goes through untouched; version 2 files (no plan) still read, with an empty one.
#[test]
fn the_plan_is_carried_and_version_2_reads_without_one() {
    let w = world();
    let plan = r#"{"ticks": 400, "trace": "out/t.csv"}"#;
    let run = RunIdentity { scenario_hash: &[7; 32], overrides: &[], plan };
    let bytes = encode(&w, None, &run);
    let c = decode(&bytes, "x").expect("decodes");
    assert_eq!(c.header.plan, plan);
    assert_eq!(encode(&c.world, None, &run), bytes);
    let v2 = encode_as(ENGINE_VERSION, 2, &w, None, None, &run);
    let c = decode(&v2, "x").expect("a version 2 file decodes");
    assert_eq!((c.header.format_version, c.header.plan.as_str()), (2, ""));
    assert_eq!(c.world, *w.id_ordered());
}

#[test]
fn the_run_must_match() {
    let w = world();
    let bytes = encode(&w, None, &id(&[7; 32], &["a = 1".into()]));
    let h = decode(&bytes, "x").expect("decodes").header;
    assert!(check_run(&h, "x", "s.toml", &[7; 32], &["a = 1".into()]).is_ok());
    assert!(matches!(
        check_run(&h, "x", "s.toml", &[8; 32], &["a = 1".into()]),
        Err(CheckpointError::Scenario { .. })
    ));
    assert!(matches!(check_run(&h, "x", "s.toml", &[7; 32], &[]), Err(CheckpointError::Overrides { .. })));
}

/// A checkpoint says its dimensions: a run in space is refused when read as a planar one (and
/// the other way), before its state is decoded; files of format 4 and earlier are planar.
#[test]
fn a_checkpoint_is_read_in_its_own_dimensions() {
    let plane = world();
    let bytes = encode(&plane, None, &id(&[1; 32], &[]));
    let header = decode_header(&bytes, "x").expect("a header").0;
    assert_eq!(header.dimensions, 2);
    let e = super::decode::<Vec3>(&bytes, "x").expect_err("refused in space");
    assert!(matches!(e, CheckpointError::Dimensions { found: 2, expected: 3, .. }), "{e}");
    assert!(e.to_string().contains("holds a run in the plane (2 dimensions); this run is in space"), "{e}");
    let v4 = encode_as(ENGINE_VERSION, 4, &plane, None, None, &id(&[1; 32], &[]));
    assert_eq!(decode(&v4, "x").expect("a version 4 file decodes").header.dimensions, 2);

    let text = "version = 1\nname = \"s\"\ndimensions = 3\nseed = 2\ndt = 0.1\nticks = 3\n[bounds]\nmin = [0, 0, 0]\nmax = [10, 10, 10]\n[[groups]]\nname = \"g\"\ncount = 5\nspawn = { kind = \"rect\", min = [0, 0, 0], max = [10, 10, 10] }\nmax_speed = 1.0\nmax_force = 1.0\nbehaviours = [{ kind = \"wander\" }]\n";
    let space = Scenario::<Vec3>::parse_as(text, "s.toml").expect("valid").build_world();
    let bytes = encode(&space, None, &id(&[1; 32], &[]));
    assert_eq!(decode_header(&bytes, "x").expect("a header").0.dimensions, 3);
    let back = super::decode::<Vec3>(&bytes, "x").expect("decodes in space").world;
    assert_eq!(back, space);
    assert!(matches!(decode(&bytes, "x"), Err(CheckpointError::Dimensions { found: 3, expected: 2, .. })));
}
