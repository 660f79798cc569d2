"""CodeChunker on adversarial source: a 50,000-line function, a thousand-deep nesting (Python blocks, JavaScript
functions, braces and brackets a hundred thousand deep), a 5 MB minified one-line JavaScript bundle, binary files
named .py, long prose forced to a language. Correctness only: every call returns (no stack overflow: the walk of the syntax tree is iterative), the
chunks are exact slices within the size, and the metadata stays bounded. Linear time is shown in
benches/test_bench_code.py (no timing here).
"""

from __future__ import annotations

import os
import random
import re

import pytest

from chunkwise import ChunkingError, CodeChunker
from support.code_sources import long_function, minified_js, nested_braces_js, nested_js, nested_python
from support.corpus import code_corpus, load

# chunkwise's bound below which a text is parsed whatever it is, and the note of a longer one that is not code.
GUARD_BYTES = 128 * 1024
NOT_CODE = "not code: most of the text does not parse as its language; cut at blank lines and lines"

SIZE = 1000
MAX_SYMBOL_DEPTH = 32  # chunkwise's bound on a symbol path


def check(text: str, chunks, size: int = SIZE) -> None:
    assert chunks
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    prev = 0
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start >= prev and 0 < c.size <= size
        prev = c.end
        assert len(c.metadata["symbol_path"]) <= MAX_SYMBOL_DEPTH
        assert starts[c.metadata["start_line"] - 1] <= c.start
    assert "".join("".join(c.text for c in chunks).split()) == "".join(text.split())


def test_a_function_of_50000_lines() -> None:
    text = long_function(50_000)
    chunks = CodeChunker(SIZE).chunk(text, {"source": "long.py"})
    check(text, chunks)
    assert len(chunks) > 2000
    assert all(c.metadata["symbol_path"] == ["def long"] for c in chunks)
    # Every piece after the first is read with the function's signature; each is cut between statements.
    assert all(c.context == "def long(value):" for c in chunks[1:])
    assert all(c.text.startswith("total") or c.text.startswith("return") for c in chunks[1:])
    assert chunks[-1].text.endswith("return total")


def test_python_nested_a_thousand_deep_falls_back_to_lines() -> None:
    # tree-sitter's Python scanner keeps a bounded stack of indentations: past 511 levels the file has errors, and
    # the chunks around them are cut at lines, with a note.
    text = nested_python(1000)
    chunks = CodeChunker(SIZE).chunk(text, {"source": "deep.py"})
    check(text, chunks)
    assert any(c.metadata.get("note", "").startswith("syntax error") for c in chunks)
    # 500 levels still parse: cut between the blocks, no note.
    text = nested_python(500)
    chunks = CodeChunker(SIZE).chunk(text, {"source": "deep.py"})
    check(text, chunks)
    assert not any("note" in c.metadata for c in chunks)


def test_javascript_functions_nested_a_thousand_deep() -> None:
    text = nested_js(1000)
    chunks = CodeChunker(SIZE).chunk(text, {"source": "deep.js"})
    check(text, chunks)
    # A chunk starting at function k (k < 32) has the path f0..fk; deeper, the path stops at 32 definitions.
    for c in chunks:
        m = re.match(r"function f(\d+)\(", c.text)
        if m:
            k = int(m.group(1))
            expected = [f"function f{i}" for i in range(min(k + 1, MAX_SYMBOL_DEPTH))]
            assert c.metadata["symbol_path"] == expected, (k, c.metadata["symbol_path"][-3:])
    assert max(len(c.metadata["symbol_path"]) for c in chunks) == MAX_SYMBOL_DEPTH
    # The context (signatures of the definitions a chunk starts inside) stays bounded too.
    assert max(len(c.context) for c in chunks) < MAX_SYMBOL_DEPTH * 100


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_braces_and_brackets_nested_deep_on_one_line(depth: int) -> None:
    text = nested_braces_js(depth)
    chunks = CodeChunker(SIZE).chunk(text, {"source": "deep.js"})
    check(text, chunks)
    assert {c.metadata["language"] for c in chunks} == {"javascript"}


