"""One whole run in JuPedSim 1.4.2, for tests/oracle/jupedsim_runs.rs: reads a scene as JSON on
stdin, runs it, and prints each agent's time out as JSON on stdout.

The scene: {"model": "cfsm" | "social_force", "dt": s, "max_time": s,
            "walkable": {"outer": [[x, y], ...], "holes": [[[x, y], ...], ...]},
            "obstacles": [{"polygon": [[x, y], ...]} | {"wall": [[x, y], ...], "thickness": t}, ...],
            "areas": [[min_x, min_y, max_x, max_y], ...], "contacts": tolerance,
            "exits": [[[x, y], ...], ...],
            "agents": [{"x": .., "y": .., "radius": .., "v0": .., "t0": s, "exit": k | "stay": true}, ...],
            "model_parameters": {...}, "agent_parameters": {...}}
Each agent enters at t0 (an agent JuPedSim refuses there, overlapping another, tries again each
step) and walks to its exit (a polygon, where JuPedSim removes it) with the model's JuPedSim
defaults, its own radius and desired speed (or, where given, "model_parameters" passed to the
model's constructor and "agent_parameters" to every agent's, by JuPedSim's names, e.g.
{"strength_neighbor_repulsion": 10} and {"time_gap": 0.6}); one that stays stands where it is. The obstacles
(optional) are cut out of the walkable area: a polygon as it is, a wall as every point within
half its thickness of its polyline, as throng's. The answer: {"out_s": [s or null per agent],
"time_s": s at the end, "most_in_area": [the most agents inside each area at the end of any
step], "collisions_per_agent": n}. The last is there when "contacts" is given: how many times,
per agent that lived, an agent began to overlap another by more than the tolerance (SteerBench's
unique collisions, as throng's `steerbench.collisions` counts them between agents). The run
stops when everyone is out or at max_time.

Needs: pip install jupedsim==1.4.2 shapely
"""

import json
import sys

import jupedsim as jps
import numpy as np
from shapely import LineString, Polygon, unary_union


def main():
    scene = json.load(sys.stdin)
    walkable = Polygon(scene["walkable"]["outer"], scene["walkable"].get("holes", []))
    cut = [
        Polygon(o["polygon"]) if "polygon" in o else LineString(o["wall"]).buffer(o["thickness"] / 2, quad_segs=8)
        for o in scene.get("obstacles", [])
    ]
    if cut:
        walkable = walkable.difference(unary_union(cut))
        if walkable.geom_type != "Polygon":
            # Pieces no agent can reach (closed off by walls) are dropped: JuPedSim takes one.
            walkable = max(walkable.geoms, key=lambda g: g.area)
    areas = scene.get("areas", [])
    most_in_area = [0] * len(areas)
    tolerance = scene.get("contacts")
    touching = set()
    collisions = {}
    model_parameters = scene.get("model_parameters", {})
    agent_parameters = scene.get("agent_parameters", {})
    if scene["model"] == "cfsm":
        model = jps.CollisionFreeSpeedModel(**model_parameters)
    else:
        model = jps.SocialForceModel(**model_parameters)
    sim = jps.Simulation(model=model, geometry=walkable, dt=scene["dt"])
    journeys = []
    for exit_polygon in scene["exits"]:
        stage = sim.add_exit_stage(Polygon(exit_polygon))
        journeys.append((sim.add_journey(jps.JourneyDescription([stage])), stage))
    ids = {}
    pending = sorted(range(len(scene["agents"])), key=lambda k: scene["agents"][k]["t0"])
    out = [None] * len(scene["agents"])

    def add(k):
        a = scene["agents"][k]
        position = (a["x"], a["y"])
        if a.get("stay"):
            stage = sim.add_waypoint_stage(position, 0.1)
            journey, stage = sim.add_journey(jps.JourneyDescription([stage])), stage
        else:
            journey, stage = journeys[a["exit"]]
        kind = jps.CollisionFreeSpeedModelAgentParameters if scene["model"] == "cfsm" else jps.SocialForceModelAgentParameters
        params = kind(
            position=position,
            radius=a["radius"],
            desired_speed=a["v0"],
            journey_id=journey,
            stage_id=stage,
            **agent_parameters,
        )
        ids[sim.add_agent(params)] = k

    while True:
        waiting = []
        for k in pending:
            if scene["agents"][k]["t0"] <= sim.elapsed_time() + 1e-9:
                try:
                    add(k)
                except Exception:
                    waiting.append(k)
            else:
                waiting.append(k)
        pending = waiting
        moving = any(not scene["agents"][ids[i]].get("stay") for i in ids)
        if (not pending and not moving) or sim.elapsed_time() >= scene["max_time"]:
            break
        sim.iterate()
        for removed in sim.removed_agents():
            out[ids.pop(removed)] = sim.elapsed_time()
        if areas or tolerance is not None:
            agents = sorted((a for a in sim.agents() if a.id in ids), key=lambda a: ids[a.id])
            xy = np.array([a.position for a in agents]).reshape(-1, 2)
            for k, (x0, y0, x1, y1) in enumerate(areas):
                inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
                most_in_area[k] = max(most_in_area[k], int(inside.sum()))
            if tolerance is not None:
                who = [ids[a.id] for a in agents]
                for k in who:
                    collisions.setdefault(k, 0)
                radius = np.array([scene["agents"][k]["radius"] for k in who])
                gap = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) - radius[:, None] - radius[None, :]
                first, second = np.nonzero(np.triu(gap < -tolerance, 1))
                now = {(who[i], who[j]) for i, j in zip(first, second)}
                for i, j in now - touching:
                    collisions[i] += 1
                    collisions[j] += 1
                touching = now
    answer = {"out_s": out, "time_s": sim.elapsed_time(), "most_in_area": most_in_area}
    if tolerance is not None:
        answer["collisions_per_agent"] = sum(collisions.values()) / max(len(collisions), 1)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    assert jps.__version__ == "1.4.2", f"made for jupedsim 1.4.2, found {jps.__version__}"
    main()
