"""CodeChunker on the languages beyond the first seven: C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash and SQL.

Each language has a real-looking source file below (with CJK comments and emoji, so offsets are checked as ``str``
indices) and its definitions derived by hand: label, first line (that of the comments right above it, which go with
it), last line, depth. For every chunk: ``text[c.start:c.end] == c.text``, sizes within ``size`` (characters and
tokens), no definition that fits in ``size`` cut, and ``symbol_path`` equal to the definitions around the chunk's
first line. Real files of some of these languages that packages of the test environment ship (C, C++, shell) are
chunked too, when installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from chunkwise import CODE_LANGUAGES, CodeChunker, Tokenizer
from support.code_checks import check_slices_and_sizes, line_starts
from support.code_samples import CPP_HEADER, C_HEADER, Definition, SAMPLES


LANGUAGES = sorted(SAMPLES)


def expected_path(defs: List[Definition], line: int) -> List[str]:
    return [label for label, first, last, _ in sorted(defs, key=lambda d: d[3]) if first <= line <= last]


def definition_span(text: str, first: int, last: int) -> Tuple[int, int]:
    """The str range of lines ``first`` to ``last`` (1-based), without the first line's indentation and trailing
    whitespace: what must lie inside one chunk when it fits."""
    starts = line_starts(text)
    a = starts[first - 1]
    a += len(text[a:]) - len(text[a:].lstrip(" \t"))
    b = starts[last] - 1 if last < len(starts) else len(text)
    return a, len(text[:b].rstrip())


def check_definitions(text: str, chunks, defs: List[Definition], size: int, measure=len) -> None:
    """No definition that fits is cut; each chunk's symbol path is the definitions around its first line."""
    for label, first, last, _ in defs:
        a, b = definition_span(text, first, last)
        if measure(text[a:b]) > size:
            continue
        assert any(c.start <= a and b <= c.end for c in chunks), f"{label} (lines {first}-{last}) was cut"
    wrong = [
        (c.metadata["start_line"], c.metadata["symbol_path"], expected_path(defs, c.metadata["start_line"]))
        for c in chunks
        if c.metadata["symbol_path"] != expected_path(defs, c.metadata["start_line"])
    ]
    assert not wrong, wrong


def test_every_language_is_known() -> None:
    assert set(LANGUAGES) <= set(CODE_LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [40, 90, 200, 1000])
def test_definitions_stay_whole_and_paths_match(language: str, size: int) -> None:
    name, text, defs = SAMPLES[language]
    chunks = CodeChunker(size).chunk(text, {"source": "src/" + name})
    check_slices_and_sizes(text, chunks, size)
    assert {c.metadata["language"] for c in chunks} == {language}
    assert not [c for c in chunks if "note" in c.metadata]
    check_definitions(text, chunks, defs, size)


@pytest.mark.parametrize("language", LANGUAGES)
def test_sizes_in_tokens(language: str) -> None:
    _, text, defs = SAMPLES[language]
    tok = Tokenizer.tiktoken("cl100k_base")
    for size in (24, 64):
        chunks = CodeChunker(size, tokenizer=tok, language=language).chunk(text)
        check_slices_and_sizes(text, chunks, size, measure=tok.count)
        check_definitions(text, chunks, defs, size, measure=tok.count)


@pytest.mark.parametrize("language", LANGUAGES)
def test_comments_go_with_the_definition_they_document(language: str) -> None:
    _, text, defs = SAMPLES[language]
    lines = text.split("\n")
    commented = 0
    for label, first, last, _ in defs:
        if not lines[first - 1].lstrip().startswith(("/*", "//", "#", "--")):
            continue
        # At the size of the definition with its comments, one chunk is exactly that.
        a, b = definition_span(text, first, last)
        chunks = CodeChunker(b - a, language=language).chunk(text)
        own = [c for c in chunks if c.start == a]
        assert own and own[0].end == b, (label, [c.text[:40] for c in chunks])
        assert own[0].metadata["symbol_path"][-1] == label
        commented += 1
    assert commented > 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_detected_by_file_name_and_by_content(language: str) -> None:
    name, text, _ = SAMPLES[language]
    chunker = CodeChunker(200)
    assert chunker.chunk(text, {"source": name})[0].metadata["language"] == language
    assert chunker.chunk(text)[0].metadata["language"] == language
    assert CodeChunker(200, language=language).chunk(text)[0].metadata["language"] == language


@pytest.mark.parametrize(
    "source, language",
    [("Gemfile", "ruby"), ("x/.bashrc", "bash"), ("a.HPP", "cpp"), ("b.h", "c"), ("c.kts", "kotlin"), ("d.csx", "csharp")],
)
def test_file_names(source: str, language: str) -> None:
    assert CodeChunker(50).chunk("x = 1\n", {"source": source})[0].metadata["language"] == language


