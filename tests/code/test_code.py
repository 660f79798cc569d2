"""CodeChunker on real source files, judged by independent readers of the code: Python's own ``ast`` for Python
(definitions, their decorators and the comments right above them), and per-language patterns for the others.

For every chunk ``c`` of a text (overlap 0, trim on): ``text[c.start:c.end] == c.text``, chunks in order and not
overlapping, ``c.size`` at most ``size``; no definition (with its decorators and the comment lines right above it)
that fits in ``size`` is cut; ``symbol_path`` is the definitions around the chunk's first line; ``start_line`` and
``end_line`` are the lines of its first and last characters; a chunk that starts inside a definition has that
definition's signature in its ``context``.
"""

from __future__ import annotations

import bisect
import pickle
import re
from typing import List

import pytest

from chunkwise import CODE_LANGUAGES, ChunkingError, CodeChunker, Tokenizer
from support.code_checks import RUST_FN, check_slices_and_sizes, definitions, expected_path, line_starts
from support.corpus import DATA, code_corpus as corpus



# -- the independent reader: Python's ast ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [300, 800, 2000])
def test_python_definitions_stay_whole_and_paths_match_ast(size: int) -> None:
    text = corpus()
    chunks = CodeChunker(size).chunk(text)
    check_slices_and_sizes(text, chunks, size)
    defs = definitions(text)
    starts = line_starts(text)
    # A definition that fits is inside one chunk.
    spans = [(c.start, c.end) for c in chunks]
    for first, last, label, _ in defs:
        a = starts[first - 1] + (len(text[starts[first - 1] :]) - len(text[starts[first - 1] :].lstrip()))
        b = (starts[last] - 1 if last < len(starts) else len(text))
        b = len(text[:b].rstrip())
        if b - a > size:
            continue
        i = bisect.bisect_right([s for s, _ in spans], a) - 1
        assert i >= 0 and spans[i][1] >= b, f"{label} (lines {first}-{last}, {b - a} chars) was cut"
    # The symbol path of each chunk is the definitions around its first line.
    wrong = [
        (c.metadata["start_line"], c.metadata["symbol_path"], expected_path(defs, c.metadata["start_line"]))
        for c in chunks
        if c.metadata["symbol_path"] != expected_path(defs, c.metadata["start_line"])
    ]
    assert not wrong, wrong[:5]


def test_a_piece_of_a_split_definition_carries_its_signatures() -> None:
    body = "\n".join(f"        total += {i} * value  # step {i}" for i in range(40))
    text = f"class Parser:\n    def feed(self, value):\n        total = 0\n{body}\n        return total\n"
    chunks = CodeChunker(300, language="python").chunk(text)
    assert len(chunks) > 2
    # The first chunk starts with the class: the method starts on its second line.
    assert chunks[0].metadata["symbol_path"] == ["class Parser"]
    assert chunks[0].context == ""
    for c in chunks[1:]:
        assert c.metadata["symbol_path"] == ["class Parser", "def feed"]
        # A chunk that starts with the method has the class's signature; one inside it, the method's too.
        own = c.text.startswith("def feed")
        assert c.context == ("class Parser:" if own else "class Parser:\n    def feed(self, value):")
        assert c.embedding_text == c.context + "\n" + c.text
        assert text[c.start : c.end] == c.text


def test_comments_and_decorators_go_with_their_definition() -> None:
    text = (
        "import os\n\n\n"
        "# Reads the thing.\n# Two lines of comment.\n@cache\n@other(1)\ndef read(path):\n    return open(path).read()\n\n\n"
        "def write(path, data):  # trailing\n    pass\n"
    )
    chunks = CodeChunker(110, language="python").chunk(text)
    texts = [c.text for c in chunks]
    assert texts[0] == "import os"
    assert texts[1].startswith("# Reads the thing.") and texts[1].endswith("return open(path).read()")
    assert texts[2] == "def write(path, data):  # trailing\n    pass"
    assert chunks[1].metadata["symbol_path"] == ["def read"]
    assert chunks[1].metadata["node_types"] == ["decorated_definition"]


def test_sizes_in_tokens() -> None:
    text = corpus()[:20000]
    tok = Tokenizer.tiktoken("cl100k_base")
    chunks = CodeChunker(128, tokenizer=tok).chunk(text)
    check_slices_and_sizes(text, chunks, 128, measure=tok.count)


