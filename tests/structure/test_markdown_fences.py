"""MarkdownChunker on code fences of a known language: the fence's code is cut where CodeChunker would cut it, and
its chunks carry CodeChunker's metadata beside the Markdown's, checked by independent readers.

Real code (files of the corpus's code.py, and a Rust file of tests/data/code) in fences between paragraphs of
English and CJK prose, under headings. For every chunk: an exact slice of the document, sizes within ``size`` (in
chars and in tokens), and the Markdown reference's rules (test_markdown's checker). For a chunk of a Python fence:
no definition that fits is cut; ``symbol_path`` is the definitions around its first line of code by Python's
``ast``; ``start_line``/``end_line`` are document lines; its context is the heading path, the fence line and the
signatures of the definitions it starts inside. A fence of an unknown language is cut at its lines as before.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import List, Tuple

import pytest

from chunkwise import MarkdownChunker, Tokenizer
from support.code_checks import RUST_FN, definitions, expected_path, line_of, line_starts
from support.corpus import DATA, code_corpus as corpus
from support.markdown_checks import assert_valid

PYTHON_FILES = ("bisect.py", "graphlib.py")
PROSE_ZH = "本节的代码来自标准库。函数在一个块里保持完整，过长的类在方法之间切开。"
PROSE_EN = "The code below comes from the standard library; each function stays whole when it fits."


def corpus_file(name: str) -> str:
    """One file of the corpus's code.py, with a last statement after its last definition."""
    text = corpus()
    start = text.index(f"# ===== file: /usr/lib/python3.11/{name} =====")
    start = text.index("\n", start) + 1
    end = text.find("# ===== file:", start)
    code = text[start : end if end >= 0 else len(text)].rstrip() + '\n\nprint("完成")\n'
    ast.parse(code)
    return code


def document(fences: List[Tuple[str, str]]) -> str:
    """A Markdown document: a title, then for each (info string, code) a section with prose around the fence."""
    parts = [f"# 代码指南\n\n{PROSE_ZH}\n"]
    for k, (info, code) in enumerate(fences):
        parts.append(f"## Part {k}\n\n{PROSE_EN} {PROSE_ZH}\n\n```{info}\n{code}```\n\n{PROSE_ZH}\n")
    return "\n".join(parts)


def fence_bodies(doc: str) -> List[Tuple[str, int, int, int]]:
    """Each fence's info string, where its code starts, where its closing line starts, and where the block (from its
    opening line to its closing one) is: chunks of the fence lie in the block."""
    out = []
    for m in re.finditer(r"^```(\S*)\n", doc, re.M):
        if m.group(1):
            close = doc.index("\n```\n", m.end()) + 1
            out.append((m.group(1), m.end(), close, range(m.start(), close + 3)))
    return out


def python_doc() -> str:
    return document([("python", corpus_file(name)) for name in PYTHON_FILES])


def signature(code: str, node: ast.AST) -> str:
    """A definition's signature as a context shows it: from the start of its line to its body, less a comment line
    before the body and trailing whitespace."""
    starts = line_starts(code)
    a = starts[node.lineno - 1]
    body = node.body[0]
    b = starts[body.lineno - 1] + len(code[starts[body.lineno - 1] :].encode()[: body.col_offset].decode())
    head = code[a:b]
    lines = head.split("\n")
    keep = [ln for k, ln in enumerate(lines) if k == 0 or not ln.strip().startswith("#")]
    return "\n".join(keep).rstrip()


def signatures_around(code: str, line: int) -> List[str]:
    """The signatures of the definitions a chunk whose first line of code is ``line`` starts inside (not those it
    starts with), outermost first."""
    out = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                if first <= line <= child.end_lineno:
                    if child.lineno < line:
                        out.append(signature(code, child))
                    visit(child)
            else:
                visit(child)

    visit(ast.parse(code))
    return out


def check_python_fences(doc: str, chunks, size: int, *, context: bool, measure=len) -> None:
    doc_starts = line_starts(doc)
    for info, body, close, block in fence_bodies(doc):
        code = doc[body:close]
        defs = definitions(code)
        first_line = line_of(doc_starts, body)
        inside = [c for c in chunks if c.start in block and c.end - 1 in block]
        assert len(inside) > 3, "the fence is cut"
        for c in inside:
            md = c.metadata
            assert md["chunk_type"] == "code" and md["language"] == "python", md
            assert md["title_path"][0] == "代码指南" and md["headings"][0] == 1
            assert md["start_line"] == line_of(doc_starts, c.start)
            assert md["end_line"] == line_of(doc_starts, c.end - 1)
            # The symbol path at its first line of code (the fence line is none).
            line = max(md["start_line"], first_line) - first_line + 1
            assert md["symbol_path"] == expected_path(defs, line), (c.text[:80], md["symbol_path"])
            assert md["node_types"], md
            if context:
                heading = " > ".join(md["title_path"])
                inner = "".join("\n" + s for s in signatures_around(code, line)) if c.start > body else ""
                want = f"{heading}\n\n```{info}{inner}" if c.start > body else heading
                assert c.context == want, (c.text[:80], c.context, want)
                assert c.embedding_text == c.context + ("\n" if c.start > body else "\n\n") + c.text
        # A definition that fits is in one chunk.
        starts = line_starts(code)
        spans = [(c.start, c.end) for c in chunks]
        for first, last, label, _ in defs:
            a = body + starts[first - 1] + len(code[starts[first - 1] :]) - len(code[starts[first - 1] :].lstrip())
            b = body + len(code[: starts[last] - 1 if last < len(starts) else len(code)].rstrip())
            if measure(doc[a:b]) > size:
                continue
            i = bisect.bisect_right([s for s, _ in spans], a) - 1
            assert i >= 0 and spans[i][1] >= b, f"{label} ({measure(doc[a:b])} units) was cut"


