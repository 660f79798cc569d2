"""iter_chunks over a generated file: peak RSS while streaming, throughput, and equality with chunk() on the
whole file, measured by stream_peak.py in a fresh subprocess (see its docstring for the method).

Issue 14's target: a 2 GB file streams with a peak RSS increase under 300 MB, and the chunks equal chunk()'s on
the whole text. Under --benchmark-disable the file is 64 MB. The memory bound is asserted always (a size, not a
timing), and so is equality.

test_token_stream_peak, issue 34's target: a 1 GB file streamed in tokens (``RecursiveChunker(256,
tokenizer=...)``, cl100k_base and all-MiniLM-L6-v2) stays under 300 MB of RSS, the whole process's peak while
streaming, with a text whose new words fill the tokenizer's memo of pieces to its bound (see stream_peak.py).
Under --benchmark-disable the file is 16 MB, made of tests/data's slices when the corpus is absent. The bound is
asserted always; extra_info has the peak (``process_peak_mb``), the RSS before streaming and MB/s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchlib import corpus_dir
from support import tokenizer_assets as assets  # tests/ is put on sys.path by conftest.py

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


TOKEN_STREAM_MB, SMOKE_TOKEN_STREAM_MB = 1000, 16
TOKEN_STREAM_LIMIT_MB = 300


@pytest.mark.parametrize("tokenizer", ["cl100k", "minilm"])
def test_token_stream_peak(benchmark, smoke, tokenizer):
    if tokenizer == "minilm" and assets.minilm_path() is None:
        pytest.skip(assets.MINILM_MISSING)
    benchmark.group = "streaming: iter_chunks in tokens over a generated file"
    mb = SMOKE_TOKEN_STREAM_MB if smoke else TOKEN_STREAM_MB
    cmd = [sys.executable, str(SCRIPT), "--mb", str(mb), "--tokenizer", tokenizer, "--json"]

    def run():
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    result = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(result, impl="chunkwise", variant="stream.tokens", limit_mb=TOKEN_STREAM_LIMIT_MB)
    assert result["chunks"] > 0
    if result["hwm_reset"]:
        assert result["process_peak_mb"] < TOKEN_STREAM_LIMIT_MB, result
