"""ClauseChunker, TableChunker and pages: the structure-aware chunkers besides Markdown (tests/structure/test_markdown.py)."""

from __future__ import annotations

import csv
import io
import pickle

import pytest

from chunkwise import ChunkingError, ClauseChunker, MarkdownChunker, RecursiveChunker, TableChunker, join_pages

LAW = """中华人民共和国示例保护法

第一章 总则

第一条 为了保护和改善环境，防治污染和其他公害，保障公众健康，制定本法。

第二条 本法所称环境，是指影响人类生存和发展的各种天然的和经过人工改造的自然因素的总体。

第二章 监督管理

第一节 规划

第三条 国务院环境保护主管部门会同有关部门，编制国家环境保护规划，报国务院批准并公布实施。

第四条 县级以上人民政府应当履行下列职责：
（一）组织编制规划；
（二）监督检查规划的实施；
（三）向社会公开规划执行情况。

第二节 监测

第五条 国家建立、健全环境监测制度。"""

CONTRACT = """SERVICES AGREEMENT

ARTICLE 1 DEFINITIONS

Section 1.01 Terms. In this Agreement the following terms have the meanings below.

(a) "Services" means the work described in Schedule A.

(b) "Fees" means the amounts payable under Article 3.

Section 1.02 Interpretation. Headings are for convenience only.

ARTICLE 2 TERM

Section 2.01 Term. This Agreement starts on the Effective Date and runs for two years."""


def check_slices(text, chunks):
    assert chunks, "no chunks"
    last = -1
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start > last
        last = c.start


# -- ClauseChunker ---------------------------------------------------------------------------------------------------


def test_clause_title_paths_follow_the_numbering():
    chunks = ClauseChunker(size=60).chunk(LAW)
    check_slices(LAW, chunks)
    fourth = next(c for c in chunks if "第四条" in c.text)
    assert fourth.metadata["title_path"] == ["第二章 监督管理", "第一节 规划", "第四条"]
    assert fourth.metadata["headings"] == [1, 2, 3]
    assert fourth.metadata["chunk_type"] == "clause"
    # A provision that starts the chunk is in its text, its ancestors in the context.
    assert fourth.text.startswith("第四条")
    assert fourth.context == "第二章 监督管理 > 第一节 规划"
    assert fourth.embedding_text == fourth.context + "\n\n" + fourth.text
    fifth = next(c for c in chunks if "第五条" in c.text)
    assert fifth.metadata["title_path"][:2] == ["第二章 监督管理", "第二节 监测"]


def test_clause_provisions_that_fit_stay_whole():
    size = 80
    chunks = ClauseChunker(size=size, size_includes_context=False).chunk(LAW)
    check_slices(LAW, chunks)
    for marker in ("第一条", "第二条", "第三条", "第四条", "第五条"):
        start = LAW.index(marker)
        nxt = [LAW.find(m, start + 1) for m in ("\n\n第", "\n第")]
        end = min(x for x in nxt if x > 0) if any(x > 0 for x in nxt) else len(LAW)
        provision = LAW[start:end].strip()
        if len(provision) <= size:
            assert any(c.start <= start and start + len(provision) <= c.end for c in chunks), marker


def test_clause_long_provision_falls_back_to_sentences():
    text = "第一条 " + "".join(f"第{i}句话的内容比较长一些。" for i in range(40))
    chunks = ClauseChunker(size=50).chunk(text)
    check_slices(text, chunks)
    assert len(chunks) > 5
    assert all(c.size <= 50 for c in chunks)
    # Cut at sentence ends, and every piece knows its provision.
    assert all(c.text.endswith("。") for c in chunks)
    assert all(c.metadata["title_path"] == ["第一条"] for c in chunks)
    assert all(c.context == "第一条" for c in chunks[1:])


def test_clause_english_contract():
    chunks = ClauseChunker(size=120, merge_sections=False).chunk(CONTRACT)
    check_slices(CONTRACT, chunks)
    # A heading with no text of its own goes with its first sub-provision.
    assert chunks[1].text.startswith("ARTICLE 1 DEFINITIONS\n\nSection 1.01 Terms.")
    b = next(c for c in chunks if c.text.startswith("(b)"))
    # A provision's title is its number, with the rest of its line when that is a short heading.
    assert b.metadata["title_path"] == ["ARTICLE 1 DEFINITIONS", "Section 1.01", "(b)"]
    term = next(c for c in chunks if "Section 2.01" in c.text)
    assert term.text.startswith("ARTICLE 2 TERM") and term.metadata["title_path"] == ["ARTICLE 2 TERM"]
    # Without merging, no chunk holds two sibling provisions.
    assert not any("(a)" in c.text and "(b)" in c.text for c in chunks)


