"""Checks of CodeChunker's output that several test files run: line numbers, Python definitions read by ast, slices and
sizes.
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import List, Tuple


def line_starts(text: str) -> List[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def line_of(starts: List[int], pos: int) -> int:
    return bisect.bisect_right(starts, pos)


def indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def definitions(text: str) -> List[Tuple[int, int, str, int]]:
    """Every def and class of ``text`` as (first line, last line, label, depth): the first line is that of its first
    decorator, or of the comment lines right above it (no blank line between); the last line that of its last
    statement or of the comment lines right after it that are indented into its body."""
    lines = text.split("\n")
    out = []

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                while first > 1 and lines[first - 2].strip().startswith("#"):
                    first -= 1
                # Comment lines after its last statement, indented into its body, are its own (ast leaves them out).
                last = child.end_lineno
                while last < len(lines) and lines[last].strip().startswith("#") and indent(lines[last]) > child.col_offset:
                    last += 1
                word = "class" if isinstance(child, ast.ClassDef) else "def"
                out.append((first, last, f"{word} {child.name}", depth))
                visit(child, depth + 1)
            else:
                visit(child, depth)

    visit(ast.parse(text), 1)
    return out


def expected_path(defs, line: int) -> List[str]:
    around = [d for d in defs if d[0] <= line <= d[1]]
    return [d[2] for d in sorted(around, key=lambda d: d[3])]


def check_slices_and_sizes(text: str, chunks, size: int, measure=len) -> None:
    assert chunks, "no chunks"
    prev_end = 0
    starts = line_starts(text)
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start >= prev_end, "chunks overlap or go back"
        prev_end = c.end
        assert c.size == measure(c.text) and c.size <= size, (c.size, c.text[:80])
        assert c.metadata["start_line"] == line_of(starts, c.start)
        assert c.metadata["end_line"] == line_of(starts, c.end - 1)
        assert c.metadata["chunk_type"] == "code"
    # Nothing but whitespace is left out.
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())


RUST_FN = re.compile(r"(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(\w+)")
