"""Every Unicode line terminator is a line break, in every emitter and in the structure parsers (issue 12, defects
1, 5, 6 and 8): lone CR, VT, NEL, LS and PS, a leading byte order mark, and the heading/body cut."""


import pytest

from chunkwise import (
    ClauseChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
    TableChunker,
)
from support.corpus import ROOT

SAMPLE = (ROOT / "samples" / "sample.md").read_text(encoding="utf-8")

# One-character terminators: a text with them instead of LF has the same `str` offsets.
SINGLE = ["\r", "\x0b", "\x85", "\u2028"]
TEXT_CHUNKERS = [RecursiveChunker, SentenceChunker, ParagraphChunker, MarkdownChunker, ClauseChunker]


def described(chunks):
    return [(c.start, c.end, c.level, (c.metadata or {}).get("title_path")) for c in chunks]


def check_slices(source, chunks):
    for c in chunks:
        assert source[c.start : c.end] == c.text


@pytest.mark.parametrize(
    "text",
    ["#\r#", "# a\r## b\rtext", "#\r\r#\r", "x\r# a\r\r## b\r\r", "# a\r\n## b\r# c\r\n"],
)
def test_headings_split_by_a_lone_cr_do_not_crash(text):
    chunks = MarkdownChunker(size=16).chunk(text)
    check_slices(text, chunks)


def test_a_real_document_with_lone_cr_line_ends():
    """Defect 1: 87 of 158 real .md files failed once converted to lone-CR line ends."""
    text = SAMPLE.replace("\n", "\r")
    for size in (32, 128, 512):
        lf = MarkdownChunker(size=size).chunk(SAMPLE)
        cr = MarkdownChunker(size=size).chunk(text)
        check_slices(text, cr)
        assert described(cr) == described(lf)


def test_a_batch_with_lone_cr_documents():
    texts = [SAMPLE, SAMPLE.replace("\n", "\r"), "#\r#"]
    batch = MarkdownChunker(size=200).chunk_batch(texts)
    assert [described(b) for b in batch] == [described(MarkdownChunker(size=200).chunk(t)) for t in texts]


@pytest.mark.parametrize("term", SINGLE)
@pytest.mark.parametrize("cls", TEXT_CHUNKERS)
def test_single_char_terminators_read_like_lf(cls, term):
    """With a one-character terminator instead of LF, the cuts and the title paths are the same. (LS and NEL are
    compared on their structure only: the word emitter reads the text itself, where they are not LF.)"""
    text = SAMPLE.replace("\n", term)
    for size in (48, 200, 700):
        want = cls(size=size).chunk(SAMPLE)
        got = cls(size=size).chunk(text)
        check_slices(text, got)
        if term in ("\r", "\x0b"):
            assert described(got) == described(want)
        else:
            paths = lambda cs: [(c.metadata or {}).get("title_path") for c in cs]  # noqa: E731
            assert len(got) == len(want)
            assert paths(got) == paths(want)


@pytest.mark.parametrize("term", ["\r", "\x0b", "\x85", "\u2028"])
def test_terminators_end_lines_and_twice_end_paragraphs(term):
    text = f"aaa{term}{term}bbb{term}ccc"
    chunks = RecursiveChunker(size=5).chunk(text)
    assert [(c.text, c.level) for c in chunks] == [("aaa", "paragraph"), ("bbb", "line"), ("ccc", "end")]


def test_a_paragraph_separator_ends_a_paragraph():
    chunks = RecursiveChunker(size=5).chunk("aaa\u2029bbb\u2029ccc")
    assert [(c.text, c.level) for c in chunks] == [("aaa", "paragraph"), ("bbb", "paragraph"), ("ccc", "end")]


@pytest.mark.parametrize("term", ["\r", "\x0b", "\x85", "\u2028", "\r\n"])
def test_markdown_title_paths_with_other_line_ends(term):
    """Defect 5: `x` got the path of the heading after it."""
    text = f"x{term}{term}## S{term}{term}y"
    chunks = MarkdownChunker(size=3).chunk(text)
    check_slices(text, chunks)
    assert chunks[0].text == "x" and chunks[0].metadata["title_path"] == []
    assert chunks[-1].text == "y" and chunks[-1].metadata["title_path"] == ["S"]


@pytest.mark.parametrize("term", ["\r", "\x0b", "\x85", "\u2028", "\u2029"])
def test_a_fence_with_other_line_ends_is_code(term):
    text = f"```{term}code{term}```"
    (chunk,) = MarkdownChunker(size=100).chunk(text)
    assert chunk.metadata["chunk_type"] == "code"


def test_clauses_and_tables_with_lone_cr():
    law = "第一条 总则。\r第二条 定义。\r（一）一项。\r（二）二项。"
    chunks = ClauseChunker(size=10).chunk(law)
    check_slices(law, chunks)
    assert [c.metadata["title_path"] for c in chunks][-1] == ["第二条", "（二）"]
    table = "| a | b |\r|---|---|\r| 1 | 2 |\r| 3 | 4 |"
    chunks = TableChunker(rows_per_chunk=1).chunk(table)
    assert [(c.metadata["row_start"], c.metadata["row_end"]) for c in chunks] == [(0, 1), (1, 2)]


def test_a_byte_order_mark_does_not_hide_the_first_heading():
    """Defect 6: the first section had no path and its children lost their parent. Offsets are unchanged: the
    mark is the text's first character, left out of the first chunk like whitespace."""
    text = "\ufeff# Install guide\n\nSome text here.\n\n## Sub\n\nMore text here."
    chunks = MarkdownChunker(size=30, size_includes_context=False).chunk(text)
    check_slices(text, chunks)
    assert chunks[0].start == 1 and chunks[0].text.startswith("# Install guide")
    assert [c.metadata["title_path"] for c in chunks] == [
        ["Install guide"],
        ["Install guide"],
        ["Install guide", "Sub"],
    ]
    # Not trimming keeps every character, the mark included.
    assert MarkdownChunker(size=30, trim=False, size_includes_context=False).chunk(text)[0].start == 0


def test_a_byte_order_mark_before_a_csv_header():
    text = "\ufeffid,name\n1,a\n2,b\n"
    chunks = TableChunker(rows_per_chunk=1, format="csv").chunk(text)
    check_slices(text, chunks)
    assert chunks[1].context.splitlines()[0].replace(" ", "") == "|id|name|"


@pytest.mark.parametrize("size", [10, 12, 14])
def test_a_heading_that_does_not_fit_with_its_body_is_cut_after_the_heading(size):
    """Defect 8: the cut fell inside the heading ('##' | 'Two'), or inside a word that fits."""
    assert MarkdownChunker(size=size, size_includes_context=False).split("## Two\n\nSecond.") == ["## Two", "Second."]
    if size >= 12:  # "Two" in the context of "Second." counts too
        assert MarkdownChunker(size=size).split("## Two\n\nSecond.") == ["## Two", "Second."]


def test_a_heading_stays_with_the_first_piece_of_its_body():
    text = "## Two\n\nFirst sentence here. Second sentence here."
    assert MarkdownChunker(size=40).split(text) == ["## Two\n\nFirst sentence here.", "Second sentence here."]
