"""CodeChunker against the code splitters of semantic-text-splitter and LlamaIndex, and its time on adversarial code.

* ``test_code_vs_peers[language-size]``: on the real files of a language (``tests/support/code_sources.py``; Python: the
  corpus's code.py), at the same size in chars: ``CodeChunker(size).chunk`` (Chunk objects with their language,
  symbol path, lines, node types and context), ``.split`` (list[str]), semantic-text-splitter's
  ``CodeSplitter(grammar, size).chunks`` (given the grammar's PyPI wheel) and LlamaIndex's
  ``CodeSplitter(language, max_chars=size, parser=...).split_text`` (given a tree-sitter parser, so nothing is
  downloaded) and ``get_nodes_from_documents`` (its nodes with metadata and relationships). CPU time
  (``time.process_time``), the implementations interleaved, the fastest of 3 to 10 rounds each; the ratios are of
  the same run, in ``extra_info`` (issue 18's targets: ``chunk`` >= 2x semantic-text-splitter, >= 10x LlamaIndex).
  ``tree_sitter_parse`` is tree-sitter's own parse of the same files (Python bindings): the floor of every
  implementation here, since each parses the whole file.
* ``test_code_linear[case]``: ``CodeChunker(1000).chunk`` on an adversarial text and on the same text 8x larger
  (a 6,250 / 50,000-line function, JavaScript functions nested 100 deep 3 / 24 times, a minified bundle of
  0.625 / 5 MB, 0.25 / 2 MB of zh.txt as Python); ``linearity`` = MB/s on the large / MB/s on the small (1.0:
  linear; quadratic would give 0.125).

Under --benchmark-disable (the CI smoke run) every implementation runs once on small inputs.
"""

from __future__ import annotations

import time

import pytest

from benchlib import best_times, load_doc, record, utf8_head
from support.code_sources import grammar_capsule, long_function, minified_js, nested_js, sources

cw = pytest.importorskip("chunkwise")

LANGUAGES = ("python", "javascript", "typescript", "rust", "go", "java")


def files_of(language: str, smoke: bool) -> list:
    if language == "python":
        text = load_doc("code.py").text
        return [utf8_head(text, 100_000) if smoke else text]
    texts = [t for lang, _, t in sources() if lang == language]
    return texts[:1] if smoke else texts


def cpu_best(fns: dict, rounds: int) -> dict:
    return best_times(fns, rounds, clock=time.process_time)


def peers(language: str, size: int) -> dict:
    """Each peer as a function of one text, those installed."""
    out = {}
    try:
        import tree_sitter

        capsule = grammar_capsule(language)
    except ImportError:
        return out
    out["tree_sitter_parse"] = lambda t, p=tree_sitter.Parser(tree_sitter.Language(capsule)): p.parse(t.encode())
    try:
        from semantic_text_splitter import CodeSplitter

        out["text_splitter"] = CodeSplitter(capsule, size).chunks
    except ImportError:
        pass
    try:
        from llama_index.core import Document
        from llama_index.core.node_parser import CodeSplitter as LlamaCodeSplitter

        llama = LlamaCodeSplitter(
            language=language,
            max_chars=size,
            parser=tree_sitter.Parser(tree_sitter.Language(capsule)),
            tokenizer=str.split,  # unused in chars; given so that nothing loads an encoding
        )
        out["llama_index"] = llama.split_text
        out["llama_index.nodes"] = lambda t: llama.get_nodes_from_documents([Document(text=t)])
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("size", [1000, 300])
@pytest.mark.parametrize("language", LANGUAGES)
def test_code_vs_peers(benchmark, language, size, smoke):
    texts = files_of(language, smoke)
    if not texts:
        pytest.skip(f"no {language} files here")
    nbytes = sum(len(t.encode("utf-8")) for t in texts)
    chunker = cw.CodeChunker(size, language=language)
    impls = {
        "chunk": lambda t: chunker.chunk(t),
        "split": lambda t: chunker.split(t),
        **peers(language, size),
    }
    for name, fn in impls.items():  # each once: warm-up, and every result checked
        out = [fn(t) for t in texts]
        if name == "chunk":
            for t, chunks in zip(texts, out):
                assert chunks and all(t[c.start : c.end] == c.text and c.size <= size for c in chunks)
                assert {c.metadata["language"] for c in chunks} == {language}
    benchmark.group = f"code {language} @{size}"
    benchmark.pedantic(lambda: [chunker.chunk(t) for t in texts], rounds=1 if smoke else 3, iterations=1)
    if smoke:
        record(benchmark, nbytes, impl="chunkwise", variant="code.chunk", language=language, size=size)
        return
    once = sum(cpu_best({"chunk": lambda: [chunker.chunk(t) for t in texts]}, 1).values())
    rounds = max(3, min(10, int(4.0 / max(once, 1e-3) / len(impls))))
    best = cpu_best({name: (lambda fn=fn: [fn(t) for t in texts]) for name, fn in impls.items()}, rounds)
    mbps = {name: round(nbytes / 1e6 / secs, 2) for name, secs in best.items()}
    ratios = {f"chunk_vs_{name}": round(best[name] / best["chunk"], 2) for name in best if name != "chunk"}
    record(benchmark, nbytes, impl="chunkwise", variant="code.chunk", language=language, size=size,
           files=len(texts), rounds=rounds, cpu_MBps=mbps, **ratios)


CASES = {
    "long_function": lambda k: long_function(6_250 * k),
    "nested_js": lambda k: "\n".join([nested_js(100)] * (3 * k)),
    "minified_js": lambda k: minified_js(625_000 * k),
    # Chinese prose parsed as Python: tree-sitter's error recovery all the way (no grammar fits)
    "prose_as_python": lambda k: utf8_head(load_doc("zh.txt").text, 250_000 * k),
}


@pytest.mark.parametrize("case", list(CASES))
def test_code_linear(benchmark, case, smoke):
    small, large = CASES[case](1), CASES[case](8)
    if smoke:
        small, large = CASES[case](1)[: len(small) // 8], small
    chunker = cw.CodeChunker(1000)
    source = {"source": "x.js" if case.endswith("_js") else "x.py"}
    benchmark.group = f"code adversarial {case}"
    chunks = benchmark.pedantic(chunker.chunk, args=(large, source), rounds=1 if smoke else 3, iterations=1)
    assert chunks and all(c.size <= 1000 for c in chunks)
    if smoke:
        return
    best = cpu_best({"small": lambda: chunker.chunk(small, source), "large": lambda: chunker.chunk(large, source)}, 3)
    small_mbps = len(small.encode()) / 1e6 / best["small"]
    large_mbps = len(large.encode()) / 1e6 / best["large"]
    record(benchmark, len(large.encode()), impl="chunkwise", variant="code.chunk", case=case,
           small_MBps=round(small_mbps, 2), large_MBps=round(large_mbps, 2),
           linearity=round(large_mbps / small_mbps, 3))
