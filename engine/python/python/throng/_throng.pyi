"""Type stubs for throng's extension module (the engine's calls, bound with PyO3)."""

from os import PathLike
from typing import Any, final

from typing_extensions import Self

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = ["ControlError", "Scenario", "ScenarioError", "Simulation", "SimulationError", "__version__"]

class ScenarioError(ValueError):
    """A scenario, an override or an action that does not read or validate."""

    file: str
    """The file (or ``"<string>"``, ``"overrides"``, ``"action"``)."""
    line: int | None
    """1-based line, when the problem has a place in the file."""
    column: int | None
    """1-based column, when the problem has a place in the file."""
    key: str
    """The dotted key (``groups[0].max_speed``); ``""`` for the whole file."""
    message: str
    """What is wrong and what was expected, in words."""

class SimulationError(Exception):
    """A simulation that could not be made or resumed, or whose state became non-finite."""

class ControlError(ValueError):
    """A call between ticks that was refused; the simulation is unchanged."""

@final
class Scenario:
    """A validated scenario: a file's (or a text's) content with overrides applied."""

    @staticmethod
    def load(path: str | PathLike[str], overrides: dict[str, Any] | None = None) -> Scenario:
        """Reads and validates the scenario file at ``path``, with ``overrides`` applied
        (``{"groups.crowd.max_speed": 1.8, "agents": 10_000}``, as ``throng run --set``)."""
    @staticmethod
    def from_toml(
        text: str, overrides: dict[str, Any] | None = None, origin: str | None = None
    ) -> Scenario:
        """Validates scenario ``text``; errors name it ``origin`` (default ``"<string>"``)."""
    def with_overrides(self, overrides: dict[str, Any]) -> Scenario:
        """This scenario with more overrides (a key may not be set twice)."""
    @property
    def name(self) -> str: ...
    @property
    def origin(self) -> str:
        """Where it was read from (``"<string>"`` for text)."""
    @property
    def seed(self) -> int: ...
    @property
    def ticks(self) -> int:
        """The ticks a run of it runs."""
    @property
    def dt(self) -> float:
        """Seconds per tick."""
    @property
    def dimensions(self) -> int:
        """2 (the plane) or 3 (space)."""
    @property
    def group_names(self) -> list[str]:
        """The groups' names in file order (a group's index is its place here)."""
    @property
    def stage_names(self) -> list[str]:
        """The journey stages' names in file order (none in space)."""
    @property
    def journey_names(self) -> list[str]:
        """The journeys' names in file order (none in space)."""
    @property
    def overrides(self) -> list[str]:
        """The overrides applied, canonical (``key = value``, sorted)."""
    @property
    def warnings(self) -> list[str]:
        """Problems that do not stop a run, as messages."""
    @property
    def expectation_names(self) -> list[str]: ...

