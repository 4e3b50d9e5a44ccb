"""What driving throng from Python costs, beside JuPedSim's own Python loop on the same scene.

The scene is bench/jupedsim/scene.py's (one description, built for both engines): N agents on
a jittered 1.4 m lattice in a walled square room walking to an exit strip on the east side,
collision-free speed model, dt 0.01 s, JuPedSim's defaults. Timed,
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
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import throng

sys.path.insert(0, str(Path(__file__).parents[1] / "jupedsim"))
import scene  # noqa: E402  (the scene, described once for both engines)

THREADS = int(os.environ.get("THREADS", "2"))
TICKS = int(os.environ.get("TICKS", "30"))
REPEATS = int(os.environ.get("REPEATS", "3"))
WARM = 10


def timed(f) -> float:
    """Milliseconds per tick of f() running TICKS ticks."""
    start = time.perf_counter()
    f()
    return 1000 * (time.perf_counter() - start) / TICKS


def race(n: int) -> dict[str, float]:
    points, size = scene.lattice(n)
    scenario = throng.Scenario.from_toml(scene.throng_toml(points, size, "cfsm"), origin="python_loop.toml")
    sims = {name: throng.Simulation(scenario, threads=THREADS, metrics=False) for name in ("run", "step", "read")}
    for s in sims.values():
        s.run(WARM)
    modes = {
        "throng run(n)": lambda: sims["run"].run(TICKS),
        "throng step()": lambda: [sims["step"].step() for _ in range(TICKS)],
        "throng step()+read": lambda: [(sims["read"].step(), sims["read"].positions) for _ in range(TICKS)],
    }
    try:
        jsims = {name: scene.jupedsim_simulation(points, size, "cfsm") for name in ("iterate", "read")}
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
