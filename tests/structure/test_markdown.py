"""Acceptance tests for MarkdownChunker, judged against an independent Markdown reference (md_oracle.py, built on
markdown-it-py) rather than against chunkwise's own parse.

One checker, :func:`problems`, states every invariant and returns what it finds wrong; the corpus test and each
hand-made case run it, and the ``test_checker_*`` tests show that each of its checks accepts right chunks and rejects
wrong ones. The rules, for every chunk ``c`` of a text (overlap 0, trim on):

* ``c.text == text[c.start:c.end]``; chunks in order and not overlapping; every non-blank character of the text (front
  matter included) in some chunk;
* ``c.size`` is the size of ``c.text`` in the unit, at most ``size`` unless the chunk is one grapheme cluster; with
  ``size_includes_context=True``, size(context) + size(join) + size(text) <= size;
* ``title_path`` / ``headings`` are the reference's heading ancestry of the chunk's first line (titles compared after
  collapsing runs of whitespace);
* ``context`` is the chunk's own ``title_path`` joined with " > ", less a heading that starts the chunk; a chunk that
  starts in a table's data rows adds the header and delimiter rows, one that starts inside a fenced code block after
  its fence line adds that line; ``embedding_text`` is context + "\\n" + text after a table header or fence line,
  context + "\\n\\n" + text otherwise, and the bare text without a context. With ``size_includes_context=True`` a
  context whose full form takes more than half of ``size`` may be shortened (see :func:`shortened_contexts`);
* a boundary inside a table falls between data rows, one inside a code block between lines, unless no such cut
  exists (see :meth:`Ref.cut_problem`) or the block is code of a language CodeChunker knows (cut by its syntax);
* a code block, table or document-level list that fits in a chunk is never cut by a chunk boundary;
* ``chunk_type`` of a chunk lying inside one block is that block's kind (the innermost: a fence inside a list is
  "code"), with ``language`` for code and ``row_start`` / ``row_end`` / ``total_rows`` for tables (a row the chunk
  holds only part of may count or not); a chunk that is just a heading is "heading"; one touching no block and no
  heading is "text".

How sections share chunks is checked on its own (:func:`section_problems`): with ``merge_sections=False`` sibling
sections share a chunk only inside a parent section kept whole; with ``merge_sections=True`` a chunk may merge sibling
sections but never leaves the parent of the section it starts in.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("markdown_it")

from markdown_it import MarkdownIt
from support.corpus import load

try:
    from chunkwise import MarkdownChunker
except ImportError:  # before it lands the checker's own tests still run; every other test fails in chunker()
    MarkdownChunker = None

try:
    import regex
except ImportError:
    regex = None
from support.markdown_checks import SMALL, assert_valid, cut, fake_chunk, problems, ref_for, section_end, section_problems


def chunker(size: int, **kwargs):
    assert MarkdownChunker is not None, "chunkwise.MarkdownChunker is not importable"
    return MarkdownChunker(size=size, **kwargs)


# -- the checker -----------------------------------------------------------------------------------------------------


# -- the checker can fail ----------------------------------------------------------------------------------------------

SMALL_PIECES = [
    "# Guide\n\nIntro paragraph.",
    "## Install\n\nRun this:",
    "```sh\nmake\nmake install\n```",
    "## Data",
    "| k | v |\n|---|--:|\n| a | 1 |",
    "| b | 2 |\n| c | 3 |",
    "- item one\n- item two",
]


def small_chunks():
    out, at = [], 0
    for piece in SMALL_PIECES:
        start = SMALL.index(piece, at)
        out.append(fake_chunk(SMALL, start, start + len(piece)))
        at = start + len(piece)
    return out


METADATA = ("title_path", "headings", "chunk_type", "language", "row_start", "row_end", "total_rows")


def changed(chunks, i, **fields):
    """The chunks with chunk i's attributes or metadata entries replaced."""
    c = chunks[i]
    new = SimpleNamespace(**{**vars(c), "metadata": dict(c.metadata)})
    for key, value in fields.items():
        if key in METADATA:
            new.metadata[key] = value
        else:
            setattr(new, key, value)
    return chunks[:i] + [new] + chunks[i + 1 :]


