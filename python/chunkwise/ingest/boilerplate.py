"""Boilerplate: lines a document shares with most of the tree (a site's navigation, a copyright footer, an "Edit
this page" link) or with most of its own pages (a PDF's running heads and page numbers).

A line is compared normalized: case folded, every run of digits read as one ``0`` (so ``Page 3 of 12`` and ``Page 4
of 12`` are one line), runs of whitespace as one space; a line without a letter or digit carries nothing and is left
out. A chunk is boilerplate when every line of it that carries something is a boilerplate line of its document: a
chunk that mixes a running head with a paragraph is content, and stays.

* Across documents: a line among the first or last :data:`DOC_EDGE` lines of at least half of the run's documents,
  and of 3 of them at least (:class:`LineCounts`, :func:`edge_keys`). Only a document's head and foot count: a
  navigation bar, a breadcrumb and a footer are there, while the code samples that translations of one text share
  sit in the middle, and are content.
* Within a paged document: a line among the first or last :data:`EDGE` lines of at least half of its pages, and of
  3 pages at least (:func:`page_furniture`).

The lines are kept as stable 64-bit keys (``chunkwise._core.line_keys``, in Rust: a run reads the lines of every
document of the tree, changed or not, and this must cost little beside reading it), so a run holds a few bytes per
distinct line. A document's share of the tree's boilerplate (:func:`LineCounts.digest`) is the same from run to run:
it is part of the document's fingerprint, so a document whose boilerplate lines change (another page added its
footer) is redone, and the store still equals a fresh ingestion.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from typing import FrozenSet, Iterable, Sequence

from .. import _core

__all__ = ["DOC_EDGE", "EDGE", "LineCounts", "edge_keys", "is_boilerplate", "line_keys", "page_furniture"]

#: How many lines at the top and at the bottom of a page a running head or foot may take.
EDGE = 2
#: How many lines at the top and at the bottom of a document its navigation, breadcrumbs and footer may take.
DOC_EDGE = 20
#: The least number of documents (or pages) a line must be found in to be boilerplate, whatever their share.
MIN_COUNT = 3
#: The share of the documents (or pages) a line must be found in.
SHARE = 0.5

def line_keys(text: str) -> FrozenSet[int]:
    """The distinct normalized lines of ``text`` that carry something, as 64-bit keys."""
    return frozenset(_core.line_keys(text))


def edge_keys(text: str) -> FrozenSet[int]:
    """The keys of the first and last :data:`DOC_EDGE` lines of ``text`` that carry something: the lines a document
    counts for in :class:`LineCounts`."""
    keys = _core.line_keys(text)
    if len(keys) > 2 * DOC_EDGE:
        keys = keys[:DOC_EDGE] + keys[-DOC_EDGE:]
    return frozenset(keys)


def _threshold(total: int) -> int:
    return max(MIN_COUNT, math.ceil(total * SHARE))


def page_furniture(pages: Sequence[str]) -> FrozenSet[int]:
    """The running heads and feet of a paged document: lines among the first or last :data:`EDGE` lines (that carry
    something) of at least half of its pages, and of 3 pages at least."""
    if len(pages) < MIN_COUNT:
        return frozenset()
    counts: Counter = Counter()
    for page in pages:
        keys = _core.line_keys(page)
        counts.update(set(keys[:EDGE] + keys[-EDGE:]))
    need = _threshold(len(pages))
    return frozenset(k for k, n in counts.items() if n >= need)


class LineCounts:
    """In how many documents of a run each line is found; :meth:`common` are the tree's boilerplate lines."""

    def __init__(self) -> None:
        self.documents = 0
        self.counts: Counter = Counter()

    def add(self, keys: Iterable[int]) -> None:
        """Counts one document, by its :func:`line_keys`."""
        self.documents += 1
        self.counts.update(keys)

    def common(self) -> FrozenSet[int]:
        """The lines found in at least half of the documents counted, and in 3 at least."""
        if self.documents < MIN_COUNT:
            return frozenset()
        need = _threshold(self.documents)
        return frozenset(k for k, n in self.counts.items() if n >= need)

    @staticmethod
    def digest(keys: Iterable[int], common: FrozenSet[int]) -> str:
        """What of the tree's boilerplate a document (its ``keys``) holds, as a stable hex digest ("" for none)."""
        mine = sorted(k for k in keys if k in common)
        return hashlib.sha256(b"".join(k.to_bytes(8, "little") for k in mine)).hexdigest() if mine else ""


def is_boilerplate(text: str, lines: FrozenSet[int]) -> bool:
    """Whether every line of ``text`` that carries something is one of ``lines`` (and there is one at least)."""
    if not lines:
        return False
    keys = _core.line_keys(text)
    return bool(keys) and all(k in lines for k in keys)
