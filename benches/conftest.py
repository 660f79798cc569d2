"""Shared fixtures for the chunkwise benchmarks.

The corpus lives outside the repository, in shared/corpus next to the repo
(``<repo>/../shared/corpus``); set CHUNKWISE_CORPUS to use another folder.
Set CHUNKWISE_CORPUS_LIMIT=N to keep only the first N bytes of each file
(cut back to a character boundary), for quick runs.  Tests that need the
corpus are skipped when it is missing.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import NamedTuple

import pytest

CORPUS_FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md")


class Doc(NamedTuple):
    name: str
    text: str
    nbytes: int  # UTF-8 size of text, the basis of MB/s


def corpus_dir() -> Path:
    env = os.environ.get("CHUNKWISE_CORPUS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "corpus"


@functools.cache
def load_doc(name: str) -> Doc:
    """Read one corpus file (cached for the whole session); skip if absent."""
    path = corpus_dir() / name
    if not path.is_file():
        pytest.skip(f"corpus file not found: {path}")
    data = path.read_bytes()
    limit = int(os.environ.get("CHUNKWISE_CORPUS_LIMIT", "0"))
    if limit:
        data = data[:limit]
    text = data.decode("utf-8", errors="ignore")  # drop a cut-off last char
    return Doc(name, text, len(text.encode("utf-8")))


def record_mbps(benchmark, nbytes: int) -> float | None:
    """Store throughput (MB = 10**6 bytes, from the mean round time) in
    benchmark.extra_info["MB/s"]; call after the benchmark has run."""
    stats = getattr(benchmark, "stats", None)  # None with --benchmark-disable
    if not stats:
        return None
    mbps = nbytes / 1e6 / stats.stats.mean
    benchmark.extra_info["MB/s"] = round(mbps, 3)
    return mbps


@pytest.fixture(scope="session", params=CORPUS_FILES)
def doc(request) -> Doc:
    """Each corpus file in turn."""
    return load_doc(request.param)


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
def md_doc() -> Doc:
    return load_doc("mixed.md")


@pytest.fixture
def mbps():
    """The record_mbps helper, as a fixture: mbps(benchmark, doc.nbytes)."""
    return record_mbps
