"""Overlap in tables (issue 12, defect 9): whole data rows only, in TableChunker (by rows_per_chunk and by size) and
in the tables of MarkdownChunker.

The rule under test: ``overlap`` is counted in the chunker's unit, like everywhere else, and is made of the last
whole data rows of the previous chunk that fit in it; never part of a row, never the header (the header is in
``context``). ``rows_per_chunk`` bounds every chunk's rows, overlap rows included, so a chunk repeats at most
``rows_per_chunk - 1`` rows and always brings a row of its own. ``row_start``/``row_end`` count the overlap rows.
"""

from __future__ import annotations

import csv
import functools
import io
import itertools

import pytest

from chunkwise import MarkdownChunker, Tokenizer
from chunkwise import TableChunker as _TableChunker

# The sizes below are worked out on the rows alone: the header in the context does not count here.
TableChunker = functools.partial(_TableChunker, size_includes_context=False)
MarkdownChunker = functools.partial(MarkdownChunker, size_includes_context=False)

ISSUE_TABLE = "|a|b|\n|-|-|\n|1|2|\n|3|4|\n|5|6|\n|7|8|"
ISSUE_HEADER = "|a|b|\n|-|-|"


def rows_of(chunks):
    return [(c.metadata["row_start"], c.metadata["row_end"]) for c in chunks]


def table(fmt, n, multiline=False):
    """A table of `n` data rows in `fmt`: its text, the header's (start, end) and each data row's (start, end), as
    str offsets (a CSV record with a quoted line break is one row)."""
    header = {"markdown": "| id | name | note |\n|--:|:--|---|", "csv": "id,name,note", "tsv": "id\tname\tnote"}[fmt]
    parts, spans, pos = [header], [], len(header) + 1
    for i in range(n):
        note = f"note {i % 7} " * (1 + i % 3)
        if fmt == "markdown":
            row = f"| {i} | name {i} | {note.strip()} |"
        elif fmt == "csv":
            buf = io.StringIO()
            cell = f"line one {i}\nline, two" if multiline and i % 3 == 0 else note.strip()
            csv.writer(buf, lineterminator="").writerow([i, f"name {i}", cell])
            row = buf.getvalue()
        else:
            row = f"{i}\tname {i}\t{note.strip()}"
        parts.append(row)
        spans.append((pos, pos + len(row)))
        pos += len(row) + 1
    return "\n".join(parts) + "\n", (0, len(header)), spans


def check(text, header, rows, chunks, *, overlap, measure, size=None, rows_per_chunk=None):
    """Every chunk is whole rows (the first one with the header), consecutive chunks share the last rows of the
    earlier one that fit in `overlap`, and every limit holds."""
    assert chunks
    assert chunks[0].metadata["row_start"] == 0 and chunks[-1].metadata["row_end"] == len(rows)
    for i, c in enumerate(chunks):
        assert text[c.start : c.end] == c.text
        rs, re_ = c.metadata["row_start"], c.metadata["row_end"]
        assert c.metadata["total_rows"] == len(rows) and c.metadata["chunk_type"] == "table"
        assert 0 <= rs < re_ <= len(rows), (i, rs, re_)
        first = header[0] if i == 0 else rows[rs][0]
        # Whole rows: no part of a row, and no header line in any chunk but the first.
        assert (c.start, c.end) == (first, rows[re_ - 1][1]), (i, c.text)
        if size is not None:
            assert c.size <= size
        if rows_per_chunk is not None:
            assert re_ - rs <= rows_per_chunk
    for prev, nxt in zip(chunks, chunks[1:]):
        (prs, pre), (nrs, nre) = rows_of([prev, nxt])
        assert prs < nrs <= pre < nre, "each chunk starts later and brings rows of its own"
        shared = pre - nrs
        if shared:
            assert measure(text[rows[nrs][0] : rows[pre - 1][1]]) <= overlap
            # The most rows that fit: one more would be over `overlap`, or every row of the chunk before, or over
            # rows_per_chunk.
            one_more = nrs - 1
            assert (
                measure(text[rows[one_more][0] : rows[pre - 1][1]]) > overlap
                or one_more <= prs
                or (rows_per_chunk is not None and shared + 1 > rows_per_chunk - 1)
            ), (prs, pre, nrs)


# -- rows_per_chunk ---------------------------------------------------------------------------------------------------


def test_rows_per_chunk_with_an_overlap_of_one_row():
    # The issue's table: "|3|4|" is 5 characters, so overlap=5 holds one whole row.
    chunks = TableChunker(rows_per_chunk=2, overlap=5).chunk(ISSUE_TABLE)
    assert rows_of(chunks) == [(0, 2), (1, 3), (2, 4)]
    assert [c.text for c in chunks] == [ISSUE_HEADER + "\n|1|2|\n|3|4|", "|3|4|\n|5|6|", "|5|6|\n|7|8|"]
    assert [c.context for c in chunks] == ["", ISSUE_HEADER, ISSUE_HEADER]
    assert chunks[1].embedding_text == ISSUE_HEADER + "\n|3|4|\n|5|6|"


