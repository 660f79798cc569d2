"""An independent Markdown reference for the MarkdownChunker tests, built on markdown-it-py.

The parser is ``MarkdownIt("commonmark").enable("table")`` (CommonMark plus GFM tables), with YAML front matter handled
here by hand (mdit-py-plugins is not a dependency): when the first line is ``---`` (trailing spaces or tabs allowed),
the line after it is neither blank nor a closing line, and a later line is ``---`` or ``...``, the lines up to and
including that closing line are front matter. They are cut out before parsing and every line number is shifted back,
so a ``---`` there is neither a Setext underline nor a thematic break. This is pulldown-cmark's rule for YAML-style
metadata blocks: ``---\\n---`` and ``---`` followed by a blank line are thematic breaks there too.

Lines: the line separators are CommonMark's, ``"\\r\\n"``, ``"\\r"`` and ``"\\n"`` (markdown-it normalises exactly these
to ``"\\n"`` before parsing, so its ``token.map`` line numbers count the same lines). ``str.splitlines`` is not used: it
also splits at ``\\v``, ``\\f``, ``\\x1c-\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029``, which Markdown does not. Line
``i`` starts at ``line_starts(text)[i]``; a text ending in a line break has an empty last line.

Offsets are ``str`` indices, like ``Chunk.start`` / ``Chunk.end``.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import List, NamedTuple, Optional, Tuple

from markdown_it import MarkdownIt

_BREAK = re.compile(r"\r\n|\r|\n")
_FRONT_OPEN = re.compile(r"---[ \t]*")
_FRONT_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*")


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


# -- lines -----------------------------------------------------------------------------------------------------------


def line_starts(text: str) -> List[int]:
    """The offset where each line starts: ``[0]`` then the offset after every line break."""
    return [0] + [m.end() for m in _BREAK.finditer(text)]


def line_of(text: str, offset: int, starts: Optional[List[int]] = None) -> int:
    """The index of the line containing ``offset`` (an offset on a line break belongs to the line it ends)."""
    starts = starts if starts is not None else line_starts(text)
    return bisect.bisect_right(starts, offset) - 1


def line_end(text: str, starts: List[int], line: int) -> int:
    """The offset where line ``line`` ends, before its line break."""
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    while end > starts[line] and text[end - 1] in "\r\n":
        end -= 1
    return end


def line_text(text: str, starts: List[int], line: int) -> str:
    return text[starts[line] : line_end(text, starts, line)]


def front_matter_lines(text: str) -> int:
    """How many lines at the start of ``text`` are front matter (0 when there is none)."""
    lines = iter(_BREAK.split(text))
    if not _FRONT_OPEN.fullmatch(next(lines)):
        return 0
    second = next(lines, "")
    if not second.strip() or _FRONT_CLOSE.fullmatch(second):
        return 0
    for i, line in enumerate(lines, start=3):
        if _FRONT_CLOSE.fullmatch(line):
            return i
    return 0


# -- parse -----------------------------------------------------------------------------------------------------------


class Parsed(NamedTuple):
    text: str
    starts: List[int]
    shift: int  # front matter lines cut before parsing: token line numbers + shift = lines of text
    tokens: list


@functools.lru_cache(maxsize=8)
def parse(text: str) -> Parsed:
    """markdown-it's block tokens for ``text`` after its front matter (cached: the corpus is parsed once)."""
    starts = line_starts(text)
    shift = front_matter_lines(text)
    body = text[starts[shift] :] if shift < len(starts) else ""
    return Parsed(text, starts, shift, _parser().parse(body))


def plain_title(inline) -> str:
    """A heading's plain text: its inline content without markup, HTML or link targets; image alt text kept."""
    return _plain(inline.children or []).strip()


