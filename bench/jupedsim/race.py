"""Races throng's collision-free speed model and social force against JuPedSim 1.4.2 on the
same scene (scene.py), interleaved, and prints each ratio: JuPedSim's ms per iteration over
throng's ms per tick (`throng bench`, median of its repeats). Run by race.sh.

throng runs each scene with each sensing skin of SKINS (`--sensing-skin`: each agent's sensing
candidates, found within its radius plus the skin, are reused while they hold); `auto` passes no
skin, so the scene's default (`sensing_skin = "auto"`) picks one, and the line shows the skin
the run ended with. A skin changes no result, bit for bit (docs/pipeline.md); it is a cache,
like the choice of index, so the scene is the same with any. At dt 0.01 s an agent walks 0.013
m a tick, and the automatic skin, 0.5 m, keeps the candidates for about 17 ticks.

    python race.py THRONG_BINARY [AGENTS ...]      # default 10000 100000
    environment: MODELS=cfsm,social_force THREADS=1,2 SKINS=0,auto ROUNDS=2 ITER=50 WARM=10
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import scene  # noqa: E402

MODELS = os.environ.get("MODELS", "cfsm,social_force").split(",")
THREADS = [int(t) for t in os.environ.get("THREADS", "1,2").split(",")]
SKINS = os.environ.get("SKINS", "0,auto").split(",")
ROUNDS = int(os.environ.get("ROUNDS", "2"))
ITER = int(os.environ.get("ITER", "50"))
WARM = int(os.environ.get("WARM", "10"))


def jupedsim_ms(points, size: float, model: str) -> float:
    """JuPedSim's ms per iteration (it runs on one thread) over ITER iterations after WARM, in
    a child process of its own, as throng's runs are."""
    code = f"""
import json, sys, time
sys.path.insert(0, {str(Path(__file__).parent)!r})
import scene
points, size = scene.lattice({len(points)})
sim = scene.jupedsim_simulation(points, size, {model!r})
sim.iterate({WARM})
t = time.perf_counter(); sim.iterate({ITER}); t = time.perf_counter() - t
print(json.dumps(1000 * t / {ITER}))
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def throng_ms(binary: str, path: Path, threads: int, skin: str) -> tuple[float, float]:
    """throng's ms per tick, and the sensing skin the run ended with."""
    chosen = [] if skin == "auto" else ["--sensing-skin", skin]
    out = subprocess.run(
        [binary, "bench", str(path), "--threads", str(threads), "--ticks", str(ITER), "--warmup", str(WARM),
         "--repeats", "3", "--index", "grid", *chosen, "--json", "--quiet"],
        check=True, capture_output=True, text=True,
    )
    result = json.loads(out.stdout)["results"][0]
    return result["ms_per_tick"], result["sensing_skin"]


def main() -> None:
    binary = sys.argv[1]
    counts = [int(a) for a in sys.argv[2:]] or [10_000, 100_000]
    print(f"# {time.strftime('%Y-%m-%d')}, threads {THREADS}, {ITER} iterations after {WARM}, {ROUNDS} rounds")
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            points, size = scene.lattice(n)
            for model in MODELS:
                path = Path(tmp) / f"{model}-{n}.toml"
                path.write_text(scene.throng_toml(points, size, model))
                for rnd in range(1, ROUNDS + 1):
                    j = jupedsim_ms(points, size, model)
                    for t in THREADS:
                        for skin in SKINS:
                            ours, used = throng_ms(binary, path, t, skin)
                            print(f"round {rnd} {model:<12} n={n:<7} threads={t} skin={skin}={used:<4} "
                                  f"jupedsim {j:8.2f} ms  throng {ours:7.2f} ms  ratio {j / ours:5.2f}x",
                                  flush=True)


if __name__ == "__main__":
    main()