def test_checker_accepts_correct_chunks():
    chunks = small_chunks()
    assert problems(SMALL, chunks, 40) == []
    assert section_problems(SMALL, chunks, merge_sections=False) == []
    # The fields the rules want, spelled out for two chunks: the reference chunks are right, not merely consistent.
    table_piece = chunks[5]
    assert table_piece.context == "Guide > Data\n\n| k | v |\n|---|--:|"
    assert table_piece.embedding_text == "Guide > Data\n\n| k | v |\n|---|--:|\n| b | 2 |\n| c | 3 |"
    assert (table_piece.metadata["row_start"], table_piece.metadata["row_end"]) == (1, 3)
    assert chunks[1].context == "Guide" and chunks[1].metadata["title_path"] == ["Guide", "Install"]
    assert [c.metadata["chunk_type"] for c in chunks] == ["text", "text", "code", "heading", "table", "table", "list"]


@pytest.mark.parametrize(
    "breaking, expected",
    [
        (lambda cs: changed(cs, 1, text="## Install\n\nRun that:"), "slice"),
        (lambda cs: [cs[1], cs[0]] + cs[2:], "starts before"),
        (lambda cs: cs[:1] + cs[2:], "in no chunk"),
        (lambda cs: cs[:-1], "after the last chunk"),
        (lambda cs: changed(cs, 2, size=3), "size 3 !="),
        (lambda cs: changed(cs, 1, title_path=["Guide"], headings=[1]), "title_path"),
        (lambda cs: changed(cs, 1, headings=[1, 3]), "title_path"),
        (lambda cs: changed(cs, 1, context="Guide > Install", embedding_text="Guide > Install\n\n" + cs[1].text),
         "context"),
        (lambda cs: changed(cs, 5, context="Guide > Data", embedding_text="Guide > Data\n\n" + cs[5].text), "context"),
        (lambda cs: changed(cs, 5, embedding_text=cs[5].context + "\n\n" + cs[5].text), "embedding_text"),
        (lambda cs: changed(cs, 2, chunk_type="text"), "chunk_type"),
        (lambda cs: changed(cs, 2, language=None), "language"),
        (lambda cs: changed(cs, 5, row_start=2), "row_start"),
        (lambda cs: cut(cs, 2, SMALL.index("make install")), "fits"),
        (lambda cs: cut(cs, 4, SMALL.index("| a | 1 |") + 4), "inside a table line"),
        (lambda cs: cut(cs, 4, SMALL.index("|---|--:|")), "header and delimiter"),
        (lambda cs: cut(cs, 4, SMALL.index("| a | 1 |")), "delimiter row and first data row"),
        (lambda cs: cut(cs, 2, SMALL.index("make\n")), "opening fence line"),
    ],
    ids=["not-a-slice", "out-of-order", "gap", "tail-dropped", "size-field", "title-path", "levels",
         "heading-in-context", "no-table-header", "table-join", "chunk-type", "language", "rows", "fence-cut",
         "row-cut", "header-cut", "delimiter-cut", "fence-line-cut"],
)
def test_checker_rejects_broken_chunks(breaking, expected):
    found = problems(SMALL, breaking(small_chunks()), 40)
    assert any(expected in p for p in found), found


def test_checker_on_sizes_with_context():
    chunks = small_chunks()
    assert any("> 20" in p for p in problems(SMALL, chunks, 20))
    assert any("context + join + text" in p for p in problems(SMALL, chunks, 40, size_includes_context=True))
    assert problems(SMALL, chunks, 60, size_includes_context=True) == []
    # A context shortened to the table header: only when the full one (34 chars with its join) is over half the size.
    header = "| k | v |\n|---|--:|"
    unflagged = changed(chunks, 5, context=header, embedding_text=header + "\n" + chunks[5].text)
    assert any("does not say so" in p for p in problems(SMALL, unflagged, 60, size_includes_context=True))
    flag = {**chunks[5].metadata, "context_shortened": True}
    short = changed(unflagged, 5, metadata=flag)
    assert problems(SMALL, short, 60, size_includes_context=True) == []
    assert any("context" in p for p in problems(SMALL, short, 80, size_includes_context=True))
    assert any("context" in p for p in problems(SMALL, short, 60))
    wrong_join = changed(short, 5, embedding_text=header + "\n\n" + chunks[5].text)
    assert any("embedding_text" in p for p in problems(SMALL, wrong_join, 60, size_includes_context=True))


