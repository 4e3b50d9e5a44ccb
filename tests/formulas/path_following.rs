//! Path following: the cursor over a path's nodes in `once`, `loop` and `patrol` modes.

use throng_engine::behaviours::path_advance;
use throng_engine::world::PathMode;

#[test]
fn path_advance_waits_until_the_node_is_reached() {
    // Distance 2.5 > radius 2: nothing changes, whatever the mode or direction.
    for mode in [PathMode::Once, PathMode::Loop, PathMode::Patrol] {
        assert_eq!(path_advance(2.5, 2.0, 1, 1, 4, mode), (1, 1), "{mode:?}");
        assert_eq!(path_advance(2.5, 2.0, 2, -1, 4, mode), (2, -1), "{mode:?}");
        assert_eq!(path_advance(2.5, 2.0, 3, 1, 4, mode), (3, 1), "{mode:?}");
    }
    // Exactly on the radius counts as reached (`|nodes[current] - p| <= radius`): 1 -> 2.
    assert_eq!(path_advance(2.0, 2.0, 1, 1, 4, PathMode::Loop), (2, 1));
}

#[test]
fn path_advance_once_stops_at_the_last_node() {
    // 4 nodes (0..=3): reaching 0, 1, 2 moves on by one.
    assert_eq!(path_advance(0.5, 2.0, 0, 1, 4, PathMode::Once), (1, 1));
    assert_eq!(path_advance(0.5, 2.0, 2, 1, 4, PathMode::Once), (3, 1));
    // Reaching the last node keeps it (the agent arrives there).
    assert_eq!(path_advance(0.0, 2.0, 3, 1, 4, PathMode::Once), (3, 1));
}

#[test]
fn path_advance_loop_wraps_to_the_first_node() {
    assert_eq!(path_advance(1.0, 2.0, 1, 1, 4, PathMode::Loop), (2, 1));
    // 3 + 1 = 4 is past the end: wrap to node 0, direction unchanged.
    assert_eq!(path_advance(1.0, 2.0, 3, 1, 4, PathMode::Loop), (0, 1));
    // Two nodes: 1 -> 0 -> 1.
    assert_eq!(path_advance(0.0, 1.0, 1, 1, 2, PathMode::Loop), (0, 1));
    assert_eq!(path_advance(0.0, 1.0, 0, 1, 2, PathMode::Loop), (1, 1));
}

#[test]
fn path_advance_patrol_reverses_at_both_ends() {
    // 5 nodes (0..=4), going forward: 2 -> 3.
    assert_eq!(path_advance(1.0, 2.0, 2, 1, 5, PathMode::Patrol), (3, 1));
    // At the far end: 4 + 1 = 5 is out, so dir = -1 and current = 4 - 1 = 3.
    assert_eq!(path_advance(1.0, 2.0, 4, 1, 5, PathMode::Patrol), (3, -1));
    // Coming back: 3 -> 2 with dir -1.
    assert_eq!(path_advance(1.0, 2.0, 3, -1, 5, PathMode::Patrol), (2, -1));
    // At the near end: 0 - 1 = -1 is out, so dir = +1 and current = 0 + 1 = 1.
    assert_eq!(path_advance(1.0, 2.0, 0, -1, 5, PathMode::Patrol), (1, 1));
    // Two nodes bounce between them: 1 (dir +1) -> 0 (dir -1) -> 1 (dir +1).
    assert_eq!(path_advance(0.0, 1.0, 1, 1, 2, PathMode::Patrol), (0, -1));
    assert_eq!(path_advance(0.0, 1.0, 0, -1, 2, PathMode::Patrol), (1, 1));
}
