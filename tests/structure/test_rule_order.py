"""MarkdownChunker's rules in their order where they conflict: the cap is never exceeded > a block that fits (table,
fence, list with its lead-in) is never split > a heading never ends a chunk > a heading is not a chunk of its own.
Generated Markdown puts headings right above blocks near the cap, in both context modes; the counts come from the
independent reference (support.rule_order). Balanced cuts (``balance=True``) keep the same rules."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkwise
from support.corpus import DATA
from support.rule_order import counts

WORDS = ["cache", "module", "directive", "size", "root", "level", "数据", "模块", "設定", "value", "length", "MCache"]


@st.composite
def blocks(draw, size: int) -> str:
    """A table, a fenced code block or a list (with a lead-in) of about ``size`` characters, near the cap."""
    kind = draw(st.sampled_from(["table", "fence", "list"]))
    target = draw(st.integers(min_value=size // 3, max_value=size + size // 4))
    words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
    lines = []
    while sum(len(x) + 1 for x in lines) < target:
        lines.append(draw(words))
    if kind == "table":
        return "| name | values |\n|---|---|\n" + "\n".join(f"| {w.split()[0]} | {w} |" for w in lines)
    if kind == "fence":
        return "```text\n" + "\n".join(lines) + "\n```"
    return "The values are as follows:\n\n" + "\n".join(f"- {w}" for w in lines)


@st.composite
def documents(draw, size: int) -> str:
    parts = ["# Guide\n\nSome intro text about the module and what it does here."]
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        level = draw(st.integers(min_value=2, max_value=4))
        title = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join))
        parts.append("#" * level + " " + title)
        if draw(st.booleans()):
            parts.append(draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=20).map(" ".join)) + ".")
        parts.append(draw(blocks(size)))
    return "\n\n".join(parts) + "\n"


@pytest.mark.parametrize("balance", [False, True])
@pytest.mark.parametrize("size_includes_context", [False, True])
@pytest.mark.parametrize("size", [120, 200, 320])
def test_generated_markdown_keeps_the_rules_in_order(size, size_includes_context, balance):
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(documents(size))
    def check(text):
        chunks = chunkwise.MarkdownChunker(size, size_includes_context=size_includes_context,
                                           balance=balance).chunk(text)
        found = counts(text, chunks, size, size_includes_context=size_includes_context)
        assert found["over_cap"] == 0, found
        assert found["split_that_fit"] == 0, found
        assert found["heading_ends"] == 0, found
        # A heading is a chunk of its own only when it cannot join the block after it, and then says so.
        assert found["alone_needlessly"] == 0, found
        assert found["alone_untyped"] == 0, found
        assert found["lead_ins_apart_that_fit"] == 0, found

    check()


def test_the_issue_reproduction_keeps_the_table_whole():
    doc = ("# Guide\n\nSome intro text about the module and what it does here.\n\n## Related modules and directives\n\n"
           "| Module | Directives |\n|---|---|\n| mod_cache | CacheRoot CacheDirLevels CacheDirLength CacheMinFileSize |\n"
           "| mod_mem_cache | MCacheSize MCacheMaxObjectCount MCacheMinObjectSize |\n\n## Next\n\nMore text.\n")
    table = doc[doc.index("| Module"):doc.index("\n\n## Next")]
    chunks = chunkwise.MarkdownChunker(size=200, size_includes_context=False).chunk(doc)
    assert any(table in c.text for c in chunks), [c.text for c in chunks]
    heading = next(c for c in chunks if c.text == "## Related modules and directives")
    assert heading.metadata["chunk_type"] == "heading"
    # Counting the context, the table (178) and the path it carries ("Guide > Related modules and directives", 40
    # with its join) pass 200: the cap comes first, and the table is cut between rows, the heading with its first
    # rows. At 220 it is whole again.
    capped = chunkwise.MarkdownChunker(size=200).chunk(doc)
    assert not any(table in c.text for c in capped) and all(len(c.embedding_text) <= 200 for c in capped)
    assert any(table in c.text for c in chunkwise.MarkdownChunker(size=220).chunk(doc))


@pytest.mark.parametrize("balance", [False, True])
@pytest.mark.parametrize("size_includes_context", [True, False])
@pytest.mark.parametrize("size", [256, 1024])
def test_the_corpus_markdown(size, size_includes_context, balance):
    text = (DATA / "mixed.md").read_text(encoding="utf-8")
    chunks = chunkwise.MarkdownChunker(size, size_includes_context=size_includes_context, balance=balance).chunk(text)
    found = counts(text, chunks, size, size_includes_context=size_includes_context)
    assert found["blocks"] > 20 and found["headings"] > 20 and found["lead_ins"] > 5, found
    assert found["over_cap"] == found["split_that_fit"] == found["heading_ends"] == 0, found
    assert found["alone_needlessly"] == found["alone_untyped"] == found["lead_ins_apart_that_fit"] == 0, found


@pytest.mark.parametrize("balance", [False, True])
def test_a_fence_in_a_quote_is_cut_at_its_line_start(balance):
    # The fence inside the quote fits; the cut before it falls before its "> ", not between the marker and the fence.
    intro = "> " + " ".join(["words"] * 30) + "\n>\n"
    fence = "> ```sh\n> git clone -c core.symlinks=true repository\n> cd node\n> ```\n"
    doc = "# Build\n\n" + intro + fence + "\nAfter.\n"
    for size in (100, 120, 160):
        chunks = chunkwise.MarkdownChunker(size, size_includes_context=False, balance=balance).chunk(doc)
        assert not any(c.text.rstrip().endswith(">") for c in chunks), [c.text for c in chunks]
        assert any(fence.rstrip() in c.text for c in chunks), [c.text for c in chunks]


@pytest.mark.parametrize("balance", [False, True])
def test_an_indented_list_that_fits_exactly_stays_whole(balance):
    # " * item" lines: the list is 254 characters from its first "*"; at 254 it fits, the heading goes alone.
    items = "\n ".join(["* " + "x" * 60] * 4)
    doc = "## v1\n\n " + items + "\n\n## v2\n\nmore.\n"
    chunks = chunkwise.MarkdownChunker(254, size_includes_context=False, balance=balance).chunk(doc)
    assert [(c.text[:5], c.metadata["chunk_type"]) for c in chunks] == [
        ("## v1", "heading"), ("* xxx", "list"), ("## v2", "text")]
    assert chunks[1].text == items


@pytest.mark.parametrize("balance", [False, True])
def test_a_list_whose_long_lead_in_cannot_go_with_it_stays_whole_with_its_lead_in_shortened(balance):
    # The list (about 170 characters) fits at 256 with its title path, not with its lead-in (about 170) in its
    # context at the usual half of the size: the context gives way, the list stays whole.
    lead_in = "Before you start, " + " ".join(["check the settings of the module"] * 4) + ", then pick one of:"
    items = "\n".join(f"- option {k}: " + " ".join(["value"] * 5) for k in range(4))
    doc = "# Guide\n\nIntro.\n\n## Options\n\n" + lead_in + "\n\n" + items + "\n\n## Next\n\nMore.\n"
    chunks = chunkwise.MarkdownChunker(256, balance=balance).chunk(doc)
    lists = [c for c in chunks if items in c.text]
    assert len(lists) == 1, [c.text for c in chunks]
    c = lists[0]
    assert c.text == items and c.metadata["context_shortened"]
    assert len(c.embedding_text) <= 256 and c.context.startswith("Options"), c.context
    # The context drops outer headings first, and still carries what it can of the lead-in.
    assert "Before you start" in c.context


@pytest.mark.parametrize("balance", [False, True])
def test_a_lead_in_goes_with_the_first_item_of_a_list_too_big_to_stay_whole(balance):
    lead_in = "The steps are:"
    items = "\n".join(f"- step {k}: " + " ".join(["do the thing"] * 4) for k in range(12))
    doc = "# Guide\n\n" + " ".join(["Some intro text here."] * 8) + "\n\n" + lead_in + "\n\n" + items + "\n"
    for size in (120, 200):
        chunks = chunkwise.MarkdownChunker(size, size_includes_context=False, balance=balance).chunk(doc)
        with_lead_in = next(c for c in chunks if lead_in in c.text)
        assert "- step 0:" in with_lead_in.text, [c.text for c in chunks]
