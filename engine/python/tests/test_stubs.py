"""The type stubs say what the extension module has: mypy's stubtest compares
`_throng.pyi` with the module at run time (every name, parameter and default)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def test_the_stubs_match_the_module():
    pytest.importorskip("mypy")
    allowlist = Path(__file__).with_name("stubtest-allowlist.txt")
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "throng._throng", "--allowlist", str(allowlist)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr
