"""Adversarial inputs: huge runs, no boundaries at all, giant grapheme clusters, NULs, RTL text.

Correctness only (no timing assertions), sized so the whole file runs in well under a minute on 2 cores.
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest

from chunkwise import ChunkingError, FixedChunker, ParagraphChunker, RecursiveChunker, SentenceChunker

regex = pytest.importorskip("regex", reason="grapheme segmentation needs the `regex` package")

FULL_SEGMENTATION_LIMIT = 600_000  # above this, grapheme boundaries are checked locally (segmenting 5M chars is slow)


def grapheme_boundaries(text: str) -> set:
    bounds, pos = {0}, 0
    for g in regex.finditer(r"\X", text):
        pos = g.end()
        bounds.add(pos)
    return bounds


def looks_like_grapheme_boundary(text: str, i: int) -> bool:
    """Necessary conditions for a boundary at ``i`` (exact for the big texts used here, which have no clusters
    longer than CRLF)."""
    if i in (0, len(text)):
        return True
    if text[i - 1] == "\r" and text[i] == "\n":
        return False
    nxt = text[i]
    return unicodedata.category(nxt) not in ("Mn", "Me", "Mc") and nxt not in "\u200d\ufe0f\ufe0e" and not (
        0x1F3FB <= ord(nxt) <= 0x1F3FF
    )


def check(text: str, chunker, size: int, overlap: int = 0, trim: bool = True, chunks=None) -> list:
    """All the invariants; returns the chunks."""
    if chunks is None:
        chunks = chunker.chunk(text)
    n = len(text)
    exact = n <= FULL_SEGMENTATION_LIMIT
    bounds = grapheme_boundaries(text) if exact else None
    covered = bytearray(n)
    prev = None
    for i, c in enumerate(chunks):
        assert c.index == i
        assert 0 <= c.start < c.end <= n, c
        assert c.text == text[c.start : c.end]
        assert c.size == len(c.text)
        for b in (c.start, c.end):
            ok = (b in bounds) if exact else looks_like_grapheme_boundary(text, b)
            assert ok, f"chunk {i} boundary {b} inside a grapheme cluster"
        if len(c.text) > size:
            assert regex.fullmatch(r"\X", c.text), f"chunk {i}: {len(c.text)} chars > {size}, not one grapheme"
        if trim:
            assert not c.text[0].isspace() and not c.text[-1].isspace(), f"chunk {i} not trimmed: {c.text[:20]!r}"
        if prev is not None:
            assert c.start > prev.start and c.end > prev.end, (prev, c)
            assert prev.end - c.start <= overlap, (prev, c)
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
        prev = c
    for m in regex.finditer(r"\S+", text):
        hole = covered.find(0, m.start(), m.end())
        assert hole == -1, f"non-whitespace char {text[hole]!r} at {hole} is in no chunk"
    if not trim and overlap == 0:
        assert sum(len(c.text) for c in chunks) == n and "".join(c.text for c in chunks) == text
    return chunks


def check_spans(text: str, chunker, chunks) -> None:
    spans = chunker.spans(text)
    expected = np.array([(c.start, c.end) for c in chunks], dtype=np.int64).reshape(-1, 2)
    assert np.array_equal(spans.reshape(-1, 2), expected)


# -- 2,000,000 blank lines ---------------------------------------------------------------------------------------


BLANK = "Intro text here. It has two sentences.\n" + "\n" * 2_000_000 + "Outro text, at the end."


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker])
def test_two_million_blank_lines(cls):
    chunks = check(BLANK, cls(512), 512)
    assert [c.text for c in chunks] == ["Intro text here. It has two sentences.", "Outro text, at the end."]
    assert chunks[1].end == len(BLANK)


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker])
def test_two_million_blank_lines_with_overlap(cls):
    chunks = check(BLANK, cls(512, 64), 512, overlap=64)
    assert [c.text for c in chunks] == ["Intro text here. It has two sentences.", "Outro text, at the end."]


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker])
def test_two_million_blank_lines_small_chunks_with_overlap(cls):
    # regression: FixedChunker emitted (34,38), (35,38), ... (37,38) here before 4a3f230
    chunks = check(BLANK, cls(16, 4), 16, overlap=4)
    assert chunks[-1].end == len(BLANK) and len(chunks) < 12


def test_two_million_blank_lines_untrimmed():
    chunker = RecursiveChunker(512, trim=False)
    chunks = check(BLANK, chunker, 512, trim=False)
    assert len(chunks) >= len(BLANK) // 512
    check_spans(BLANK, chunker, chunks)


def test_blank_lines_between_paragraphs():
    text = "\n\n\n\n".join(f"Paragraph {i} says hello." for i in range(50_000)) + "\n" * 100_000
    chunks = check(text, RecursiveChunker(512), 512)
    assert all(c.text.endswith("hello.") and c.text.startswith("Paragraph") for c in chunks)


# -- one 5 MB line without spaces ------------------------------------------------------------------------------------

LONG_LINE = "abcdefghij" * 500_000


def test_five_megabyte_line_recursive():
    chunker = RecursiveChunker(512)
    chunks = check(LONG_LINE, chunker, 512)
    assert [len(c.text) for c in chunks[:-1]] == [512] * (len(chunks) - 1)
    assert chunks[-1].end == len(LONG_LINE)
    check_spans(LONG_LINE, chunker, chunks)


def test_five_megabyte_line_fixed_overlap():
    chunks = check(LONG_LINE, FixedChunker(512, 64), 512, overlap=64)
    for prev, c in zip(chunks, chunks[1:]):
        assert c.start == prev.end - 64  # exact windows on a text of one-char graphemes
    assert all(len(c.text) == 512 for c in chunks[:-1])
    assert chunks[-1].end == len(LONG_LINE)


def test_five_megabyte_line_sentence_batch():
    chunker = SentenceChunker(512)
    texts = [LONG_LINE[:1_000_000], LONG_LINE[:777_777], "short."]
    batch = chunker.spans_batch(texts)
    for t, spans in zip(texts, batch):
        assert [tuple(map(int, s)) for s in spans] == [(c.start, c.end) for c in check(t, chunker, 512)]


# -- 2.5M CJK chars without punctuation ------------------------------------------------------------------------------

CJK = "中文字测试漢語かなカナ한국어" * 178_572  # 14 chars * 178,572 = 2.5M


def test_cjk_line_without_punctuation():
    assert len(CJK) >= 2_500_000
    chunker = RecursiveChunker(512)
    chunks = check(CJK, chunker, 512)
    assert all(len(c.text) >= 500 for c in chunks[:-1]), "cuts without punctuation should still fill the chunks"
    check_spans(CJK, chunker, chunks)


def test_cjk_line_without_punctuation_untrimmed_sentence():
    check(CJK[:1_000_000], SentenceChunker(300, trim=False), 300, trim=False)


# -- 50k ZWJ family emoji --------------------------------------------------------------------------------------------

FAMILY = "👨\u200d👩\u200d👧"
FAMILIES = FAMILY * 50_000


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, FixedChunker])
def test_zwj_family_emoji(cls):
    chunks = check(FAMILIES, cls(512), 512)
    for c in chunks:
        assert c.start % len(FAMILY) == 0 and c.end % len(FAMILY) == 0
    assert all(len(c.text) == 510 for c in chunks[:-1])  # 102 whole families fit in 512 chars


def test_zwj_family_emoji_smaller_than_one_cluster():
    # size 3 < one cluster (5 chars): every chunk is exactly one family
    chunks = check(FAMILIES[: 5 * 2000], RecursiveChunker(3), 3)
    assert [c.text for c in chunks] == [FAMILY] * 2000


def test_zwj_family_emoji_fixed_overlap_untrimmed():
    check(FAMILIES[: 5 * 20_000], FixedChunker(64, 16, trim=False), 64, overlap=16, trim=False)


# -- NUL bytes -------------------------------------------------------------------------------------------------------

NUL_TEXT = "abc\x00def. ghi\x00\x00 jkl.\n\x00\n\nNUL\x00\x00\x00para, with\x00commas.\n" * 10_000


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker])
def test_nul_bytes(cls):
    chunks = check(NUL_TEXT, cls(512), 512)
    assert sum(c.text.count("\x00") for c in chunks) >= NUL_TEXT.count("\x00")  # NULs are content, never dropped


def test_only_nul_bytes():
    text = "\x00" * 100_000
    chunks = check(text, RecursiveChunker(512), 512)
    assert "".join(c.text for c in chunks) == text


def test_nul_bytes_untrimmed_join():
    check(NUL_TEXT, RecursiveChunker(100, trim=False), 100, trim=False)


# -- right-to-left text ----------------------------------------------------------------------------------------------

RTL = (
    "שלום עולם. מה שלומך? אני בסדר, תודה! "
    "مرحبا بالعالم، كيف حالك؟ أنا بخير، شكرا. "
    "\u200fעברית\u200f עם סימני כיוון؛ ועוד משפט.\n"
) * 4000


def test_rtl_text_recursive():
    chunks = check(RTL, RecursiveChunker(512), 512)
    # lines are shorter than 512: whole lines only, so every chunk ends at a line end
    assert all(c.text.endswith("ועוד משפט.") for c in chunks)


@pytest.mark.parametrize("cls", [SentenceChunker, ParagraphChunker])
def test_rtl_text_sentences(cls):
    chunks = check(RTL, cls(512), 512)
    # whole sentences (Hebrew/Arabic terminators included), packed up to 512
    assert all(c.text[-1] in ".?!؟" for c in chunks)
    assert all(len(c.text) > 400 for c in chunks[:-1])


def test_rtl_sentences_cut_at_rtl_punctuation():
    line = RTL.split("\n")[0]
    chunks = check(line, RecursiveChunker(60), 60)
    assert len(chunks) > 2
    for c in chunks[:-1]:
        assert c.text[-1] in ".?!؟،,؛", c.text


# -- one giant grapheme cluster --------------------------------------------------------------------------------------

GIANT = "a" + "\u0301" * 10_000


@pytest.mark.parametrize("cls", [RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker])
def test_giant_grapheme_is_one_chunk(cls):
    text = "hello " + GIANT + " world"
    chunks = check(text, cls(512), 512)
    assert [c.text for c in chunks] == ["hello", GIANT, "world"]


@pytest.mark.parametrize("cls", [RecursiveChunker, FixedChunker])
def test_giant_grapheme_alone_and_tiny_size(cls):
    assert [c.text for c in check(GIANT, cls(512), 512)] == [GIANT]
    text = "xy" + GIANT + "z" + GIANT
    chunks = check(text, cls(1), 1)
    assert [c.text for c in chunks] == ["x", "y", GIANT, "z", GIANT]


def test_giant_grapheme_untrimmed_overlap():
    text = ("word " * 200 + GIANT + " ") * 3
    check(text, RecursiveChunker(128, 32, trim=False), 128, overlap=32, trim=False)
    check(text, FixedChunker(128, 32, trim=False), 128, overlap=32, trim=False)


# -- misc ------------------------------------------------------------------------------------------------------------


def test_crlf_never_split():
    text = "\r\n" * 100_000
    for size in (1, 511):
        chunks = check(text, FixedChunker(size, trim=False), size, trim=False)
        assert all(c.start % 2 == 0 and c.end % 2 == 0 for c in chunks)


def test_lone_surrogate_rejected():
    for cls in (RecursiveChunker, SentenceChunker, ParagraphChunker, FixedChunker):
        with pytest.raises(ChunkingError):
            cls(512).chunk("x" * 1000 + "\udc80" + "y")
        with pytest.raises(ChunkingError):
            cls(512).chunk_batch(["ok", "bad\ud800"])
