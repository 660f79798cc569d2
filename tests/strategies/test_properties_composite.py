"""Property tests of the chunkers made of others, on any text (the alphabets of test_properties): HierarchicalChunker
(exact slices at every level, children tiling parents, consistent relations, ids stable across runs and distinct
across documents), ElementsChunker (exact slices of its source text, the elements and pages each chunk names) and
AutoChunker (exact slices, the chosen chunker's own chunks, the choice in metadata)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise import AutoChunker, ElementsChunker, HierarchicalChunker
from chunkwise.auto import KINDS
from support.alphabets import texts
from support.hierarchy_checks import check_hierarchy

sizes = st.integers(8, 160)


@settings(max_examples=60, deadline=None)
@given(text=texts, size=sizes, factor=st.integers(2, 5))
def test_hierarchy_on_any_text(text, size, factor):
    levels = [size * factor * factor, size * factor, size]
    chunker = HierarchicalChunker(levels)
    chunks = chunker.chunk(text, {"source": "a"})
    if not text.strip():
        assert chunks == []
        return
    check_hierarchy(text, chunks, levels)
    # Ids: the same document chunked twice gets the same ids; another document with the same text, other ids.
    again = chunker.chunk(text, {"source": "a"})
    assert [c.id for c in again] == [c.id for c in chunks]
    other = chunker.chunk(text, {"source": "b"})
    assert not {c.id for c in other} & {c.id for c in chunks}
    assert chunker.chunk_batch([text, text], [{"source": "a"}, {"source": "b"}]) == [chunks, other]


KIND_NAMES = ["heading", "paragraph", "list_item", "table", "caption", "code", "Title", "NarrativeText"]
cells = st.one_of(st.text(max_size=12), st.integers(-5, 5), st.none(), st.sampled_from(["a|b", "x\ny", "表 3", " "]))
elements = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(KIND_NAMES), "text": texts.map(lambda t: t[:300])},
        optional={
            "level": st.integers(0, 8),
            "page": st.integers(0, 4),
            "caption": st.sampled_from(["Table 1: values", "表 3：收入", "# not a heading"]),
            "rows": st.lists(st.lists(cells, min_size=1, max_size=12), min_size=1, max_size=6),
        },
    ).map(lambda e: e if e["type"] == "table" or "rows" not in e else {k: v for k, v in e.items() if k != "rows"}),
    max_size=12,
)


@settings(max_examples=80, deadline=None)
@given(elements=elements, size=st.integers(40, 400))
def test_elements_on_any_document(elements, size):
    chunker = ElementsChunker(size)
    rendered = chunker.render(elements)
    source = rendered.text
    chunks = chunker.chunk(elements)
    spans = [s for s in rendered.spans if s is not None]
    # Elements in order, apart; each span holds text.
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert all(source[s:e].strip() for s, e in spans)
    for c in chunks:
        assert source[c.start : c.end] == c.text
        held = c.metadata["element_indices"]
        assert held == [i for i, s in enumerate(rendered.spans) if s is not None and s[0] < c.end and c.start < s[1]]
        assert c.metadata["element_types"] == [rendered.types[i] for i in held]
        pages = [rendered.pages[i] for i in held if rendered.pages[i] is not None]
        if any(p is not None for p in rendered.pages):
            assert (c.metadata["page_start"], c.metadata["page_end"]) == ((min(pages), max(pages)) if pages else (None, None))
    # Every element's text is in the chunks (the source text is covered but for blank space).
    covered = "".join(c.text for c in chunks)
    assert re.sub(r"\s+", "", covered) == re.sub(r"\s+", "", source)
    assert chunker.chunk_batch([elements]) == [chunks]


names = st.sampled_from([None, "a.md", "t.csv", "t.tsv", "x.py", "notes.txt", "run", "law.txt", "lib.rs"])


@settings(max_examples=80, deadline=None)
@given(text=texts, size=sizes, name=names)
def test_auto_on_any_text(text, size, name):
    auto = AutoChunker(size)
    meta = {"source": name} if name else None
    chunks = auto.chunk(text, meta)
    choice = auto.choose(text, name)
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.metadata["strategy"] in KINDS
    if chunks:
        strategy = chunks[0].metadata["strategy"]
        assert {c.metadata["strategy"] for c in chunks} == {strategy}
        # The chosen chunker's own chunks (a named table that is not one falls back to prose, and says so).
        if strategy == choice.strategy:
            assert chunks[0].metadata["strategy_reason"] == choice.reason
            own = auto.chunker_for(choice).chunk(text, {**(meta or {}), "strategy": strategy,
                                                        "strategy_reason": choice.reason})
            assert chunks == own
        else:
            assert choice.strategy == "table" and strategy == "prose"
            assert chunks[0].metadata["strategy_reason"].startswith(choice.reason + ", but not a")
    assert auto.chunk_batch([text], [meta]) == [chunks]
