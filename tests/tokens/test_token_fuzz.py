"""A fuzz of 100,000 texts for exact token counts (issue 34's acceptance): CJK, emoji, the tokenizers' special tokens
written as text, NBSP and other spaces, combining marks, long runs of one character, valid UTF-8 that looks invalid
(noncharacters, U+FFFD, private use, the last code point), and what a SentencePiece normalizer turns into a space or
deletes (U+3000, U+00A8, controls, "▁"). Every tokenizer of test_tokens.py counts each
text as the tokenizer itself does; chunks of the same texts joined, at several sizes, count exactly and never pass
the cap. Seeded: a failure names the text, and the same run finds it again."""

from __future__ import annotations

import random

import pytest

from chunkwise import RecursiveChunker, SentenceChunker
from support.alphabets import (ASCII, ASCII_PUNCT, BREAKS, CJK_PUNCT, COMBINING, EMOJI, HAN, HANGUL, KANA, SPACES,
                               graphemes)
from support.token_cases import CASE_IDS, CASES, TOKEN_EDGES

N = 100_000

# Valid UTF-8 that looks like trouble: noncharacters, the replacement character, private use, the last code point,
# a lone combining mark, a byte order mark inside a text, C1 controls. Then what a SentencePiece normalizer (the
# Unigram's nmt_nfkc) turns into a space or deletes, or that joins a space or a neighbour into one grapheme cluster:
# spacing diacritics (a space and a mark), en space and hair space, "▁" itself, controls, a space before a mark, an
# Arabic number sign (it joins what follows), Hangul jamo, a fraction, a katakana sound mark.
ODD = ["\ufdd0", "\ufffe", "\uffff", "\ufffd", "\ue000", "\U0010ffff", "\U000fffff", "\u0301", "\ufeff", "\u0080",
       "\u009f", "\u00ad", "\u2060", "\u202f", "\u3000", "\u00a0\u00a0",
       "\u00a8", "\u00b4", "\u2002", "\u200a", "\u2581", "\x01", "\x7f", " \u0301", "\u0600", "\u1100\u1161\u11a8", "½",
       "\u309b"]

PIECES = ASCII + ASCII_PUNCT + SPACES + BREAKS + HAN + KANA + HANGUL + CJK_PUNCT + EMOJI + COMBINING + TOKEN_EDGES + ODD


def _random_char(rng: random.Random) -> str:
    lo, hi = rng.choice([(0x4E00, 0x9FFF), (0x3040, 0x30FF), (0xAC00, 0xD7A3), (0x1F300, 0x1FAFF), (0x0300, 0x036F),
                         (0x0400, 0x04FF), (0x0600, 0x06FF), (0x0E00, 0x0E7F), (0x20, 0x7E), (0xA0, 0x17F)])
    return chr(rng.randint(lo, hi))


def fuzz_texts(n: int = N, seed: int = 34) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 10)):
            roll = rng.random()
            if roll < 0.6:
                parts.append(rng.choice(PIECES))
            elif roll < 0.85:
                parts.append("".join(_random_char(rng) for _ in range(rng.randint(1, 6))))
            elif roll < 0.95:
                # A long run of one piece: a character, a word, a space, a punctuation mark.
                parts.append(rng.choice(PIECES + ["a", " ", "-", "中", "😀", "\n"]) * rng.randint(20, 400))
            else:
                parts.append(rng.choice(PIECES) + rng.choice(COMBINING)[-1] * rng.randint(1, 12))
        out.append("".join(parts))
    return out


TEXTS = fuzz_texts()


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_every_fuzzed_text_counts_as_the_tokenizer_counts_it(case):
    tok = case.make()
    wrong = [t for t, want in zip(TEXTS, case.references(TEXTS)) if tok.count(t) != want]
    assert not wrong, f"{len(wrong)} of {len(TEXTS)} texts miscounted, first {wrong[0]!r}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("chunker", [RecursiveChunker, SentenceChunker])
def test_chunks_of_the_fuzz_count_exactly_and_fit(case, chunker):
    tok, reference = case.make(), case.reference
    # The texts joined into documents of about 200 KB, each cut at a few sizes.
    docs, doc = [], []
    for t in TEXTS[: N // 5]:
        doc.append(t)
        if sum(map(len, doc)) > 200_000:
            docs.append("\n".join(doc))
            doc = []
    for size in (16, 64, 256):
        for text in docs[:3]:
            for c in chunker(size=size, tokenizer=tok).chunk(text):
                assert c.size == reference(c.text), (size, c.text[:80])
                # Over the cap only as one grapheme cluster larger on its own (a letter under many marks).
                assert c.size <= size or len(graphemes(c.text)) == 1, (size, c.size, c.text[:80])


ADDED = ["[SEP]", "[CLS]", "[MASK]", "[PAD]", "[UNK]", "<|endoftext|>", "<s>", "</s>", "<unk>"]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_added_tokens_across_window_edges_count_exactly(case):
    # The tokenizers' added tokens written as text, whole, glued to words and cut in two, so that windows and
    # chunks start and end inside and around them at every offset: the pieces a window reuses from the last one
    # must be those of a text cut there.
    tok, reference = case.make(), case.reference
    rng = random.Random(7)
    parts = []
    for _ in range(4000):
        token = rng.choice(ADDED)
        cut = rng.randint(1, len(token) - 1)
        parts.append(rng.choice([
            token, f"x{token}y", f"{token}{token}", token[:cut], token[cut:], f"{token[:cut]} {token[cut:]}",
            rng.choice(["word", "中文", "é", ".", ",", "\n", "  "]),
        ]))
    text = " ".join(parts)
    for size in (3, 7, 16, 41):
        for overlap in (0, size // 3):
            chunks = RecursiveChunker(size=size, overlap=overlap, tokenizer=tok).chunk(text)
            assert chunks and all(a.start < b.start for a, b in zip(chunks, chunks[1:]))
            for c in chunks:
                assert c.size == reference(c.text), (size, overlap, c.text[:80])
                assert c.size <= size or len(graphemes(c.text)) == 1, (size, c.size, c.text[:80])
