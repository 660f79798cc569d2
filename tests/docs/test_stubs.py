"""The hand-written stub python/chunkwise/_core.pyi matches the compiled module (mypy's stubtest)."""

import subprocess
import sys

import pytest
from support.corpus import ROOT


def test_stub_matches_the_extension_module():
    pytest.importorskip("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "chunkwise._core"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_one_version():
    # pyproject.toml takes its version from Cargo.toml: the installed package and the module agree.
    import importlib.metadata
    import re

    import chunkwise

    cargo = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    declared = re.search(r'\[workspace\.package\]\s*\nversion = "([^"]+)"', cargo)
    assert declared is not None
    assert chunkwise.__version__ == declared.group(1) == importlib.metadata.version("chunkwise")
