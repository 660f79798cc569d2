"""CJK cut quality on the zh/ja corpus, and hand-made CJK cases.

The corpus is the repository's ``tests/data`` (slices of the shared corpus); ``CHUNKWISE_CORPUS`` points the tests
at another folder holding ``zh.txt`` and ``ja.txt`` (the full shared corpus, say). A missing file fails the test.
``pytest -s tests/boundary/test_cjk.py`` prints a small comparison table against semantic-text-splitter and langchain.
"""

from __future__ import annotations


import pytest

from chunkwise import ParagraphChunker, RecursiveChunker, SentenceChunker
from support.corpus import load

SIZE = 256
SENTENCE_END = set("。！？.!?…")
CLAUSE_END = set("，、；：,;:")
CLOSERS = "」』）”’\"')"
HSPACE = " \t\u3000\u00a0"
# A chunk must never start with these: they belong to the text on their left.
BAD_START = set("。，、；：！？」』）】”’，．")


def next_char(text: str, end: int) -> str:
    """The first source char at or after ``end`` that is not horizontal whitespace ("" at the end of the text)."""
    j = end
    while j < len(text) and text[j] in HSPACE:
        j += 1
    return text[j] if j < len(text) else ""


def end_kind(text: str, start: int, end: int, level: str = "") -> str:
    if next_char(text, end) in ("\n", "\r") or level in ("line", "paragraph"):
        return "line"
    body = text[start:end].rstrip(CLOSERS)
    if body and body[-1] in SENTENCE_END:
        return "sentence"
    if body and body[-1] in CLAUSE_END:
        return "clause"
    return "other"


def forced_cut(text: str, end: int) -> bool:
    """Whether the cut at ``end`` lies in a line longer than a chunk that holds no sentence or clause mark."""
    line_start = text.rfind("\n", 0, end) + 1
    line_end = text.find("\n", end)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    return len(line) > SIZE and not any(ch in SENTENCE_END or ch in CLAUSE_END for ch in line)


# -- corpus ----------------------------------------------------------------------------------------------------------

LANGS = ["zh.txt", "ja.txt"]
_cache: dict = {}


def chunked(name: str):
    if name not in _cache:
        text = load(name)
        _cache[name] = (text, RecursiveChunker(SIZE, 0).chunk(text))
    return _cache[name]


@pytest.mark.parametrize("name", LANGS)
def test_corpus_ends_at_structure(name):
    text, chunks = chunked(name)
    assert len(chunks) > 100
    for c in chunks[:: max(1, len(chunks) // 500)]:
        assert text[c.start : c.end] == c.text and len(c.text) <= SIZE
    # A line longer than a chunk with no sentence or clause mark in it (a grid table's rule line) has no structure
    # to cut at: such cuts are not counted.
    free = [c for c in chunks[:-1] if not forced_cut(text, c.end)]
    kinds = [end_kind(text, c.start, c.end, c.level) for c in free]
    good = sum(k != "other" for k in kinds) / len(kinds)
    bad = [(c.text[-30:], text[c.end : c.end + 10]) for c, k in zip(free, kinds) if k == "other"][:10]
    print(f"\n{name}: {good:.1%} of {len(kinds)} non-final ends at a line/sentence/clause boundary")
    assert good >= 0.95, f"only {good:.1%} structured ends; e.g. {bad}"


@pytest.mark.parametrize("name", LANGS)
def test_corpus_no_chunk_starts_with_closing_punctuation(name):
    text, chunks = chunked(name)
    bad = [(c.index, c.text[:20], text[max(0, c.start - 10) : c.start]) for c in chunks if c.text[0] in BAD_START]
    assert bad == []


# -- hand-made cases -------------------------------------------------------------------------------------------------

QUOTES_ZH = "他说：「你好。」然后走了。她问：『为什么？』我答：“因为下雨了！”（真的。）最后，大家都笑了。"
CHUNKERS = [RecursiveChunker, SentenceChunker, ParagraphChunker]


@pytest.mark.parametrize("cls", CHUNKERS)
@pytest.mark.parametrize("size", range(6, 40))
def test_closing_quotes_stay_left_of_cuts(cls, size):
    chunks = cls(size).split(QUOTES_ZH)
    assert "".join(chunks) == QUOTES_ZH  # nothing but the cuts (the text has no whitespace)
    for piece in chunks:
        assert piece[0] not in BAD_START, chunks
    for piece in chunks[:-1]:
        # a cut after a sentence end inside quotes comes after the closing quote, never between 。 and 」
        assert piece[-1] not in "「『“（", chunks
    assert all(len(p) <= size for p in chunks)


def test_quote_cut_exact():
    assert RecursiveChunker(10).split("他说：「你好。」然后走了。") == ["他说：「你好。」", "然后走了。"]
    assert SentenceChunker(10).split("他说：「你好。」然后走了。") == ["他说：「你好。」", "然后走了。"]
    assert RecursiveChunker(9).split("她问：『为什么？』我答。") == ["她问：『为什么？』", "我答。"]


JA = "今日は天気が良いので、公園に行きました。明日は雨が降るそうです。"


@pytest.mark.parametrize("cls", CHUNKERS)
@pytest.mark.parametrize("size", range(12, 40))
def test_japanese_without_spaces_cuts_at_punctuation(cls, size):
    chunks = cls(size).split(JA)
    assert "".join(chunks) == JA
    assert len(chunks) >= (2 if size < len(JA) else 1)
    for piece in chunks[:-1]:
        assert piece[-1] in "。、", chunks
    if size >= len("今日は天気が良いので、公園に行きました。"):
        # a whole sentence fits: never cut at 、 then
        assert all(p.endswith("。") for p in chunks), chunks


def test_japanese_exact():
    assert RecursiveChunker(12).split(JA) == ["今日は天気が良いので、", "公園に行きました。", "明日は雨が降るそうです。"]
    assert RecursiveChunker(20).split(JA) == ["今日は天気が良いので、公園に行きました。", "明日は雨が降るそうです。"]


def test_chinese_clause_cut_inside_long_sentence():
    text = "我们今天去了北京大学，参观了图书馆，还见到了老师，然后回家了。"
    chunks = RecursiveChunker(12).split(text)
    assert "".join(chunks) == text
    assert all(p[-1] in "，。" for p in chunks), chunks
    assert all(len(p) <= 12 for p in chunks)


def test_korean_cuts_at_spaces_and_periods():
    text = "안녕하세요. 저는 학생입니다. 한국어를 공부하고 있습니다."
    chunks = RecursiveChunker(16).split(text)
    assert chunks == ["안녕하세요. 저는 학생입니다.", "한국어를 공부하고 있습니다."], chunks
    chunks = RecursiveChunker(12).split(text)
    assert chunks == ["안녕하세요.", "저는 학생입니다.", "한국어를 공부하고", "있습니다."], chunks


@pytest.mark.parametrize("cls", CHUNKERS)
def test_line_wrapped_before_comma_is_not_a_cut(cls):
    # A hard-wrapped line that starts with "，" continues the clause of the line above: do not cut before it.
    # (regression: zh.txt man pages; fixed in 4a3f230)
    chunks = cls(12).split("一二三四五六七八\n，九十。")
    assert chunks == ["一二三四五六七八\n，", "九十。"], chunks
    chunks = cls(10).split("一二三四五六七\n」九十。")
    assert all(p[0] not in BAD_START for p in chunks), chunks
