//! Formula tests: every behaviour of `engine/src/behaviours/`, the integration step, the obstacle
//! geometry, regions and spawn sources, against values computed by hand from the formulas in
//! `docs/behaviours.md`, one file per subject. The arithmetic is in the comments; no expected
//! value is produced by the code under test.

mod crowd_metrics;
mod end_to_end;
mod flocking;
mod in_space;
mod integrate;
mod leader_following;
mod obstacles;
mod path_following;
mod pursuit_evade;
mod queue;
mod random_walk;
mod regions_and_sources;
mod seek_flee_arrive;
mod solids;
mod steerbench;
mod targets;
mod wander;

#[track_caller]
fn assert_close_f(actual: f32, expected: f32) {
    let tol = 1e-5 * expected.abs().max(1.0);
    assert!((actual - expected).abs() <= tol, "expected {expected}, got {actual}");
}
