"""What driving throng from Python costs, beside JuPedSim's own Python loop on the same scene.

The scene (one description, built for both engines): N agents on a jittered 1.4 m lattice in a
walled square room, all walking to an exit strip on the east side, collision-free speed model,
dt 0.01 s, JuPedSim's defaults (radius 0.2 m, desired speed 1.34 m/s, time gap 1 s). Timed,
interleaved, in one process, medians over REPEATS rounds of TICKS ticks each:

  throng run(n)        sim.run(TICKS): the whole loop in Rust
  throng step()        for _ in range(TICKS): sim.step()
  throng step()+read   the same, reading sim.positions (a numpy copy) after every tick
  jupedsim iterate()   for _ in range(TICKS): sim.iterate()
  jupedsim +read       the same, reading every agent's position after every iteration

    python3 -m venv v && v/bin/pip install ./engine/python jupedsim==1.4.2 shapely numpy
    v/bin/python bench/python/loop_cost.py 1000 100000    # agent counts; THREADS=2 TICKS=30 REPEATS=3
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import statistics
import sys
import time

import numpy as np

import throng

THREADS = int(os.environ.get("THREADS", "2"))
TICKS = int(os.environ.get("TICKS", "30"))
REPEATS = int(os.environ.get("REPEATS", "3"))
WARM = 10


def lattice(n: int) -> tuple[list[tuple[float, float]], float]:
    """N jittered lattice points, and the room's side."""
    spacing, side = 1.4, int(math.ceil(math.sqrt(n)))
    rng = random.Random(1)
    points = []
    for i in range(side):
        for j in range(side):
            if len(points) < n:
                points.append((2 + i * spacing + rng.uniform(-0.2, 0.2), 2 + j * spacing + rng.uniform(-0.2, 0.2)))
    return points, side * spacing + 4


def throng_scenario(points, size: float) -> throng.Scenario:
    listed = ", ".join(f"[{x:.4f}, {y:.4f}]" for x, y in points)
    text = f"""version = 1
name = "python_loop"
seed = 1
dt = 0.01
ticks = 1000000
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
max_speed = 1.34
max_force = 5.0
radius = 0.2
model = "cfsm"
[[groups.behaviours]]
kind = "seek"
target = "east"
"""
    return throng.Scenario.from_toml(text, origin="python_loop.toml")


def jupedsim_sim(points, size: float):
    import jupedsim as jps
    from shapely import Polygon

    sim = jps.Simulation(
        model=jps.CollisionFreeSpeedModel(),
        geometry=Polygon([(0, 0), (size + 2, 0), (size + 2, size), (0, size)]),
        dt=0.01,
    )
    exit_ = sim.add_exit_stage(Polygon([(size, 0.5), (size + 1.9, 0.5), (size + 1.9, size - 0.5), (size, size - 0.5)]))
    journey = sim.add_journey(jps.JourneyDescription([exit_]))
    for p in points:
        sim.add_agent(
            jps.CollisionFreeSpeedModelAgentParameters(
                journey_id=journey, stage_id=exit_, position=p, radius=0.2, desired_speed=1.34, time_gap=1.0
            )
        )
    return sim


def timed(f) -> float:
    """Milliseconds per tick of f() running TICKS ticks."""
    start = time.perf_counter()
    f()
    return 1000 * (time.perf_counter() - start) / TICKS


def race(n: int) -> dict[str, float]:
    points, size = lattice(n)
    scenario = throng_scenario(points, size)
    sims = {name: throng.Simulation(scenario, threads=THREADS, metrics=False) for name in ("run", "step", "read")}
    for s in sims.values():
        s.run(WARM)
    modes = {
        "throng run(n)": lambda: sims["run"].run(TICKS),
        "throng step()": lambda: [sims["step"].step() for _ in range(TICKS)],
        "throng step()+read": lambda: [(sims["read"].step(), sims["read"].positions) for _ in range(TICKS)],
    }
    try:
        jsims = {name: jupedsim_sim(points, size) for name in ("iterate", "read")}
        for s in jsims.values():
            s.iterate(WARM)
        modes["jupedsim iterate()"] = lambda: [jsims["iterate"].iterate() for _ in range(TICKS)]
        modes["jupedsim +read"] = lambda: [
            (jsims["read"].iterate(), np.array([a.position for a in jsims["read"].agents()])) for _ in range(TICKS)
        ]
    except ImportError:
        print("jupedsim is not installed: timing throng alone", file=sys.stderr)
    times: dict[str, list[float]] = {m: [] for m in modes}
    for _ in range(REPEATS):
        for mode, f in modes.items():
            times[mode].append(timed(f))
    return {mode: statistics.median(t) for mode, t in times.items()}


def main() -> None:
    counts = [int(a) for a in sys.argv[1:]] or [1000, 100000]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, threads={THREADS}, "
          f"ticks={TICKS}, repeats={REPEATS}, throng {throng.__version__}")
    results = {}
    for n in counts:
        results[n] = race(n)
        base = results[n]["throng run(n)"]
        for mode, ms in results[n].items():
            print(f"{n:>8} agents  {mode:<20} {ms:9.3f} ms/tick  {ms / base:6.2f}x run(n)")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
