"""Retrieval metrics of chunks against reference excerpts, on units of text (tokens of a tokenizer, or characters).

The span metrics are those of Chroma's report *Evaluating Chunking Strategies for Retrieval* (Smith & Troynikov,
2024), on sets of units: with ``E`` the units of a question's excerpts and ``R`` the units of its retrieved chunks
(each unit counted once, however many retrieved chunks hold it; the units of chunks of other corpora are retrieved
units too, none of them in ``E``):

* recall = ``|E ∩ R| / |E|``, precision = ``|E ∩ R| / |R|``, IoU = ``|E ∩ R| / |E ∪ R|``.

A span ``[start, end)`` of a text holds the units it overlaps (a token partly in a chunk is in the chunk). The
ranking metrics judge each retrieved chunk relevant when it overlaps an excerpt of the question: hit rate (some
relevant chunk among the first k), reciprocal rank of the first relevant chunk, and nDCG@k with binary gains, the
ideal ranking putting first all the chunks of the corpus that overlap an excerpt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

Span = Tuple[int, int]
#: A retrieved chunk: its corpus and its ``str`` offsets there.
Hit = Tuple[str, int, int]


class Units:
    """The units of one text that spans are measured in: characters, or the tokens of a tokenizer (their ``str``
    offsets, from ``Tokenizer.token_spans``). ``of(start, end)`` is the range of unit indices the span overlaps."""

    def __init__(self, text: str, tokenizer: Any = None) -> None:
        self.length = len(text)
        if tokenizer is None:
            self.starts: Optional[np.ndarray] = None
            self.ends: Optional[np.ndarray] = None
            self.count = len(text)
            return
        spans = np.asarray(tokenizer.token_spans(text), dtype=np.int64).reshape(-1, 2)
        order = np.argsort(spans[:, 0], kind="stable")
        spans = spans[order]
        self.starts = spans[:, 0]
        # a token's end, and every later token's, is at least this: so that a search over ends is a search
        self.ends = np.maximum.accumulate(spans[:, 1]) if len(spans) else spans[:, 1]
        self.count = len(spans)

    def of(self, start: int, end: int) -> Span:
        """The unit indices ``[i, j)`` that ``[start, end)`` overlaps (empty for an empty span)."""
        if end <= start:
            return (0, 0)
        if self.starts is None or self.ends is None:
            return (max(0, start), min(end, self.length))
        i = int(np.searchsorted(self.ends, start, side="right"))
        j = int(np.searchsorted(self.starts, end, side="left"))
        return (i, max(i, j))


def union(spans: Sequence[Span]) -> List[Span]:
    """Sorted, disjoint spans covering exactly what ``spans`` cover (empty ones dropped)."""
    out: List[Span] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def total(spans: Sequence[Span]) -> int:
    """The length of disjoint spans."""
    return sum(b - a for a, b in spans)


def intersect(xs: Sequence[Span], ys: Sequence[Span]) -> List[Span]:
    """The intersection of two sorted lists of disjoint spans."""
    out: List[Span] = []
    i = j = 0
    while i < len(xs) and j < len(ys):
        a, b = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        if a < b:
            out.append((a, b))
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return out


@dataclass(frozen=True)
class Scores:
    """One question's scores at one k."""

    recall: float
    precision: float
    iou: float
    hit: float
    rr: float
    ndcg: float


#: The names of :class:`Scores`' fields, in order.
METRICS = ("recall", "precision", "iou", "hit", "rr", "ndcg")


def score(corpus_id: str, references: Sequence[Span], retrieved: Sequence[Hit], units: Mapping[str, Units],
          relevant_total: int) -> Scores:
    """The scores of one question: ``references`` (``str`` spans of ``corpus_id``), ``retrieved`` (the chunks, best
    first, already cut to k), ``units`` per corpus, and ``relevant_total`` the number of chunks of the corpus that
    overlap a reference (the ideal ranking of nDCG)."""
    u = units[corpus_id]
    excerpt = union([u.of(a, b) for a, b in references])
    by_corpus: Dict[str, List[Span]] = {}
    gains: List[int] = []
    for cid, a, b in retrieved:
        by_corpus.setdefault(cid, []).append(units[cid].of(a, b))
        gains.append(int(cid == corpus_id and any(a < re and ra < b for ra, re in references)))
    retrieved_units = {cid: union(s) for cid, s in by_corpus.items()}
    overlap = total(intersect(excerpt, retrieved_units.get(corpus_id, [])))
    n_excerpt = total(excerpt)
    n_retrieved = sum(total(s) for s in retrieved_units.values())
    recall = overlap / n_excerpt if n_excerpt else 0.0
    precision = overlap / n_retrieved if n_retrieved else 0.0
    both = n_excerpt + n_retrieved - overlap
    iou = overlap / both if both else 0.0
    first = next((rank for rank, g in enumerate(gains, 1) if g), None)
    dcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, 1))
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(retrieved), relevant_total) + 1))
    return Scores(recall, precision, iou, float(first is not None), 1 / first if first else 0.0,
                  dcg / ideal if ideal else 0.0)
