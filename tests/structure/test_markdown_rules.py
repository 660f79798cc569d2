"""MarkdownChunker's rules for headings, list lead-ins and paragraphs that go on (issue 12, "Defaults a RAG user
trips over")."""

import pytest

from chunkwise import MarkdownChunker, RecursiveChunker
from support.corpus import ROOT

TABLE = "| name | value |\n|---|---|\n" + "".join(f"| row {i} | {i * 7} |\n" for i in range(12))
CODE = "```python\n" + "".join(f"x{i} = compute({i})\n" for i in range(12)) + "```\n"


def kinds(chunks):
    return [c.metadata["chunk_type"] for c in chunks]


@pytest.mark.parametrize("block", [TABLE, CODE], ids=["table", "code"])
def test_a_heading_goes_with_the_first_piece_of_a_block_that_does_not_fit_with_it(block):
    """A block that fits alone but not with its heading: the heading takes the block's first rows or lines (it was
    a chunk of its own, and the block stayed whole)."""
    heading = "## Results of the measurement campaign\n\n"
    size = len(block) + 10
    assert len(block) <= size < len(heading) + len(block)
    chunks = MarkdownChunker(size=size).chunk(heading + block)
    assert "heading" not in kinds(chunks)
    assert chunks[0].text.startswith("## Results") and "row 0" in chunks[0].text or "x0 =" in chunks[0].text
    assert all(len(c.text) <= size for c in chunks)
    # The rest of the block carries the heading (and the header or fence line) in its context.
    assert chunks[1].context.startswith("Results of the measurement campaign\n\n")


def test_a_block_that_fits_with_its_heading_stays_whole_with_it():
    text = "## Results\n\n" + TABLE
    (chunk,) = MarkdownChunker(size=len(text)).chunk(text)
    assert chunk.text == text.strip()


def test_no_lone_heading_on_a_real_document():
    """On the sample manual, no heading is a chunk of its own when what follows it in its section fits with it."""

    text = (ROOT / "samples" / "sample.md").read_text(encoding="utf-8")
    for size in (128, 200, 256):
        chunks = MarkdownChunker(size=size).chunk(text)
        for c, n in zip(chunks, chunks[1:]):
            if c.metadata["chunk_type"] != "heading" or n.text.lstrip().startswith("#"):
                continue
            # A lone heading only when the next piece could not have been taken with it.
            assert len(c.text) + 2 + len(n.text) > size, (size, c.text, n.text[:60])


@pytest.mark.parametrize(
    "lead_in",
    [
        "Features include",
        "The options are as follows.",
        "Install the following packages",
        "配置项如下",
        "主要包括以下几个方面。",
        "必要なものは次のとおり。",
        "Short line before the list.",
        "There are three of them、",
    ],
)
def test_a_list_keeps_its_lead_in(lead_in):
    items = "\n".join(f"- item number {i} of the list" for i in range(4))
    filler = "A paragraph of filler text that comes first. " * 3
    text = f"# Title\n\n{filler.strip()}\n\n{lead_in}\n\n{items}\n\nAfter the list.\n"
    size = len("Title\n\n") + len(lead_in) + 2 + len(items) + 5  # the title path is in the context
    chunks = MarkdownChunker(size=size).chunk(text)
    holder = [c for c in chunks if c.text.startswith(lead_in)]
    assert holder and holder[0].text == f"{lead_in}\n\n{items}", [c.text for c in chunks]
    assert holder[0].metadata["chunk_type"] == "list"


def test_a_long_paragraph_is_no_lead_in():
    para = "This paragraph is long and ends with a full stop, so it does not lead into the list after it at all."
    items = "\n".join(f"- item {i}" for i in range(3))
    text = f"{para}\n\n{items}\n"
    chunks = MarkdownChunker(size=len(items) + 5).chunk(text)
    assert any(c.text == items for c in chunks)


def test_a_paragraph_that_starts_with_closing_punctuation_starts_no_chunk():
    text = "Run it:\n\n```sh\nservice start --now\n```\n\n. The service then listens on port 80. It logs to syslog.\n"
    for size in (40, 60):
        for c in MarkdownChunker(size=size).chunk(text):
            assert not c.text.startswith("."), (size, c.text)
    # ASCII quotes open as often as they close: a paragraph of dialogue still starts a chunk.
    dialogue = "He left.\n\n\"Where to?\" she asked.\n\n'Home,' he said."
    assert RecursiveChunker(size=25).split(dialogue) == ["He left.", '"Where to?" she asked.', "'Home,' he said."]
