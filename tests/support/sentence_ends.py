"""Where a chunker's cuts fall inside paragraphs: of the cuts strictly inside a paragraph (no blank line between a
chunk's end and the next chunk's start), the share right after a sentence terminator and its closing punctuation,
and how full the chunks are. One measure for chunkwise and its peers, from the chunks' offsets alone."""

from __future__ import annotations

import re
from typing import Dict, List, Sequence, Tuple

import regex  # a test requirement (pyproject's "test" extra): it knows Unicode's Sentence_Terminal

# The core's sentence terminators: every Sentence_Terminal of Unicode (. ! ? 。 ！ ？ ｡ । ؟ ។ ...) and the ellipses,
# and the closing quotes and brackets that may follow one ("。」", '." ', "?)"), as in rust/core/src/boundary.
TERMINATOR = regex.compile(r"[\p{Sentence_Terminal}…⋯]")
CLOSERS = frozenset("」』）】〕〉》〗〙〛”’\"')]}＞｝］＂＇»›｣")
BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


def after_sentence(content: str) -> bool:
    """Whether ``content`` (a chunk's text, trailing whitespace left out) ends with a terminator and its closers."""
    i = len(content) - 1
    while i >= 0 and content[i] in CLOSERS:
        i -= 1
    return i >= 0 and TERMINATOR.fullmatch(content[i]) is not None


def measure(text: str, spans: Sequence[Tuple[int, int]], size: int) -> Dict[str, float]:
    """``spans``: the chunks' (start, end) str offsets, in order. Returns the cuts inside paragraphs, the share of
    them after a sentence end (``sentence_ends``), and ``fill``: the mean chunk length over ``size``."""
    inside = at_sentence = 0
    for (a, b), (c, _) in zip(spans, spans[1:]):
        content = text[a:b].rstrip()
        gap = text[a + len(content):c]
        if BLANK_LINE.search(gap) or "\f" in gap:
            continue  # a paragraph ends between the two chunks
        inside += 1
        at_sentence += after_sentence(content)
    lengths: List[int] = [b - a for a, b in spans]
    return {
        "cuts": inside,
        "sentence_ends": at_sentence / inside if inside else 1.0,
        "fill": sum(lengths) / len(lengths) / size if lengths else 0.0,
    }
