"""Boilerplate: lines a document shares with most of the tree (a site's navigation, a copyright footer, an "Edit
this page" link) or with most of its own pages (a PDF's running heads and page numbers).

A line is compared normalized: case folded, every run of digits read as one ``0`` (so ``Page 3 of 12`` and ``Page 4
of 12`` are one line), runs of whitespace as one space; a line without a letter or digit carries nothing and is left
out. A chunk is boilerplate when every line of it that carries something is a boilerplate line of its document. So
that a footer never shares a chunk with the paragraph above it, a run cuts each document at the edges of its runs of
boilerplate lines (:func:`boilerplate_runs`: at its head and foot, and at each page's) and chunks the pieces apart.

* Across documents: a line among the first or last :data:`DOC_EDGE` lines of at least half of the run's documents,
  and of 3 of them at least (:class:`LineCounts`, :func:`edge_keys`). Only a document's head and foot count: a
  navigation bar, a breadcrumb and a footer are there, while the code samples that translations of one text share
  sit in the middle, and are content.
* Within a paged document: a line among the first or last :data:`EDGE` lines of at least half of its pages, and of
  3 pages at least (:func:`page_furniture`).

The lines are read and kept as stable 64-bit keys in Rust (``chunkwise._core.line_keys``, and
``chunkwise._core.edge_lines`` for the lines at the edges of a text or of its pages: a run reads the heads and feet of
every document of the tree, changed or not, and this must cost little beside reading it), so a run holds a few bytes
per distinct line. A document's share of the tree's boilerplate (:func:`LineCounts.digest`) is the same from run to run:
it is part of the document's fingerprint, so a document whose boilerplate lines change (another page added its
footer) is redone, and the store still equals a fresh ingestion.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from typing import FrozenSet, Iterable, List, Sequence, Tuple

from .. import _core

__all__ = ["DOC_EDGE", "EDGE", "LineCounts", "boilerplate_runs", "edge_keys", "is_boilerplate", "line_keys",
           "page_furniture"]

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
    counts for in :class:`LineCounts`. Only the head and the foot are read (a run reads every document of the tree,
    changed or not, and its middle would be most of the cost)."""
    return frozenset(_core.edge_lines(text, DOC_EDGE, 0)[1])


def _threshold(total: int) -> int:
    return max(MIN_COUNT, math.ceil(total * SHARE))


def page_furniture(pages: Sequence[str]) -> FrozenSet[int]:
    """The running heads and feet of a paged document: lines among the first or last :data:`EDGE` lines (that carry
    something) of at least half of its pages, and of 3 pages at least."""
    if len(pages) < MIN_COUNT:
        return frozenset()
    counts: Counter = Counter()
    for page in pages:
        counts.update(set(_core.edge_lines(page, EDGE, 0)[1]))
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


def boilerplate_runs(text: str, tree: FrozenSet[int], pages: FrozenSet[int] = frozenset(),
                     paged: bool = False) -> List[Tuple[int, int]]:
    """The runs of boilerplate lines of ``text``, as ``(start, end)`` spans in order: from the start of a run's first
    line to the end of its last (its line break left out). A boilerplate line is a line among the first or last
    :data:`DOC_EDGE` lines of the text (that carry something) whose key is one of ``tree`` (the tree's boilerplate),
    or, in a ``paged`` text (pages joined with form feeds), among the first or last :data:`EDGE` lines of a page
    whose key is one of ``pages`` (its running heads and feet): where the lines were counted. Boilerplate lines with
    only lines that carry nothing between them are one run. A line of ``tree`` elsewhere (in a document's middle)
    is content."""
    if not tree and not (paged and pages):
        return []
    spans, keys, at_text, at_page, next_to = _core.edge_lines(text, DOC_EDGE if tree else 0,
                                                              EDGE if paged and pages else 0)
    runs: List[Tuple[int, int]] = []
    last = -2
    for i, key in enumerate(keys):
        if (at_text[i] and key in tree) or (at_page[i] and key in pages):
            # The next boilerplate line joins the run when nothing between them carries anything.
            if last == i - 1 and next_to[last]:
                runs[-1] = (runs[-1][0], spans[i][1])
            else:
                runs.append(spans[i])
            last = i
    return runs
