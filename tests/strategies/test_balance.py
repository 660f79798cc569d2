"""Balanced cuts (``balance=True``): greedy's cuts chosen again together, for even sizes under the same cap, at the
same levels. What must hold for every text: no chunk over the cap, every non-blank character in exactly one chunk,
in order, never more chunks than greedy, the cuts at boundaries of the strategy's levels; and the chunks are more
even than greedy's on real text. (The Markdown rules under balance: tests/structure/test_rule_order.py.)"""

from __future__ import annotations

import pickle
import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunkwise
from support.corpus import DATA

BALANCED = [chunkwise.RecursiveChunker, chunkwise.SentenceChunker, chunkwise.ParagraphChunker,
            chunkwise.MarkdownChunker, chunkwise.ClauseChunker]

PIECES = ["A short sentence. ", "Another one, with a clause; and more! ", "第一句话。", "「引用」されました。", "word ",
          "\n", "\n\n", "# Heading\n\n", "- item one\n- item two\n", "| a | b |\n|---|---|\n| 1 | 2 |\n",
          "1. First provision.\n", "（一）条款内容；", "Article 2. Text of the article.\n"]


def letters(text: str) -> str:
    return "".join(text.split())


def check(text: str, chunks, size: int) -> None:
    at = 0
    for c in chunks:
        assert c.start >= at and text[at:c.start].strip() == "", (c.start, at)
        assert text[c.start:c.end] == c.text and 0 < len(c.text) <= size
        at = c.end
    assert text[at:].strip() == ""
    assert "".join(letters(c.text) for c in chunks) == letters(text)


@pytest.mark.parametrize("cls", BALANCED, ids=lambda c: c.__name__)
def test_generated_texts_keep_every_rule(cls):
    @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=80).map("".join),
           st.sampled_from([8, 24, 60, 150, 400]))
    def run(text, size):
        balanced = cls(size, balance=True).chunk(text)
        check(text, balanced, size)
        assert len(balanced) <= len(cls(size).chunk(text))

    run()


@pytest.mark.parametrize("cls", [chunkwise.RecursiveChunker, chunkwise.SentenceChunker, chunkwise.ParagraphChunker],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "ja.txt"])
@pytest.mark.parametrize("size", [256, 512])
def test_real_text_is_cut_more_evenly(cls, name, size):
    text = (DATA / name).read_text(encoding="utf-8")
    greedy, balanced = cls(size).chunk(text), cls(size, balance=True).chunk(text)
    check(text, balanced, size)
    spread = {k: statistics.pstdev(len(c.text) for c in v) / statistics.fmean(len(c.text) for c in v)
              for k, v in (("greedy", greedy), ("balanced", balanced))}
    # Greedy's last chunk of a long paragraph is whatever is left; balanced spreads it: a third less spread at least.
    assert spread["balanced"] < 0.8 * spread["greedy"], spread
    assert len(balanced) <= len(greedy)
    # Cut where greedy may cut: every chunk ends on a level the strategy names.
    assert {c.level for c in balanced} <= {c.level for c in greedy}


def test_a_long_paragraph():
    text = "This sentence is exactly fifty characters long ok. " * 22
    greedy = [len(c.text) for c in chunkwise.RecursiveChunker(512).chunk(text)]
    balanced = [len(c.text) for c in chunkwise.RecursiveChunker(512, balance=True).chunk(text)]
    assert greedy == [509, 509, 101]
    assert len(balanced) == 3 and max(balanced) - min(balanced) <= 51, balanced


def test_the_argument_is_part_of_the_chunker():
    c = chunkwise.MarkdownChunker(300, balance=True)
    assert c.config["balance"] is True and "balance=True" in repr(c)
    assert pickle.loads(pickle.dumps(c)) == c and c != chunkwise.MarkdownChunker(300)
    assert chunkwise.RecursiveChunker(300).config["balance"] is False


@pytest.mark.parametrize("make, word", [
    (lambda: chunkwise.RecursiveChunker(100, 10, balance=True), "overlap"),
    (lambda: chunkwise.SentenceChunker(100, overlap=5, balance=True), "overlap"),
])
def test_what_balance_refuses_names_it(make, word):
    with pytest.raises(chunkwise.ChunkingError, match="balance") as e:
        make()
    assert word in str(e.value)


def test_a_balanced_chunker_does_not_stream():
    c = chunkwise.RecursiveChunker(100, balance=True)
    with pytest.raises(chunkwise.ChunkingError, match="balance"):
        list(c.iter_chunks("Some text. " * 100, {"doc_id": "d"}))
