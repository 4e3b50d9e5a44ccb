"""The same run from Python and from the command line gives the same state hash."""

from __future__ import annotations

import pytest

import throng
from conftest import cli_run


@pytest.mark.parametrize("threads", [1, 2])
def test_the_doorway_from_python_ends_with_the_command_lines_hash(scenarios, throng_bin, threads):
    path = scenarios / "doorway.toml"
    sim = throng.Simulation(throng.Scenario.load(path), threads=threads)
    ran = sim.run()
    cli = cli_run(throng_bin, str(path), "--threads", str(threads))
    assert ran == cli["ticks"] == sim.scenario.ticks
    assert sim.hash == cli["hash"]


def test_overrides_and_a_seed_are_the_command_lines_set_and_seed(scenarios, throng_bin):
    path = scenarios / "doorway.toml"
    scenario = throng.Scenario.load(path, overrides={"groups.crowd.max_speed": 1.8, "agents": 60})
    assert scenario.overrides == ["agents = 60", "groups.crowd.max_speed = 1.8"]
    sim = throng.Simulation(scenario, threads=2, index="grid", seed=11)
    sim.run(150)
    cli = cli_run(
        throng_bin,
        str(path),
        "--set",
        "groups.crowd.max_speed=1.8",
        "--agents",
        "60",
        "--seed",
        "11",
        "--ticks",
        "150",
    )
    assert sim.agent_count <= 60 and sim.seed == 11
    assert sim.hash == cli["hash"]


def test_a_run_is_the_same_at_any_thread_count_and_index(scenarios):
    scenario = throng.Scenario.load(scenarios / "flock.toml")
    hashes = set()
    for threads, index in [(1, "kd"), (2, "grid"), (3, "brute"), (4, None)]:
        sim = throng.Simulation(scenario, threads=threads, index=index)
        sim.run(40)
        hashes.add(sim.hash)
    assert len(hashes) == 1
