"""The character cap in tokens (``max_chars``): text a tokenizer counts as one token or as none still gets cut.

WordPiece gives one ``[UNK]`` to a word longer than ``max_input_chars_per_word`` (100 here and in BERT), so
``"a" * 1_000_000`` is one token; BERT's normalizer drops NULs. Before the cap, such a text was one chunk of a million
characters at ``size=16``. The reference for every count is Hugging Face ``tokenizers`` itself.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import chunkwise
from chunkwise import ChunkingError, Tokenizer

from support.tokenizer_assets import hf_reference, minilm_path, trained
from support.corpus import DATA

pytest.importorskip("tokenizers")


CHUNKERS = {
    "recursive": lambda **kw: chunkwise.RecursiveChunker(**kw),
    "sentence": lambda **kw: chunkwise.SentenceChunker(**kw),
    "paragraph": lambda **kw: chunkwise.ParagraphChunker(**kw),
    "fixed": lambda **kw: chunkwise.FixedChunker(**kw),
    "fixed-snap": lambda **kw: chunkwise.FixedChunker(snap=4, **kw),
    "markdown": lambda **kw: chunkwise.MarkdownChunker(**kw),
    "clause": lambda **kw: chunkwise.ClauseChunker(**kw),
}


def _wordpieces():
    found = [("wordpiece", trained("wordpiece"))]
    path = minilm_path()
    if path is not None:
        found.append(("minilm", Path(path).read_text(encoding="utf-8")))
    return found


def _reference_count(reference, text: str) -> int:
    return len(reference.encode(text, add_special_tokens=False).ids)


def _check(chunks, text: str, size: int, max_chars: int, reference) -> None:
    """Chunks tile the text in order (trimming only drops whitespace), hold at most `max_chars` characters and
    `size` tokens, and report the tokenizer's own count."""
    at = 0
    for c in chunks:
        assert text[at : c.start].strip() == "", (at, c.start)
        assert text[c.start : c.end] == c.text
        assert len(c.text) <= max_chars
        assert c.token_count == _reference_count(reference, c.text)
        assert c.token_count <= size
        at = c.end
    assert text[at:].strip() == ""


@pytest.mark.parametrize("name,json_text", _wordpieces(), ids=lambda v: v if len(v) < 20 else "")
@pytest.mark.parametrize("strategy", sorted(CHUNKERS))
def test_one_token_of_any_length_is_cut_at_the_default_cap(name, json_text, strategy):
    tok = Tokenizer.from_str(json_text)
    reference = hf_reference(json_text)
    text = "a" * 100_000
    assert tok.count(text) == 1 == _reference_count(reference, text)
    size = 16
    chunks = CHUNKERS[strategy](size=size, tokenizer=tok).chunk(text)
    assert len(chunks) >= 100_000 // (size * 64)
    _check(chunks, text, size, size * 64, reference)


@pytest.mark.parametrize("name,json_text", _wordpieces(), ids=lambda v: v if len(v) < 20 else "")
def test_a_million_chars_of_one_token(name, json_text):
    tok = Tokenizer.from_str(json_text)
    text = "a" * 1_000_000
    assert tok.count(text) == 1
    chunks = chunkwise.RecursiveChunker(size=512, tokenizer=tok).chunk(text)
    assert [(c.start, c.end) for c in chunks] == [(i, min(i + 32_768, len(text))) for i in range(0, len(text), 32_768)]
    assert all(c.token_count == 1 for c in chunks)


@pytest.mark.parametrize("name,json_text", _wordpieces(), ids=lambda v: v if len(v) < 20 else "")
def test_runs_the_tokenizer_drops_are_cut_too(name, json_text):
    # BERT's normalizer removes NULs and other control characters: they count nothing, anywhere in the text.
    tok = Tokenizer.from_str(json_text)
    reference = hf_reference(json_text)
    text = "word " * 50 + "\x00" * 300_000 + " word" * 50
    assert tok.count("\x00" * 1000) == 0
    chunks = chunkwise.RecursiveChunker(size=32, tokenizer=tok, max_chars=2_000).chunk(text)
    _check(chunks, text, 32, 2_000, reference)
    assert len(chunks) >= 150


@pytest.mark.parametrize("max_chars", [16, 17, 100, 999])
@pytest.mark.parametrize("strategy", sorted(CHUNKERS))
def test_an_int_cap_binds_on_ordinary_text(strategy, max_chars):
    json_text = trained("wordpiece")
    tok, reference = Tokenizer.from_str(json_text), hf_reference(json_text)
    text = (DATA / "mixed.md").read_text(encoding="utf-8")[:30_000]
    chunks = CHUNKERS[strategy](size=16, tokenizer=tok, max_chars=max_chars).chunk(text)
    _check(chunks, text, 16, max_chars, reference)


def test_the_default_cap_leaves_real_text_as_it_was():
    # The cap is far above what real text reaches: the chunks are those of no cap at all.
    tok = Tokenizer.tiktoken("cl100k_base")
    for name in ("en.txt", "zh.txt", "ja.txt", "mixed.md", "table.md", "code.py"):
        text = (DATA / name).read_text(encoding="utf-8")
        for make in (chunkwise.RecursiveChunker, chunkwise.MarkdownChunker):
            for size in (32, 256):
                auto = make(size=size, tokenizer=tok).chunk(text)
                off = make(size=size, tokenizer=tok, max_chars=None).chunk(text)
                assert [(c.start, c.end, c.token_count) for c in auto] == [
                    (c.start, c.end, c.token_count) for c in off
                ], (name, make.__name__, size)


