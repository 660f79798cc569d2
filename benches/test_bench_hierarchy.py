"""HierarchicalChunker with three size levels against LlamaIndex's HierarchicalNodeParser, same text, same sizes;
and AutoChunker's choice of strategy (issue 19's other chunkers).

LlamaIndex's sizes are tokens of its default tokenizer (tiktoken's cl100k_base, whose ranks llama-index-core ships),
with its default splitter under each level (SentenceSplitter); chunkwise measures in the same encoding
(``Tokenizer.tiktoken("cl100k_base")``), and in chars as a second row. Both with no overlap. Each side is timed
interleaved with the other, fastest of 3 rounds, on the first 200 kB of en.txt and zh.txt (LlamaIndex runs at well
under 0.1 MB/s here). extra_info: ``MBps``, ``chunks``, and for chunkwise ``vs_llamaindex`` (speed ratio). The
issue's target is >= 10x; nothing is asserted on time (CHUNKWISE_BENCH_STRICT=1 asserts it).
"""

from __future__ import annotations

import pytest

from benchlib import best_times, load_doc, strict, utf8_head

cw = pytest.importorskip("chunkwise")

SIZES = [2048, 512, 128]
BYTES = 200_000
SMOKE_BYTES = 20_000


def _llamaindex(text: str):
    from llama_index.core import Document
    from llama_index.core.node_parser import HierarchicalNodeParser

    parser = HierarchicalNodeParser.from_defaults(chunk_sizes=SIZES, chunk_overlap=0)
    return parser.get_nodes_from_documents([Document(text=text)])


@pytest.mark.parametrize("name", ["en.txt", "zh.txt"])
def test_hierarchy_vs_llamaindex(benchmark, name, smoke):
    pytest.importorskip("llama_index.core")
    doc = load_doc(name)
    text = utf8_head(doc.text, SMOKE_BYTES if smoke else BYTES)
    nbytes = len(text.encode())
    benchmark.group = f"hierarchy: three levels {SIZES}, {name}"
    tokens = cw.HierarchicalChunker(SIZES, tokenizer=cw.Tokenizer.tiktoken("cl100k_base"))
    chars = cw.HierarchicalChunker(SIZES)
    ours = tokens.chunk(text)
    theirs = _llamaindex(text)
    assert all(text[c.start : c.end] == c.text for c in ours)
    if smoke:
        benchmark.pedantic(tokens.chunk, args=(text,), rounds=1)
        return
    best = best_times(
        {
            "tokens": lambda: tokens.chunk(text),
            "chars": lambda: chars.chunk(text),
            "llamaindex": lambda: _llamaindex(text),
        },
        rounds=3,
    )
    mbps = {k: round(nbytes / 1e6 / v, 3) for k, v in best.items()}
    benchmark.pedantic(tokens.chunk, args=(text,), rounds=1, iterations=1)
    ratio = mbps["tokens"] / mbps["llamaindex"]
    benchmark.extra_info.update(
        impl="chunkwise", bytes=nbytes, MBps=mbps["tokens"], chars_MBps=mbps["chars"],
        llamaindex_MBps=mbps["llamaindex"], vs_llamaindex=round(ratio, 1),
        chars_vs_llamaindex=round(mbps["chars"] / mbps["llamaindex"], 1),
        chunks=len(ours), llamaindex_nodes=len(theirs),
    )
    if strict():
        assert ratio >= 10, f"{ratio:.1f}x LlamaIndex"


@pytest.mark.parametrize("name, repeat", [("en.txt", 1), ("zh.txt", 1), ("mixed.md", 1), ("code.py", 1),
                                          ("en.txt", 20)])
def test_auto_choose(benchmark, name, repeat, smoke):
    """AutoChunker.choose() by content: the core reads a bounded sample (256 KB whole, else 8 windows of 32 KB), so
    its time does not grow with the text; ``repeat`` 20 makes en.txt 100 MB. CPU time, fastest of 5 rounds."""
    import time

    doc = load_doc(name)
    text = doc.text * (1 if smoke else repeat)
    auto = cw.AutoChunker()
    benchmark.group = "auto: choose() by content"
    choice = auto.choose(text)
    if smoke:
        benchmark.pedantic(auto.choose, args=(text,), rounds=1)
        return
    best = best_times({"choose": lambda: auto.choose(text)}, rounds=5, clock=time.process_time)["choose"]
    benchmark.pedantic(auto.choose, args=(text,), rounds=5, iterations=1)
    benchmark.extra_info.update(impl="chunkwise", bytes=len(text.encode()), cpu_ms=round(best * 1000, 2),
                                strategy=choice.strategy)
