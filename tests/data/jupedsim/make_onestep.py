"""Reference data for throng's one-step oracle of the collision-free speed model and social force.

Drives JuPedSim 1.4.2 (pip install jupedsim==1.4.2 shapely numpy): one step of CollisionFreeSpeedModel
and of SocialForceModel from dense random states in an L-shaped room with three holes (a square
pillar, a triangle and a small block near the inner corner), so that agents press on walls, on
convex and concave corners and on each other. Each agent walks at its own target through a
direct-steering stage; JuPedSim's tactical level turns the target into the next waypoint of its
navigation mesh, which the script records, so throng can be given the same desired direction.

    python tests/data/jupedsim/make_onestep.py tests/data/jupedsim

writes geometry.csv, cfsm_onestep.csv and sfm_onestep.csv there (numbers with 17 significant
digits, so the f64 values survive). The script seeds its own generator; rerunning it gives the
same files.
"""

import csv
import random
import sys

import jupedsim as jps
import shapely
from shapely import Point, Polygon

OUTER = [(0, 0), (12, 0), (12, 6), (7, 6), (7, 10), (0, 10)]
HOLES = [
    [(3.0, 2.5), (4.5, 2.5), (4.5, 4.0), (3.0, 4.0)],
    [(2.0, 7.0), (4.0, 7.0), (3.0, 8.5)],
    [(9.0, 3.0), (10.0, 3.0), (10.0, 4.0), (9.0, 4.0)],
]
AREA = Polygon(OUTER, HOLES)
BOUNDARY = shapely.boundary(AREA)
DT = 0.01


def fmt(x):
    return repr(float(x))


def place(rng, count, radius_of, gap_to_agents, gap_to_walls):
    """`count` points in the area, none nearer another than gap_to_agents(ri, rj) allows nor nearer
    the boundary than gap_to_walls(r), drawn one by one (the same list for the same generator)."""
    minx, miny, maxx, maxy = AREA.bounds
    placed = []
    while len(placed) < count:
        r = radius_of(rng)
        p = (rng.uniform(minx, maxx), rng.uniform(miny, maxy))
        q = Point(p)
        if not AREA.contains(q) or BOUNDARY.distance(q) <= gap_to_walls(r):
            continue
        if any((p[0] - x) ** 2 + (p[1] - y) ** 2 <= gap_to_agents(r, s) ** 2 for x, y, s in placed):
            continue
        placed.append((p[0], p[1], r))
    return placed


def targets(rng, placed):
    """A target anywhere in the area for each agent, and JuPedSim's next waypoint towards it."""
    routing = jps.RoutingEngine(AREA)
    out = []
    minx, miny, maxx, maxy = AREA.bounds
    for x, y, _ in placed:
        while True:
            t = (rng.uniform(minx, maxx), rng.uniform(miny, maxy))
            if AREA.contains(Point(t)) and BOUNDARY.distance(Point(t)) > 0.5:
                break
        path = routing.compute_waypoints((x, y), t)
        out.append((t, path[1]))
    return out


def run(model, placed, params_of, goals):
    sim = jps.Simulation(model=model, geometry=AREA, dt=DT)
    stage = sim.add_direct_steering_stage()
    journey = sim.add_journey(jps.JourneyDescription([stage]))
    ids = []
    for k, p in enumerate(placed):
        ids.append(sim.add_agent(params_of(k, p, journey, stage)))
        sim.agent(ids[-1]).target = goals[k][0]
    sim.iterate()
    return sim, ids


def cfsm(out_dir, rng):
    placed = place(rng, 230, lambda g: g.uniform(0.15, 0.25), lambda a, b: a + b + 0.005, lambda r: r + 0.002)
    v0 = [rng.uniform(0.6, 1.6) for _ in placed]
    goals = targets(rng, placed)

    def params(k, p, journey, stage):
        return jps.CollisionFreeSpeedModelAgentParameters(
            position=(p[0], p[1]), time_gap=1.0, desired_speed=v0[k], radius=p[2], journey_id=journey, stage_id=stage
        )

    sim, ids = run(jps.CollisionFreeSpeedModel(), placed, params, goals)
    with open(f"{out_dir}/cfsm_onestep.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "x", "y", "radius", "v0", "waypoint_x", "waypoint_y", "new_x", "new_y", "orientation_x", "orientation_y"])
        for k, (p, i) in enumerate(zip(placed, ids)):
            a = sim.agent(i)
            wp = goals[k][1]
            w.writerow([k] + [fmt(v) for v in (p[0], p[1], p[2], v0[k], wp[0], wp[1], *a.position, *a.orientation)])


def sfm(out_dir, rng):
    # JuPedSim refuses an agent whose centre is within one radius of another's, or within half a
    # radius of a wall: bodies may overlap, so the body force and friction act.
    placed = place(rng, 260, lambda g: 0.3, lambda a, b: 0.32, lambda r: 0.55 * r)
    speed = [rng.uniform(0.6, 1.6) for _ in placed]
    vel = [(rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2)) for _ in placed]
    goals = targets(rng, placed)

    def params(k, p, journey, stage):
        return jps.SocialForceModelAgentParameters(
            position=(p[0], p[1]),
            orientation=(1.0, 0.0),
            journey_id=journey,
            stage_id=stage,
            velocity=vel[k],
            mass=80.0,
            desired_speed=speed[k],
            reaction_time=0.5,
            agent_scale=2000.0,
            obstacle_scale=2000.0,
            force_distance=0.08,
            radius=p[2],
        )

    sim, ids = run(jps.SocialForceModel(body_force=120000.0, friction=240000.0), placed, params, goals)
    with open(f"{out_dir}/sfm_onestep.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["id", "x", "y", "radius", "v0", "vx", "vy", "waypoint_x", "waypoint_y", "new_x", "new_y", "new_vx", "new_vy"]
        )
        for k, (p, i) in enumerate(zip(placed, ids)):
            a = sim.agent(i)
            wp = goals[k][1]
            nv = a.model.velocity
            w.writerow(
                [k] + [fmt(v) for v in (p[0], p[1], p[2], speed[k], *vel[k], wp[0], wp[1], *a.position, nv[0], nv[1])]
            )


def geometry(out_dir):
    with open(f"{out_dir}/geometry.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ring", "x", "y"])
        for name, ring in [("outer", OUTER)] + [(f"hole{k}", h) for k, h in enumerate(HOLES)]:
            for x, y in ring:
                w.writerow([name, fmt(x), fmt(y)])


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    assert jps.__version__ == "1.4.2", f"made with jupedsim 1.4.2, found {jps.__version__}"
    geometry(out)
    cfsm(out, random.Random(47))
    sfm(out, random.Random(48))
    print(f"dt {DT}: wrote geometry.csv, cfsm_onestep.csv, sfm_onestep.csv to {out}")
