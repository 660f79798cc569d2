"""SemanticChunker(format="markdown"): the Markdown structure of MarkdownChunker under semantic cuts, judged by the
independent Markdown reference of test_markdown.py (markdown-it-py): exact slices, nothing lost, the cap (context
included when it counts, in chars and in tokens), blocks that fit never cut, title paths, contexts and chunk types
as the reference says, chunks that never leave their section's parent; on the shared corpus's Markdown, with the
deterministic embedder of test_semantic.py."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("markdown_it")

from support.embedders import embed, units  # noqa: E402
from support.markdown_checks import assert_valid, ref_for, section_problems  # noqa: E402

from chunkwise import ChunkingError, MarkdownChunker, SemanticChunker, Tokenizer  # noqa: E402
from support.corpus import full  # noqa: E402

MODES = ["optimal", "percentile", "minima"]


def shared_md() -> str:
    return full("mixed.md", "the whole Markdown file of the corpus")


def slices(text: str, n: int = 3, length: int = 40_000) -> list:
    """``n`` slices of ``text`` spread over it, each starting at a line start."""
    out = []
    for k in range(n):
        at = text.rfind("\n", 0, (len(text) - length) * k // max(n - 1, 1)) + 1
        out.append(text[at : at + length])
    return out


@pytest.fixture(scope="module")
def md_slices() -> list:
    return slices(shared_md())


@pytest.mark.parametrize("size_includes_context", [True, False], ids=["context-in-size", "text-size"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", [300, 800])
def test_markdown_invariants_on_the_shared_corpus(md_slices, mode, size, size_includes_context):
    for text in md_slices:
        chunker = SemanticChunker(size, embed=embed, mode=mode, format="markdown",
                                  size_includes_context=size_includes_context)
        chunks = chunker.chunk(text)
        assert_valid(text, chunks, size, size_includes_context=size_includes_context)
        assert not section_problems(text, chunks, merge_sections=True)
        for c in chunks:
            assert c.metadata["cut_mode"] == mode
            if size_includes_context:
                # In chars the whole embedding text fits (context, its join and the text).
                assert len(c.embedding_text) <= size, c
            assert c.embedding_text == (c.context + c.context_sep + c.text if c.context else c.text)
        # Deterministic, and the same through every call.
        assert chunker.chunk(text) == chunks
        assert chunker.split(text) == [c.text for c in chunks]
        assert chunker.spans(text).tolist() == [[c.start, c.end] for c in chunks]


@pytest.mark.parametrize("mode", ["optimal", "percentile"])
def test_the_cap_in_tokens_counts_the_context(md_slices, mode):
    tok = Tokenizer.tiktoken("cl100k_base")
    text = md_slices[1][:20_000]
    chunks = SemanticChunker(120, embed=embed, mode=mode, format="markdown", tokenizer=tok).chunk(text)
    measure = tok.count
    assert_valid(text, chunks, 120, measure=measure, size_includes_context=True)
    for c in chunks:
        assert c.token_count == tok.count(c.text) == c.size
        extra = measure(c.context) + measure(c.context_sep) if c.context else 0
        assert c.size + extra <= 120, c


def test_title_paths_are_markdown_chunkers_for_the_same_first_line(md_slices):
    for text in md_slices:
        semantic = SemanticChunker(500, embed=embed, format="markdown").chunk(text)
        markdown = MarkdownChunker(500).chunk(text)
        line = lambda pos: text.rfind("\n", 0, pos)  # noqa: E731
        by_line = {line(c.start): c.metadata for c in markdown}
        same = [c for c in semantic if line(c.start) in by_line]
        # Most chunks share a first line with one of MarkdownChunker's (both start at headings and blocks).
        assert len(same) >= len(semantic) // 3, (len(same), len(semantic))
        for c in same:
            m = by_line[line(c.start)]
            assert (c.metadata["title_path"], c.metadata["headings"]) == (m["title_path"], m["headings"]), c
        starts = {c.start: c for c in markdown}
        for c in semantic:
            if c.start in starts and c.metadata["chunk_type"] != "table":
                assert c.context == starts[c.start].context, c


def table_doc(rows: int) -> str:
    prose = [
        "Rivers carry water from the hills to the sea, and their basins hold towns and farms.",
        "The survey measured nitrogen and phosphate at every station in the spring season.",
        "Cats sleep most of the day and hunt at dusk in the fields near the river banks.",
    ]
    table = "| station | nitrogen | phosphate |\n|---|---|---|\n" + "".join(
        f"| s{i} | {i * 3 % 17} | {i * 7 % 11} |\n" for i in range(rows)
    )
    return (
        f"# Survey\n\n{prose[0]} {prose[1]}\n\n## Results\n\nThe table below lists each station.\n\n{table}\n"
        f"{prose[2]} {prose[0]}\n\n## Cats\n\n{prose[2]} {prose[2]}\n"
    )


@pytest.mark.parametrize("mode", ["optimal", "percentile", "stddev", "gradient", "minima"])
@pytest.mark.parametrize("size", [240, 300, 450])
def test_a_table_that_fits_is_never_cut(mode, size):
    text = table_doc(8)
    table = text[text.index("| station") : text.index("\n\n", text.index("| station"))]
    # It fits with the context a chunk starting at it carries: the title path and the line leading into it.
    assert len("Survey > Results\n\nThe table below lists each station.\n\n") + len(table) <= size
    chunker = SemanticChunker(size, embed=embed, mode=mode, format="markdown", min_unit=0)
    chunks = chunker.chunk(text)
    assert_valid(text, chunks, size, size_includes_context=True)
    holding = [c for c in chunks if c.start <= text.index(table) and text.index(table) + len(table) <= c.end]
    assert len(holding) == 1, [c.text for c in chunks]
    # It is one unit embedded: never a cut inside it.

    t0 = text.index(table)
    assert any(a <= t0 and t0 + len(table) <= b for a, b in units(chunker, text))
    # A chunk that starts with the table's section heading carries its path; the table's chunk type is "table"
    # when the chunk is the table alone.
    for c in chunks:
        assert c.metadata["title_path"][0] == "Survey"


def test_a_table_too_large_is_cut_between_rows_with_its_header_in_context():
    text = table_doc(60)
    chunks = SemanticChunker(300, embed=embed, format="markdown").chunk(text)
    assert_valid(text, chunks, 300, size_includes_context=True)
    cut = [c for c in chunks if c.metadata["chunk_type"] == "table" and "| station |" in c.context]
    assert cut and all(c.text.startswith("| s") for c in cut)
    assert all(c.context.startswith("Survey > Results") for c in cut)


def test_units_never_straddle_a_heading_or_a_block():
    text = table_doc(4) + "\n```python\nx = 1. y = 2\nprint(x)\n```\n\nShort.\n\n- one\n- two\n"
    chunker = SemanticChunker(400, embed=embed, format="markdown", min_unit=200)
    ref = ref_for(text)
    spans = __import__("test_semantic").units(chunker, text)
    for a, b in spans:
        for s in ref.structures:
            # A block lies inside a unit or outside it.
            assert b <= s.start or s.end <= a or (a <= s.start and s.end <= b), (text[a:b], s)
        for h in ref.headings:
            assert not (a < h.start < b), (text[a:b], h.title)
    # The code block is one unit, "x = 1." does not end one.
    assert any(text[a:b].startswith("```python") and text[a:b].endswith("```") for a, b in spans)
    # In text format the short lines merge across the structure.
    plain = __import__("test_semantic").units(SemanticChunker(400, embed=embed, min_unit=200), text)
    assert len(plain) < len(spans)


def test_batch_pickling_and_arguments():
    md = shared_md()
    texts = [s[:8000] for s in slices(md, 4, 8000)]
    chunker = SemanticChunker(400, embed=embed, format="markdown")
    assert chunker.chunk_batch(texts) == [chunker.chunk(t) for t in texts]
    assert [s.tolist() for s in chunker.spans_batch(texts)] == [chunker.spans(t).tolist() for t in texts]
    again = pickle.loads(pickle.dumps(chunker))
    assert again == chunker and again.config["format"] == "markdown"
    assert again.chunk(texts[0]) == chunker.chunk(texts[0])
    assert again._splitter.config()["format"] == "markdown"
    assert SemanticChunker(400, embed=embed)._splitter.config()["format"] == "text"
    with pytest.raises(ChunkingError, match="format must be 'text' or 'markdown', got \"csv\""):
        SemanticChunker(400, embed=embed, format="csv")
    with pytest.raises(TypeError, match="format must be a str"):
        SemanticChunker(400, embed=embed, format=None)  # type: ignore[arg-type]
    # The table strategy's format is its own.
    assert MarkdownChunker(100)._splitter.config()["format"] == "markdown"
    with pytest.raises(ChunkingError, match="the key 'title_path'"):
        chunker.chunk("# A\n\nB.", {"title_path": 1})


def test_text_format_chunks_carry_no_structure():
    text = table_doc(4)
    for c in SemanticChunker(300, embed=embed).chunk(text):
        assert "title_path" not in c.metadata and c.context == ""


def test_min_size_merges_fragments_but_never_across_a_section_end(md_slices):
    text = md_slices[0]
    plain = SemanticChunker(400, embed=embed, format="markdown").chunk(text)
    merged = SemanticChunker(400, embed=embed, format="markdown", min_size=150).chunk(text)
    assert_valid(text, merged, 400, size_includes_context=True)
    assert not section_problems(text, merged, merge_sections=True)
    small = lambda chunks: sum(c.size < 150 for c in chunks)  # noqa: E731
    assert small(merged) < small(plain) and len(merged) < len(plain)
