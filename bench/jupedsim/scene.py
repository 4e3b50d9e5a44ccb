"""The scene throng is raced on against JuPedSim, described once and built for both.

N agents on a jittered 1.4 m lattice (about 0.5 per m²) in a walled square room, all walking to
an exit strip on the east side; dt 0.01 s; JuPedSim's defaults for the model (radius 0.2 m,
desired speed 1.34 m/s; CFSM's time gap 1 s), which are throng's defaults for the same model.
`race.py` and `bench/python/loop_cost.py` build it.
"""

from __future__ import annotations

import math
import random

SPACING = 1.4
DT = 0.01
RADIUS = 0.2
SPEED = 1.34


def lattice(n: int) -> tuple[list[tuple[float, float]], float]:
    """N jittered lattice points (seeded), and the room's side."""
    side = int(math.ceil(math.sqrt(n)))
    rng = random.Random(1)
    points: list[tuple[float, float]] = []
    for i in range(side):
        for j in range(side):
            if len(points) < n:
                points.append(
                    (2 + i * SPACING + rng.uniform(-0.2, 0.2), 2 + j * SPACING + rng.uniform(-0.2, 0.2))
                )
    return points, side * SPACING + 4


def throng_toml(points: list[tuple[float, float]], size: float, model: str, ticks: int = 1_000_000) -> str:
    """The scene as a throng scenario; `model` is "cfsm" or "social_force"."""
    listed = ", ".join(f"[{x:.4f}, {y:.4f}]" for x, y in points)
    return f"""version = 1
name = "jupedsim_race"
seed = 1
dt = {DT}
ticks = {ticks}
index = "grid"
obstacles = [
  {{ kind = "wall", points = [[0, 0], [{size + 2}, 0], [{size + 2}, {size}], [0, {size}]], thickness = 0.0 }},
  {{ kind = "wall", points = [[0, {size}], [0, 0]], thickness = 0.0 }},
]
[bounds]
min = [-1, -1]
max = [{size + 3}, {size + 1}]
[targets.east]
kind = "point"
position = [{size + 1}, {size / 2}]
[[exits]]
name = "east"
kind = "rect"
min = [{size}, 0.5]
max = [{size + 1.9}, {size - 0.5}]
[[groups]]
name = "crowd"
spawn = {{ kind = "points", points = [{listed}] }}
max_speed = {SPEED}
max_force = 5.0
radius = {RADIUS}
model = "{model}"
[[groups.behaviours]]
kind = "seek"
target = "east"
"""


def jupedsim_simulation(points: list[tuple[float, float]], size: float, model: str):
    """The scene as a JuPedSim 1.4 simulation; `model` is "cfsm" or "social_force"."""
    import jupedsim as jps
    from shapely import Polygon

    jmodel = jps.CollisionFreeSpeedModel() if model == "cfsm" else jps.SocialForceModel()
    sim = jps.Simulation(
        model=jmodel, geometry=Polygon([(0, 0), (size + 2, 0), (size + 2, size), (0, size)]), dt=DT
    )
    exit_ = sim.add_exit_stage(
        Polygon([(size, 0.5), (size + 1.9, 0.5), (size + 1.9, size - 0.5), (size, size - 0.5)])
    )
    journey = sim.add_journey(jps.JourneyDescription([exit_]))
    for p in points:
        if model == "cfsm":
            params = jps.CollisionFreeSpeedModelAgentParameters(
                journey_id=journey, stage_id=exit_, position=p, radius=RADIUS, desired_speed=SPEED, time_gap=1.0
            )
        else:
            params = jps.SocialForceModelAgentParameters(
                journey_id=journey, stage_id=exit_, position=p, radius=RADIUS, desired_speed=SPEED
            )
        sim.add_agent(params)
    return sim
