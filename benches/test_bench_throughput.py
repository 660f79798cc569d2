"""Throughput (MB/s of UTF-8 input) of chunkwise and its peers, per corpus
file and chunk size; one benchmark group per (file, size) so that
pytest-benchmark's table puts the peers next to chunkwise.

chunkwise variants (all single-threaded, overlap 0, sizes in chars):

* ``recursive.spans``       RecursiveChunker.spans(): numpy offsets, no Python
                            object per chunk.  Warm: the same str object every
                            round, so CPython's cached UTF-8 form is reused.
* ``recursive.spans.cold``  the same on a fresh copy of the str each round
                            (made outside the timed part), so the UTF-8
                            encoding is paid inside every timed call.
* ``recursive.chunk``       RecursiveChunker.chunk(): a Chunk object per chunk.
* ``recursive.split``       RecursiveChunker.split(): list[str], which is what
                            the peers return.
* ``sentence.chunk``, ``paragraph.chunk``, ``fixed.chunk``: the other chunkers.

Peers come from peers.py (their default rules, len as the length function)
and skip when not installed.  Every case, chunkwise or peer, gets one
untimed call on the whole input (warm-up and calibration), then as many
timed rounds as fit in ~1 s (3 to 20); MB/s is from the fastest round.
Ratios are computed by report.py from one run's JSON.  Under
--benchmark-disable each case runs once on the first 1 MB of the file.
"""

from __future__ import annotations

import time

import pytest

from benchlib import fresh_copy, record
from peers import MARKDOWN_PEERS, PEERS

cw = pytest.importorskip("chunkwise")

SIZES = (512, 2048)
ROUNDS = 3  # at least
MAX_ROUNDS = 20
BUDGET_S = 1.0  # rounds * (time of one call) aimed at, per benchmark

CHUNKERS = {
    "recursive": cw.RecursiveChunker,
    "sentence": cw.SentenceChunker,
    "paragraph": cw.ParagraphChunker,
    "fixed": cw.FixedChunker,
}
VARIANTS = (
    "recursive.spans",
    "recursive.spans.cold",
    "recursive.chunk",
    "recursive.split",
    "sentence.chunk",
    "paragraph.chunk",
    "fixed.chunk",
)


def _check_spans(spans, size):
    assert spans.ndim == 2 and spans.shape[0] > 0 and spans.shape[1] == 2
    assert int((spans[:, 1] - spans[:, 0]).max()) <= size


def _check_texts(texts, size):
    assert texts and max(map(len, texts)) <= size


def _timed(benchmark, fn, text, smoke, cold=False):
    """Run fn(text) under the benchmark: one untimed call first (warm-up and
    calibration), then enough rounds for ~BUDGET_S seconds, at least ROUNDS
    and at most MAX_ROUNDS; the same rule for chunkwise and the peers.  With
    cold=True every call gets a fresh copy of text, made outside the timing."""
    setup = (lambda: ((fresh_copy(text),), {})) if cold else None
    args = () if cold else (text,)
    rounds = 1
    if not smoke:
        t0 = time.perf_counter()
        fn(fresh_copy(text) if cold else text)
        rounds = max(ROUNDS, min(MAX_ROUNDS, int(BUDGET_S / (time.perf_counter() - t0))))
    return benchmark.pedantic(fn, args=args, setup=setup, rounds=rounds,
                              warmup_rounds=0, iterations=1)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_chunkwise(benchmark, doc, variant, size, smoke):
    benchmark.group = f"{doc.name} @{size}"
    strategy, method, *cold = variant.split(".")
    fn = getattr(CHUNKERS[strategy](size), method)
    result = _timed(benchmark, fn, doc.text, smoke, cold=bool(cold))
    if method == "spans":
        _check_spans(result, size)
    elif method == "chunk":
        _check_texts([c.text for c in result], size)
        assert result[0].text == doc.text[result[0].start:result[0].end]
    else:
        _check_texts(result, size)
    record(benchmark, doc.nbytes, impl="chunkwise", variant=variant,
           file=doc.name, size=size)


def _bench_peer(benchmark, factory, name, size, doc, group, smoke):
    split = factory(size)  # skips if the peer is not installed
    benchmark.group = group
    chunks = _timed(benchmark, split, doc.text, smoke)
    _check_texts(chunks, size)
    record(benchmark, doc.nbytes, impl="peer", variant=name, file=doc.name,
           size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("peer", PEERS)
def test_peer(benchmark, doc, peer, size, smoke):
    _bench_peer(benchmark, PEERS[peer], peer, size, doc, f"{doc.name} @{size}", smoke)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("peer", MARKDOWN_PEERS)
def test_markdown_peer(benchmark, md_doc, peer, size, smoke):
    _bench_peer(benchmark, MARKDOWN_PEERS[peer], peer, size, md_doc,
                f"{md_doc.name} @{size}", smoke)
