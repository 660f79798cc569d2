"""Batches (parallel, GIL released) give the same chunks as one call at a time, and one chunker serves many threads."""

from __future__ import annotations

import gc
import threading

import pytest

from chunkwise import RecursiveChunker, SentenceChunker, Tokenizer
from support.corpus import ROOT

SAMPLE = ROOT / "samples" / "sample.md"


def _docs():
    text = SAMPLE.read_text(encoding="utf-8")
    return [text[i : i + 700] for i in range(0, len(text), 97)] + ["", "x", text * 20]


def test_batch_equals_one_at_a_time():
    docs = _docs()
    for chunker in (RecursiveChunker(120, 20), SentenceChunker(80)):
        metas = [{"doc_id": i} for i in range(len(docs))]
        assert chunker.chunk_batch(docs, metas) == [chunker.chunk(d, m) for d, m in zip(docs, metas)]
        assert [s.tolist() for s in chunker.spans_batch(docs)] == [chunker.spans(d).tolist() for d in docs]
        assert chunker.chunk_batch(iter(docs)) == chunker.chunk_batch(docs)


class _Collections:
    """Counts the collector's runs while the block runs."""

    def __enter__(self):
        self.count = 0
        gc.callbacks.append(self._seen)
        return self

    def _seen(self, phase, info):
        self.count += phase == "start"

    def __exit__(self, *exc):
        gc.callbacks.remove(self._seen)


def test_collector_paused_while_many_chunks_are_built():
    docs = [f"Sentence {i}. " * 40 for i in range(3000)]
    chunker = RecursiveChunker(64)
    assert gc.isenabled()
    # The same chunks made one short text at a time (no pause: too few chunks a call) set the collector off many
    # times...
    with _Collections() as loop:
        held = [chunker.chunk(d) for d in docs]
    assert loop.count >= 10
    del held
    # ...but not while a batch (or one text with many chunks) is turned into chunks: at most the one collection
    # that the first allocation after the call sets off.
    with _Collections() as batch:
        chunks = chunker.chunk_batch(docs)
    assert batch.count <= 1 and sum(map(len, chunks)) > 20 * gc.get_threshold()[0]
    with _Collections() as single:
        one = chunker.chunk(" ".join(docs))
    assert single.count <= 1 and len(one) > 5 * gc.get_threshold()[0]
    assert gc.isenabled()
    # Left as the caller had it: off stays off.
    gc.disable()
    try:
        chunker.chunk_batch(docs[:50])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_collector_resumed_after_an_error():
    calls = []

    def flaky(text):
        calls.append(text)
        if len(calls) > 500:
            raise RuntimeError("tokenizer gave up")
        return len(text.split())

    chunker = RecursiveChunker(8, tokenizer=Tokenizer.from_callable(flaky))
    with pytest.raises(RuntimeError, match="gave up"):
        chunker.chunk_batch([f"word {i} " * 30 for i in range(200)])
    assert gc.isenabled()
    with pytest.raises(TypeError, match=r"texts\[1\] must be str"):
        RecursiveChunker(8).chunk_batch(["a", 2])
    assert gc.isenabled()


def test_one_chunker_shared_by_threads():
    chunker = RecursiveChunker(64)
    text = SAMPLE.read_text(encoding="utf-8") * 50  # large enough to release the GIL
    expected = chunker.spans(text).tolist()
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(chunker.spans(text).tolist())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 20 and all(r == expected for r in results)
