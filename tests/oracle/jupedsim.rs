//! throng's collision-free speed model and social force against JuPedSim 1.4.2's own outputs
//! (`tests/data/jupedsim/`, made by `make_onestep.py` there): one step from dense random states
//! in an L-shaped room with three holes, agent by agent. Neighbours are found here by brute
//! force as JuPedSim takes them (every agent within its cut-off, 3 m for CFSM and 2.5 m for
//! social force, none capped); the walls go through the engine's own `WallsNear`, so its
//! per-edge terms and CFSM's line-of-sight filter are what is checked. JuPedSim computes in
//! f64 and throng in f32 from the states rounded to f32; the tolerances below say what that
//! costs.

use throng_engine::math::{Vec2, norm};
use throng_engine::models::surroundings::Body;
use throng_engine::models::walls_near::WallsNear;
use throng_engine::models::{cfsm, social_force};
use throng_engine::world::{Cfsm, Obstacle, SocialForce};

/// JuPedSim's time step in the reference runs (`make_onestep.py`'s `DT`).
const DT: f64 = 0.01;

/// The rows of a CSV of `tests/data/jupedsim/`, header dropped, as f64 (the first column of
/// `geometry.csv` is a name, so that file is read by [`geometry`]).
fn rows(name: &str) -> Vec<Vec<f64>> {
    let path = crate::common::root().join("tests/data/jupedsim").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().skip(1).map(|l| l.split(',').map(|x| x.parse().expect("a number")).collect()).collect()
}

/// The room as throng's obstacles: the outer boundary a closed wall of thickness 0 (JuPedSim's
/// walkable polygon's edges), each hole a polygon, counter-clockwise as written.
fn geometry() -> Vec<Obstacle> {
    let path = crate::common::root().join("tests/data/jupedsim/geometry.csv");
    let text = std::fs::read_to_string(&path).expect("geometry.csv");
    let mut rings: Vec<(String, Vec<Vec2>)> = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let p = Vec2::new(f[1].parse().expect("x"), f[2].parse().expect("y"));
        match rings.last_mut() {
            Some((name, points)) if name == f[0] => points.push(p),
            _ => rings.push((f[0].to_string(), vec![p])),
        }
    }
    rings
        .into_iter()
        .map(|(name, mut points)| {
            if name == "outer" {
                points.push(points[0]);
                Obstacle::Wall { points, thickness: 0.0 }
            } else {
                Obstacle::Polygon { vertices: points }
            }
        })
        .collect()
}

/// An agent's neighbours as JuPedSim takes them: every other agent within `cutoff`, nearest
/// first.
fn neighbours(position: &[Vec2], velocity: &[Vec2], radius: &[f32], i: usize, cutoff: f32) -> Vec<Body> {
    let mut near: Vec<(f32, usize)> = (0..position.len())
        .filter(|&j| j != i)
        .map(|j| ((position[j] - position[i]).length_squared(), j))
        .filter(|&(d, _)| d <= cutoff * cutoff)
        .collect();
    near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    near.iter()
        .map(|&(_, j)| Body { offset: position[j] - position[i], velocity: velocity[j], radius: radius[j] })
        .collect()
}

/// The walls an agent at `p` reads, through the engine's `WallsNear`.
fn walls(obstacles: &[Obstacle], p: Vec2, reach: f32) -> WallsNear {
    let mut w = WallsNear::default();
    for o in obstacles {
        w.add(o, p, reach);
    }
    w
}

/// JuPedSim's defaults for the collision-free speed model, with no neighbour cap.
fn jupedsim_cfsm() -> Cfsm {
    Cfsm {
        time_gap: 1.0,
        strength: 8.0,
        range: 0.1,
        wall_strength: 5.0,
        wall_range: 0.02,
        neighbour_dist: 3.0,
        max_neighbours: 256,
        preferred_speed: None,
    }
}

/// JuPedSim's social force defaults (mass 80 kg, A = 2000 N, B = 0.08 m, k = 1.2e5 kg/s²,
/// κ = 2.4e5 kg/(m·s)) per unit of mass, with its 2.5 m cut-off and no neighbour cap.
fn jupedsim_social_force() -> SocialForce {
    SocialForce {
        relaxation_time: 0.5,
        strength: 2000.0 / 80.0,
        range: 0.08,
        wall_strength: 2000.0 / 80.0,
        body: 120000.0 / 80.0,
        friction: 240000.0 / 80.0,
        anisotropy: 1.0,
        neighbour_dist: 2.5,
        max_neighbours: 256,
        preferred_speed: None,
    }
}

fn v2(x: f64, y: f64) -> Vec2 {
    Vec2::new(x as f32, y as f32)
}

/// What one CFSM step against JuPedSim's gave: the largest velocity and orientation gaps, the
/// agents beyond tolerance, and how many agents had a neighbour hidden by a wall and a wall
/// within 0.1 of their body.
struct CfsmStep {
    worst_velocity: f32,
    worst_orientation: f32,
    off: usize,
    hidden: usize,
    at_walls: usize,
}

