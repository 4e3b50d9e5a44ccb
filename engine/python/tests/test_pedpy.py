"""A trajectory goes straight to PedPy: the classic density it computes in a measurement area
is the count over the area throng measures itself."""

from __future__ import annotations

import numpy as np
import pytest

import throng
from conftest import room

pedpy = pytest.importorskip("pedpy")
shapely = pytest.importorskip("shapely")


def test_pedpy_computes_the_density_throng_measures():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)), threads=2)
    sim.open(door="door")
    sim.record_trajectory(every=2)
    sim.run(100)
    trajectory, walkable = sim.to_pedpy()
    assert isinstance(trajectory, pedpy.TrajectoryData)
    assert trajectory.frame_rate == pytest.approx(1 / (2 * sim.dt))
    assert walkable.polygon.area == pytest.approx(20 * 10 - 2 * 4 * 1, rel=1e-6), "room minus walls"
    area = pedpy.MeasurementArea([(1, 1), (9, 1), (9, 9), (1, 9)])
    density = pedpy.compute_classic_density(traj_data=trajectory, measurement_area=area)
    ours = sim.metrics()["measure_room_density"][::2]
    assert len(density) == len(ours) == 51
    assert np.allclose(density["density"].to_numpy(), ours)
    assert density["density"].iloc[0] > 0.2 and density["density"].iloc[-1] < density["density"].iloc[0]


def test_without_a_recording_to_pedpy_says_what_to_do():
    sim = throng.Simulation(throng.Scenario.from_toml(room(False)))
    with pytest.raises(throng.SimulationError, match="record_trajectory"):
        sim.to_pedpy()
