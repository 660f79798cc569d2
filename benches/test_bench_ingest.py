"""``chunkwise.ingest.ingest`` of the corpus folder into a new LanceDB folder with an embedder that costs nothing
(zeros, 384 wide), then again over the unchanged folder, and AutoChunker's ``chunk_batch`` alone on the same files,
each round in one fresh process run by ingest_run.py (see its docstring for what is timed and how memory is
measured).

extra_info: ``first_MBps``, ``again_MBps``, ``chunk_MBps`` (medians of 3 rounds), ``vs_chunk`` (the first run's time
over chunking's; ``cpu_vs_chunk`` the same in CPU time), ``peak_increase`` and ``multiple`` (the first run's peak
RSS increase / the largest file), ``chunk_peak_increase`` and ``chunk_multiple`` (chunking alone's, in a process of
its own). Issue
35's targets: >= 50 MB/s for the first run, a peak under 3x the largest file; nothing is asserted on time. Under
--benchmark-disable the files are cut to 200 kB, one round.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib import corpus_dir

pytest.importorskip("chunkwise")
pytest.importorskip("lancedb")

SCRIPT = Path(__file__).resolve().parent / "ingest_run.py"


def test_ingest_end_to_end(benchmark, smoke):
    if not (corpus_dir() / "en.txt").is_file():
        pytest.skip("corpus not found")
    benchmark.group = "ingest: corpus folder into LanceDB, zero-cost embedder"
    args = ["--limit", "200000", "--rounds", "1"] if smoke else ["--rounds", "3"]

    def run(*extra: str) -> dict:
        out = subprocess.run([sys.executable, str(SCRIPT), *args, *extra, "--json"], capture_output=True, text=True,
                             timeout=1200)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    chunking = run("--chunk-peak")
    benchmark.extra_info.update(result, chunk_peak_increase=chunking["chunk_peak_increase"],
                                chunk_multiple=chunking["chunk_multiple"])
    assert result["chunks"] > 0 and result["documents"] >= 5


def test_boilerplate_pass(benchmark, smoke):
    """The boilerplate pass's line reading over the corpus (boilerplate_run.py: its head and foot keys, its runs, and
    the same files cut into pages with running heads), in a process of its own."""
    if not (corpus_dir() / "en.txt").is_file():
        pytest.skip("corpus not found")
    benchmark.group = "ingest: the boilerplate pass's line reading"
    script = SCRIPT.with_name("boilerplate_run.py")

    def run() -> str:
        out = subprocess.run([sys.executable, str(script), "--rounds", "1" if smoke else "5"], capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        return out.stdout

    printed = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["printed"] = printed
    assert all(case in printed for case in ("edge_keys", "runs", "paged"))