class Simulation:
    """A scenario being run: step it, read its agents, control it between ticks, save it.

    Ticks run with the GIL released; Ctrl-C raises ``KeyboardInterrupt`` between ticks with
    the state intact. Columns are read-only copies (rows move as agents come and go)."""

    def __new__(
        cls,
        scenario: Scenario,
        threads: int = 1,
        index: str | None = None,
        metrics: bool = True,
        seed: int | None = None,
        checkpoint: str | PathLike[str] | None = None,
    ) -> Self:
        """A simulation at tick 0 on ``threads`` workers with neighbour ``index`` ("auto",
        "kd", "grid", "brute"; default the scenario's); ``metrics`` observed after every tick;
        another ``seed`` when given. Only the seed changes a result. With ``checkpoint``, the
        run that checkpoint file holds continues instead (``throng.Simulation.resume``)."""
    def step(self) -> None:
        """Runs one tick (none once the run has stopped)."""
    def run(self, ticks: int | None = None) -> int:
        """Runs ``ticks`` ticks (to the scenario's end when None; fewer if the run stops);
        returns the ticks run."""
    @property
    def scenario(self) -> Scenario: ...
    @property
    def tick(self) -> int:
        """Ticks completed."""
    @property
    def dt(self) -> float:
        """Seconds per tick."""
    @property
    def time_s(self) -> float:
        """Simulated time, ``tick * dt``."""
    @property
    def stopped(self) -> bool:
        """Whether a ``stop`` event has ended the run."""
    @property
    def agent_count(self) -> int:
        """Live agents."""
    @property
    def dimensions(self) -> int:
        """2 (the plane) or 3 (space)."""
    @property
    def seed(self) -> int: ...
    @property
    def hash(self) -> str:
        """The state hash now (64 hex digits), as ``throng run`` prints it."""
    @property
    def positions(self) -> npt.NDArray[np.float32]:
        """Shape (agents, dimensions), in row order; a read-only copy."""
    @property
    def velocities(self) -> npt.NDArray[np.float32]:
        """Units per second, shape (agents, dimensions); a read-only copy."""
    @property
    def ids(self) -> npt.NDArray[np.uint32]:
        """Stable ids, never reused; a read-only copy."""
    @property
    def groups(self) -> npt.NDArray[np.uint16]:
        """Group indexes into ``Scenario.group_names``; a read-only copy."""
    @property
    def radii(self) -> npt.NDArray[np.float32]:
        """Body radii; a read-only copy."""
    @property
    def max_speeds(self) -> npt.NDArray[np.float32]:
        """Top speeds; a read-only copy."""
    @property
    def journeys(self) -> npt.NDArray[np.uint16]:
        """Journey indexes into ``Scenario.journey_names`` (65535 for none); a read-only copy."""
    @property
    def stages(self) -> npt.NDArray[np.uint16]:
        """Current stage indexes into ``Scenario.stage_names`` (0 on no journey); a read-only copy."""
    @property
    def parties(self) -> npt.NDArray[np.uint32]:
        """Party ids, the smallest member id (4294967295 alone); a read-only copy."""
    def checkpoint(self) -> bytes:
        """The checkpoint of this tick, as bytes."""
    def save_checkpoint(self, path: str | PathLike[str]) -> None:
        """Writes the checkpoint of this tick to ``path``, atomically."""
    def fire(self, action: str, **keys: Any) -> npt.NDArray[np.uint32]:
        """Fires an event action now (``open``, ``close``, ``retarget``, ``move_target``,
        ``spawn``, ``remove``, ``release``, ``set``, ``regroup``, ``stop``) with the keys its
        ``[[events]]`` entry takes; returns the ids a ``spawn`` added."""
    def add_agents(self, group: str | int, positions: Any) -> npt.NDArray[np.uint32]:
        """Adds an agent of ``group`` at each position; returns their ids."""
    def remove_agents(self, ids: Any) -> None:
        """Removes the agents with these ids (none if one is not alive)."""
    def set_goal(self, id: int, goal: Any) -> None:
        """Gives agent ``id`` its own goal (its group needs a ``kind = "own"`` target)."""
    def row_of(self, id: int) -> int | None:
        """The row of agent ``id`` in the columns, or None when it is not alive."""
    def query_radius(self, point: Any, radius: float) -> npt.NDArray[np.uint32]:
        """Ids within ``radius`` of ``point``, nearest first (ties by id)."""
    def neighbours_of(self, id: int) -> npt.NDArray[np.uint32]:
        """The ids agent ``id`` senses now, nearest first (ties by id)."""
    def metrics(self) -> dict[str, npt.NDArray[Any]]:
        """Per-tick crowd metrics as numpy columns named as the metrics file names them."""
    def events(self) -> list[dict[str, Any]]:
        """Each event's ``name``, ``fired``, ``first_tick``, ``last_tick``."""
    def verdicts(self) -> list[dict[str, Any]]:
        """Each expectation's ``name``, ``what``, ``status`` ("pass", "fail", "unchecked"),
        ``value``, ``time_s``, ``detail``."""
    def record_trajectory(self, every: int = 1) -> None:
        """Starts keeping positions every ``every`` ticks (this tick first)."""
    def trajectory(self) -> dict[str, npt.NDArray[Any]] | None:
        """Recorded ``id``, ``frame`` (tick), ``x``, ``y`` (``z``) columns, or None."""
    @property
    def trajectory_start(self) -> int | None: ...
    @property
    def trajectory_every(self) -> int | None: ...
    def walkable_area_wkt(self) -> str:
        """The bounds minus the standing obstacles, as WKT (the plane only)."""
