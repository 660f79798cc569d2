"""End to end ``chunkwise chunk`` on a folder of corpus text at 512 chars, JSON lines and Parquet, side by side with
the loop a LangChain user writes (read, ``split_text``, ``json.dumps``), each run by cli_run.py in a fresh process
(see its docstring for what is timed and how memory is measured).

extra_info: ``MBps``, ``seconds``, ``cpu_seconds`` (all threads), ``peak_increase`` and ``multiple`` (peak RSS
increase / largest file), and for chunkwise ``vs_langchain`` (its MB/s over the LangChain loop's, same folder, same
session). Two folders: ``corpus`` (4 copies of every corpus text file, largest 5 MB) and ``big`` (1 copy plus one 100
MB file, streamed). Under --benchmark-disable the files are cut to 200 kB and the big file to 10 MB. The issue's targets
are >= 80 MB/s for JSON lines and for Parquet, and a peak under 3x the largest file; nothing is asserted on time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib import corpus_dir

pytest.importorskip("chunkwise")

SCRIPT = Path(__file__).resolve().parent / "cli_run.py"
FOLDERS = {"corpus": ["--copies", "4"], "big": ["--copies", "1", "--big-mb", "100"]}
SMOKE = {"corpus": ["--copies", "1", "--limit", "200000"], "big": ["--copies", "1", "--limit", "200000",
                                                                   "--big-mb", "10"]}
_langchain: dict = {}


def cli_run(impl: str, folder: str, smoke: bool) -> dict:
    args = (SMOKE if smoke else FOLDERS)[folder]
    out = subprocess.run([sys.executable, str(SCRIPT), "--impl", impl, *args, "--json"], capture_output=True,
                         text=True, timeout=1200)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("folder", list(FOLDERS))
@pytest.mark.parametrize("impl", ["langchain", "jsonl", "parquet"])
def test_cli_end_to_end(benchmark, impl, folder, smoke):
    if not (corpus_dir() / "en.txt").is_file():
        pytest.skip("corpus not found")
    if impl == "langchain":
        pytest.importorskip("langchain_text_splitters")
    benchmark.group = f"cli: chunkwise chunk, folder {folder}, 512 chars"
    result = benchmark.pedantic(lambda: cli_run(impl, folder, smoke), rounds=1, iterations=1)
    info = dict(result, folder=folder)
    if impl == "langchain":
        _langchain[folder] = result
    elif folder in _langchain:
        info["vs_langchain"] = round(result["MBps"] / _langchain[folder]["MBps"], 1)
    benchmark.extra_info.update(info)
    assert result["output_bytes"] > result["bytes"] // 2  # every file's chunks were written


@pytest.mark.skipif(not os.environ.get("CHUNKWISE_BASELINE"), reason="CHUNKWISE_BASELINE (a baseline's python/, "
                    "made by `python benches/baseline.py build REF`) is not set")
@pytest.mark.parametrize("impl", ["jsonl", "parquet"])
def test_cli_against_baseline(benchmark, impl, smoke):
    """This checkout's command against the baseline's, interleaved in one session (baseline.py compare)."""
    if not (corpus_dir() / "en.txt").is_file():
        pytest.skip("corpus not found")
    from baseline import compare

    benchmark.group = "cli: against the baseline, folder corpus, 512 chars"
    rounds, copies = (1, 1) if smoke else (3, 4)
    rows = benchmark.pedantic(lambda: compare(Path(os.environ["CHUNKWISE_BASELINE"]), [impl], rounds, copies),
                              rounds=1, iterations=1)
    benchmark.extra_info.update(rows[0])
