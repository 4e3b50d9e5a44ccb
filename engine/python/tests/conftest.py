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
    """tests/data/door_room.toml: a room whose door opens at 2 s, by an event, or (without it)
    by the program."""
    event = '\n[[events]]\nat_s = 2\naction = "open"\ndoor = "door"\n' if with_event else ""
    return (REPO / "tests" / "data" / "door_room.toml").read_text() + event
