"""MarkdownChunker against the Markdown-aware peers on mixed.md, in the same run.

* ``test_md_chunkwise[chunk]``: ``MarkdownChunker(size=512).chunk``: Chunk objects with their title path, context
  and embedding text.
* ``test_md_chunkwise[split]``: ``MarkdownChunker(size=512).split``: list[str], what the peers return.
* ``test_md_chunkwise[split.nocontext]``: the same with ``size_includes_context=False``: the cost of the default.
* ``test_md_peer[...]``: semantic-text-splitter's MarkdownSplitter and LangChain's MarkdownHeaderTextSplitter then
  RecursiveCharacterTextSplitter (peers.MARKDOWN_PEERS), at 512 chars with their own default rules; skipped when
  not installed.

All in one benchmark group, so that pytest-benchmark's table puts them side by side; ``report.py`` prints the speed
ratios against the targets (>= 20x text_splitter_md, >= 5x langchain_md). The timing rule is the other files': one
untimed call (warm-up and calibration), then as many rounds as fit in ~1 s (3 to 20), MB/s from the fastest. Under
--benchmark-disable each case runs once on the first 1 MB of the file (the ``md_doc`` fixture).
"""

from __future__ import annotations

import pytest

from benchlib import record, timed
from peers import MARKDOWN_PEERS

cw = pytest.importorskip("chunkwise")

SIZE = 512
GROUP = f"markdown mixed.md @{SIZE}"


@pytest.mark.parametrize("method", ("chunk", "split", "split.nocontext"))
def test_md_chunkwise(benchmark, md_doc, method, smoke):
    benchmark.group = GROUP
    # The default counts each chunk's context (heading path, table header) toward its size; "split.nocontext" does
    # not, as the peers do not: more text fits each chunk, so fewer chunks are cut, and at stronger levels.
    chunker = cw.MarkdownChunker(size=SIZE, size_includes_context=not method.endswith(".nocontext"))
    fn = getattr(chunker, method.split(".")[0])
    result = timed(benchmark, fn, md_doc.text, smoke)
    texts = [c.text for c in result] if method == "chunk" else result
    assert texts and max(map(len, texts)) <= SIZE
    if method == "chunk":
        c = result[len(result) // 2]
        assert c.text == md_doc.text[c.start : c.end] and "title_path" in c.metadata
    record(benchmark, md_doc.nbytes, impl="chunkwise", variant=f"markdown.{method}", file=md_doc.name, size=SIZE)


@pytest.mark.parametrize("peer", MARKDOWN_PEERS)
def test_md_peer(benchmark, md_doc, peer, smoke):
    split = MARKDOWN_PEERS[peer](SIZE)  # skips if the peer is not installed
    benchmark.group = GROUP
    texts = timed(benchmark, split, md_doc.text, smoke)
    assert texts and max(map(len, texts)) <= SIZE
    record(benchmark, md_doc.nbytes, impl="peer", variant=peer, file=md_doc.name, size=SIZE)
