"""Shared fixtures: the repository's scenarios, the `throng` executable for parity checks, and
a small room with a door that an event (or the program) opens."""

from __future__ import annotations

import os
import shutil
import subprocess
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def scenarios() -> Path:
    return REPO / "scenarios"


@pytest.fixture
def throng_bin() -> str:
    """The `throng` executable: THRONG_BIN (the Rust suite sets it), else one built in
    target/, else on PATH; the test is skipped without one."""
    candidates = [os.environ.get("THRONG_BIN")]
    candidates += [str(REPO / "target" / p / "throng") for p in ("release", "debug")]
    candidates.append(shutil.which("throng"))
    for c in candidates:
        if c and Path(c).is_file():
            return c
    pytest.skip("no throng executable: set THRONG_BIN or run `cargo build`")


def cli_run(throng_bin: str, *args: str) -> dict:
    """`throng run ... --json`'s report."""
    out = subprocess.run(
        [throng_bin, "run", *args, "--json", "--quiet"],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def room(with_event: bool) -> str:
    """A room whose door opens at 2 s: by an event, or (without it) by the program."""
    event = '[[events]]\nat_s = 2\naction = "open"\ndoor = "door"\n' if with_event else ""
    return f"""version = 1
name = "room"
seed = 5
dt = 0.1
ticks = 200
obstacles = [
  {{ kind = "rect", min = [10, 0], max = [11, 4] }},
  {{ kind = "rect", min = [10, 6], max = [11, 10] }},
  {{ name = "door", kind = "rect", min = [10, 4], max = [11, 6] }},
]
[bounds]
min = [0, 0]
max = [20, 10]
[targets.out]
kind = "point"
position = [18, 5]
[targets.mine]
kind = "own"
[[exits]]
name = "out"
kind = "circle"
centre = [18, 5]
radius = 1
[[measure]]
name = "room"
kind = "rect"
min = [1, 1]
max = [9, 9]
[[groups]]
name = "crowd"
count = 30
spawn = {{ kind = "rect", min = [1, 1], max = [8, 9] }}
max_speed = 1.3
max_force = 3
radius = 0.25
[[groups.behaviours]]
kind = "seek"
target = "out"
[[groups.behaviours]]
kind = "separation"
radius = 1.0
[[groups]]
name = "walkers"
count = 0
spawn = {{ kind = "points", points = [] }}
max_speed = 1.2
max_force = 3
radius = 0.25
[[groups.behaviours]]
kind = "arrive"
target = "mine"
slowing_radius = 1.0
{event}"""
