"""Bad input gets a clear error naming the argument; nothing panics."""

from __future__ import annotations

import pytest

import chunkwise
from chunkwise import ChunkingError, FixedChunker, ParagraphChunker, RecursiveChunker, SentenceChunker


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: RecursiveChunker(0), "size must be >= 1, got 0"),
        (lambda: RecursiveChunker(-5), "size must be >= 1, got -5"),
        (lambda: RecursiveChunker(10, 10), r"overlap must be < size \(0..=9\), got 10"),
        (lambda: RecursiveChunker(10, -1), "overlap must be >= 0, got -1"),
        (lambda: SentenceChunker(10, min_size=11), r"min_size must be <= size \(0..=10\), got 11"),
        (lambda: ParagraphChunker(10, min_size=-1), "min_size must be >= 0, got -1"),
        (lambda: FixedChunker(10, snap=10), r"snap must be < size \(0..=9\), got 10"),
        (lambda: RecursiveChunker(10, unit="bytes"), "unit must be 'chars' or 'tokens', got \"bytes\""),
        (lambda: RecursiveChunker(10, unit="tokens"), "unit='tokens' needs a tokenizer"),
        (lambda: RecursiveChunker(10, separators=["("], is_separator_regex=True), r"separators\[0\] is not a valid regex"),
        (lambda: RecursiveChunker(10, separators=["a", ""]), r"separators\[1\] is empty"),
        (lambda: RecursiveChunker(10, separators=["x*"], is_separator_regex=True), "matches the empty string"),
        (lambda: RecursiveChunker(10, keep_separator="both"), "keep_separator must be 'end' or 'start', got \"both\""),
    ],
)
def test_bad_arguments(make, message):
    with pytest.raises(ChunkingError, match=message):
        make()


def test_chunking_error_is_a_value_error():
    assert issubclass(ChunkingError, ValueError)
    assert chunkwise.ChunkingError is chunkwise._core.ChunkingError


def test_wrong_types():
    chunker = RecursiveChunker(10)
    with pytest.raises(TypeError, match="text must be str, got bytes"):
        chunker.chunk(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text must be str, got NoneType"):
        chunker.spans(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="metadata must be a mapping or None, got list"):
        chunker.chunk("abc", metadata=[1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\] must be str, got int"):
        chunker.chunk_batch(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="texts must be a sequence of texts, not a single str"):
        chunker.chunk_batch("abc")
    with pytest.raises(TypeError):
        RecursiveChunker("big")  # type: ignore[arg-type]


def test_batch_metadata_count_must_match():
    with pytest.raises(ChunkingError, match=r"metadatas must have one entry per text \(2\), got 1"):
        RecursiveChunker(10).chunk_batch(["a", "b"], [{"x": 1}])


def test_lone_surrogate_is_a_clear_error():
    text = "good text \ud800 more"
    for call in (RecursiveChunker(10).chunk, RecursiveChunker(10).spans, RecursiveChunker(10).split):
        with pytest.raises(ChunkingError, match=r"text holds a lone surrogate '\\ud800' at index 10"):
            call(text)
    with pytest.raises(ChunkingError, match=r"texts\[1\] holds a lone surrogate"):
        RecursiveChunker(10).chunk_batch(["fine", "bad \udfff"])
