//! Polygon and wall obstacles: bad shapes rejected with their position (too few points, an edge
//! of zero length, a polygon or wall that crosses itself, keys of another kind, a negative
//! thickness), a polygon listed either way round loads the same, and a wall whose last point is
//! its first (a room's outline) is accepted.

use super::{BASE, check_rejects};

/// `BASE` with one obstacle.
fn with(obstacle: &str) -> String {
    BASE.replace("[bounds]", &format!("obstacles = [{obstacle}]\n\n[bounds]"))
}

#[test]
fn bad_polygons_and_walls_are_rejected() {
    check_rejects(
        "polygon_two_points",
        with("{ kind = \"polygon\", vertices = [[0, 0], [1, 1]] }"),
        (7, 45),
        &["`obstacles[0].vertices`", "a polygon needs at least 3 points, found 2"],
    );
    check_rejects(
        "polygon_repeated_vertex",
        with("{ kind = \"polygon\", vertices = [[0, 0], [4, 0], [4, 0], [0, 4]] }"),
        (7, 62),
        &[
            "`obstacles[0].vertices[2]`",
            "points 1 and 2 are the same ([4, 0]): an edge needs two different ends",
        ],
    );
    check_rejects(
        "polygon_bow_tie",
        with("{ kind = \"polygon\", vertices = [[0, 0], [4, 4], [4, 0], [0, 4]] }"),
        (7, 45),
        &[
            "`obstacles[0].vertices`",
            "the polygon crosses itself: edge 0 ([0, 0] to [4, 4]) meets edge 2 ([4, 0] to [0, 4])",
        ],
    );
    check_rejects(
        "wall_one_point",
        with("{ kind = \"wall\", points = [[0, 0]] }"),
        (7, 40),
        &["`obstacles[0].points`", "a wall needs at least 2 points, found 1"],
    );
    check_rejects(
        "wall_negative_thickness",
        with("{ kind = \"wall\", points = [[0, 0], [5, 0]], thickness = -1 }"),
        (7, 70),
        &["`obstacles[0].thickness`", "found -1"],
    );
    check_rejects(
        "wall_with_radius",
        with("{ kind = \"wall\", points = [[0, 0], [5, 0]], radius = 1 }"),
        (7, 67),
        &[
            "`obstacles[0].radius`",
            "`radius` is not a parameter of a \"wall\" obstacle (it takes: points, thickness)",
        ],
    );
    check_rejects(
        "wall_closed_figure_of_eight",
        with("{ kind = \"wall\", points = [[0, 0], [4, 4], [4, 0], [0, 4], [0, 0]] }"),
        (7, 40),
        &[
            "`obstacles[0].points`",
            "the wall crosses itself: edge 0 ([0, 0] to [4, 4]) meets edge 2 ([4, 0] to [0, 4])",
        ],
    );
    check_rejects(
        "obstacle_unknown_kind",
        with("{ kind = \"poly\", vertices = [[0, 0], [4, 0], [0, 4]] }"),
        (7, 23),
        &["`obstacles[0].kind`", "unknown value \"poly\" (expected one of: rect, circle, polygon, wall)"],
    );
}

#[test]
fn a_polygon_listed_clockwise_is_normalised() {
    let ccw = with("{ kind = \"polygon\", vertices = [[0, 0], [4, 0], [4, 4], [0, 4]] }");
    let cw = with("{ kind = \"polygon\", vertices = [[0, 4], [4, 4], [4, 0], [0, 0]] }");
    let load = |t: &str| throng_engine::Scenario::parse(t, "p.toml").expect("valid").obstacles;
    let (a, b) = (load(&ccw), load(&cw));
    let area = |o: &throng_engine::world::Obstacle| match o {
        throng_engine::world::Obstacle::Polygon { vertices } => vertices
            .iter()
            .zip(vertices.iter().cycle().skip(1))
            .map(|(p, q)| p.x * q.y - q.x * p.y)
            .sum::<f32>(),
        _ => 0.0,
    };
    assert_eq!(area(&a[0]), 32.0);
    assert_eq!(area(&b[0]), 32.0, "reversed to counter-clockwise");
}

#[test]
fn a_closed_wall_is_a_room_outline() {
    let room =
        with("{ kind = \"wall\", points = [[0, 0], [4, 0], [4, 4], [0, 4], [0, 0]], thickness = 0.2 }");
    let obstacles =
        throng_engine::Scenario::parse(&room, "room.toml").expect("a closed wall loads").obstacles;
    // Every side of the loop is wall, the closing one included.
    assert!((obstacles[0].signed_distance(throng_engine::math::Vec2::new(0.0, 2.0)) + 0.1).abs() < 1e-6);
    assert!((obstacles[0].signed_distance(throng_engine::math::Vec2::new(2.0, 2.0)) - 1.9).abs() < 1e-6);
}
