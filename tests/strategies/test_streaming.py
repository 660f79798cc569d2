"""iter_chunks: the chunks of a text that arrives in pieces equal the chunks of the whole text.

The texts are larger than a block of the stream (4 MB), so that every stream here is chunked in several runs, each
stopping at a horizon and resuming where the last one stopped.
"""

from __future__ import annotations

import io

import pytest

import chunkwise
from chunkwise import (
    ChunkingError,
    ClauseChunker,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    TableChunker,
    Tokenizer,
)
from support.corpus import DATA, ROOT

META = {"doc_id": "big.txt", "lang": ["zh", "en"]}


def _big_text() -> str:
    """About 10 MB of the repository's corpus in every script, each copy marked so that its chunks differ."""
    parts = [(DATA / n).read_text(encoding="utf-8") for n in ("en.txt", "zh.txt", "ja.txt", "mixed.md", "code.py")]
    base = "\n\n".join(parts)
    copies = []
    for k in range(28):
        copies.append(base.replace("\n\n", f"\n\n[{k}] ", 40))
    return "\n\n".join(copies)


BIG = _big_text()


def pieces(text: str, size: int):
    for i in range(0, len(text), size):
        yield text[i : i + size]


CHUNKERS = [
    RecursiveChunker(512),
    RecursiveChunker(100, 20, min_size=30),
    RecursiveChunker(300, 40, trim=False),
    RecursiveChunker(200, separators=[r"\n\n", r"(?<=[.。])", " "], is_separator_regex=True),
    SentenceChunker(256, 32),
    ParagraphChunker(1000),
    FixedChunker(300, 30, snap=60),
    FixedChunker(64),
    FixedChunker(300, 30, snap=60, restart="paragraph"),
    FixedChunker(200, restart="line"),
]


def test_the_text_is_several_blocks():
    assert len(BIG.encode()) > 2 * (4 + 0.25) * 1024 * 1024  # a block and its margin


@pytest.mark.parametrize("chunker", CHUNKERS, ids=repr)
def test_a_stream_gives_the_chunks_of_the_whole_text(chunker):
    whole = chunker.chunk(BIG, META)
    got = list(chunker.iter_chunks(pieces(BIG, 777_777), META))
    assert len(got) == len(whole)
    assert got == whole  # text, offsets, index, size, level, ids, neighbours' ids, metadata
    assert [c.index for c in got] == list(range(len(got)))
    assert all(BIG[c.start : c.end] == c.text for c in got[:: max(1, len(got) // 500)])


def test_tokens_stream_too():
    chunker = RecursiveChunker(256, 32, tokenizer=Tokenizer.tiktoken("cl100k_base"))
    text = BIG[: 2 * len(BIG) // 3]
    whole = chunker.chunk(text, META)
    got = list(chunker.iter_chunks(pieces(text, 1_000_003), META))
    assert got == whole
    assert all(c.token_count == c.size for c in got)


def test_text_and_binary_files_and_a_str(tmp_path):
    chunker = RecursiveChunker(400, 50)
    path = tmp_path / "big.txt"
    # A BOM, CRLF line ends and multi-byte characters cut across reads.
    text = "\ufeff" + BIG[:3_000_000].replace("\n", "\r\n")
    path.write_bytes(text.encode("utf-8"))
    whole = chunker.chunk(text, META)
    with open(path, "rb") as f:
        assert list(chunker.iter_chunks(f, META, read_size=100_001)) == whole
    with open(path, encoding="utf-8", newline="") as f:
        assert list(chunker.iter_chunks(f, META, read_size=100_001)) == whole
    assert list(chunker.iter_chunks(text, META)) == whole
    assert list(chunker.iter_chunks(io.StringIO(text), META)) == whole


def test_pages_are_numbered_across_the_stream():
    chunker = RecursiveChunker(300)
    text = "\f".join(BIG[i : i + 500_000] for i in range(0, 5_000_000, 500_000))
    whole = chunker.chunk(text, META)
    got = list(chunker.iter_chunks(pieces(text, 300_000), META, paged=True))
    assert got == whole
    assert got[-1].metadata["page_end"] == 10


def test_a_page_break_needs_paged():
    with pytest.raises(ChunkingError, match="paged"):
        list(RecursiveChunker(100).iter_chunks(["one\ftwo"], META))


def test_the_document_must_be_named():
    with pytest.raises(ValueError, match="metadata must name the document"):
        RecursiveChunker(100).iter_chunks("text")
    for key in ("doc_id", "id", "source"):
        assert [c.text for c in RecursiveChunker(100).iter_chunks("text", {key: "d"})] == ["text"]


@pytest.mark.parametrize(
    "chunker", [MarkdownChunker(100), ClauseChunker(100), TableChunker(100)], ids=lambda c: type(c).__name__
)
def test_structural_chunkers_say_they_do_not_stream(chunker):
    with pytest.raises(ChunkingError, match="cannot stream"):
        chunker.iter_chunks("# A\n\ntext", META)


def test_bad_sources_are_named():
    chunker = RecursiveChunker(100)
    with pytest.raises(TypeError, match=r"source\[1\] must be a str, got int"):
        list(chunker.iter_chunks(["a", 1], META))
    with pytest.raises(TypeError, match="got bytes"):
        list(chunker.iter_chunks(b"abc", META))
    with pytest.raises(TypeError, match="got float"):
        list(chunker.iter_chunks(1.5, META))
    with pytest.raises(ChunkingError, match="not UTF-8: invalid byte at offset 4"):
        list(chunker.iter_chunks(io.BytesIO(b"abc \xff def"), META, read_size=2))
    with pytest.raises(ChunkingError, match="ends inside a character"):
        list(chunker.iter_chunks(io.BytesIO("abc é".encode()[:-1]), META))
    with pytest.raises(ValueError, match="read_size"):
        chunker.iter_chunks("a", META, read_size=0)
    with pytest.raises(ChunkingError, match="lone surrogate|surrogate|encode"):
        list(chunker.iter_chunks(["a\ud800b"], META))


def test_an_empty_stream_has_no_chunks():
    chunker = RecursiveChunker(100)
    assert list(chunker.iter_chunks([], META)) == []
    assert list(chunker.iter_chunks(["", "  \n\n ", ""], META)) == chunker.chunk("  \n\n ", META) == []


def test_chunks_of_a_stream_pickle():
    import pickle

    chunks = list(RecursiveChunker(50).iter_chunks(pieces(BIG[:5000], 333), META))
    assert pickle.loads(pickle.dumps(chunks)) == chunks


def test_the_readme_names_it():
    assert "iter_chunks" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert callable(chunkwise.RecursiveChunker.iter_chunks)