def _plain(children) -> str:
    out = []
    for tok in children:
        if tok.type in ("text", "text_special", "code_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.type == "image":
            out.append(_plain(tok.children or []))
        # html_inline, *_open and *_close carry no text of their own
    return "".join(out)


# -- headings --------------------------------------------------------------------------------------------------------


class Heading(NamedTuple):
    level: int  # 1-6
    title: str  # plain text, stripped
    line: int  # first line (a Setext heading's first text line)
    start: int  # offset of the first non-blank character of that line
    end: int  # end of the heading's last line (a Setext heading's underline), before spaces and line break
    path: Tuple[Tuple[int, str], ...]  # (level, title) from the top down, this heading last
    parent: Optional[int]  # index in headings() of the enclosing heading, None at the top


def headings(text: str) -> List[Heading]:
    """Every heading of the document, in order. Only document-level headings count: a ``#`` line inside a block
    quote or a list item is part of that block, not a section title."""
    return list(_headings(text))


@functools.lru_cache(maxsize=8)
def _headings(text: str) -> Tuple[Heading, ...]:
    p = parse(text)
    found: List[Heading] = []
    stack: List[int] = []  # indices into found
    toks = p.tokens
    for i, tok in enumerate(toks):
        if tok.type != "heading_open" or tok.level != 0:
            continue
        level = int(tok.tag[1])
        while stack and found[stack[-1]].level >= level:
            stack.pop()
        line = tok.map[0] + p.shift
        start = _stripped_line(text, p.starts, line)[0]
        last = tok.map[1] - 1 + p.shift
        end = _stripped_line(text, p.starts, last)[1]
        path = (found[stack[-1]].path if stack else ()) + ((level, plain_title(toks[i + 1])),)
        found.append(Heading(level, path[-1][1], line, start, end, path, stack[-1] if stack else None))
        stack.append(len(found) - 1)
    return tuple(found)


def heading_ancestry(text: str) -> List[List[Tuple[int, str]]]:
    """For each line (see the module docstring), the (level, plain title) of the headings in effect there, from the
    top level down, including a heading that starts on that very line."""
    p = parse(text)
    out: List[List[Tuple[int, str]]] = []
    current: Tuple[Tuple[int, str], ...] = ()
    pending = iter(_headings(text))
    nxt = next(pending, None)
    for line in range(len(p.starts)):
        while nxt is not None and nxt.line == line:
            current = nxt.path
            nxt = next(pending, None)
        out.append(list(current))
    return out


def heading_index_at(text: str, line: int) -> Optional[int]:
    """Index in ``headings(text)`` of the innermost heading in effect at ``line`` (None before the first)."""
    k = bisect.bisect_right(_heading_lines(text), line) - 1
    return k if k >= 0 else None


@functools.lru_cache(maxsize=8)
def _heading_lines(text: str) -> List[int]:
    return [h.line for h in _headings(text)]


# -- blocks ----------------------------------------------------------------------------------------------------------


class Block(NamedTuple):
    kind: str  # "code" | "table" | "list" | "quote" | "html"
    # Both ends leave out the whitespace around the block, so that a chunk trimmed of it still holds the whole block:
    start: int  # first non-blank character of the block's first line
    end: int  # end of the block's last non-blank line, before its trailing spaces and line break
    first_line: int
    last_line: int  # last non-blank line
    fence: Optional[str]  # code: the opening fence line, stripped ("```python"); None for indented code
    language: Optional[str]  # code: first word of the info string, None without one
    rows: Tuple[Tuple[int, int], ...]  # table: (start, end) of each data row, its line without surrounding spaces


def blocks(text: str) -> List[Block]:
    """Fenced and indented code blocks and tables at any depth, and document-level lists, block quotes ("quote")
    and HTML blocks ("html"), in document order."""
    return list(_blocks(text))


@functools.lru_cache(maxsize=8)
def _blocks(text: str) -> Tuple[Block, ...]:
    p = parse(text)
    out = []
    for tok in p.tokens:
        if tok.type in ("fence", "code_block", "table_open"):
            kind = "table" if tok.type == "table_open" else "code"
        elif tok.type in ("bullet_list_open", "ordered_list_open") and tok.level == 0:
            kind = "list"
        elif tok.type in ("blockquote_open", "html_block") and tok.level == 0:
            kind = "quote" if tok.type == "blockquote_open" else "html"
        else:
            continue
        first, last = tok.map[0] + p.shift, tok.map[1] - 1 + p.shift
        while last > first and not line_text(text, p.starts, last).strip():
            last -= 1
        start, end = _stripped_line(text, p.starts, first)[0], _stripped_line(text, p.starts, last)[1]
        fence = language = None
        rows: Tuple[Tuple[int, int], ...] = ()
        if tok.type == "fence":
            fence = text[start : _stripped_line(text, p.starts, first)[1]]
            words = tok.info.split()
            language = words[0] if words else None
        if kind == "table":
            # GFM rows are one line each: the header, the delimiter row, then the data rows up to the table's end.
            rows = tuple(_stripped_line(text, p.starts, i) for i in range(first + 2, last + 1))
        out.append(Block(kind, start, end, first, last, fence, language, rows))
    out.sort(key=lambda b: (b.start, -b.end))
    return tuple(out)


def _stripped_line(text: str, starts: List[int], line: int) -> Tuple[int, int]:
    raw = line_text(text, starts, line)
    start = starts[line] + len(raw) - len(raw.lstrip())
    return start, starts[line] + len(raw.rstrip())


def structures(text: str) -> List[Tuple[str, int, int]]:
    """("code" | "table" | "list", start, end) of the fenced and indented code blocks, tables and document-level
    lists: the blocks a chunk must not cut when they fit."""
    return [(b.kind, b.start, b.end) for b in _blocks(text) if b.kind in ("code", "table", "list")]


def table_header(text: str, block: Block) -> Tuple[str, str]:
    """A table's header row and delimiter row, each without surrounding spaces."""
    starts = parse(text).starts
    return line_text(text, starts, block.first_line).strip(), line_text(text, starts, block.first_line + 1).strip()