def test_clause_merges_siblings_only_when_asked():
    merged = ClauseChunker(size=400).chunk(CONTRACT)
    apart = ClauseChunker(size=400, merge_sections=False).chunk(CONTRACT)
    assert len(merged) < len(apart)
    # Never across a higher provision than the ones merged: article 2 starts a chunk.
    assert any(c.text.startswith("ARTICLE 2") for c in merged)


def test_clause_text_without_provisions_is_plain_text():
    text = "No numbered provisions here. Just two sentences."
    chunks = ClauseChunker(size=30).chunk(text)
    check_slices(text, chunks)
    assert all(c.metadata["title_path"] == [] and c.metadata["chunk_type"] == "text" for c in chunks)


# -- TableChunker ----------------------------------------------------------------------------------------------------

MD_TABLE = "| name | qty | note |\n|:--|--:|:-:|\n" + "".join(f"| item {i} | {i} | a `x|y` \\| b |\n" for i in range(50))


def test_markdown_table_rows_per_chunk():
    chunks = TableChunker(rows_per_chunk=10).chunk(MD_TABLE)
    check_slices(MD_TABLE, chunks)
    assert len(chunks) == 5
    ranges = [(c.metadata["row_start"], c.metadata["row_end"]) for c in chunks]
    assert ranges == [(0, 10), (10, 20), (20, 30), (30, 40), (40, 50)]
    assert all(c.metadata["total_rows"] == 50 and c.metadata["chunk_type"] == "table" for c in chunks)
    header = "| name | qty | note |\n|:--|--:|:-:|"
    assert chunks[0].context == "" and chunks[0].text.startswith(header)
    for c in chunks[1:]:
        assert c.context == header
        assert c.embedding_text == header + "\n" + c.text
        assert c.text.count("\n") == 9  # whole rows only


def test_markdown_table_by_size_cuts_between_rows_only():
    size = 150
    chunks = TableChunker(size).chunk(MD_TABLE)
    check_slices(MD_TABLE, chunks)
    rows = MD_TABLE.splitlines()
    for c in chunks:
        assert c.size <= size
        assert all(line in rows for line in c.text.splitlines())
    covered = [r for c in chunks for r in range(c.metadata["row_start"], c.metadata["row_end"])]
    assert covered == list(range(50))


def test_size_and_rows_per_chunk_together():
    chunks = TableChunker(150, rows_per_chunk=3).chunk(MD_TABLE)
    assert all(c.metadata["row_end"] - c.metadata["row_start"] <= 3 and c.size <= 150 for c in chunks)
    assert [r for c in chunks for r in range(c.metadata["row_start"], c.metadata["row_end"])] == list(range(50))


def test_size_includes_context_counts_the_header():
    size = 150
    chunks = TableChunker(size, size_includes_context=True).chunk(MD_TABLE)
    for c in chunks:
        assert len(c.embedding_text) <= size


def test_csv_is_rendered_as_markdown_for_embedding():
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["city", "note"])
    for i in range(30):
        w.writerow([f"city {i}", f"line one, with comma\nline \"two\" {i}"])
    text = buf.getvalue()
    chunks = TableChunker(rows_per_chunk=7, format="csv").chunk(text)
    check_slices(text, chunks)
    assert [c.metadata["row_end"] for c in chunks] == [7, 14, 21, 28, 30]
    header = "| city | note |\n| --- | --- |"
    for c in chunks:
        assert c.context == header
        lines = c.embedding_text.split("\n")
        assert lines[:2] == header.split("\n")
        assert len(lines) == 2 + c.metadata["row_end"] - c.metadata["row_start"]
        assert all(line.startswith("| city ") and "<br>" in line for line in lines[2:])
    # The rows in the chunk texts are the CSV records, parsed back whole.
    records = [r for c in chunks for r in csv.reader(io.StringIO(c.text))]
    assert records[1:] == list(csv.reader(io.StringIO(text)))[1:]


def test_tsv_rows():
    text = "a\tb\n" + "".join(f"{i}\tx|y\n" for i in range(5))
    chunks = TableChunker(rows_per_chunk=2, format="tsv").chunk(text)
    assert [c.metadata["row_start"] for c in chunks] == [0, 2, 4]
    assert chunks[1].embedding_text == "| a | b |\n| --- | --- |\n| 2 | x\\|y |\n| 3 | x\\|y |"