def check_slices_and_sizes(doc: str, chunks, size: int, measure=len) -> None:
    prev = 0
    for c in chunks:
        assert doc[c.start : c.end] == c.text and c.start >= prev
        prev = c.end
        assert c.size == measure(c.text) <= size, (c.size, c.text[:80])


@pytest.mark.parametrize("size", [300, 800])
def test_python_fences_are_cut_by_their_syntax(size: int) -> None:
    doc = python_doc()
    chunks = MarkdownChunker(size, size_includes_context=False).chunk(doc)
    check_slices_and_sizes(doc, chunks, size)
    assert_valid(doc, chunks, size)
    check_python_fences(doc, chunks, size, context=True)
    # The class of graphlib.py is cut between its methods: some chunk starts inside it with its signature.
    assert any(c.context.endswith("```python\nclass TopologicalSorter:") for c in chunks)


def test_sizes_in_tokens_and_with_the_context_counted() -> None:
    doc = python_doc()
    tok = Tokenizer.tiktoken("cl100k_base")
    chunks = MarkdownChunker(128, tokenizer=tok, size_includes_context=False).chunk(doc)
    check_slices_and_sizes(doc, chunks, 128, measure=tok.count)
    assert_valid(doc, chunks, 128, measure=tok.count)
    check_python_fences(doc, chunks, 128, context=True, measure=tok.count)
    # With the context counted (signatures and all): context + join + text within the size.
    chunks = MarkdownChunker(400, size_includes_context=True).chunk(doc)
    assert_valid(doc, chunks, 400, size_includes_context=True)
    assert any(c.metadata.get("symbol_path") and "\nclass " in c.context for c in chunks)


def test_a_rust_fence_beside_a_python_one() -> None:
    rust = (DATA / "code" / "itoa_lib.rs").read_text(encoding="utf-8")
    doc = document([("rust", rust), ("py", corpus_file("bisect.py"))])
    size = 400
    chunks = MarkdownChunker(size, size_includes_context=False).chunk(doc)
    check_slices_and_sizes(doc, chunks, size)
    assert_valid(doc, chunks, size)
    (_, body, close, _), _ = fence_bodies(doc)
    named = 0
    for c in (c for c in chunks if body < c.start and c.end <= close):
        assert c.metadata["language"] == "rust" and c.metadata["title_path"] == ["代码指南", "Part 0"]
        code = [ln.strip() for ln in c.text.split("\n") if not ln.strip().startswith(("//", "/*", "*", "#[", "#!["))]
        m = RUST_FN.match(code[0] if code else "")
        if m and not any(p.startswith("macro_rules!") for p in c.metadata["symbol_path"]):
            named += 1
            assert c.metadata["symbol_path"][-1] == "fn " + m.group(1), (code[0], c.metadata["symbol_path"])
        if c.metadata["symbol_path"]:
            # A piece inside a definition reads the signature of each definition it starts inside.
            assert c.context.startswith("代码指南 > Part 0\n\n```rust")
    assert named > 0
    # "py" is Python by its alias; the chunks say "python", as CodeChunker's do.
    assert {c.metadata["language"] for c in chunks if c.metadata["chunk_type"] == "code"} == {"rust", "python"}


def test_a_fence_of_an_unknown_language_is_cut_at_its_lines() -> None:
    code = corpus_file("bisect.py")
    size = 300
    for info in ("", "pseudocode"):
        doc = document([(info, code)])
        chunks = MarkdownChunker(size, size_includes_context=False).chunk(doc)
        assert_valid(doc, chunks, size)
        fence = doc.index("```")
        for c in chunks:
            assert "symbol_path" not in c.metadata and "node_types" not in c.metadata
            if c.metadata["chunk_type"] == "code":
                assert c.metadata["language"] == (info or None)
                assert c.context in ("代码指南 > Part 0", f"代码指南 > Part 0\n\n```{info}")
            if c.start > fence and doc[c.end :].startswith("\ndef "):
                # As before: a cut before a line that starts a definition is one of the definition level.
                assert c.level == "definition", (c.text[-60:], c.level)
        # Known, the language cuts the fence by its syntax.
        known = MarkdownChunker(size, size_includes_context=False).chunk(document([("python", code)]))
        assert "symbol_path" in known[3].metadata


def test_cjk_around_and_inside_a_fence_has_str_offsets() -> None:
    code = 'def 问候(名字):\n    """打招呼。"""\n    return f"你好，{名字}！👋"\n\n\n' * 12 + 'print(问候("世界"))\n'
    doc = f"# 标题\n\n{PROSE_ZH * 3}\n\n```python\n{code}```\n\n{PROSE_ZH * 3}\n"
    chunks = MarkdownChunker(90, size_includes_context=False).chunk(doc)
    check_slices_and_sizes(doc, chunks, 90)
    assert_valid(doc, chunks, 90)
    fns = [c for c in chunks if c.metadata.get("symbol_path") == ["def 问候"]]
    assert len(fns) >= 11 and all(c.text.startswith(("def 问候", "```python\ndef 问候")) for c in fns)
    assert all(c.context == ("标题\n\n```python" if c.text.startswith("def") else "标题") for c in fns)