fn cfsm_step(m: &Cfsm, tolerance: f32) -> CfsmStep {
    let rows = rows("cfsm_onestep.csv");
    let obstacles = geometry();
    let position: Vec<Vec2> = rows.iter().map(|r| v2(r[1], r[2])).collect();
    let radius: Vec<f32> = rows.iter().map(|r| r[3] as f32).collect();
    let still = vec![Vec2::ZERO; rows.len()];
    let mut s = CfsmStep { worst_velocity: 0.0, worst_orientation: 0.0, off: 0, hidden: 0, at_walls: 0 };
    for (i, r) in rows.iter().enumerate() {
        let p = position[i];
        let mut bodies = neighbours(&position, &still, &radius, i, 3.0);
        bodies.truncate(m.max_neighbours as usize);
        let w = walls(&obstacles, p, m.neighbour_dist);
        let seen: Vec<Body> = bodies.iter().copied().filter(|b| w.in_sight(b.offset)).collect();
        s.hidden += usize::from(seen.len() < bodies.len());
        s.at_walls += usize::from(w.terms.iter().any(|t| t.distance < radius[i] + 0.1));
        let preferred = norm(v2(r[5], r[6]) - p) * r[4] as f32;
        let v =
            cfsm::new_velocity(m, Vec2::ZERO, preferred, radius[i], seen.into_iter(), w.terms.into_iter());
        let theirs = v2((r[7] - r[1]) / DT, (r[8] - r[2]) / DT);
        let orientation = v2(r[9], r[10]);
        let gap = (v - theirs).length();
        let turn = (norm(v) - orientation).length();
        s.worst_velocity = s.worst_velocity.max(gap);
        s.worst_orientation = s.worst_orientation.max(turn);
        if gap > tolerance || turn > tolerance {
            s.off += 1;
            eprintln!("agent {i}: throng {v}, JuPedSim {theirs} (orientation {orientation}): {gap}, {turn}");
        }
    }
    s
}

// The tolerance: throng reads the positions rounded to f32 (about 5e-7 m here) and computes
// in f32. The walls' repulsion has a range of 0.02 m, so a rounding of 5e-7 m in a distance
// changes a term by 2.5e-5 of itself, and a term can be 5; the direction's sum can also nearly
// cancel. 1e-3 m/s in velocity and 1e-3 in the unit orientation is well above what rounding
// gives here (the test prints the largest gaps) and far below what any difference in the
// formulas gives (a term left out or counted twice moves an agent's velocity by 0.01 m/s and
// more).

#[test]
fn one_cfsm_step_gives_jupedsims_velocities_and_orientations() {
    let s = cfsm_step(&jupedsim_cfsm(), 1e-3);
    eprintln!(
        "CFSM against JuPedSim: largest gaps {} m/s and {} in orientation; {} agents with a \
         neighbour behind a wall, {} within 0.1 m of a wall",
        s.worst_velocity, s.worst_orientation, s.hidden, s.at_walls
    );
    assert!(s.hidden >= 10, "the states hide neighbours behind walls ({})", s.hidden);
    assert!(s.at_walls >= 10, "the states press agents on walls ({})", s.at_walls);
    assert_eq!(
        s.off, 0,
        "agents beyond 1e-3 of JuPedSim (largest {} m/s, {})",
        s.worst_velocity, s.worst_orientation
    );
}

#[test]
fn without_the_sight_filter_cfsm_would_differ_from_jupedsim() {
    // The same step with every neighbour counted, hidden or not: the oracle is sharp enough to
    // see the filter.
    let rows = rows("cfsm_onestep.csv");
    let obstacles = geometry();
    let position: Vec<Vec2> = rows.iter().map(|r| v2(r[1], r[2])).collect();
    let radius: Vec<f32> = rows.iter().map(|r| r[3] as f32).collect();
    let still = vec![Vec2::ZERO; rows.len()];
    let mut off = 0;
    for (i, r) in rows.iter().enumerate() {
        let bodies = neighbours(&position, &still, &radius, i, 3.0);
        let w = walls(&obstacles, position[i], 3.0);
        let preferred = norm(v2(r[5], r[6]) - position[i]) * r[4] as f32;
        let v = cfsm::new_velocity(
            &jupedsim_cfsm(),
            Vec2::ZERO,
            preferred,
            radius[i],
            bodies.into_iter(),
            w.terms.into_iter(),
        );
        off += usize::from((v - v2((r[7] - r[1]) / DT, (r[8] - r[2]) / DT)).length() > 1e-3);
    }
    assert!(off > 0, "no agent's step depends on the sight filter: the states do not test it");
}

