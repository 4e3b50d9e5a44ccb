"""throng: a fast, deterministic crowd and steering-behaviour simulation engine.

Load a scenario, run it, read the agents as numpy arrays, control it between ticks and hand
the trajectories to PedPy::

    import throng
    scenario = throng.Scenario.load("scenarios/doorway.toml")
    sim = throng.Simulation(scenario, threads=2)
    sim.run(300)
    print(sim.agent_count, sim.hash)

The same scenario, seed and calls give the same state hash as ``throng run`` at any thread
count. See docs/python.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._throng import (
    ControlError,
    Scenario,
    ScenarioError,
    SimulationError,
    __version__,
)
from ._throng import Simulation as _Simulation

__all__ = [
    "ControlError",
    "Scenario",
    "ScenarioError",
    "Simulation",
    "SimulationError",
    "__version__",
]


def _frame(columns: dict[str, Any]) -> Any:
    """Columns as a pandas DataFrame, else a polars one, whichever is installed."""
    try:
        import pandas

        return pandas.DataFrame(columns)
    except ImportError:
        pass
    try:
        import polars

        return polars.DataFrame(columns)
    except ImportError:
        raise ImportError(
            "a DataFrame needs pandas or polars: pip install pandas (or polars)"
        ) from None


class Simulation(_Simulation):
    """A scenario being run. See the methods of the extension type for the engine's calls;
    this class adds loops, DataFrames and PedPy."""

    @classmethod
    def resume(
        cls,
        scenario: Scenario,
        path: Any,
        threads: int = 1,
        index: str | None = None,
        metrics: bool = True,
    ) -> Simulation:
        """Continues the run a checkpoint file holds (written by ``save_checkpoint`` or by
        ``throng run --checkpoint-every``) for this very scenario and overrides, bit for bit."""
        return cls(scenario, threads=threads, index=index, metrics=metrics, checkpoint=path)

    def open(
        self,
        *,
        door: str | None = None,
        exit: str | None = None,
        gate: str | None = None,
        source: str | None = None,
    ) -> None:
        """Opens a door (removes its obstacle), or lets an exit remove, a gate count or a
        source spawn again: one of them, by name. ``fire("open", door=...)`` in short."""
        self._switch("open", door=door, exit=exit, gate=gate, source=source)

    def close(
        self,
        *,
        door: str | None = None,
        exit: str | None = None,
        gate: str | None = None,
        source: str | None = None,
    ) -> None:
        """Closes a door (puts its obstacle back), or stops an exit, a gate or a source: one of
        them, by name."""
        self._switch("close", door=door, exit=exit, gate=gate, source=source)

    def _switch(self, action: str, **names: str | None) -> None:
        given = {key: name for key, name in names.items() if name is not None}
        if len(given) != 1:
            raise TypeError("give exactly one of door=, exit=, gate= or source=, by name")
        self.fire(action, **given)

    def run_until(
        self, predicate: Callable[[Simulation], bool], max_ticks: int | None = None
    ) -> int:
        """Steps until ``predicate(sim)`` is true, the run stops, or ``max_ticks`` ticks have
        run; returns the ticks run. The predicate is called before each tick."""
        ran = 0
        while not self.stopped and not predicate(self):
            if max_ticks is not None and ran >= max_ticks:
                break
            before = self.tick
            self.step()
            if self.tick == before:
                break
            ran += 1
        return ran

    def ticks(self, count: int | None = None) -> Iterator[int]:
        """Steps ``count`` ticks (to the scenario's end when None, or until the run stops),
        yielding the tick after each: ``for tick in sim.ticks(100): ...``."""
        end = self.scenario.ticks if count is None else self.tick + count
        while self.tick < end and not self.stopped:
            before = self.tick
            self.step()
            if self.tick == before:
                return
            yield self.tick

    def __iter__(self) -> Iterator[int]:
        return self.ticks()

    def agents_frame(self) -> Any:
        """The live agents as a DataFrame (pandas if installed, else polars): ``id``,
        ``group`` (its name), ``x``, ``y`` (``z``), ``vx``, ``vy`` (``vz``), ``radius``."""
        names = self.scenario.group_names
        axes = "xyz"[: self.dimensions]
        columns: dict[str, Any] = {"id": self.ids}
        columns["group"] = [names[g] for g in self.groups.tolist()]
        positions, velocities = self.positions, self.velocities
        for k, a in enumerate(axes):
            columns[a] = positions[:, k]
        for k, a in enumerate(axes):
            columns["v" + a] = velocities[:, k]
        columns["radius"] = self.radii
        return _frame(columns)

    def metrics_frame(self) -> Any:
        """``metrics()`` as a DataFrame (pandas if installed, else polars), one row per tick."""
        return _frame(self.metrics())

    def to_pedpy(self) -> tuple[Any, Any]:
        """The recorded trajectory and the walkable area as PedPy objects:
        ``(pedpy.TrajectoryData, pedpy.WalkableArea)``. Call ``record_trajectory(every)``
        before running; the frame rate is ``1 / (dt * every)``. Needs pedpy and shapely."""
        try:
            import pandas
            import pedpy
            import shapely
        except ImportError:
            raise ImportError(
                "to_pedpy needs pedpy, shapely and pandas: pip install pedpy"
            ) from None
        columns = self.trajectory()
        if columns is None:
            raise SimulationError(
                "no trajectory was recorded: call sim.record_trajectory(every) before running"
            )
        if self.dimensions != 2:
            raise SimulationError("PedPy analyses the plane; this scenario is in space")
        every = self.trajectory_every or 1
        ticks = columns["frame"].astype("int64")
        # PedPy's frames are consecutive: the k-th recorded frame is frame k.
        frames = (ticks - (self.trajectory_start or 0)) // every
        frame = pandas.DataFrame(
            {
                "id": columns["id"].astype("int64"),
                "frame": frames,
                "x": columns["x"].astype("float64"),
                "y": columns["y"].astype("float64"),
            }
        )
        trajectory = pedpy.TrajectoryData(data=frame, frame_rate=1.0 / (self.dt * every))
        area = pedpy.WalkableArea(shapely.from_wkt(self.walkable_area_wkt()))
        return trajectory, area
