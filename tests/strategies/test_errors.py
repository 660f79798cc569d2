"""Bad input gets a clear error naming the argument; nothing panics."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import chunkwise
from chunkwise import (
    ChunkingError, FixedChunker, MarkdownChunker, ParagraphChunker, RecursiveChunker, SentenceChunker, Tokenizer,
)


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
        (lambda: RecursiveChunker(10, separators=["x*"], is_separator_regex=True), "can match the empty string"),
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
        with pytest.raises(ChunkingError, match=r"^text holds a lone surrogate '\\ud800' at index 10"):
            call(text)
    with pytest.raises(ChunkingError, match=r"^texts\[1\] holds a lone surrogate"):
        RecursiveChunker(10).chunk_batch(["fine", "bad \udfff"])


# -- a panic in the core -------------------------------------------------------------------------------------------
# `_core._panic_on(marker)` is a test hook: splitting a text that holds the marker panics inside the core call, as a
# bug would. A real panic would do as well today, but real panics get fixed.

MARKER = "<<panic here>>"


@pytest.fixture
def armed():
    chunkwise._core._panic_on(MARKER)
    try:
        yield
    finally:
        chunkwise._core._panic_on(None)


def _internal_error(call):
    with pytest.raises(ChunkingError) as info:
        call()
    message = str(info.value)
    assert message.startswith("internal error in chunkwise while splitting")
    # The panic's own message is in the error, with where it happened, not on stderr.
    assert f"test panic: the text holds the marker \"{MARKER}\"" in message
    assert ".rs:" in message and "please report it" in message
    return message


def _tokens_by_callable():
    return Tokenizer.from_callable(lambda s: len(s.split()))


def test_a_panic_is_an_error_that_prints_nothing(armed, capfd):
    bad = "fine words. " + MARKER
    big = "x " * 20_000 + MARKER  # above the size where the GIL is released
    for chunker in (RecursiveChunker(10), MarkdownChunker(10), RecursiveChunker(10, tokenizer=_tokens_by_callable())):
        for text in (bad, big):
            for call in (chunker.chunk, chunker.spans, chunker.split):
                assert "while splitting the text:" in _internal_error(lambda: call(text))
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("tokenizer", [None, "callable"])
@pytest.mark.parametrize("count", [5, 300])  # few texts, and enough for every worker of the batch pipeline
def test_a_panic_in_a_batch_names_the_text(armed, capfd, tokenizer, count):
    chunker = RecursiveChunker(10, tokenizer=_tokens_by_callable() if tokenizer else None)
    texts = [f"text {i}. " * 3 for i in range(count)]
    texts[3] = MARKER
    texts[count - 1] = "and " + MARKER  # the first failing text is named, whichever worker finished first
    for call in (chunker.chunk_batch, chunker.spans_batch):
        assert "while splitting texts[3]:" in _internal_error(lambda: call(texts))
    # The batch is usable again afterwards, and the other texts are fine on their own.
    del texts[3], texts[-1]
    assert len(chunker.chunk_batch(texts)) == count - 2
    assert capfd.readouterr().err == ""


def test_a_real_panic_prints_nothing():
    # A panic found on real files (issue 12): "#\r#" made the Markdown parser slice backwards. Run in a fresh
    # process, so that stderr is the process's own. Once that parser bug is fixed this text is chunked fine and the
    # test checks only that nothing is printed.
    script = (
        "import chunkwise as c\n"
        "for call in (c.MarkdownChunker().chunk, lambda t: c.MarkdownChunker().chunk_batch(['a', t])):\n"
        "    try:\n"
        "        call('#\\r#')\n"
        "    except c.ChunkingError as e:\n"
        "        assert 'internal error' in str(e), e\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, "RUST_BACKTRACE": "1"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