#[test]
fn cfsm_with_throngs_default_neighbour_cap_stays_near_jupedsim() {
    // throng's default takes the nearest 24 neighbours (JuPedSim: all within 3 m, 20 to 71
    // here, 47 on average). In these states the 25th is at least 1.68 m away, where its push
    // is below 8·e^((0.5 − 1.68)/0.1) = 6e-5 of the unit desired direction, so the cap stays
    // inside the same tolerance; at 6 agents/m² the 25th is about 1.1 m away.
    let s = cfsm_step(&Cfsm { max_neighbours: 24, ..jupedsim_cfsm() }, 1e-3);
    eprintln!("CFSM with 24 neighbours: largest gap {} m/s", s.worst_velocity);
    assert_eq!(s.off, 0, "largest gap {} m/s", s.worst_velocity);
}

/// What one social force step against JuPedSim's gave.
struct ForceStep {
    worst: f32,
    off: usize,
    touching_walls: usize,
    touching_agents: usize,
}

/// One social force step; with `jupedsim_wall_friction`, the test adds back the difference
/// of JuPedSim's wall friction, whose sign is the opposite of Helbing, Farkas and Vicsek's
/// (throng keeps the paper's): JuPedSim's term is `+κ g (v·t) t`, throng's `−κ g (v·t) t`.
fn force_step(sf: &SocialForce, tolerance: f32, jupedsim_wall_friction: bool) -> ForceStep {
    let rows = rows("sfm_onestep.csv");
    let obstacles = geometry();
    let position: Vec<Vec2> = rows.iter().map(|r| v2(r[1], r[2])).collect();
    let velocity: Vec<Vec2> = rows.iter().map(|r| v2(r[5], r[6])).collect();
    let radius: Vec<f32> = rows.iter().map(|r| r[3] as f32).collect();
    let dt = DT as f32;
    let mut s = ForceStep { worst: 0.0, off: 0, touching_walls: 0, touching_agents: 0 };
    for (i, r) in rows.iter().enumerate() {
        let (p, v) = (position[i], velocity[i]);
        let bodies = neighbours(&position, &velocity, &radius, i, sf.neighbour_dist);
        s.touching_agents += usize::from(bodies.iter().any(|b| b.offset.length() < radius[i] + b.radius));
        let w = walls(&obstacles, p, sf.neighbour_dist);
        let preferred = norm(v2(r[7], r[8]) - p) * r[4] as f32;
        let a = social_force::acceleration(
            sf,
            v,
            preferred,
            radius[i],
            bodies.into_iter(),
            w.terms.iter().copied(),
        );
        let mut mine = v + a * dt;
        let touching: Vec<_> = w.terms.iter().filter(|t| t.distance < radius[i]).collect();
        s.touching_walls += usize::from(!touching.is_empty());
        if jupedsim_wall_friction {
            for t in touching {
                let tangent = Vec2::new(-t.normal.y, t.normal.x);
                mine += 2.0 * sf.friction * (radius[i] - t.distance) * v.dot(tangent) * tangent * dt;
            }
        }
        let theirs = v2(r[11], r[12]);
        // f32 keeps about 7 digits of the velocity, which the body force makes large.
        let gap = (mine - theirs).length() / (1.0 + theirs.length());
        s.worst = s.worst.max(gap);
        if gap > tolerance {
            s.off += 1;
            eprintln!("agent {i}: throng {mine}, JuPedSim {theirs}: {gap}");
        }
    }
    s
}

// The tolerance: relative to 1 + |v|, since touching bodies make accelerations of hundreds of
// m/s² and f32 keeps about seven digits of them; the exponential's range of 0.08 m turns a
// rounding of 5e-7 m into 6e-6 of a term. 1e-4 is well above that and far below the effect
// of any term of the formula (the smallest, a far neighbour's push, is larger in this state).

#[test]
fn one_social_force_step_gives_jupedsims_velocities_but_for_the_wall_frictions_sign() {
    let s = force_step(&jupedsim_social_force(), 1e-4, true);
    eprintln!(
        "social force against JuPedSim: largest relative gap {}; {} agents touch a wall, {} another agent",
        s.worst, s.touching_walls, s.touching_agents
    );
    assert!(s.touching_walls >= 5, "the states press bodies into walls ({})", s.touching_walls);
    assert!(s.touching_agents >= 50, "the states press bodies together ({})", s.touching_agents);
    assert_eq!(s.off, 0, "agents beyond 1e-4 of JuPedSim (largest {})", s.worst);
}

#[test]
fn social_force_differs_from_jupedsim_exactly_where_a_body_slides_along_a_wall() {
    // Without adding back JuPedSim's sign, the agents that touch a wall while sliding along it
    // differ, and only they.
    let all = force_step(&jupedsim_social_force(), 1e-4, false);
    let touching = force_step(&jupedsim_social_force(), 1e-4, true).touching_walls;
    assert!(all.off > 0 && all.off <= touching, "{} agents differ, {touching} touch a wall", all.off);
}
