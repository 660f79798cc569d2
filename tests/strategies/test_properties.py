"""Property tests: the invariants every chunker must keep on any text, any size, any overlap.

The texts mix ASCII, Han, kana, Hangul, emoji ZWJ sequences, combining marks, CRLF and CJK punctuation, built by
joining sampled fragments so that multi-code-point grapheme clusters appear whole (and often).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import chunkwise
from chunkwise import ClauseChunker, FixedChunker, MarkdownChunker, ParagraphChunker, RecursiveChunker, SentenceChunker
from support.alphabets import graphemes, short_run, texts


# -- text strategy ---------------------------------------------------------------------------------------------------


# -- chunker factories -----------------------------------------------------------------------------------------------

CUSTOM_SEPARATORS = ["\n\n", "。", ". ", " "]

FACTORIES = {
    "recursive": lambda size, overlap, trim: RecursiveChunker(size, overlap, trim=trim),
    "recursive-custom": lambda size, overlap, trim: RecursiveChunker(
        size, overlap, separators=CUSTOM_SEPARATORS, trim=trim
    ),
    "sentence": lambda size, overlap, trim: SentenceChunker(size, overlap, trim=trim),
    "paragraph": lambda size, overlap, trim: ParagraphChunker(size, overlap, trim=trim),
    "fixed": lambda size, overlap, trim: FixedChunker(size, overlap, trim=trim),
    "fixed-paragraph": lambda size, overlap, trim: FixedChunker(size, overlap, trim=trim, restart="paragraph"),
    "fixed-line": lambda size, overlap, trim: FixedChunker(size, overlap, snap=size // 4, trim=trim, restart="line"),
    "markdown": lambda size, overlap, trim: MarkdownChunker(size, overlap, trim=trim),
    "markdown-apart": lambda size, overlap, trim: MarkdownChunker(size, overlap, trim=trim, merge_sections=False),
    "clause": lambda size, overlap, trim: ClauseChunker(size, overlap, trim=trim),
}

# Chunkers that read the document's structure: their chunks carry a title path, a type and a context.
STRUCTURAL = {"markdown", "markdown-apart", "clause"}
STRUCTURAL_LEVELS = {"section", "thematic_break", "block", "item", "nested_block", "definition"}


GREEDY = ["recursive", "recursive-custom", "sentence", "paragraph"]


@st.composite
def params(draw):
    size = draw(st.integers(1, 300))
    overlap = draw(st.one_of(st.just(0), st.integers(0, size - 1)))
    trim = draw(st.booleans())
    return size, overlap, trim


# -- helpers ---------------------------------------------------------------------------------------------------------


def grapheme_boundaries(text: str) -> set:
    bounds = {0}
    pos = 0
    for g in graphemes(text):
        pos += len(g)
        bounds.add(pos)
    return bounds


def check_invariants(text: str, chunks: list, size: int, overlap: int, trim: bool) -> None:
    bounds = grapheme_boundaries(text)
    for i, c in enumerate(chunks):
        assert c.text == text[c.start : c.end], (i, c)
        assert 0 <= c.start < c.end <= len(text), (i, c)
        assert c.size == len(c.text), (i, c)
        assert c.index == i, (i, c)
        assert c.start in bounds, f"chunk {i} starts inside a grapheme cluster at {c.start}: {c!r}"
        assert c.end in bounds, f"chunk {i} ends inside a grapheme cluster at {c.end}: {c!r}"
        if len(c.text) > size:
            assert len(graphemes(c.text)) == 1, f"chunk {i} has {len(c.text)} > size={size} chars: {c.text!r}"
        if trim:
            assert c.text, (i, c)
            # (Unless the whitespace starts a cluster, " \u0301": a chunk never starts inside one.)
            starts_cluster = len(graphemes(c.text)[0]) > 1
            assert not c.text[0].isspace() or starts_cluster, f"chunk {i} starts with whitespace: {c.text!r}"
            assert not c.text[-1].isspace(), f"chunk {i} ends with whitespace: {c.text!r}"
        levels = {"paragraph", "line", "sentence", "clause", "wrap", "word", "grapheme", "separator", "end"}
        assert c.level in levels | STRUCTURAL_LEVELS, c.level

    for i, (prev, nxt) in enumerate(zip(chunks, chunks[1:])):
        assert nxt.start > prev.start, f"starts not increasing at {i}: {prev!r} {nxt!r}"
        assert nxt.end > prev.end, f"ends not increasing at {i}: {prev!r} {nxt!r}"
        shared = prev.end - nxt.start
        if overlap == 0:
            assert shared <= 0, f"overlap=0 but chunks {i},{i + 1} share {shared} chars: {prev!r} {nxt!r}"
        else:
            assert shared <= overlap, f"chunks {i},{i + 1} share {shared} > overlap={overlap}: {prev!r} {nxt!r}"

    if not trim and overlap == 0:
        assert "".join(c.text for c in chunks) == text

    covered = bytearray(len(text))
    for c in chunks:
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
    # Trimming leaves out whitespace, and a byte order mark that starts the text.
    kept = lambda j, ch: ch.isspace() or covered[j] or (j == 0 and ch == "\ufeff")  # noqa: E731
    lost = [j for j, ch in enumerate(text) if not kept(j, ch)]
    assert not lost, f"non-whitespace chars not in any chunk at {lost[:10]}: {[text[j] for j in lost[:10]]}"
    if not text.strip():
        # Whitespace-only (or empty) text: nothing to keep when trimming; with trim=False the whole text comes back.
        if trim:
            assert chunks == []


# -- the properties --------------------------------------------------------------------------------------------------


def run_all_checks(kind, text, p, more):
    size, overlap, trim = p
    chunker = FACTORIES[kind](size, overlap, trim)
    chunks = chunker.chunk(text)
    check_invariants(text, chunks, size, overlap, trim)

    # spans / split agree with chunk
    spans = chunker.spans(text)
    assert isinstance(spans, np.ndarray) and spans.dtype == np.int64
    assert spans.reshape(-1, 2).shape == (len(chunks), 2)
    assert [tuple(map(int, s)) for s in spans.reshape(-1, 2)] == [(c.start, c.end) for c in chunks]
    assert chunker.split(text) == [c.text for c in chunks]

    # batch == one by one, in order
    batch_in = [text] + more
    singles = [[c.to_dict() for c in chunker.chunk(t)] for t in batch_in]
    batched = chunker.chunk_batch(batch_in)
    assert [[c.to_dict() for c in cs] for cs in batched] == singles
    spans_b = chunker.spans_batch(batch_in)
    assert [[tuple(map(int, s)) for s in sp.reshape(-1, 2)] for sp in spans_b] == [
        [(d["start"], d["end"]) for d in cs] for cs in singles
    ]

    # linked, unique ids; the embedding text is the context and the text (only structural chunkers have a context)
    for i, c in enumerate(chunks):
        assert c.prev_id == (chunks[i - 1].id if i else None)
        assert c.next_id == (chunks[i + 1].id if i + 1 < len(chunks) else None)
        if kind in STRUCTURAL:
            assert c.embedding_text == (c.context + c.context_sep + c.text if c.context else c.text)
            md = c.metadata
            assert len(md["title_path"]) == len(md["headings"]) and md["chunk_type"] in {
                "text", "heading", "table", "code", "list", "quote", "clause"
            }
        else:
            assert c.context == "" and c.embedding_text == c.text
    assert len({c.id for c in chunks}) == len(chunks)


@pytest.mark.parametrize("kind", list(FACTORIES))
@given(text=texts, p=params(), more=st.lists(texts, max_size=3))
@example(text="", p=(1, 0, True), more=[])
@example(text="a", p=(1, 0, True), more=[""])
@example(text="👨\u200d👩\u200d👧 e\u0301\r\n中文。", p=(1, 0, False), more=[])
@example(text="他说：「你好。」然后走了。" * 5, p=(7, 3, True), more=["   \n\n  "])
# regressions: overlap-only duplicate chunks after a long whitespace run (fixed in 4f2590f and 4a3f230)
@example(text="aaa中中" + "\r\n" * 80, p=(4, 1, True), more=["aaa" + " " * 97, "aaa中中" + "\n" * 99])
@example(text="ab. cd." + "\n" * 70, p=(10, 3, True), more=["ab cd" + "\n" * 100, "aa" + " " * 65])
@example(text="aaaaaaa大大大大大大  aaaaa" + "\n" * 78 + "bbddddfed", p=(22, 19, True), more=[])
@example(text="中中." + "\r\n\r\n" * 17, p=(3, 2, True), more=[])
@example(text="aaa" + " " * 97, p=(2, 1, True), more=[])
def test_invariants(kind, text, p, more):
    run_all_checks(kind, text, p, more)


@pytest.mark.parametrize("kind", list(FACTORIES))
@given(text=texts, p=params())
def test_deterministic_and_picklable(kind, text, p):
    size, overlap, trim = p
    chunker = FACTORIES[kind](size, overlap, trim)
    clone = pickle.loads(pickle.dumps(chunker))
    assert clone == chunker and hash(clone) == hash(chunker) and clone.config == chunker.config
    a = chunker.chunk(text, {"k": [1]})
    b = clone.chunk(text, {"k": [1]})
    assert [c.to_dict() for c in a] == [c.to_dict() for c in b]
    meta = {"k": [1]}
    a = chunker.chunk(text, meta)
    meta["added"] = True  # the chunks hold deep copies
    meta["k"].append(2)
    if a:
        with pytest.raises(TypeError, match="read-only"):
            a[0].metadata["mine"] = 1
    for c in a:
        extra = {k: v for k, v in c.metadata.items() if k not in {"k"}}
        assert c.metadata["k"] == [1] and (kind in STRUCTURAL or not extra)
        # (The code keys: a chunk of a Markdown code block whose fence names a language CodeChunker knows.)
        assert set(extra) <= {"title_path", "headings", "chunk_type", "row_start", "row_end", "total_rows", "language",
                              "context_shortened", "symbol_path", "start_line", "end_line", "node_types", "note"}
    for c in a:
        back = pickle.loads(pickle.dumps(c))
        assert back.to_dict() == c.to_dict()


@given(text=texts, size=st.integers(1, 120))
def test_fixed_windows_are_maximal(text, size):
    """FixedChunker, trim=False, overlap=0: each window ends at the last grapheme boundary within `size` chars of its
    start (or after the first grapheme when that one alone is bigger), so the windows are exactly determined."""
    chunks = FixedChunker(size, 0, trim=False).chunk(text)
    expected = []
    start = 0
    gs = graphemes(text)
    gi = 0
    while gi < len(gs):
        end = start + len(gs[gi])
        gi += 1
        while gi < len(gs) and end + len(gs[gi]) - start <= size:
            end += len(gs[gi])
            gi += 1
        expected.append((start, end))
        start = end
    assert [(c.start, c.end) for c in chunks] == expected


@pytest.mark.parametrize("kind", GREEDY)
@given(text=texts, size=st.integers(1, 300))
@example(text="a b" + "\u00a0" * 100, size=64)  # regression: non-ASCII whitespace padding (fixed)
# regressions: a fitting text cut at its words before a long whitespace run (fixed in 4f2590f and 4a3f230)
@example(text="ab cd." + " " * 100, size=10)
@example(text="ab cd" + " " * 150, size=10)
@example(text="a a" + "\r\n" * 70, size=3)
@example(text="a中" + " " * 136, size=2)
def test_fitting_text_is_one_chunk(kind, text, size):
    """A text whose trimmed form fits in one chunk comes back as that one chunk."""
    chunks = FACTORIES[kind](size, 0, True).chunk(text)
    stripped = text.strip()
    if stripped and len(stripped) <= size:
        assert [c.text for c in chunks] == [stripped]


@pytest.mark.parametrize("kind", GREEDY)
@given(
    words=st.lists(st.sampled_from(["ab", "cd", "中文", "한국어", "e\u0301", "👨\u200d👩\u200d👧"]), min_size=2, max_size=6),
    pad=st.integers(1, 1000),
)
@example(words=["ab", "ab"], pad=140)  # regression (fixed in 4a3f230)
@example(words=["ab", "cd."], pad=100)
def test_trailing_spaces_do_not_split_fitting_line(kind, words, pad):
    """A short line of words (no stronger boundary inside) followed by spaces and more text: the line is the first
    chunk whatever the padding."""
    line = " ".join(words)
    size = len(line)
    text = line + " " * pad + "|"
    assert FACTORIES[kind](size, 0, True).split(text)[0] == line


@pytest.mark.parametrize("kind", GREEDY)
@given(line=texts, pad=st.integers(60, 1000), ws=st.sampled_from([" ", "\t", "\r\n", "\u3000", "\u00a0", " \n"]))
@example(line="a b", pad=100, ws="\u00a0")  # regression: non-ASCII whitespace padding (fixed)
def test_whitespace_padding_does_not_change_cuts(kind, line, pad, ws):
    """Trailing whitespace is trimmed away, so it must not change where a text is cut."""
    chunker = FACTORIES[kind](64, 0, True)
    assert chunker.split(line + ws * pad) == chunker.split(line)


# Shapes AutoChunker reads in content: shebangs, lines of code, CSV and TSV fields, links, besides STRUCTURE.
DETECTED = ["\n#!/bin/sh\n", "\ndef f(x):\n", "\n    return x\n", "x = 1;\n", ",", "\t", '"', "[a](http://a.b)",
            "\ufeff", "\n}\n", "{\n"]


@given(text=st.lists(st.one_of(short_run, st.sampled_from(DETECTED)), max_size=120).map("".join),
       size=st.integers(20, 300))
def test_auto_chooses_a_kind_and_chunks_by_it(text, size):
    """Whatever the content, AutoChunker picks one of its kinds, says why, and chunks as that kind's chunker."""
    auto = chunkwise.AutoChunker(size)
    choice = auto.choose(text)
    assert choice.strategy in chunkwise.auto.KINDS and choice.reason.startswith("content: ")
    assert (choice.table_format is not None) == (choice.strategy == "table")
    assert choice.language is None or choice.strategy == "code"
    chunks = auto.chunk(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    if choice.strategy != "table":  # a table that does not parse falls back to prose
        assert [c.text for c in chunks] == auto.chunker_for(choice).split(text)


def test_bad_arguments_raise():
    for bad in [dict(size=0), dict(size=10, overlap=10), dict(size=10, overlap=-1), dict(size=-5)]:
        with pytest.raises(chunkwise.ChunkingError):
            RecursiveChunker(**bad)
    assert issubclass(chunkwise.ChunkingError, ValueError)
    with pytest.raises(chunkwise.ChunkingError):
        RecursiveChunker(10).chunk("ab\ud800cd")