def test_non_ascii_source_has_str_offsets() -> None:
    text = (
        "# 解析器：读取数据 🚀\n"
        "class 解析器:\n"
        '    """文档字符串 — émoji 🎉🎉"""\n\n'
        "    def 读取(self, 数据):\n"
        '        # 注释：这里是中文 😀\n        return "结果：" + 数据\n\n'
        "    def 写入(self):\n        return 'ok ✅'\n"
    )
    chunks = CodeChunker(40, language="python").chunk(text)
    check_slices_and_sizes(text, chunks, 40)
    paths = [c.metadata["symbol_path"] for c in chunks]
    assert ["class 解析器", "def 读取"] in paths and ["class 解析器", "def 写入"] in paths
    assert chunks[-1].text == "def 写入(self):\n        return 'ok ✅'"


def test_a_syntax_error_still_chunks_with_a_note() -> None:
    good = "def ok(a):\n    return a + 1\n\n\n"
    broken = "def broken(:\n    x = = 2\n    )))\n\n\n"
    text = good + broken + good.replace("ok", "fine")
    chunks = CodeChunker(40, language="python").chunk(text)
    check_slices_and_sizes(text, chunks, 40)
    assert chunks[0].text == good.strip() and "note" not in chunks[0].metadata
    assert any(c.metadata.get("note", "").startswith("syntax error") for c in chunks)
    assert chunks[-1].metadata["symbol_path"] == ["def fine"]


def test_unknown_language_falls_back_to_lines_with_a_note() -> None:
    text = "Just some words.\n\nAnd more words here, on a second line.\nThird line."
    chunks = CodeChunker(40).chunk(text)
    check_slices_and_sizes(text, chunks, 40)
    assert all(c.metadata["language"] is None for c in chunks)
    assert all(c.metadata["note"].startswith("language not recognised") for c in chunks)
    assert [c.level for c in chunks] == ["paragraph", "line", "end"]


def test_binary_bytes_are_not_parsed() -> None:
    # A binary file named .py, read as Latin-1: not parsed as code (tree-sitter's error recovery on noise is slow).
    text = bytes(range(256)).decode("latin-1") * 40
    chunks = CodeChunker(500, language="python").chunk(text, {"source": "image.py"})
    check_slices_and_sizes(text, chunks, 500)
    assert all(c.metadata["language"] is None and "note" in c.metadata for c in chunks)


# -- other languages: real files, checked by patterns ----------------------------------------------------------------

# A function declared, or assigned to a name (``a.b.f = function (...)``, ``var f = function``).
JS_FN = re.compile(r"(?:(?:async\s+)?function\s*\*?\s*(\w+)|(?:(?:var|let|const)\s+)?([\w.$]+)\s*=\s*function\b)")


@pytest.mark.parametrize(
    "name, language, head",
    [("itoa_lib.rs", "rust", (RUST_FN, "fn ")), ("nbagg_mpl.js", "javascript", (JS_FN, "function "))],
)
@pytest.mark.parametrize("size", [200, 600])
def test_real_files_of_other_languages(name: str, language: str, head, size: int) -> None:
    text = (DATA / "code" / name).read_text(encoding="utf-8")
    pattern, word = head
    chunker = CodeChunker(size)
    chunks = chunker.chunk(text, {"source": name})
    check_slices_and_sizes(text, chunks, size)
    assert {c.metadata["language"] for c in chunks} == {language}
    # Detected from the content alone too.
    assert chunker.chunk(text)[0].metadata["language"] == language
    named = 0
    for c in chunks:
        # The chunk's first line of code, past the comments and attributes that go with it.
        code = [ln.strip() for ln in c.text.split("\n") if not ln.strip().startswith(("//", "/*", "*", "#[", "#!["))]
        first = code[0] if code else ""
        m = pattern.match(first)
        # Rust's macro bodies are token trees, not items: a `fn` in a macro_rules! body is no definition.
        if m and not any(p.startswith("macro_rules!") for p in c.metadata["symbol_path"]):
            named += 1
            name = next(g for g in m.groups() if g)
            assert c.metadata["symbol_path"][-1] == word + name, (first, c.metadata["symbol_path"])
    assert named > 0


