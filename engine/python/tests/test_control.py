"""Control between ticks: a door the program opens is the door an event opens, bit for bit;
agents added, removed and given goals; the same calls give the same hashes at any thread
count; queries by place."""

from __future__ import annotations

import numpy as np
import pytest

import throng
from conftest import room


def test_a_door_opened_from_python_equals_the_same_action_as_an_event():
    by_event = throng.Simulation(throng.Scenario.from_toml(room(True)), threads=2)
    by_program = throng.Simulation(throng.Scenario.from_toml(room(False)), threads=3)
    for tick in range(120):
        if tick == 20:
            by_program.open(door="door")
        by_event.step()
        by_program.step()
        assert np.array_equal(by_event.ids, by_program.ids), tick
        assert np.array_equal(by_event.positions, by_program.positions), tick
        assert np.array_equal(by_event.velocities, by_program.velocities), tick
    assert by_program.metrics()["agents_exited"][-1] > 0, "agents left through the door"
    assert by_event.events()[0]["first_tick"] == 20


def play(threads: int, index: str) -> str:
    """A program's calls at fixed ticks; returns the final hash."""
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)), threads=threads, index=index)
    sim.run(10)
    walkers = sim.add_agents("walkers", [[2.0, 2.0], [3.0, 8.0], [4.0, 5.0]])
    assert walkers.tolist() == [30, 31, 32]
    sim.set_goal(int(walkers[0]), (7.0, 7.0))
    sim.set_goal(int(walkers[1]), np.array([2.0, 2.0]))
    sim.run(10)
    sim.fire("open", door="door")
    sim.fire("set", set={"groups.crowd.max_speed": 0.9})
    burst = sim.fire(
        "spawn", group="crowd", count=5, region={"kind": "rect", "min": [1, 1], "max": [3, 3]}
    )
    assert burst.tolist() == [33, 34, 35, 36, 37]
    sim.remove_agents([int(walkers[2]), 0])
    sim.run(30)
    sim.close(door="door")
    sim.fire("move_target", target="out", to=[18, 6])
    sim.run(20)
    return sim.hash


def test_the_same_calls_give_the_same_hash_at_any_thread_count_and_index():
    hashes = {play(t, i) for t, i in [(1, "kd"), (2, "grid"), (3, "kd"), (4, "brute"), (8, "grid")]}
    assert len(hashes) == 1


def test_a_goal_steers_its_agent_there():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    (walker,) = sim.add_agents("walkers", [[2.0, 5.0]]).tolist()
    sim.set_goal(walker, [8.0, 8.0])
    sim.run(150)
    assert np.linalg.norm(sim.positions[sim.row_of(walker)] - [8.0, 8.0]) < 0.3


def test_removed_agents_are_gone_and_counted():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    ids = sim.ids[:3].tolist()
    sim.remove_agents(ids)
    assert all(sim.row_of(i) is None for i in ids)
    assert sim.agent_count == 27
    removed = sim.fire("remove", region={"kind": "rect", "min": [0, 0], "max": [20, 10]})
    assert removed.size == 0 and sim.agent_count == 0


def test_queries_by_place_match_a_scan_of_every_agent():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    sim.run(5)
    centre, radius = np.array([4.0, 5.0], dtype=np.float32), 2.0
    found = sim.query_radius(centre, radius).tolist()
    d = np.linalg.norm(sim.positions - centre, axis=1)
    inside = [int(i) for _, i in sorted(zip(d[d <= radius].tolist(), sim.ids[d <= radius].tolist()))]
    assert set(found) == set(inside) and len(found) == len(inside) > 0
    near = sim.neighbours_of(int(sim.ids[0]))
    assert int(sim.ids[0]) not in near.tolist()


def test_a_stop_action_ends_the_run():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    sim.run(3)
    sim.fire("stop")
    assert sim.stopped
    assert sim.run(10) == 0 and sim.tick == 3


def test_bad_calls_are_refused_and_change_nothing():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    before = sim.hash
    with pytest.raises(throng.ControlError, match="no live agent has id 999"):
        sim.remove_agents([0, 999])
    with pytest.raises(throng.ControlError, match="own"):
        sim.set_goal(0, [1, 1])
    with pytest.raises(throng.ControlError, match="no group is named"):
        sim.add_agents("nobody", [[1, 1]])
    with pytest.raises(TypeError, match="expected 2 numbers"):
        sim.add_agents("walkers", [[1, 1, 1]])
    with pytest.raises(TypeError, match="not finite"):
        sim.add_agents("walkers", [[1, 1], [float("nan"), 1]])
    with pytest.raises(TypeError, match="exactly one of"):
        sim.open(door="door", exit="out")
    with pytest.raises(throng.ScenarioError) as e:
        sim.open(door="dor")
    assert e.value.key == "door" and "did you mean" in e.value.message
    with pytest.raises(throng.ScenarioError) as e:
        sim.fire("spawn", group="crowd", count=0, region={"kind": "rect", "min": [1, 1], "max": [2, 2]})
    assert e.value.key == "count"
    with pytest.raises(throng.ScenarioError) as e:
        sim.fire("open", door="door", at_s=3)
    assert e.value.key == "at_s"
    assert sim.hash == before and sim.agent_count == 30
