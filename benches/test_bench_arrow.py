"""The Arrow kernel: chunkwise.arrow.chunk_arrow on 100,000 documents (arrowlib.make_docs, about 1 KB each) against,
in the same run:

* ``loop``: a per-row loop of ``chunk()`` that builds the same table with pyarrow (what a per-row UDF does), from
  the documents as a Python list (their conversion from Arrow not counted: in the loop's favour);
* ``chunk_batch``: ``chunk_batch`` on the list, then the same table with pyarrow;
* ``spans_batch``: offsets only, from the list: the speed of the split itself.

RecursiveChunker(512). Each is timed interleaved with the others, 3 rounds (1 in a smoke run), and the **median**
of each is recorded (extra_info: ``*_s``, ``*_MBps``, ``*_cpu_s`` (CPU time of all threads), and the ratios ``vs_loop`` = loop / chunk_arrow,
``vs_spans_batch`` = spans_batch / chunk_arrow). Targets: ``vs_loop`` >= 3 and ``vs_spans_batch`` near 1, asserted
only with CHUNKWISE_BENCH_STRICT=1. The tables are checked equal first.

test_arrow_memory runs arrow_peak.py in a fresh process: the peak RSS increase during chunk_arrow, as a multiple of
the input's Arrow size, on all 100,000 documents even in a smoke run; target < 3, always asserted (a ratio, not a
timing).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arrowlib import loop_table, make_docs, table_of
from benchlib import record, strict

cw = pytest.importorskip("chunkwise")
pa = pytest.importorskip("pyarrow")
from chunkwise.arrow import chunk_arrow  # noqa: E402

DOCS = 100_000
SMOKE_DOCS = 2_000
SCRIPT = Path(__file__).resolve().parent / "arrow_peak.py"


def medians(fns: dict, rounds: int) -> tuple:
    """Median wall time and median CPU time (all threads of the process) of each function over ``rounds``
    interleaved rounds (order alternating)."""
    wall: dict = {name: [] for name in fns}
    cpu: dict = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            w0, c0 = time.perf_counter(), time.process_time()
            fns[name]()
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - w0)
    return ({n: statistics.median(t) for n, t in wall.items()}, {n: statistics.median(t) for n, t in cpu.items()})


def test_arrow_kernel(benchmark, smoke):
    docs = make_docs(SMOKE_DOCS if smoke else DOCS)
    array = pa.array(docs, pa.string())
    nbytes = sum(len(d.encode("utf-8")) for d in docs)
    chunker = cw.RecursiveChunker(512)
    benchmark.group = f"arrow: chunk_arrow vs loop vs spans_batch, {len(docs)} docs"

    got = chunk_arrow(array, chunker)
    assert got.equals(loop_table(pa, chunker, docs[:2000]).cast(got.schema)) if smoke else got.num_rows > len(docs)
    fns = {
        "chunk_arrow": lambda: chunk_arrow(array, chunker),
        "loop": lambda: loop_table(pa, chunker, docs),
        "chunk_batch": lambda: table_of(pa, chunker.chunk_batch(docs)),
        "spans_batch": lambda: chunker.spans_batch(docs),
    }
    if not smoke:
        assert loop_table(pa, chunker, docs).cast(got.schema).equals(got)
    load_before = os.getloadavg()[0]
    times, cpu = medians(fns, 1 if smoke else 3)
    benchmark.pedantic(fns["chunk_arrow"], rounds=1 if smoke else 3, iterations=1)
    info = {f"{k}_s": round(v, 4) for k, v in times.items()}
    info.update({f"{k}_MBps": round(nbytes / 1e6 / v, 1) for k, v in times.items()})
    # CPU seconds: the work done, which a loaded machine changes less than the wall time of the parallel calls.
    info.update({f"{k}_cpu_s": round(v, 4) for k, v in cpu.items()})
    info["loadavg_1min_before"] = round(load_before, 2)
    vs_loop = times["loop"] / times["chunk_arrow"]
    vs_spans = times["spans_batch"] / times["chunk_arrow"]
    record(benchmark, nbytes, impl="chunkwise", variant="arrow.chunk_arrow", docs=len(docs), chunks=got.num_rows,
           vs_loop=round(vs_loop, 2), vs_chunk_batch=round(times["chunk_batch"] / times["chunk_arrow"], 2),
           vs_spans_batch=round(vs_spans, 2), **info)
    if strict() and not smoke:
        assert vs_loop >= 3, f"chunk_arrow only {vs_loop:.2f}x the loop"
        assert vs_spans >= 0.5, f"chunk_arrow at {vs_spans:.2f}x spans_batch"


def test_arrow_memory(benchmark):
    benchmark.group = "memory: peak RSS of chunk_arrow"
    # Always the full 100,000 documents (about 2 s), smoke run or not: on 10 MB the fixed cost of the call (thread
    # heaps, the warmed-up allocator's first pages) is a third of the peak and swings with the machine, so the
    # ratio there says little about how the memory scales.
    cmd = [sys.executable, str(SCRIPT), "--docs", str(DOCS), "--json"]

    def run():
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result, impl="chunkwise", variant="arrow.memory")
    assert result["chunks"] > 0
    if result["hwm_reset"]:
        assert result["multiple"] < 3, result


@pytest.mark.parametrize("case", [("chars", "arrow"), ("tokens", "arrow"), ("chars", "polars")], ids="-".join)
def test_arrow_huge_row(benchmark, smoke, case):
    """One document of 500 MB (50 MB in a smoke run) in one batch (arrow_huge_peak.py, a fresh process): the peak
    RSS over the output, in bytes a chunk (``over_per_chunk``). Through Polars, Polars' own map_batches is in the
    peak (``--via polars-own`` measures it alone); the bound is asserted by tests/io/test_arrow_memory.py."""
    unit, via = case
    if via == "polars":
        pytest.importorskip("polars")
    benchmark.group = "memory: peak RSS of one huge row"
    cmd = [sys.executable, str(Path(__file__).resolve().parent / "arrow_huge_peak.py"), "--mb",
           "50" if smoke else "500", "--unit", unit, "--via", via, "--json"]

    def run():
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result, impl="chunkwise", variant=f"arrow.huge.{via}.{unit}")
    assert result["chunks"] > 0