def test_a_header_is_cpp_when_its_content_says_so() -> None:
    chunker = CodeChunker(200)
    cpp = CodeChunker(80).chunk(CPP_HEADER, {"source": "include/geo/shape.h"})
    assert {c.metadata["language"] for c in cpp} == {"cpp"}
    assert not [c for c in cpp if "note" in c.metadata]
    assert any(c.metadata["symbol_path"][:2] == ["namespace geo", "class Shape"] for c in cpp)
    c_chunks = chunker.chunk(C_HEADER, {"source": "include/list.h"})
    assert {c.metadata["language"] for c in c_chunks} == {"c"}
    batch = chunker.chunk_batch([CPP_HEADER, C_HEADER], [{"source": "a.h"}, {"source": "b.h"}])
    assert [b[0].metadata["language"] for b in batch] == ["cpp", "c"]
    # A .c file stays C whatever it holds; a named language is kept.
    assert chunker.chunk(CPP_HEADER, {"source": "a.c"})[0].metadata["language"] == "c"
    assert CodeChunker(200, language="c").chunk(CPP_HEADER, {"source": "a.h"})[0].metadata["language"] == "c"


@pytest.mark.parametrize("language", LANGUAGES)
def test_non_ascii_offsets_are_str_indices(language: str) -> None:
    _, text, _ = SAMPLES[language]
    # The CJK comment and the emoji come early: every later offset would be off if counted in bytes.
    assert any(ord(ch) > 0xFFFF for ch in text[: len(text) // 2])
    chunks = CodeChunker(60, language=language).chunk(text)
    check_slices_and_sizes(text, chunks, 60)
    last = chunks[-1]
    assert last.end == len(text.rstrip())
    assert last.metadata["end_line"] == text.rstrip().count("\n") + 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_syntax_error_still_chunks(language: str) -> None:
    _, text, defs = SAMPLES[language]
    lines = text.split("\n")
    # Garbage in the middle of the file, between two definitions.
    middle = defs[len(defs) // 2][1] - 1
    broken = "\n".join(lines[:middle] + [")))) }}} ]]] @@@ ((( {{{ 🚧 断"] + lines[middle:])
    chunks = CodeChunker(80, language=language).chunk(broken)
    check_slices_and_sizes(broken, chunks, 80)
    assert any(c.metadata.get("note", "").startswith("syntax error") for c in chunks)
    assert {c.metadata["language"] for c in chunks} == {language}


# -- real files that packages of the test environment ship ----------------------------------------------------------


def package_file(package: str, path: str) -> Optional[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(list(spec.submodule_search_locations)[0]) / path
    return found if found.is_file() else None


REAL = [
    ("markupsafe", "_speedups.c", "c"),
    ("greenlet", "TGreenlet.cpp", "cpp"),
    ("pyarrow", "src/arrow/python/ipc.cc", "cpp"),
    ("pyarrow", "include/arrow/buffer.h", "cpp"),
    ("pyspark", "sbin/spark-daemon.sh", "bash"),
    ("pyspark", "bin/docker-image-tool.sh", "bash"),
]


@pytest.mark.parametrize("package, path, language", REAL)
@pytest.mark.parametrize("size", [200, 800])
def test_real_files(package: str, path: str, language: str, size: int) -> None:
    found = package_file(package, path)
    if found is None:
        pytest.skip(f"{package} does not ship {path} here")
    text = found.read_text(encoding="utf-8")
    # A .h file is C by its name; arrow's headers are C++: named.
    chunker = CodeChunker(size, language=language if path.endswith(".h") else "auto")
    chunks = chunker.chunk(text, {"source": str(found)})
    check_slices_and_sizes(text, chunks, size)
    assert {c.metadata["language"] for c in chunks} == {language}
    tok = Tokenizer.tiktoken("cl100k_base")
    check_slices_and_sizes(text, CodeChunker(size // 4, tokenizer=tok, language=language).chunk(text), size // 4, tok.count)
    # Every function on a chunk's symbol path is named in the chunk's context (the signatures of the definitions it
    # starts inside) or, when the chunk starts with it (or with the comments above it), in the first lines of its
    # signature; and some chunk is in a function.
    functions = 0
    for c in chunks:
        lines = text[c.start :].split("\n")
        while lines and lines[0].strip().startswith(COMMENT_LINE):
            lines.pop(0)
        signature = "\n".join(lines[:3])
        for label in c.metadata["symbol_path"]:
            if label.startswith("function "):
                functions += 1
                name = label.split(" ", 1)[1]
                assert name in c.context or name in signature, (label, c.context, c.text[:80])
    assert functions > 0


#: How a comment line starts in C, C++ and shell.
COMMENT_LINE = ("//", "/*", "*", "#")