@pytest.mark.parametrize(
    "kwargs, text, match",
    [
        ({}, MD_TABLE, "size or rows_per_chunk"),
        ({"rows_per_chunk": 0}, MD_TABLE, "rows_per_chunk must be >= 1"),
        ({"size": 100, "format": "xlsx"}, MD_TABLE, "format must be"),
        ({"size": 100}, "no table here", "text"),
        ({"size": 100, "format": "csv"}, 'a,b\n"open,quote\n', "line 2"),
    ],
)
def test_table_errors_name_the_argument(kwargs, text, match):
    with pytest.raises(ChunkingError, match=match):
        TableChunker(**kwargs).chunk(text)


def test_table_of_5000_rows():
    text = "| k | v |\n|---|---|\n" + "".join(f"| {i} | {'值' * (i % 7)} |\n" for i in range(5000))
    chunks = TableChunker(300).chunk(text)
    check_slices(text, chunks)
    assert [r for c in chunks for r in range(c.metadata["row_start"], c.metadata["row_end"])] == list(range(5000))


# -- pages -----------------------------------------------------------------------------------------------------------

PAGES = ["第一页的内容。这里有两句话。", "Page two has English text. It is short.", "# 第三页\n\n最后一页。"]


@pytest.mark.parametrize(
    "chunker", [RecursiveChunker(20), MarkdownChunker(20), ClauseChunker(20)], ids=["recursive", "markdown", "clause"]
)
def test_pages_are_numbered(chunker):
    chunks = chunker.chunk(pages=PAGES)
    source = join_pages(PAGES)
    check_slices(source, chunks)
    starts = [0]
    for p in PAGES[:-1]:
        starts.append(starts[-1] + len(p) + 1)
    for c in chunks:
        first = max(i for i, s in enumerate(starts) if s <= c.start) + 1
        last = max(i for i, s in enumerate(starts) if s <= c.end - 1) + 1
        assert (c.metadata["page_start"], c.metadata["page_end"]) == (first, last)
    assert {c.metadata["page_start"] for c in chunks} == {1, 2, 3}


def test_form_feeds_are_page_breaks_and_plain_text_has_no_pages():
    text = "one page.\fsecond page.\f\flast."
    chunks = RecursiveChunker(13).chunk(text)
    assert [c.text for c in chunks] == ["one page.", "second page.", "last."]
    assert [(c.metadata["page_start"], c.metadata["page_end"]) for c in chunks] == [(1, 1), (2, 2), (4, 4)]
    assert "page_start" not in RecursiveChunker(12).chunk("no form feed")[0].metadata


def test_pages_argument_errors():
    with pytest.raises(TypeError, match="not both"):
        RecursiveChunker(10).chunk("x", pages=["y"])
    with pytest.raises(ChunkingError, match=r"pages\[1\]"):
        RecursiveChunker(10).chunk(pages=["a", "b\fc"])
    with pytest.raises(TypeError, match=r"pages\[0\]"):
        RecursiveChunker(10).chunk(pages=[b"bytes"])


# -- all structural chunkers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "chunker",
    [MarkdownChunker(100, merge_sections=False), ClauseChunker(100), TableChunker(100, rows_per_chunk=5, format="csv")],
    ids=["markdown", "clause", "table"],
)
def test_structural_chunkers_pickle_and_compare(chunker):
    again = pickle.loads(pickle.dumps(chunker))
    assert again == chunker and repr(again) == repr(chunker)
    text = "a,b\n1,2\n3,4\n" if isinstance(chunker, TableChunker) else LAW
    chunks = chunker.chunk(text)
    assert again.chunk(text) == chunks
    assert pickle.loads(pickle.dumps(chunks)) == chunks
    assert [c.embedding_text for c in pickle.loads(pickle.dumps(chunks))] == [c.embedding_text for c in chunks]
    assert chunker.chunk_batch([text, text]) == [chunks, chunks]


# -- sizes in tokens -------------------------------------------------------------------------------------------------


def test_structural_chunkers_in_tokens():
    from chunkwise import Tokenizer

    tok = Tokenizer.tiktoken("cl100k_base")
    clauses = ClauseChunker(24, tokenizer=tok).chunk(LAW)
    check_slices(LAW, clauses)
    assert all(c.size == tok.count(c.text) == c.token_count and c.size <= 24 for c in clauses)
    assert any(c.metadata["title_path"][-1:] == ["第四条"] for c in clauses)
    table = TableChunker(40, tokenizer=tok, size_includes_context=True).chunk(MD_TABLE)
    check_slices(MD_TABLE, table)
    for c in table:
        assert c.size <= 40 and tok.count(c.context) + tok.count(c.context_sep) + c.size <= 40
    assert [r for c in table for r in range(c.metadata["row_start"], c.metadata["row_end"])] == list(range(50))
