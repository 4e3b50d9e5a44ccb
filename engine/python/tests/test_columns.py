"""Columns are numpy arrays of the documented shapes and dtypes, read-only copies in row
order; a DataFrame holds the same values."""

from __future__ import annotations

import numpy as np
import pytest

import throng


@pytest.fixture
def sim(scenarios):
    s = throng.Simulation(throng.Scenario.load(scenarios / "doorway.toml"), threads=2)
    s.run(50)
    return s


def test_columns_have_the_documented_shapes_and_dtypes(sim):
    n = sim.agent_count
    assert sim.positions.shape == (n, 2) and sim.positions.dtype == np.float32
    assert sim.velocities.shape == (n, 2) and sim.velocities.dtype == np.float32
    assert sim.ids.shape == (n,) and sim.ids.dtype == np.uint32
    assert sim.groups.shape == (n,) and sim.groups.dtype == np.uint16
    assert sim.radii.shape == (n,) and sim.radii.dtype == np.float32
    assert sim.max_speeds.shape == (n,) and sim.max_speeds.dtype == np.float32
    assert len(set(sim.ids.tolist())) == n, "ids are unique"


def test_columns_are_read_only_copies(sim):
    p = sim.positions
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    before = p.copy()
    sim.step()
    assert np.array_equal(p, before), "an array taken earlier does not change under it"


def test_a_row_is_the_row_of_its_id(sim):
    ids, positions = sim.ids, sim.positions
    for row in (0, len(ids) // 2, len(ids) - 1):
        assert sim.row_of(int(ids[row])) == row
    assert sim.row_of(10**6) is None
    assert np.array_equal(positions[sim.row_of(int(ids[3]))], positions[3])


def test_time_and_tick_follow_the_scenarios_dt(sim):
    assert sim.tick == 50
    assert sim.time_s == pytest.approx(50 * sim.dt)
    assert sim.dt == pytest.approx(0.1)


def test_the_agents_frame_holds_the_columns(sim):
    pandas = pytest.importorskip("pandas")
    frame = sim.agents_frame()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["id", "group", "x", "y", "vx", "vy", "radius"]
    assert len(frame) == sim.agent_count
    assert set(frame["group"]) == {"crowd"}
    assert np.array_equal(frame["x"].to_numpy(), sim.positions[:, 0])


def test_metrics_are_columns_named_as_the_metrics_file_names_them(sim):
    m = sim.metrics()
    assert m["tick"].tolist() == list(range(0, 51)), "the start, then every tick"
    assert m["agents_active"].dtype == np.int64 and m["mean_speed"].dtype == np.float64
    assert m["agents_active"][-1] == sim.agent_count
    assert "gate_door" in m and "gate_door_flow" in m
    frame = sim.metrics_frame()
    assert len(frame) == 51


def test_metrics_off_leaves_empty_columns(scenarios):
    sim = throng.Simulation(throng.Scenario.load(scenarios / "doorway.toml"), metrics=False)
    sim.run(5)
    assert len(sim.metrics()["tick"]) == 0
    assert sim.verdicts() == []


def test_ticks_iterate_and_run_until_stops_when_asked(scenarios):
    sim = throng.Simulation(throng.Scenario.load(scenarios / "doorway.toml"))
    assert list(sim.ticks(3)) == [1, 2, 3]
    ran = sim.run_until(lambda s: s.metrics()["agents_exited"][-1] >= 5, max_ticks=2000)
    assert sim.metrics()["agents_exited"][-1] >= 5
    assert ran == sim.tick - 3


def test_without_pandas_the_frames_are_polars(sim, monkeypatch):
    polars = pytest.importorskip("polars")
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # `import pandas` fails
    frame = sim.agents_frame()
    assert isinstance(frame, polars.DataFrame)
    assert frame.columns == ["id", "group", "x", "y", "vx", "vy", "radius"]
    assert frame["id"].to_list() == sim.ids.tolist()
    assert isinstance(sim.metrics_frame(), polars.DataFrame)


def test_journey_and_party_columns_name_their_stages_and_parties(scenarios):
    station = throng.Scenario.load(scenarios / "station.toml")
    assert station.journey_names == ["spread", "nearest"]
    assert station.stage_names[:2] == ["stairs_a", "stairs_b"]
    s = throng.Simulation(station, threads=2)
    s.run(200)
    n = s.agent_count
    assert n > 0 and s.journeys.shape == (n,) and s.journeys.dtype == np.uint16
    assert s.stages.dtype == np.uint16 and s.parties.dtype == np.uint32
    assert set(s.journeys.tolist()) == {0}, "every passenger is on `spread`"
    assert set(s.stages.tolist()) <= set(range(len(station.stage_names)))
    assert (s.parties == 4294967295).all(), "no one walks in a party here"

    walk = throng.Simulation(throng.Scenario.load(scenarios / "parties" / "walking_parties.toml"))
    ids, parties = walk.ids, walk.parties
    members = parties[parties != 4294967295]
    # Half the 60 walk in pairs, a quarter in triples: 15 pairs and 5 triples.
    sizes = np.unique(np.unique(members, return_counts=True)[1], return_counts=True)
    assert dict(zip(sizes[0].tolist(), sizes[1].tolist())) == {2: 15, 3: 5}
    # A party's id is one of its members'.
    assert set(members.tolist()) <= set(ids.tolist())