def test_overlap_is_counted_in_units_not_rows():
    # overlap=1 is one character: no row fits in it, so there is no overlap (never a part of a row).
    assert rows_of(TableChunker(rows_per_chunk=2, overlap=1).chunk(ISSUE_TABLE)) == [(0, 2), (2, 4)]
    assert rows_of(TableChunker(rows_per_chunk=2, overlap=4).chunk(ISSUE_TABLE)) == [(0, 2), (2, 4)]


def test_rows_per_chunk_bounds_the_rows_overlap_included():
    text, header, rows = table("markdown", 8)
    # A large overlap: at most rows_per_chunk - 1 rows are repeated, every chunk brings one new row.
    chunks = TableChunker(rows_per_chunk=3, overlap=10_000).chunk(text)
    assert rows_of(chunks) == [(0, 3), (1, 4), (2, 5), (3, 6), (4, 7), (5, 8)]
    check(text, header, rows, chunks, overlap=10_000, measure=len, rows_per_chunk=3)
    # One row per chunk leaves no room for overlap.
    chunks = TableChunker(rows_per_chunk=1, overlap=10_000).chunk(text)
    assert rows_of(chunks) == [(i, i + 1) for i in range(8)]


def test_rows_per_chunk_is_counted_from_each_chunk_start():
    # With size and rows_per_chunk, a chunk that size cut short does not shorten the next one: the rows limit
    # counts from where each chunk starts, not from fixed multiples of rows_per_chunk.
    text = "| h |\n|---|\n" + "".join(f"| {'x' * (9 if i == 1 else 1)} |\n" for i in range(6))
    chunks = TableChunker(30, rows_per_chunk=3).chunk(text)
    assert rows_of(chunks) == [(0, 1), (1, 4), (4, 6)]
    assert all(c.size <= 30 for c in chunks)


# -- size ------------------------------------------------------------------------------------------------------------


def test_size_overlap_never_holds_the_header_or_the_delimiter_row():
    chunks = TableChunker(14, overlap=6).chunk(ISSUE_TABLE)
    assert [c.text for c in chunks] == [ISSUE_HEADER, "|1|2|\n|3|4|", "|3|4|\n|5|6|", "|5|6|\n|7|8|"]
    assert rows_of(chunks) == [(0, 0), (0, 2), (1, 3), (2, 4)]
    assert [c.context for c in chunks] == ["", ISSUE_HEADER, ISSUE_HEADER, ISSUE_HEADER]


def test_size_overlap_is_whole_rows_never_words_of_a_row():
    text, header, rows = table("markdown", 30)
    # Each row is over 10 characters: an overlap of 10 holds no whole row, and takes no words of one.
    chunks = TableChunker(120, overlap=10).chunk(text)
    assert [c.metadata["row_start"] for c in chunks[1:]] == [c.metadata["row_end"] for c in chunks[:-1]]
    check(text, header, rows, chunks, overlap=10, measure=len, size=120)


@pytest.mark.parametrize("fmt", ["markdown", "csv", "tsv"])
@pytest.mark.parametrize(
    "size, overlap, rows_per_chunk",
    [(120, 40, None), (200, 90, None), (None, 60, 4), (150, 70, 3), (90, 89, None), (None, 1000, 5), (300, 0, None)],
)
def test_overlap_rows_in_every_format(fmt, size, overlap, rows_per_chunk):
    text, header, rows = table(fmt, 40, multiline=True)
    chunks = TableChunker(size, overlap, rows_per_chunk=rows_per_chunk, format=fmt).chunk(text)
    check(text, header, rows, chunks, overlap=overlap, measure=len, size=size, rows_per_chunk=rows_per_chunk)
    if overlap >= 60:
        assert any(a.metadata["row_end"] > b.metadata["row_start"] for a, b in zip(chunks, chunks[1:]))


def test_overlap_in_tokens():
    tok = Tokenizer.tiktoken("cl100k_base")
    text, header, rows = table("markdown", 40)
    chunks = TableChunker(60, 25, unit="tokens", tokenizer=tok).chunk(text)
    check(text, header, rows, chunks, overlap=25, measure=tok.count, size=60)
    assert any(a.metadata["row_end"] > b.metadata["row_start"] for a, b in zip(chunks, chunks[1:]))


def test_without_trim_the_overlap_is_whole_rows_too():
    text, _, rows = table("markdown", 12)
    chunks = TableChunker(rows_per_chunk=4, overlap=60, trim=False).chunk(text)
    # Untrimmed, a chunk keeps the line break after its last row; the overlap still starts where a row starts.
    assert rows_of(chunks) == [(0, 4), (3, 7), (6, 10), (9, 12)]
    assert [c.start for c in chunks[1:]] == [rows[3][0], rows[6][0], rows[9][0]]
    assert all(text[c.start : c.end] == c.text for c in chunks)


