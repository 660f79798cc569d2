"""The hand-written stub python/chunkwise/_core.pyi matches the compiled module (mypy's stubtest)."""

import subprocess
import sys

import pytest


def test_stub_matches_the_extension_module():
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "chunkwise._core"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