def test_a_minified_bundle_of_5_mb_on_one_line() -> None:
    text = minified_js(5_000_000)
    assert "\n" not in text and len(text) >= 5_000_000
    chunks = CodeChunker(SIZE).chunk(text, {"source": "bundle.min.js"})
    check(text, chunks)
    assert all(c.metadata["start_line"] == 1 for c in chunks)
    # Cut by syntax, not at words: the chunks are whole modules of the bundle (the pairs of its object).
    assert sum(bool(re.match(r"\d+:\(e,t,n\)=>", c.text)) for c in chunks) > 0.95 * len(chunks)
    assert sum(c.metadata["node_types"] == ["pair"] for c in chunks) > 0.95 * len(chunks)


def test_a_minified_bundle_is_checked_by_the_independent_reader() -> None:
    ts_check = pytest.importorskip("test_code_ts")
    text = minified_js(300_000)
    for size in (300, 1500):
        ts_check.check(text, "javascript", CodeChunker(size).chunk(text, {"source": "b.min.js"}), size, len)


def binary_texts():
    rng = random.Random(18)
    data = bytes(rng.randrange(256) for _ in range(200_000))
    elf = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + data[:50_000]
    return {
        "latin-1": data.decode("latin-1"),
        "utf-8 replace": data.decode("utf-8", "replace"),
        "elf header": elf.decode("latin-1"),
    }


@pytest.mark.parametrize("kind", ["latin-1", "utf-8 replace", "elf header"])
@pytest.mark.parametrize("language", ["auto", "python"])
def test_a_binary_file_named_py_is_cut_at_lines_with_a_note(kind: str, language: str) -> None:
    text = binary_texts()[kind]
    chunks = CodeChunker(500, language=language).chunk(text, {"source": "image.py"})
    check(text, chunks, 500)
    assert all(c.metadata["language"] is None for c in chunks)
    assert all(c.metadata["note"].startswith("language not recognised") for c in chunks)


def test_binary_bytes_that_are_not_text_get_a_clear_error() -> None:
    # Bytes read with errors="surrogateescape" hold lone surrogates: not text, named as such.
    text = os.urandom(2000).decode("utf-8", "surrogateescape")
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        text += "\udcff"
    with pytest.raises(ChunkingError, match="text holds a lone surrogate"):
        CodeChunker(SIZE).chunk(text, {"source": "image.py"})
    with pytest.raises(TypeError, match="text must be str"):
        CodeChunker(SIZE).chunk(b"def f(): pass")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["zh.txt", "en.txt", "mixed.md"])
@pytest.mark.parametrize("language", ["python", "javascript", "rust"])
def test_prose_parsed_as_code_is_cut_at_lines_with_a_note(name: str, language: str) -> None:
    # Long prose forced to a language: not parsed (tree-sitter's error recovery over prose takes time that grows
    # faster than the text; a few samples show it is no code), cut at blank lines and lines, with a note. The
    # time is in benches/test_bench_code.py (prose_as_python).
    text = load(name)
    while len(text.encode()) <= GUARD_BYTES * 2:
        text += "\n\n" + text
    chunks = CodeChunker(SIZE, language=language).chunk(text)
    check(text, chunks)
    assert {c.metadata["language"] for c in chunks} == {None}
    assert {c.metadata["note"] for c in chunks} == {NOT_CODE}
    assert all(c.metadata["symbol_path"] == [] for c in chunks)
    # Short prose is parsed still: the guard looks only at texts longer than GUARD_BYTES.
    head = text[: GUARD_BYTES // 8]
    assert CodeChunker(SIZE, language=language).chunk(head)[0].metadata["language"] == language


def test_long_real_code_passes_the_guard() -> None:
    # The corpus's code.py (2 MB; where the corpus is not beside the repository, the modules of tests/data's copy
    # repeated past the guard's size), a generated table of numbers in Rust (an array far longer than a sample: a
    # sample inside it is an unclosed construct), and Chinese comments and strings in Python: all parsed.
    text = code_corpus(2 * GUARD_BYTES)
    table = "pub static LOGS: [f32; 40000] = [\n" + "".join(f"    {i / 7:.10f},\n" for i in range(40_000)) + "];\n"
    zh = "".join(f"# 第{i}个函数：计算总和。\ndef 函数{i}(值):\n    return 值 + {i}  # 返回结果\n\n\n" for i in range(4000))
    for text, language in ((text, "python"), (table, "rust"), (zh, "python")):
        assert len(text.encode()) > GUARD_BYTES
        chunks = CodeChunker(SIZE, language=language).chunk(text)
        check(text, chunks)
        assert {c.metadata["language"] for c in chunks} == {language}
        assert not any(c.metadata.get("note", "").startswith("not code") for c in chunks)