def test_each_language_keeps_its_definitions_whole() -> None:
    samples = {
        "rust": "use std::fmt;\n\n/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n\n"
        "impl fmt::Display for Point {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
        "        write!(f, \"{}\", self.x)\n    }\n}\n",
        "go": "package main\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n"
        "type T struct {\n\tx int\n}\n\nfunc (t *T) Get() int {\n\treturn t.x\n}\n",
        "java": "package a;\n\npublic class A {\n    /** Gets. */\n    @Override\n    public int get() {\n"
        "        return 1;\n    }\n\n    void set(int x) {\n        this.x = x;\n    }\n}\n",
        "typescript": "interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n"
        "  constructor(private side: number) {}\n  area(): number {\n    return this.side * this.side;\n  }\n}\n",
        "tsx": "export function App(props: { name: string }) {\n  return <div>{props.name}</div>;\n}\n",
        "javascript": "const x = require('x');\n\nfunction f(a) {\n  return a;\n}\n\nclass B {\n  m() {\n"
        "    return 2;\n  }\n}\n",
    }
    expect = {
        "rust": [[], ["struct Point"], ["impl fmt::Display for Point"]],
        "go": [[], ["func Add"], ["type T"], ["func Get"]],
        "java": [[], ["class A"], ["class A", "method get"], ["class A", "method set"]],
        "typescript": [["interface Shape"], ["class Square"], ["class Square", "method area"]],
        "tsx": [["function App"]],
        "javascript": [[], ["class B"]],  # the require and function f share the first chunk
    }
    assert set(samples) <= set(CODE_LANGUAGES)
    for language, text in samples.items():
        # Small chunks: each definition starts one (or is cut into pieces that carry its path).
        chunker = CodeChunker(60, language=language)
        chunks = chunker.chunk(text)
        check_slices_and_sizes(text, chunks, 60)
        got = [c.metadata["symbol_path"] for c in chunks]
        for path in expect[language]:
            assert path in got, (language, got)
        for c in chunks:
            assert c.metadata["language"] == language


# -- the chunker's calls ---------------------------------------------------------------------------------------------


def test_language_argument_and_detection_by_file_name() -> None:
    with pytest.raises(ChunkingError, match="language must be 'auto' or one of python"):
        CodeChunker(100, language="cobol")
    with pytest.raises(TypeError, match="language must be a str"):
        CodeChunker(100, language=None)  # type: ignore[arg-type]
    text = "import os\nx = 1\n"
    chunker = CodeChunker(100)
    assert chunker.chunk(text, {"source": "a/b.py"})[0].metadata["language"] == "python"
    assert chunker.chunk(text, {"source": "a/b.rs"})[0].metadata["language"] == "rust"
    batch = chunker.chunk_batch([text, text, text], [{"source": "x.go"}, None, {"source": "y.js"}])
    assert [b[0].metadata["language"] for b in batch] == ["go", "python", "javascript"]
    assert CodeChunker(100, language="py").chunk(text)[0].metadata["language"] == "python"


def test_calls_pickle_and_repr() -> None:
    chunker = CodeChunker(300, language="python")
    text = corpus()[:5000]
    chunks = chunker.chunk(text)
    assert chunker.split(text) == [c.text for c in chunks]
    assert chunker.spans(text).tolist() == [[c.start, c.end] for c in chunks]
    assert [[c.text for c in cs] for cs in chunker.chunk_batch([text, text[:999]])] == [
        [c.text for c in chunks],
        chunker.split(text[:999]),
    ]
    again = pickle.loads(pickle.dumps(chunker))
    assert again == chunker and again.split(text) == chunker.split(text)
    assert repr(chunker).startswith("CodeChunker(size=300, overlap=0, language='python'")
    with pytest.raises(ChunkingError, match="symbol_path"):
        chunker.chunk(text, {"symbol_path": 1})


def test_size_includes_context_counts_the_signatures() -> None:
    body = "\n".join(f"        total += {i}" for i in range(60))
    text = f"class Parser:\n    def feed(self, value):\n        total = 0\n{body}\n        return total\n"
    for c in CodeChunker(200, language="python", size_includes_context=True).chunk(text):
        assert len(c.context) + (1 if c.context else 0) + c.size <= 200


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

PIECES = st.sampled_from(
    [
        "def f(a):\n    return a\n",
        "class C:\n    x = 1\n\n    def m(self):\n        return '😀'\n",
        "# 注释\n",
        "\n\n",
        "    ",
        "@d\n",
        "x = [1,\n  2]\n",
        "if x:\n    y = '中文'\n",
        "def (:\n",
        "é",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(PIECES, max_size=25), st.integers(min_value=1, max_value=120))
def test_any_python_like_text_chunks_exactly(pieces: List[str], size: int) -> None:
    text = "".join(pieces)
    for c in CodeChunker(size, language="python").chunk(text):
        assert text[c.start : c.end] == c.text and 0 < c.size <= max(size, 1)
