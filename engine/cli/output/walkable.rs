//! The walkable area of a world as WKT, for trajectory files that carry their geometry
//! (JuPedSim's SQLite layout): the bounds' rectangle minus the union of the standing obstacles.
//! Discs become 64-sided polygons; a wall is its polyline's segments widened to its thickness
//! with round joints and ends (as the engine's wall is every point within half the thickness),
//! at least 1 cm thick so a wall of thickness 0 still shows.

use geo::{BooleanOps, Coord, LineString, MultiPolygon, Polygon, unary_union};
use throng_engine::World;
use throng_engine::math::Vec2;
use throng_engine::world::Obstacle;

/// Sides of the polygon a disc becomes.
const DISC_SIDES: usize = 64;
/// The thinnest wall drawn (world units).
const MIN_WALL: f64 = 0.01;

fn coord(p: Vec2) -> Coord<f64> {
    Coord { x: p.x as f64, y: p.y as f64 }
}

/// A closed ring through `points`.
fn ring(points: impl IntoIterator<Item = Coord<f64>>) -> Polygon<f64> {
    Polygon::new(LineString::from(points.into_iter().collect::<Vec<_>>()), vec![])
}

fn disc(centre: Coord<f64>, radius: f64) -> Polygon<f64> {
    ring((0..DISC_SIDES).map(|k| {
        let a = k as f64 / DISC_SIDES as f64 * std::f64::consts::TAU;
        let (s, c) = throng_engine::math::sin_cos(a as f32);
        Coord { x: centre.x + radius * c as f64, y: centre.y + radius * s as f64 }
    }))
}

/// The obstacle's area as polygons (several for a wall).
fn shapes(o: &Obstacle) -> Vec<Polygon<f64>> {
    match o {
        Obstacle::Circle { centre, radius } => vec![disc(coord(*centre), *radius as f64)],
        Obstacle::Rect { min, max } => {
            let (a, b) = (coord(*min), coord(*max));
            vec![ring([a, Coord { x: b.x, y: a.y }, b, Coord { x: a.x, y: b.y }])]
        }
        Obstacle::Polygon { vertices } => vec![ring(vertices.iter().map(|&v| coord(v)))],
        Obstacle::Wall { points, thickness } => {
            let half = (*thickness as f64).max(MIN_WALL) / 2.0;
            let mut out: Vec<Polygon<f64>> = points.iter().map(|&p| disc(coord(p), half)).collect();
            for w in points.windows(2) {
                let (a, b) = (coord(w[0]), coord(w[1]));
                let (dx, dy) = (b.x - a.x, b.y - a.y);
                let len = (dx * dx + dy * dy).sqrt();
                if len == 0.0 {
                    continue;
                }
                let (nx, ny) = (-dy / len * half, dx / len * half);
                out.push(ring([
                    Coord { x: a.x + nx, y: a.y + ny },
                    Coord { x: a.x - nx, y: a.y - ny },
                    Coord { x: b.x - nx, y: b.y - ny },
                    Coord { x: b.x + nx, y: b.y + ny },
                ]));
            }
            out
        }
    }
}

/// The walkable area of `world` as it stands (closed doors included) in WKT: a `POLYGON`, or a
/// `MULTIPOLYGON` when walls cut the bounds into parts.
pub fn wkt(world: &World) -> String {
    let b = &world.bounds;
    let outer = MultiPolygon(vec![ring([
        coord(b.min),
        Coord { x: b.max.x as f64, y: b.min.y as f64 },
        coord(b.max),
        Coord { x: b.min.x as f64, y: b.max.y as f64 },
    ])]);
    let obstacles: Vec<Polygon<f64>> = world.obstacles.iter().flat_map(shapes).collect();
    let area = if obstacles.is_empty() { outer } else { outer.difference(&unary_union(&obstacles)) };
    to_wkt(&area)
}

/// A number as WKT writes it: the shortest form that reads back the same.
fn num(x: f64) -> String {
    let s = format!("{x}");
    if s == "-0" { "0".into() } else { s }
}

fn ring_text(r: &LineString<f64>) -> String {
    let points: Vec<String> = r.coords().map(|c| format!("{} {}", num(c.x), num(c.y))).collect();
    format!("({})", points.join(", "))
}

fn polygon_text(p: &Polygon<f64>) -> String {
    let rings: Vec<String> = std::iter::once(p.exterior()).chain(p.interiors()).map(ring_text).collect();
    format!("({})", rings.join(", "))
}

/// `POLYGON ((...), (hole), ...)` for one part, `MULTIPOLYGON (((...)), ...)` for several.
fn to_wkt(area: &MultiPolygon<f64>) -> String {
    match &area.0[..] {
        [] => "POLYGON EMPTY".into(),
        [one] => format!("POLYGON {}", polygon_text(one)),
        parts => {
            let parts: Vec<String> = parts.iter().map(polygon_text).collect();
            format!("MULTIPOLYGON ({})", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_with_a_square_hole() {
        let outer = ring([
            Coord { x: 0.0, y: 0.0 },
            Coord { x: 10.0, y: 0.0 },
            Coord { x: 10.0, y: 10.0 },
            Coord { x: 0.0, y: 10.0 },
        ]);
        let hole = shapes(&Obstacle::Rect { min: Vec2::new(4.0, 4.0), max: Vec2::new(6.0, 6.0) });
        let area = MultiPolygon(vec![outer]).difference(&unary_union(&hole));
        let text = to_wkt(&area);
        assert!(text.starts_with("POLYGON ((") && text.matches('(').count() == 3, "{text}");
        use geo::Area;
        assert!((area.unsigned_area() - 96.0).abs() < 1e-9);
        // A wall right across cuts the square in two.
        let wall = shapes(&Obstacle::Wall {
            points: vec![Vec2::new(5.0, -1.0), Vec2::new(5.0, 11.0)],
            thickness: 0.2,
        });
        let square = ring([
            Coord { x: 0.0, y: 0.0 },
            Coord { x: 10.0, y: 0.0 },
            Coord { x: 10.0, y: 10.0 },
            Coord { x: 0.0, y: 10.0 },
        ]);
        let cut = MultiPolygon(vec![square]).difference(&unary_union(&wall));
        assert_eq!(cut.0.len(), 2);
        assert!(to_wkt(&cut).starts_with("MULTIPOLYGON ((("), "{}", to_wkt(&cut));
        assert!((cut.unsigned_area() - 98.0).abs() < 1e-6, "{}", cut.unsigned_area());
    }
}