# -- CSV / TSV rendering ---------------------------------------------------------------------------------------------


def test_csv_embedding_text_renders_the_overlap_rows():
    text = "a,b\n1,2\n3,4\n5,6\n7,8\n"
    chunks = TableChunker(rows_per_chunk=2, overlap=3, format="csv").chunk(text)
    assert rows_of(chunks) == [(0, 2), (1, 3), (2, 4)]
    assert [c.text for c in chunks] == ["a,b\n1,2\n3,4", "3,4\n5,6", "5,6\n7,8"]
    md = "| a | b |\n| --- | --- |"
    assert chunks[1].context == md
    assert chunks[1].embedding_text == md + "\n| 3 | 4 |\n| 5 | 6 |"
    assert chunks[2].embedding_text == md + "\n| 5 | 6 |\n| 7 | 8 |"


def test_multiline_csv_records_overlap_whole():
    text, header, rows = table("csv", 12, multiline=True)
    chunks = TableChunker(rows_per_chunk=3, overlap=80, format="csv").chunk(text)
    check(text, header, rows, chunks, overlap=80, measure=len, rows_per_chunk=3)
    records = list(csv.reader(io.StringIO(text)))[1:]
    for c in chunks:
        lines = c.embedding_text.split("\n")
        assert len(lines) == 2 + c.metadata["row_end"] - c.metadata["row_start"]
        assert [line.split(" | ")[0] for line in lines[2:]] == [
            "| " + records[r][0] for r in range(c.metadata["row_start"], c.metadata["row_end"])
        ]
    assert any(a.metadata["row_end"] > b.metadata["row_start"] for a, b in zip(chunks, chunks[1:]))


def test_tsv_overlap_by_size():
    text = "k\tv\n" + "".join(f"{i}\tvalue {i}\n" for i in range(10))
    chunks = TableChunker(30, overlap=10, format="tsv").chunk(text)
    for c in chunks[1:]:
        rs, re_ = c.metadata["row_start"], c.metadata["row_end"]
        assert c.embedding_text == "| k | v |\n| --- | --- |\n" + "\n".join(
            f"| {i} | value {i} |" for i in range(rs, re_)
        )
    assert any(a.metadata["row_end"] > b.metadata["row_start"] for a, b in zip(chunks, chunks[1:]))


# -- Markdown tables inside MarkdownChunker --------------------------------------------------------------------------


def markdown_doc():
    text, _, rows = table("markdown", 30)
    intro = "# Inventory\n\nThe rows below list every item we keep, with a note on each one.\n\n"
    doc = intro + text + "\nAfter the table comes a closing paragraph, a few words long.\n"
    return doc, len(intro), [(a + len(intro), b + len(intro)) for a, b in rows]


@pytest.mark.parametrize("size, overlap", [(150, 10), (150, 40), (200, 80), (120, 60), (300, 150)])
def test_markdown_chunker_overlaps_table_rows_whole(size, overlap):
    doc, table_start, rows = markdown_doc()
    starts, ends = {a for a, _ in rows}, {b for _, b in rows}
    table_end = rows[-1][1]
    chunks = MarkdownChunker(size, overlap).chunk(doc)
    inside = [c for c in chunks if table_start < c.start < table_end]
    assert inside
    for prev, c in zip(chunks, chunks[1:]):
        assert doc[c.start : c.end] == c.text
        if table_start < c.start < table_end:
            # Starts at a data row, never inside the header, the delimiter row or a row.
            assert c.start in starts, c.text[:30]
            assert c.metadata["chunk_type"] in ("table", "text")
            if c.start < prev.end:
                assert prev.end in ends or prev.end > table_end
                assert len(doc[c.start : min(prev.end, table_end)]) <= overlap
        if prev.end < table_end and prev.start < c.start < prev.end and c.start >= table_start:
            # (An overlap may reach back into the paragraph that leads into the table, its caption, which the
            # table's first piece takes: that is prose, cut where prose is.)
            assert c.start in starts


def test_markdown_chunker_repeats_rows_as_overlap():
    doc, table_start, rows = markdown_doc()
    chunks = MarkdownChunker(150, 80).chunk(doc)
    starts = [a for a, _ in rows]
    shared = [b for a, b in zip(chunks, chunks[1:]) if b.start < a.end and table_start < b.start < rows[-1][1]]
    assert shared and all(c.start in starts for c in shared)


def test_no_case_gets_a_partial_row_by_accident():
    # A grid over small sizes and overlaps, all formats: chunk edges inside the table are row edges.
    for fmt, size, overlap in itertools.product(["markdown", "csv", "tsv"], [70, 110, 160], [0, 15, 35, 69]):
        text, header, rows = table(fmt, 15, multiline=True)
        chunks = TableChunker(size, overlap, format=fmt).chunk(text)
        check(text, header, rows, chunks, overlap=overlap, measure=len, size=size)
