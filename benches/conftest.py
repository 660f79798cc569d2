"""Shared fixtures for the chunkwise benchmarks (helpers live in benchlib.py).

Files are named test_bench_*.py so that ``python -m pytest benches`` collects
them with the repository's default ``python_files``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# tests/support (offline tokenizers, real code, engine documents) is shared with the tests.
_TESTS = str(Path(__file__).resolve().parents[1] / "tests")
if _TESTS not in sys.path:
    sys.path.append(_TESTS)

from benchlib import CORPUS_FILES, SMOKE_BYTES, Doc, load_doc, record, shrink


@pytest.fixture(scope="session")
def smoke(request) -> bool:
    """True under --benchmark-disable: each body runs once, inputs shrink."""
    return bool(request.config.getoption("benchmark_disable", False))


@pytest.fixture(scope="session", params=CORPUS_FILES)
def doc(request, smoke) -> Doc:
    """Each corpus file in turn (its first 1 MB in a smoke run)."""
    d = load_doc(request.param)
    return shrink(d, SMOKE_BYTES) if smoke else d


@pytest.fixture(scope="session")
def en_doc() -> Doc:
    return load_doc("en.txt")


@pytest.fixture(scope="session")
def zh_doc() -> Doc:
    return load_doc("zh.txt")


@pytest.fixture(scope="session")
def ja_doc() -> Doc:
    return load_doc("ja.txt")


@pytest.fixture(scope="session")
def md_doc(smoke) -> Doc:
    d = load_doc("mixed.md")
    return shrink(d, SMOKE_BYTES) if smoke else d


@pytest.fixture
def mbps():
    """benchlib.record as a fixture: mbps(benchmark, nbytes, **extra_info)."""
    return record
