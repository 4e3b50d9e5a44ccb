"""docs/python.md's walk-through runs as written: its Python blocks, in order, in one
namespace, from the repository's root."""

from __future__ import annotations

import os
import re

import pytest

from conftest import REPO


# PedPy's Gaussian profile divides by zero in cells far from everyone, and says so.
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_the_walk_through_runs(monkeypatch):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pedpy")
    pytest.importorskip("pandas")
    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 10, "the walk-through's blocks were found"
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": "walk_through"}
    for k, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/python.md block {k + 1}", "exec"), namespace)
        except Exception as e:  # name the block that failed
            raise AssertionError(f"block {k + 1} of docs/python.md failed:\n{block}") from e
    assert os.path.exists("/tmp/doorway.png")
    assert namespace["exits"][1.8] < namespace["exits"][1.0], "faster walkers empty the room sooner"
