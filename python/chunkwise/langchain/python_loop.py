"""LangChain's recursion and merge on Python strings, for what the core leaves to Python."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, List, Optional, Tuple

from chunkwise.langchain.log import logger

if TYPE_CHECKING:
    from chunkwise.langchain.base import TextSplitter

def _py_split_regex(text: str, pattern: str, keep_separator: Any) -> List[str]:
    """``re.split`` with the separator kept at the start or end of a piece, or dropped; no empty pieces."""
    if not pattern:
        return [c for c in text]
    if not keep_separator:
        pieces = re.split(pattern, text)
    else:
        parts = re.split(f"({pattern})", text)
        if keep_separator == "end":
            pieces = [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)]
            if len(parts) % 2 == 0:
                pieces += parts[-1:]
            pieces = [*pieces, parts[-1]]
        else:
            pieces = [parts[i] + parts[i + 1] for i in range(1, len(parts), 2)]
            if len(parts) % 2 == 0:
                pieces += parts[-1:]
            pieces = [parts[0], *pieces]
    return [p for p in pieces if p]


class _PyLoop:
    """LangChain's recursion and merge on Python strings, for texts and patterns the core leaves to Python."""

    def __init__(self, splitter: TextSplitter) -> None:
        self.size = splitter._chunk_size
        self.overlap = splitter._chunk_overlap
        self.length = splitter._length_function
        self.keep = splitter._keep_separator
        self.strip = splitter._strip_whitespace
        self.regex = getattr(splitter, "_is_separator_regex", False)

    def recursive(self, text: str, separators: List[str]) -> List[str]:
        chosen, rest = separators[-1], []
        for i, sep in enumerate(separators):
            if not sep:
                chosen = sep
                break
            if re.search(sep if self.regex else re.escape(sep), text):
                chosen, rest = sep, separators[i + 1 :]
                break
        pieces = _py_split_regex(text, chosen if self.regex else re.escape(chosen), self.keep)
        join = "" if self.keep else chosen
        out: List[str] = []
        small: List[str] = []
        for piece in pieces:
            if self.length(piece) < self.size:
                small.append(piece)
                continue
            if small:
                out.extend(self.merge(small, join))
                small = []
            if rest:
                out.extend(self.recursive(piece, rest))
            else:
                out.append(piece)
        if small:
            out.extend(self.merge(small, join))
        return out

    def _joined(self, pieces: List[str], join: str) -> Optional[str]:
        text = join.join(pieces)
        if self.strip:
            text = text.strip()
        return text or None

    def merge(self, pieces: Iterable[str], join: str) -> List[str]:
        join_len = self.length(join)
        out: List[str] = []
        current: List[str] = []
        total = 0
        for piece in pieces:
            n = self.length(piece)
            if total + n + (join_len if current else 0) > self.size:
                if total > self.size:
                    logger.warning(
                        "Created a chunk of size %d, which is longer than the specified %d", total, self.size
                    )
                if current:
                    chunk = self._joined(current, join)
                    if chunk is not None:
                        out.append(chunk)
                    while total > self.overlap or (total + n + (join_len if current else 0) > self.size and total > 0):
                        total -= self.length(current[0]) + (join_len if len(current) > 1 else 0)
                        current = current[1:]
            current.append(piece)
            total += n + (join_len if len(current) > 1 else 0)
        chunk = self._joined(current, join)
        if chunk is not None:
            out.append(chunk)
        return out


def _py_start_indices(text: str, chunks: List[str], overlap: int) -> List[int]:
    """LangChain's ``start_index``: ``text.find(chunk, max(0, previous + previous length - overlap))``."""
    out = []
    index, previous = 0, 0
    for chunk in chunks:
        index = text.find(chunk, max(0, index + previous - overlap))
        out.append(index)
        previous = len(chunk)
    return out


def _py_spans(text: str, chunks: List[str]) -> List[Tuple[int, int]]:
    """Each chunk's span, found in order (starts never decrease). A chunk that is not a slice of the text (its
    pieces re-joined with another separator) gets an empty span where the search stands."""
    out = []
    pos = 0
    for chunk in chunks:
        start = text.find(chunk, pos)
        if start < 0:
            out.append((pos, pos))
            continue
        out.append((start, start + len(chunk)))
        pos = start
    return out