def test_no_cap_keeps_the_old_behaviour():
    json_text = trained("wordpiece")
    tok = Tokenizer.from_str(json_text)
    text = "a" * 100_000
    chunks = chunkwise.RecursiveChunker(size=16, tokenizer=tok, max_chars=None).chunk(text)
    assert [(c.start, c.end, c.token_count) for c in chunks] == [(0, 100_000, 1)]


def test_the_cap_in_every_call():
    tok = Tokenizer.from_str(trained("wordpiece"))
    chunker = chunkwise.RecursiveChunker(size=16, tokenizer=tok, max_chars=1_000)
    texts = ["a" * 10_500, "b" * 3_000, "hello world"]
    for text, chunks, spans in zip(texts, chunker.chunk_batch(texts), chunker.spans_batch(texts)):
        assert [c.text for c in chunks] == chunker.split(text)
        assert [(c.start, c.end) for c in chunks] == [tuple(p) for p in chunker.spans(text).tolist()]
        assert [(c.start, c.end) for c in chunks] == [tuple(p) for p in spans.tolist()]
        assert all(len(c.text) <= 1_000 for c in chunks)
    assert len(chunker.split(texts[0])) == 11


def test_table_chunker_caps_rows_too():
    tok = Tokenizer.from_str(trained("wordpiece"))
    table = "| a | b |\n|---|---|\n" + "".join(f"| {'x' * 5_000} | {i} |\n" for i in range(3))
    chunks = chunkwise.TableChunker(size=64, tokenizer=tok, max_chars=1_000).chunk(table)
    at = 0
    for c in chunks:
        assert len(c.text) <= 1_000 and table[c.start : c.end] == c.text
        assert table[at : c.start].strip() == ""
        at = c.end
    assert table[at:].strip() == "" and len(chunks) >= 15
    # Rows only: no size, no cap.
    rows = chunkwise.TableChunker(rows_per_chunk=2, tokenizer=tok).chunk(table)
    assert len(rows) == 2
    with pytest.raises(ChunkingError, match="max_chars"):
        chunkwise.TableChunker(rows_per_chunk=2, tokenizer=tok, max_chars=1_000)


def test_arguments():
    tok = Tokenizer.tiktoken("cl100k_base")
    with pytest.raises(ChunkingError, match=r"max_chars must be >= size \(64\), got 63"):
        chunkwise.RecursiveChunker(size=64, tokenizer=tok, max_chars=63)
    with pytest.raises(ChunkingError, match=r"max_chars must be >= 1, got -5"):
        chunkwise.RecursiveChunker(size=64, tokenizer=tok, max_chars=-5)
    with pytest.raises(TypeError, match="max_chars must be 'auto', an int or None, got bool"):
        chunkwise.RecursiveChunker(size=64, tokenizer=tok, max_chars=True)
    with pytest.raises(TypeError, match="max_chars must be 'auto', an int or None, got float"):
        chunkwise.MarkdownChunker(size=64, tokenizer=tok, max_chars=100.0)
    with pytest.raises(ChunkingError, match="max_chars must be 'auto', an int or None, got 'none'"):
        chunkwise.FixedChunker(size=64, tokenizer=tok, max_chars="none")
    with pytest.raises(ChunkingError, match=r"max_chars must be at most .*2\*\*63"):
        chunkwise.SentenceChunker(size=64, tokenizer=tok, max_chars=2**63)
    # In characters the size is the cap: an int is refused, "auto" and None change nothing.
    with pytest.raises(ChunkingError, match="max_chars caps chunks measured in tokens"):
        chunkwise.RecursiveChunker(size=64, max_chars=1_000)
    text = (DATA / "en.txt").read_text(encoding="utf-8")[:5_000]
    assert (
        chunkwise.RecursiveChunker(size=64).split(text)
        == chunkwise.RecursiveChunker(size=64, max_chars=None).split(text)
        == chunkwise.RecursiveChunker(size=64, max_chars="auto").split(text)
    )


def test_config_pickle_equality():
    tok = Tokenizer.tiktoken("cl100k_base")
    chunker = chunkwise.ParagraphChunker(size=64, tokenizer=tok, max_chars=500)
    assert chunker.config["max_chars"] == 500
    assert "max_chars=500" in repr(chunker)
    copy = pickle.loads(pickle.dumps(chunker))
    assert copy == chunker
    assert copy != chunkwise.ParagraphChunker(size=64, tokenizer=tok)
    assert chunkwise.ParagraphChunker(size=64, tokenizer=tok).config["max_chars"] == "auto"


def test_core_splitter_pickles_every_argument():
    # The private splitter is pickled as its config: no argument is dropped (format and rows_per_chunk once were).
    tok = Tokenizer.tiktoken("cl100k_base")
    splitter = chunkwise._core.Splitter(
        "table", 64, overlap=8, unit="tokens", tokenizer=tok, format="csv", rows_per_chunk=3, max_chars=700,
        size_includes_context=False,
    )
    copy = pickle.loads(pickle.dumps(splitter))
    config, restored = splitter.config(), copy.config()
    assert restored.pop("tokenizer").count("hello world") == config.pop("tokenizer").count("hello world")
    assert restored == config
    assert config["format"] == "csv" and config["rows_per_chunk"] == 3 and config["max_chars"] == 700
    csv = "a,b\n" + "".join(f"{i},{'x' * i}\n" for i in range(40))
    assert [c.text for c in copy.chunk(csv)] == [c.text for c in splitter.chunk(csv)]
