"""Helpers shared by the benchmark files, conftest.py and the scripts.

The corpus lives outside the repository, in shared/corpus next to the repo
(``<repo>/../shared/corpus``); set CHUNKWISE_CORPUS to use another folder.
Set CHUNKWISE_CORPUS_LIMIT=N to keep only the first N bytes of each file
(cut back to a character boundary), for quick runs.  Tests that need the
corpus are skipped when it is missing.

Throughput is MB/s with MB = 10**6 bytes of UTF-8 *input*, computed from
the fastest round (``stats.min``): on a shared 2-core machine the minimum is
the least noisy estimate of a call's own cost, and every ratio we quote is
taken between numbers measured in the same run.
"""

from __future__ import annotations

import functools
import math
import os
import time
from pathlib import Path
from typing import Callable, Dict, NamedTuple

import pytest

CORPUS_FILES = ("en.txt", "zh.txt", "ja.txt", "mixed.md")

# Under --benchmark-disable (the CI smoke run) every body runs once and big
# inputs shrink to keep the whole suite well under three minutes.
SMOKE_BYTES = 1_000_000


class Doc(NamedTuple):
    name: str
    text: str
    nbytes: int  # UTF-8 size of text, the basis of MB/s


def corpus_dir() -> Path:
    env = os.environ.get("CHUNKWISE_CORPUS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "corpus"


def utf8_head(text: str, nbytes: int) -> str:
    """The longest prefix of text whose UTF-8 form is at most nbytes."""
    return text.encode("utf-8")[:nbytes].decode("utf-8", errors="ignore")


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


def shrink(doc: Doc, nbytes: int) -> Doc:
    """doc cut to at most nbytes of UTF-8 (doc itself if already smaller)."""
    if doc.nbytes <= nbytes:
        return doc
    text = utf8_head(doc.text, nbytes)
    return Doc(doc.name, text, len(text.encode("utf-8")))


def repeat_to(text: str, nbytes: int) -> str:
    """text repeated (whole copies) until its UTF-8 form has >= nbytes.

    Built with one join so the peak memory is the result, not 2x."""
    unit = len(text.encode("utf-8"))
    return "".join([text] * max(1, math.ceil(nbytes / unit)))


def fresh_copy(text: str) -> str:
    """An equal str that is a new object, so CPython has no cached UTF-8 form
    of it yet (chunkwise borrows that cache via PyUnicode_AsUTF8AndSize)."""
    return text.encode("utf-8").decode("utf-8")


def record(benchmark, nbytes: int, **info) -> float | None:
    """Store MB/s (from the fastest round) and ``info`` in
    benchmark.extra_info; call after the benchmark has run.  Returns MB/s,
    or None when benchmarking is disabled."""
    benchmark.extra_info.update(info)
    benchmark.extra_info["bytes"] = nbytes
    stats = getattr(benchmark, "stats", None)  # None with --benchmark-disable
    if not stats:
        return None
    mbps = nbytes / 1e6 / stats.stats.min
    benchmark.extra_info["MB/s"] = round(mbps, 3)
    return mbps


def timed(benchmark, fn, text, smoke, rounds=3, max_rounds=20, budget_s=1.0):
    """``benchmark.pedantic(fn, text)``: one untimed call (warm-up and calibration), then as many rounds as fit in
    ``budget_s`` (``rounds`` to ``max_rounds``); a single round in smoke mode. Returns ``fn``'s result."""
    n = 1
    if not smoke:
        t0 = time.perf_counter()
        fn(text)
        n = max(rounds, min(max_rounds, int(budget_s / (time.perf_counter() - t0))))
    return benchmark.pedantic(fn, args=(text,), rounds=n, warmup_rounds=0, iterations=1)


def best_times(fns: Dict[str, Callable[[], object]], rounds: int,
               clock: Callable[[], float] = time.perf_counter) -> Dict[str, float]:
    """Fastest time of each function over ``rounds`` rounds (wall time, or
    ``clock``'s: ``time.process_time`` for CPU time), with the functions
    interleaved (order alternating each round) so that a change in the
    machine's background load hits all of them alike."""
    best = dict.fromkeys(fns, math.inf)
    names = list(fns)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            t0 = clock()
            fns[name]()
            best[name] = min(best[name], clock() - t0)
    return best


def strict() -> bool:
    """CHUNKWISE_BENCH_STRICT=1 turns the ratio targets into assertions
    (off by default: a shared, noisy machine must not fail the suite)."""
    return os.environ.get("CHUNKWISE_BENCH_STRICT", "") not in ("", "0")
