"""Thai, Lao, Khmer and Myanmar: no cut inside a word, at any size.

The texts are translated messages from Debian packages (tests/data/{th,lo,km,my}.txt, see tests/data/SOURCES.md).
Where their words start is what ICU4X's dictionary segmenter says of each whole file: Python has no segmenter of its
own here, so a cargo test (rust/core/tests/dictionary_words.rs) reads the segmenter directly and keeps, in
tests/data/dictionary_words.json, the char offsets that fall inside a word; that test fails when the file is stale.
"""

from __future__ import annotations

import json

import pytest

from chunkwise import (
    ClauseChunker,
    FixedChunker,
    MarkdownChunker,
    RecursiveChunker,
    SentenceChunker,
)
from support.corpus import DATA

INSIDE = json.loads((DATA / "dictionary_words.json").read_text(encoding="utf-8"))
SIZES = range(16, 401, 3)


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(INSIDE))
@pytest.mark.parametrize("chunker", [RecursiveChunker, SentenceChunker, ClauseChunker, MarkdownChunker])
@pytest.mark.parametrize("balance", [False, True])
def test_no_cut_inside_a_word(name, chunker, balance):
    text, inside = _text(name), set(INSIDE[name])
    assert len(inside) > 200  # the words have insides to cut
    for size in SIZES:
        chunks = chunker(size=size, balance=balance).chunk(text)
        for c in chunks:
            assert text[c.start:c.end] == c.text and len(c.text) <= size
            bad = {c.start, c.end} & inside
            assert not bad, f"{name} size {size}: {text[c.start:c.end]!r} cut inside a word"


@pytest.mark.parametrize("name", sorted(INSIDE))
def test_fixed_windows_snap_to_words(name):
    """FixedChunker cuts between graphemes by design; with ``snap`` its cuts move back to a word's start."""
    text, inside = _text(name), set(INSIDE[name])
    for size in range(32, 401, 8):
        for c in FixedChunker(size=size, snap=size // 2).chunk(text):
            assert not {c.start, c.end} & inside, f"{name} size {size}: {c.text!r}"


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("यह है। वह ठीक है॥", "यह है। "),
        ("वह॥ अब", "वह॥ "),
        ("هل هذا؟ نعم", "هل هذا؟ "),
        ("یہ ہے۔ وہ", "یہ ہے۔ "),
        ("Բարեւ։ Ինչպես", "Բարեւ։ "),
        ("ሰላም። ደህና፧ አዎ", "ሰላም። ደህና፧ "),
        ("አዎ፨ እሺ", "አዎ፨ "),
        ("សួស្តី។ខ្ញុំ", "សួស្តី។"),
        ("မင်္ဂလာပါ။ နေကောင်း", "မင်္ဂလာပါ။ "),
    ],
)
def test_terminators_of_other_scripts_end_sentences(text, first):
    """The whole text does not fit: the first chunk ends at its first sentence end (a word boundary before)."""
    chunk = SentenceChunker(size=len(text) - 1).chunk(text)[0]
    assert (chunk.text, chunk.level) == (first.rstrip(), "sentence")
