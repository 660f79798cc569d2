"""Chunkers under test, whatever their kind, as one thing: a function from a text to its chunks' ``str`` offsets.

* a chunkwise chunker: its own offsets (``spans``);
* a LangChain text splitter (anything with ``split_text``), or a callable returning strings: each string is found
  in the text, in order, so that a repeated text is found at its own place;
* a callable returning offsets (a list of ``(start, end)``, or an ``(n, 2)`` array).
"""

from __future__ import annotations

from typing import Any, Callable, List, Sequence, Tuple

Span = Tuple[int, int]
SpansFn = Callable[[str], List[Span]]


def spans_function(chunker: Any) -> SpansFn:
    """``chunker`` as a function ``text -> [(start, end), ...]`` (``str`` offsets, in the text's order)."""
    from ..chunkers import BaseChunker

    if isinstance(chunker, BaseChunker):
        return lambda text: [(int(a), int(b)) for a, b in chunker.spans(text).tolist()]
    split_text = getattr(chunker, "split_text", None)
    if callable(split_text):
        return lambda text: locate(text, split_text(text))
    if callable(chunker):
        return lambda text: _as_spans(text, chunker(text))
    raise TypeError(f"chunker: expected a chunkwise chunker, an object with split_text, or a callable "
                    f"(text -> spans or strings), got {type(chunker).__name__}")


def _as_spans(text: str, out: Any) -> List[Span]:
    items = out.tolist() if hasattr(out, "tolist") else list(out)
    if all(isinstance(x, str) for x in items):
        return locate(text, items)
    spans: List[Span] = []
    for i, item in enumerate(items):
        try:
            a, b = (int(v) for v in item)
        except (TypeError, ValueError):
            raise TypeError(f"chunker: item {i} of its output is neither a string nor a (start, end) pair: "
                            f"{item!r}") from None
        if not 0 <= a <= b <= len(text):
            raise ValueError(f"chunker: span {i} ({a}, {b}) is outside the text ({len(text)} characters)")
        spans.append((a, b))
    return spans


def locate(text: str, chunks: Sequence[str]) -> List[Span]:
    """The offsets of ``chunks`` (substrings of ``text``, in order, possibly overlapping): each is looked for from
    just after where the previous one starts, so that equal chunks get their own places. A chunk that is not in the
    text (a splitter that rewrote whitespace or added a separator) is an error naming it: its offsets cannot be
    known, and a metric over guessed offsets would be wrong."""
    spans: List[Span] = []
    at = 0
    for i, chunk in enumerate(chunks):
        if not isinstance(chunk, str):
            raise TypeError(f"chunker: chunk {i} is a {type(chunk).__name__}, not a str")
        start = text.find(chunk, at)
        if start < 0:
            raise ValueError(f"chunker: chunk {i} ({chunk[:60]!r}...) is not in the text after the previous chunk: "
                             "the splitter changed the text, so the chunk's offsets are unknown")
        spans.append((start, start + len(chunk)))
        at = start + 1
    return spans