SECTIONS = "# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc\n\n# Z\n\nz\n"


def spans_of(text, *pieces):
    out, pos = [], 0
    for piece in pieces:
        start = text.index(piece, pos)
        out.append(SimpleNamespace(start=start, end=start + len(piece), text=piece))
        pos = start + len(piece)
    return out


@pytest.mark.parametrize(
    "pieces, apart, merged",
    [
        # (chunks, problems with merge_sections=False, with merge_sections=True)
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1", "## C\n\nc", "# Z\n\nz"], 0, 0),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 0, 0),  # A kept whole
        (["# A\n\nintro", "## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 1, 0),
        (["# A\n\nintro\n\n## B\n\nb", "### B1\n\nb1\n\n## C\n\nc", "# Z\n\nz"], 1, 1),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1", "## C\n\nc\n\n# Z\n\nz"], 1, 1),
        (["# A\n\nintro\n\n## B\n\nb", "b1\n\n## C\n\nc", "# Z\n\nz"], 1, 1),
        ([SECTIONS.strip()], 0, 0),
        (["# A\n\nintro\n\n## B\n\nb\n\n### B1\n\nb1\n\n## C\n\nc\n\n# Z", "z"], 1, 0),
    ],
    ids=["chain", "children-of-a", "siblings", "b1-then-uncle", "c-then-z", "mid-b1-then-uncle", "whole",
         "a-and-z-heading"],
)
def test_section_checker(pieces, apart, merged):
    chunks = spans_of(SECTIONS, *pieces)
    assert len(section_problems(SECTIONS, chunks, merge_sections=False)) == apart
    assert len(section_problems(SECTIONS, chunks, merge_sections=True)) == merged


# -- the corpus ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed_md() -> str:
    # tests/data/mixed.md (86 KB of the shared corpus's 3 MB file; CHUNKWISE_CORPUS=../shared/corpus runs the whole
    # file: the reference parses it once, about 3 s, and the checker takes about a second a case).
    return load("mixed.md")


@pytest.mark.parametrize("size_includes_context", [False, True], ids=["text-size", "context-in-size"])
@pytest.mark.parametrize("size", [256, 512, 1024])
def test_corpus(mixed_md, size, size_includes_context):
    text = mixed_md
    ch = chunker(size, size_includes_context=size_includes_context)
    chunks = ch.chunk(text)
    assert len(chunks) > len(text) // size
    assert_valid(text, chunks, size, size_includes_context=size_includes_context)
    assert ch.split(text) == [c.text for c in chunks]
    # The corpus exercises the rules: blocks that must stay whole, and tables too long to, whose later pieces
    # repeat the header.
    ref = ref_for(text)
    assert sum(b.end - b.start <= size for b in ref.structures) >= 20
    assert sum(b.kind == "table" and b.end - b.start > size for b in ref.structures) >= 5
    assert any(c.metadata["chunk_type"] == "table" and "\n" in c.context for c in chunks)


# -- hand-made cases -------------------------------------------------------------------------------------------------

WORDS = "river basin water quality survey station sample nitrogen phosphate flow season report".split()


def prose(n: int, k: int = 0) -> str:
    """A sentence of about n characters (at most n)."""
    out, i = [], k
    while len(" ".join(out)) + len(WORDS[i % len(WORDS)]) + 2 <= n:
        out.append(WORDS[i % len(WORDS)])
        i += 5
    return " ".join(out).capitalize() + "."


def fields(chunks, *names):
    return [tuple(c.metadata.get(n) if n not in ("context", "text") else getattr(c, n) for n in names)
            for c in chunks]


@pytest.mark.parametrize("merge_sections", [True, False])
def test_nested_headings(merge_sections):
    body = prose(70)
    text = f"# A\n\n{body}\n\n## B\n\n{body}\n\n### C\n\n{body}\n\n## D\n\n{body}\n"
    chunks = chunker(100, merge_sections=merge_sections).chunk(text)
    assert_valid(text, chunks, 100)
    assert [c.text.split("\n")[0] for c in chunks] == ["# A", "## B", "### C", "## D"]
    assert fields(chunks, "title_path", "headings", "context") == [
        (["A"], [1], ""),
        (["A", "B"], [1, 2], "A"),
        (["A", "B", "C"], [1, 2, 3], "A > B"),
        (["A", "D"], [1, 2], "A"),
    ]
    assert chunks[2].embedding_text == "A > B\n\n### C\n\n" + body


def test_setext_headings():
    b = [prose(70, k) for k in range(4)]
    text = f"Guide\n=====\n\n{b[0]}\n\nInstall\n-------\n\n{b[1]}\n\nUsage\n-----\n\n{b[2]}\n\n{b[3]}\n"
    chunks = chunker(100).chunk(text)
    assert_valid(text, chunks, 100)
    assert fields(chunks, "title_path", "headings", "context") == [
        (["Guide"], [1], ""),
        (["Guide", "Install"], [1, 2], "Guide"),
        (["Guide", "Usage"], [1, 2], "Guide"),
        (["Guide", "Usage"], [1, 2], "Guide > Usage"),
    ]
    assert chunks[1].text.startswith("Install\n-------") and chunks[3].text == b[3]


def test_hash_lines_inside_fences_are_not_headings():
    fences = [
        "```\n# not a heading\n```",
        "~~~\n# not a heading either\n~~~",
        "````md\n```\n# nor this\n```\n````",
    ]
    paras = [prose(60, k) for k in range(4)]
    text = "# Real\n\n" + "\n\n".join(p + "\n\n" + f for p, f in zip(paras, fences)) + "\n\n" + paras[3] + "\n"
    chunks = chunker(80).chunk(text)
    assert_valid(text, chunks, 80)
    assert all(c.metadata["title_path"] == ["Real"] for c in chunks)
    assert all(c.context in ("", "Real") for c in chunks)
    # Each fence is whole in one chunk, and a chunk starts after the last one.
    for f in fences:
        assert any(f in c.text for c in chunks), f
    assert chunks[-1].text == paras[3] and chunks[-1].context == "Real"
    inner = next(c for c in chunks if "# nor this" in c.text)
    assert inner.text.endswith("```\n````") and inner.metadata["chunk_type"] == "code"
    assert inner.metadata["language"] == "md"


TABLE_HEADER = "| name | pattern | note |"
TABLE_DELIM = "|:-----|:-------:|-----:|"


def pipe_rows(n):
    return [f"| row {i} | `a|b` and `x\\|y` | c \\| d {i} |" for i in range(n)]


def test_table_with_inline_pipes_is_cut_between_rows_only():
    rows = pipe_rows(40)
    table = "\n".join([TABLE_HEADER, TABLE_DELIM] + rows)
    # The paragraphs around are too long to share a chunk with a row: every table piece is only rows.
    text = f"# Patterns\n\n{prose(180)}\n\n{table}\n\n{prose(190, 3)}\n"
    chunks = chunker(200).chunk(text)
    assert_valid(text, chunks, 200)
    pieces = [c for c in chunks if c.metadata["chunk_type"] == "table"]
    assert len(pieces) >= 5
    assert all(c.metadata["total_rows"] == 40 for c in pieces)
    for c in pieces[1:]:
        assert c.context == f"Patterns\n\n{TABLE_HEADER}\n{TABLE_DELIM}"
        assert c.embedding_text == c.context + "\n" + c.text
        assert c.text == "\n".join(rows[c.metadata["row_start"] : c.metadata["row_end"]])
    spans = [(c.metadata["row_start"], c.metadata["row_end"]) for c in pieces]
    assert spans[0][0] == 0 and spans[-1][1] == 40
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


def test_a_table_that_fits_stays_whole():
    table = "\n".join([TABLE_HEADER, TABLE_DELIM] + pipe_rows(3))
    text = f"{prose(150)}\n\n{table}\n\n{prose(150, 2)}\n"
    chunks = chunker(200).chunk(text)
    assert_valid(text, chunks, 200)
    (whole,) = [c for c in chunks if TABLE_HEADER in c.text]
    assert table in whole.text


def test_a_fence_that_fits_stays_whole():
    code = "```python\n" + "\n".join(f"total_{i} = compute(step={i}, scale=0.{i})" for i in range(5)) + "\n```"
    before, after = prose(200), prose(150, 1)
    text = f"{before}\n\n{code}\n\n{after}\n"
    assert len(code) <= 300 < len(before) + len(code)
    chunks = chunker(300).chunk(text)
    assert_valid(text, chunks, 300)
    assert [c.text for c in chunks] == [before, code, after]
    assert chunks[1].metadata["chunk_type"] == "code" and chunks[1].metadata["language"] == "python"


LIST = (
    "1. Fetch the sources:\n\n"
    "   ```sh\n   git clone https://example.com/repo.git\n   ```\n\n"
    "2. Configure the build:\n"
    "   - release mode\n"
    "   - with tests\n"
    "     - unit tests\n"
    "     - integration tests\n"
    "3. Build it:\n\n"
    "   ```sh\n   make -j2\n   ```"
)


def test_a_list_stays_whole_with_its_lead_in():
    lead_in = "To build the project, follow these steps:"
    filler = prose(150)
    text = f"# Build\n\n{filler}\n\n{lead_in}\n\n{LIST}\n\n{prose(100, 4)}\n"
    size = 300
    assert len(lead_in) + 2 + len(LIST) <= size < len(filler) + len(lead_in) + len(LIST) + 4
    chunks = chunker(size).chunk(text)
    assert_valid(text, chunks, size)
    holder = [c for c in chunks if lead_in in c.text]
    assert len(holder) == 1 and f"{lead_in}\n\n{LIST}" in holder[0].text


ZH_3 = "# 第三章 环境保护"
ZH_31 = "## 3.1 大气污染防治"
ZH_32 = "## 3.2 水生态修复"
ZH_PARAS = [
    "推进河湖生态保护修复，实施水系连通和水美乡村建设，恢复河湖生态缓冲带，提升水源涵养能力，改善水生生物栖息环境。",
    "加强重点流域综合治理，开展入河排污口排查整治，控制农业面源污染，推动城镇污水管网全覆盖，提高污水收集处理效能。",
    "建立健全水生态监测评估体系，定期发布评估结果，完善生态补偿机制，鼓励社会资本参与水生态保护修复项目的建设运营。",
]


@pytest.mark.parametrize("size_includes_context", [False, True])
def test_cjk_headings_in_context(size_includes_context):
    text = f"{ZH_3}\n\n{ZH_PARAS[0]}\n\n{ZH_31}\n\n{ZH_PARAS[1]}\n\n{ZH_32}\n\n" + "\n\n".join(ZH_PARAS) + "\n"
    size = 90 if not size_includes_context else 110
    chunks = chunker(size, size_includes_context=size_includes_context).chunk(text)
    assert_valid(text, chunks, size, size_includes_context=size_includes_context)
    path = ["第三章 环境保护", "3.2 水生态修复"]
    in_32 = [c for c in chunks if c.start > text.index(ZH_32)]
    assert len(in_32) >= 2 and all(c.metadata["title_path"] == path for c in in_32)
    assert all(c.context == "第三章 环境保护 > 3.2 水生态修复" for c in in_32)
    assert in_32[-1].embedding_text == "第三章 环境保护 > 3.2 水生态修复\n\n" + ZH_PARAS[2]
    # A heading that starts a chunk is in its text and title_path, not in its context.
    (starts_32,) = [c for c in chunks if c.text.startswith(ZH_32)]
    assert starts_32.metadata["title_path"] == path and starts_32.metadata["headings"] == [1, 2]
    assert starts_32.context == "第三章 环境保护"
    assert starts_32.embedding_text == "第三章 环境保护\n\n" + starts_32.text
    (starts_3,) = [c for c in chunks if c.text.startswith(ZH_3)]
    assert starts_3.context == "" and starts_3.embedding_text == starts_3.text


@pytest.mark.parametrize("closer", ["---", "..."])
def test_front_matter_is_not_a_heading(closer):
    front = f"---\ntitle: 环境报告\ntags: [water, policy]\n{closer}"
    text = f"{front}\n\n# Intro\n\n{prose(60)}\n\n## Next\n\n{prose(60, 2)}\n"
    chunks = chunker(80).chunk(text)
    assert_valid(text, chunks, 80)
    assert chunks[0].start == 0 and chunks[0].metadata["title_path"] == []
    assert all("tags" not in " ".join(c.metadata["title_path"]) + c.context for c in chunks)
    assert [c.metadata["title_path"] for c in chunks if c.start > len(front)][-1] == ["Intro", "Next"]


def test_a_setext_underline_after_a_paragraph_is_still_a_heading():
    # The counterpart of the front-matter case: the same lines not at the start of the text are a Setext heading.
    text = f"{prose(60)}\n\ntitle: x\n---\n\n{prose(60, 1)}\n"
    chunks = chunker(70).chunk(text)
    assert_valid(text, chunks, 70)
    assert chunks[-1].metadata["title_path"] == ["title: x"]


TABLE_ROWS = 5000
DATA_HEADER = "| id | station | value |"
DATA_DELIM = "|---:|:--------|------:|"


def data_rows(n):
    return [f"| {i} | S-{i % 97:02d} | {i * 37 % 1000 / 10:.1f} |" for i in range(n)]


@pytest.mark.parametrize("heading", ["", "# Measurements\n\n"], ids=["bare", "under-heading"])
@pytest.mark.parametrize("size_includes_context", [False, True])
def test_a_long_table_is_split_between_rows(heading, size_includes_context):
    rows = data_rows(TABLE_ROWS)
    table = "\n".join([DATA_HEADER, DATA_DELIM] + rows)
    text = heading + table + "\n"
    chunks = chunker(512, size_includes_context=size_includes_context).chunk(text)
    assert_valid(text, chunks, 512, size_includes_context=size_includes_context)
    start = text.index(DATA_HEADER)
    pieces = [c for c in chunks if c.end > start]
    assert len(pieces) > len(table) // 512
    prefix = "Measurements\n\n" if heading else ""
    spans = []
    for c in pieces:
        first = c.start <= start
        if first and heading and c.metadata.get("chunk_type") != "table":
            # The heading and the first rows in one chunk: its rows are read from its text.
            r0, r1 = 0, c.text.count("\n") - 3
        else:
            r0, r1 = c.metadata["row_start"], c.metadata["row_end"]
            assert c.metadata["chunk_type"] == "table" and c.metadata["total_rows"] == TABLE_ROWS
        assert 0 <= r0 < r1 <= TABLE_ROWS
        body = "\n".join(rows[r0:r1])
        if first:
            assert c.text.endswith(f"{DATA_HEADER}\n{DATA_DELIM}\n{body}")
            assert c.embedding_text.endswith(f"{DATA_HEADER}\n{DATA_DELIM}\n{body}")
        else:
            assert c.text == body
            assert c.context == f"{prefix}{DATA_HEADER}\n{DATA_DELIM}"
            assert c.embedding_text == f"{prefix}{DATA_HEADER}\n{DATA_DELIM}\n{body}"
        # What an embedding model gets is itself a table with these rows.
        tokens = MarkdownIt("commonmark").enable("table").parse(c.embedding_text)
        assert [t.type for t in tokens].count("tr_open") == r1 - r0 + 1
        spans.append((r0, r1))
    assert spans[0][0] == 0 and spans[-1][1] == TABLE_ROWS
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


CODE_LINES = 50_000


@pytest.mark.parametrize("heading", ["", "# Generated\n\n"], ids=["bare", "under-heading"])
def test_a_long_fence_is_split_between_lines(heading):
    lines = [f"VALUE_{i:05d} = {i * 7919 % 100003}" for i in range(CODE_LINES)]
    lines[7] = "# a comment, not a heading"
    fence = "```python\n" + "\n".join(lines) + "\n```"
    text = heading + fence + "\n"
    chunks = chunker(512).chunk(text)
    assert_valid(text, chunks, 512)
    start = text.index("```python")
    pieces = [c for c in chunks if c.end > start]
    assert len(pieces) > len(fence) // 512
    prefix = "Generated\n\n" if heading else ""
    parser = MarkdownIt("commonmark")
    seen = []
    for c in pieces:
        assert c.metadata["title_path"] == (["Generated"] if heading else [])
        if c.start > start:
            assert c.metadata["chunk_type"] == "code" and c.metadata["language"] == "python"
            assert c.context == prefix + "```python"
            assert c.embedding_text == prefix + "```python\n" + c.text
            code = "```python\n" + c.text
        else:
            code = text[start : c.end]
            assert c.embedding_text.endswith(code)
        if not heading:
            assert c.embedding_text.startswith("```python\n")
        # What an embedding model gets is itself a python fence with these lines.
        (tok,) = [t for t in parser.parse(code) if t.type == "fence"]
        assert tok.info == "python"
        seen += tok.content.split("\n")[:-1] if tok.content.endswith("\n") else tok.content.split("\n")
    assert seen == lines


def merge_doc():
    b = [prose(45, k) for k in range(10)]
    return (
        f"# Manual\n\n{b[0]}\n\n## Install\n\n{b[1]}\n\n## Configure\n\n{b[2]}\n\n### Files\n\n{b[3]}\n\n"
        f"### Variables\n\n{b[4]}\n\n## Run\n\n{b[5]}\n\n# Appendix\n\n{b[6]}\n\n## Licence\n\n{b[7]}\n\n"
        f"## Credits\n\n{b[8]}\n\n## History\n\n{b[9]}\n"
    )


def merges_siblings(text, chunk) -> bool:
    """Whether the chunk holds two sibling sections without their whole parent."""
    ref = ref_for(text)
    heads = [k for k, h in enumerate(ref.headings) if chunk.start <= h.start < chunk.end]
    parents = [ref.headings[k].parent for k in heads]
    return any(
        parents.count(p) > 1 and (p is None or ref.headings[p].start < chunk.start or section_end(ref, p) > chunk.end)
        for p in set(parents)
    )


@pytest.mark.parametrize("size", [130, 200, 400])
def test_merge_sections_false_keeps_siblings_apart(size):
    text = merge_doc()
    chunks = chunker(size, merge_sections=False).chunk(text)
    assert_valid(text, chunks, size)
    assert section_problems(text, chunks, merge_sections=False) == []
    assert not any(merges_siblings(text, c) for c in chunks)


@pytest.mark.parametrize("size", [130, 200, 400])
def test_merge_sections_true_stays_under_the_shared_parent(size):
    text = merge_doc()
    merged = chunker(size, merge_sections=True).chunk(text)
    assert_valid(text, merged, size)
    assert section_problems(text, merged, merge_sections=True) == []
    if size <= 200:  # neither top-level section fits whole: a chunk holding siblings has merged them
        assert any(merges_siblings(text, c) for c in merged)
    assert len(merged) <= len(chunker(size, merge_sections=False).chunk(text))


def token_cases():
    pytest.importorskip("tokenizers")  # the trained tokenizer and its reference count
    from chunkwise import Tokenizer
    from support.tokenizer_assets import hf_reference, tiktoken_encoding, trained

    json_text = trained("bytelevel")
    ref = hf_reference(json_text)
    cases = [("bytelevel", Tokenizer.from_str(json_text, add_special_tokens=False),
              lambda s: len(ref.encode(s, add_special_tokens=False).ids))]
    enc = tiktoken_encoding("cl100k_base")
    if enc is not None:
        cases.append(("cl100k_base", Tokenizer.tiktoken("cl100k_base"), lambda s: len(enc.encode_ordinary(s))))
    return cases


def token_doc():
    rows = "\n".join([DATA_HEADER, DATA_DELIM] + data_rows(60))
    code = "```python\n" + "\n".join(f"x_{i} = compute({i})  # step {i}" for i in range(60)) + "\n```"
    return (
        f"{merge_doc()}\n{ZH_3}\n\n{ZH_PARAS[0]}\n\n{ZH_32}\n\n" + "\n\n".join(ZH_PARAS)
        + f"\n\n## Data\n\n{rows}\n\n## Code\n\n{code}\n\n## Steps\n\n{LIST}\n"
    )


@pytest.mark.parametrize("size_includes_context", [False, True])
@pytest.mark.parametrize("size", [48, 128])
def test_sizes_in_tokens(size, size_includes_context):
    text = token_doc()
    for name, tok, count in token_cases():
        chunks = chunker(size, unit="tokens", tokenizer=tok, size_includes_context=size_includes_context).chunk(text)
        assert_valid(text, chunks, size, measure=count, size_includes_context=size_includes_context)
        assert max(c.size for c in chunks) > size // 2, name  # sizes are counted in tokens, not characters


def test_user_metadata_is_kept_beside_the_markdown_fields():
    text = f"# A\n\n{prose(60)}\n\n## B\n\n{prose(60, 1)}\n"
    chunks = chunker(80).chunk(text, metadata={"source": "a.md"})
    assert_valid(text, chunks, 80)
    assert all(c.metadata["source"] == "a.md" for c in chunks)
    assert chunks[-1].metadata["title_path"] == ["A", "B"]


def test_empty_and_blank_texts():
    assert chunker(64).chunk("") == []
    assert chunker(64).chunk("\n\n  \n") == []


@pytest.mark.parametrize("caption", ["**Table 3. Results by region**", "表 3：各地区的结果"])
def test_a_table_keeps_its_caption_with_it_and_in_the_context_of_its_pieces(caption):
    rows = "\n".join(f"| region {i} | {100 + i} | {200 + i} |" for i in range(30))
    table = f"| region | 2023 | 2024 |\n|---|---|---|\n{rows}"
    filler = "Some text before the table, long enough to fill most of a chunk. " * 2
    text = f"# Report\n\n{filler}\n\n{caption}\n\n{table}\n\nText after.\n"
    # The caption and the table fit together: one chunk holds both, and the text before goes alone.
    whole = len(caption) + 2 + len(table)
    chunks = MarkdownChunker(whole + 5, size_includes_context=False).chunk(text)
    holder = [c for c in chunks if caption in c.text]
    assert len(holder) == 1 and holder[0].text.startswith(caption) and table in holder[0].text
    assert holder[0].metadata["chunk_type"] == "table"
    # The table alone fits, not with its caption: the table stays whole, the caption in its context.
    chunks = MarkdownChunker(len(table) + 5, size_includes_context=False).chunk(text)
    whole_table = [c for c in chunks if c.text == table]
    assert len(whole_table) == 1 and whole_table[0].context == f"Report\n\n{caption}"
    # Cut into pieces: the first piece is the caption, the header and the first rows (never the caption alone);
    # every piece after it carries the caption and the header.
    chunks = MarkdownChunker(200).chunk(text)
    header = "| region | 2023 | 2024 |\n|---|---|---|"
    first = [c for c in chunks if caption in c.text]
    assert len(first) == 1 and first[0].text.startswith(f"{caption}\n\n{header}\n| region 0 |"), first
    assert first[0].context == "Report" and first[0].metadata["chunk_type"] == "table"
    pieces = [c for c in chunks if c.metadata.get("chunk_type") == "table" and c.text.startswith("| region ")]
    assert len(pieces) >= 3
    for c in [*first, *pieces]:
        if c is not first[0]:
            assert c.context == f"Report\n\n{caption}\n\n{header}", c
        assert len(c.context) + len(c.context_sep) + len(c.text) <= 200
    assert all(text[c.start : c.end] == c.text for c in chunks)
