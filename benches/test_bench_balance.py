"""Balanced cuts (``balance=True``) against greedy ``spans()`` of the same chunker, on each corpus file.

* test_balance_speed[file-chunker-size]: the balanced spans' time over the greedy spans' time, interleaved
  (benchlib.best_times, best of 7); extra_info["ratio"], target <= 2 (issue 33). The benchmark itself times the
  balanced call (MB/s). Chunkers: RecursiveChunker at 256, 512 and 2048 chars on every file, MarkdownChunker on
  mixed.md.
* test_balance_linear: the ratio of the balanced MB/s on the first 1 MB of en.txt to that on en.txt repeated to
  16 MB (target within 25%: the work is linear in the text).

Also recorded: chunk counts, mean and coefficient of variation of the sizes, and the smallest chunk, greedy and
balanced. CHUNKWISE_BENCH_STRICT=1 asserts the targets.
"""

from __future__ import annotations

import statistics

import pytest

from benchlib import best_times, record, repeat_to, strict, timed, utf8_head

cw = pytest.importorskip("chunkwise")

SIZES = (256, 512, 2048)


def _sizes(text: str, spans) -> list:
    return [len(text[a:b]) for a, b in spans.tolist()]


def _shape(sizes: list) -> dict:
    mean = statistics.fmean(sizes)
    return {"chunks": len(sizes), "mean": round(mean, 1), "cv": round(statistics.pstdev(sizes) / mean, 3),
            "min": min(sizes)}


@pytest.mark.parametrize("size", SIZES)
def test_balance_speed(benchmark, doc, size, smoke):
    cls = cw.MarkdownChunker if doc.name.endswith(".md") else cw.RecursiveChunker
    benchmark.group = f"balance: {cls.__name__}({size}) spans, {doc.name}"
    greedy, balanced = cls(size), cls(size, balance=True)
    spans = timed(benchmark, balanced.spans, doc.text, smoke)
    greedy_spans = greedy.spans(doc.text)
    b, g = _sizes(doc.text, spans), _sizes(doc.text, greedy_spans)
    assert max(b) <= size and all(x > 0 for x in b)
    # Every non-blank character in one chunk, in order: only where the cuts fall differs.
    assert "".join("".join(doc.text[a:e].split()) for a, e in spans.tolist()) == "".join(doc.text.split())
    times = best_times({"greedy": lambda: greedy.spans(doc.text), "balanced": lambda: balanced.spans(doc.text)},
                       1 if smoke else 7)
    ratio = times["balanced"] / times["greedy"]
    record(benchmark, len(doc.text.encode()), ratio=round(ratio, 3), greedy=_shape(g), balanced=_shape(b))
    if strict():
        assert ratio <= 2.0, f"balanced {ratio:.2f}x greedy"


def test_balance_linear(benchmark, en_doc, smoke):
    benchmark.group = "balance: RecursiveChunker(512, balance=True) spans, linearity"
    chunker = cw.RecursiveChunker(512, balance=True)
    small = utf8_head(en_doc.text, 1_000_000)
    large = repeat_to(small, 4_000_000 if smoke else 16_000_000)
    timed(benchmark, chunker.spans, large, smoke)
    times = best_times({"small": lambda: chunker.spans(small), "large": lambda: chunker.spans(large)},
                       1 if smoke else 5)
    nbytes_small, nbytes_large = len(small.encode()), len(large.encode())
    ratio = (nbytes_large / times["large"]) / (nbytes_small / times["small"])
    record(benchmark, nbytes_large, ratio_large_vs_1MB=round(ratio, 3))
    if strict():
        assert 0.75 <= ratio <= 1.33, f"MB/s on 16 MB / on 1 MB = {ratio:.2f}"
