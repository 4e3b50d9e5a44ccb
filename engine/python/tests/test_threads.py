"""Ticks run with the GIL released, and Ctrl-C stops a run between ticks with the state
intact."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

import throng


def big(scenarios):
    return throng.Scenario.load(scenarios / "bench" / "crowd.toml", overrides={"agents": 20_000})


def test_other_python_threads_run_while_ticks_do(scenarios):
    sim = throng.Simulation(big(scenarios), threads=1)
    counted = 0
    done = threading.Event()

    def count():
        nonlocal counted
        while not done.is_set():
            counted += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.perf_counter()
    sim.run(30)
    elapsed = time.perf_counter() - start
    done.set()
    t.join()
    assert counted > elapsed * 100, f"the counter ran {counted} times in {elapsed:.2f} s"


@pytest.mark.skipif(os.name != "posix", reason="SIGINT from a thread is POSIX")
def test_ctrl_c_raises_keyboard_interrupt_between_ticks(scenarios):
    scenario = big(scenarios)
    sim = throng.Simulation(scenario, threads=2)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        sim.run(3000)
    timer.join()
    stopped_at = sim.tick
    assert 0 < stopped_at < 3000, "the interrupt stopped the run"
    again = throng.Simulation(scenario, threads=1)
    again.run(stopped_at)
    assert again.hash == sim.hash, "the state is that of a whole tick"
