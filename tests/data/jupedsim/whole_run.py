"""One whole run in JuPedSim 1.4.2, for tests/oracle/jupedsim_runs.rs: reads a scene as JSON on
stdin, runs it, and prints each agent's time out as JSON on stdout.

The scene: {"model": "cfsm" | "social_force", "dt": s, "max_time": s,
            "walkable": {"outer": [[x, y], ...], "holes": [[[x, y], ...], ...]},
            "exits": [[[x, y], ...], ...],
            "agents": [{"x": .., "y": .., "radius": .., "v0": .., "t0": s, "exit": k | "stay": true}, ...]}
Each agent enters at t0 (an agent JuPedSim refuses there, overlapping another, tries again each
step) and walks to its exit (a polygon, where JuPedSim removes it) with the model's JuPedSim
defaults, its own radius and desired speed; one that stays stands where it is. The answer: {"out_s": [s or null per agent],
"time_s": s at the end}. The run stops when everyone is out or at max_time.

Needs: pip install jupedsim==1.4.2 shapely
"""

import json
import sys

import jupedsim as jps
from shapely import Polygon


def main():
    scene = json.load(sys.stdin)
    walkable = Polygon(scene["walkable"]["outer"], scene["walkable"].get("holes", []))
    if scene["model"] == "cfsm":
        model = jps.CollisionFreeSpeedModel()
    else:
        model = jps.SocialForceModel()
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
        params = kind(position=position, radius=a["radius"], desired_speed=a["v0"], journey_id=journey, stage_id=stage)
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
    json.dump({"out_s": out, "time_s": sim.elapsed_time()}, sys.stdout)


if __name__ == "__main__":
    assert jps.__version__ == "1.4.2", f"made for jupedsim 1.4.2, found {jps.__version__}"
    main()
