"""SemanticChunker: cuts where the meaning shifts, with the invariants of every chunker (exact slices, the size cap
in chars and in tokens, nothing lost, deterministic, batch == one by one), checked with a deterministic embedder
made here (hashed words and CJK character n-grams), on random text and on the corpus."""

from __future__ import annotations

import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkwise
from chunkwise import ChunkingError, SemanticChunker, Tokenizer
from support.embedders import embed
from support.corpus import DATA, full as corpus
from support.embedders import units

regex = pytest.importorskip("regex", reason="grapheme segmentation needs the `regex` package")

MODES = ["percentile", "stddev", "interquartile", "gradient", "minima", "optimal"]
CJK_ENDS = set("。！？!?")
CLOSERS = set("」』）”’\"')")


class Counting:
    """``embed`` that counts its calls and the texts it was given."""

    def __init__(self) -> None:
        self.calls: list = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return embed(texts)


def check(text: str, chunks: list, size: int, tokenizer=None) -> None:
    """Exact slices, ordered, within the cap, nothing lost (whitespace aside)."""
    for i, c in enumerate(chunks):
        assert c.text == text[c.start : c.end], (i, c)
        assert c.index == i
        assert c.text and not c.text[0].isspace() and not c.text[-1].isspace(), (i, c)
        if tokenizer is None:
            # (A single grapheme cluster larger than the size is a chunk of its own.)
            assert c.size == len(c.text) <= size or len(regex.findall(r"\X", c.text)) == 1, (i, c)
        else:
            assert tokenizer.count(c.text) == c.token_count == c.size, (i, c)
            assert c.size <= size, (i, c)
        assert set(c.metadata) >= {"cut_score", "cut_mode"}
        if c.level == "semantic":
            assert isinstance(c.metadata["cut_score"], float)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start >= a.end, (a, b)
    squeeze = lambda s: re.sub(r"\s+", "", s.lstrip("\ufeff"))  # noqa: E731
    assert squeeze("".join(c.text for c in chunks)) == squeeze(text)


# -- the invariants on random text and on the corpus -------------------------------------------------------------------

WORDS = ["cat", "dog", "sun", "rain", "猫", "天气", "ねこ", "雨", "é", "👍🏽", "3.5", "e.g."]
PUNCT = [". ", "! ", "? ", "。", "！", "？", "，", "、", "\n", "\n\n", " ", "  ", "\r\n", "\u3000"]
random_texts = st.lists(st.sampled_from(WORDS + PUNCT), max_size=80).map("".join)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=40)
@given(text=random_texts, size=st.integers(1, 120), min_size=st.integers(0, 30), window=st.integers(1, 3))
def test_invariants_on_random_text(mode, text, size, min_size, window):
    chunker = SemanticChunker(size, embed=embed, mode=mode, window=window, min_size=min(min_size, size))
    chunks = chunker.chunk(text)
    check(text, chunks, size)
    assert chunker.chunk(text) == chunks
    assert [c.text for c in chunks] == chunker.split(text)
    assert chunker.spans(text).tolist() == [[c.start, c.end] for c in chunks]


def check_units(text: str, size: int, min_unit: int, tokenizer=None) -> list:
    """The merged units of ``text``: slices whose ends are ends of the unmerged units, in order, within the cap,
    nothing lost, and maximal (a unit narrower than ``min_unit`` could not take its neighbour and fit)."""
    measure = len if tokenizer is None else tokenizer.count
    merged = units(SemanticChunker(size, embed=embed, min_unit=min_unit, tokenizer=tokenizer), text)
    plain = units(SemanticChunker(size, embed=embed, min_unit=0, tokenizer=tokenizer), text)
    assert merged == units(SemanticChunker(size, embed=embed, min_unit=min_unit, tokenizer=tokenizer), text)
    starts, ends = {a for a, _ in plain}, {b for _, b in plain}
    squeeze = lambda s: re.sub(r"\s+", "", s)  # noqa: E731
    assert squeeze("".join(text[a:b] for a, b in merged)) == squeeze("".join(text[a:b] for a, b in plain))
    for (a, b), (c, _) in zip(merged, merged[1:]):
        assert b <= c
    fits = lambda a, b: measure(text[a:b]) <= size  # noqa: E731
    for i, (a, b) in enumerate(merged):
        assert a in starts and b in ends, (a, b)
        # (A unit of one grapheme cluster larger than the size is the engine's, not the merge's.)
        assert fits(a, b) or (a, b) in plain
        # (A CJK char counts two towards min_unit: a unit of fewer than min_unit / 2 chars is short.)
        if 2 * (b - a) < min_unit and len(merged) > 1:
            if i + 1 < len(merged):
                assert not fits(a, merged[i + 1][1]), (text[a:b], text[merged[i + 1][0] : merged[i + 1][1]])
            else:
                assert not fits(merged[i - 1][0], b), (text[merged[i - 1][0] : merged[i - 1][1]], text[a:b])
    assert len(merged) <= len(plain)
    return merged


@settings(max_examples=80)
@given(text=random_texts, size=st.integers(1, 120), min_unit=st.integers(0, 200))
def test_merged_units_on_random_text(text, size, min_unit):
    check_units(text, size, min_unit)
    chunker = SemanticChunker(size, embed=embed, mode="optimal", min_unit=min_unit)
    check(text, chunker.chunk(text), size)


@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "ja.txt", "mixed.md"])
def test_merged_units_on_the_corpus(name):
    text = (DATA / name).read_text(encoding="utf-8")
    for size, min_unit in [(80, 80), (400, 80), (400, 300)]:
        merged = check_units(text, size, min_unit)
        assert len(merged) < len(units(SemanticChunker(size, embed=embed, min_unit=0), text))
    tokenizer = Tokenizer.tiktoken("cl100k_base")
    check_units(text, 24, 80, tokenizer)


def test_short_lines_are_embedded_together_and_a_long_sentence_alone():
    table = "| name | qty |\n| apple | 3 |\n| pear | 5 |\n| plum | 7 |\n| fig | 2 |\n| lime | 9 |\n| kiwi | 4 |"
    first = "The orchard was planted by the river in the spring of that year, on the slope facing south."
    second = "Every tree bore fruit by the third summer, and pickers came from the villages along the valley."
    text = f"{table}\n\n{first} {second}"
    counting = Counting()
    SemanticChunker(400, embed=counting, min_unit=80).chunk(text)
    # The table's seven short lines are one unit of 92 chars; each sentence is one. (The
    # texts go to embed shortest first.)
    assert counting.calls == [[first, table, second]]
    counting.calls.clear()
    SemanticChunker(400, embed=counting, min_unit=0).chunk(text)
    assert counting.calls == [sorted(table.split("\n") + [first, second], key=len)]
    counting.calls.clear()
    # A larger min_unit takes the first sentence into the table's unit, never half of it.
    SemanticChunker(400, embed=counting, min_unit=95).chunk(text)
    assert counting.calls == [[second, f"{table}\n\n{first}"]]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "ja.txt", "mixed.md"])
def test_invariants_on_the_corpus(mode, name):
    text = (DATA / name).read_text(encoding="utf-8")
    for size, min_size in [(80, 0), (400, 100)]:
        chunker = SemanticChunker(size, embed=embed, mode=mode, min_size=min_size)
        chunks = chunker.chunk(text)
        check(text, chunks, size)
        assert chunks == chunker.chunk(text)
        assert any(c.level == "semantic" for c in chunks)


@pytest.mark.parametrize("mode", ["percentile", "minima", "optimal"])
def test_the_cap_in_tokens(mode):
    tokenizer = Tokenizer.tiktoken("cl100k_base")
    for name in ["en.txt", "zh.txt", "ja.txt"]:
        text = (DATA / name).read_text(encoding="utf-8")
        for size in [24, 160]:
            chunker = SemanticChunker(size, embed=embed, mode=mode, tokenizer=tokenizer)
            check(text, chunker.chunk(text), size, tokenizer)


@pytest.mark.parametrize("name", ["en.txt", "zh.txt", "ja.txt"])
def test_the_shared_corpus(name):
    text = corpus(name)[:60_000]
    for mode in ["percentile", "optimal"]:
        chunker = SemanticChunker(300, embed=embed, mode=mode)
        check(text, chunker.chunk(text), 300)


def test_batch_is_chunk_one_by_one_with_units_embedded_together():
    texts = [(DATA / n).read_text(encoding="utf-8")[:3000] for n in ["en.txt", "zh.txt", "ja.txt"]] + ["", "Hi."]
    counting = Counting()
    chunker = SemanticChunker(200, embed=counting, batch_size=16)
    metas = [{"doc_id": str(i)} for i in range(len(texts))]
    batch = chunker.chunk_batch(texts, metas)
    units = sum(len(c) for c in counting.calls)
    assert all(len(c) <= 16 for c in counting.calls)
    # Each distinct unit text once across the batch, shortest first (each call's texts pad alike).
    seen = [t for call in counting.calls for t in call]
    assert len(seen) == len(set(seen)) == units
    assert [len(t) for t in seen] == sorted(len(t) for t in seen)
    assert batch == [chunker.chunk(t, m) for t, m in zip(texts, metas)]
    assert [s.tolist() for s in chunker.spans_batch(texts)] == [chunker.spans(t).tolist() for t in texts]
    assert list(chunker.iter_chunks(iter([texts[1][:700], texts[1][700:]]), metas[1])) == chunker.chunk(texts[1], metas[1])
    with pytest.raises(ChunkingError, match="one entry per text"):
        chunker.chunk_batch(texts, metas[:2])


def test_the_cache_embeds_a_unit_once():
    counting = Counting()
    # min_unit=0: every sentence its own unit, so that one repeats.
    chunker = SemanticChunker(100, embed=counting, cache=True, min_unit=0)
    text = "One cat. Two cats. One cat. Rain again."
    first = chunker.chunk(text)
    assert sorted(t for call in counting.calls for t in call) == ["One cat.", "Rain again.", "Two cats."]
    counting.calls.clear()
    assert chunker.chunk(text) == first
    assert counting.calls == []
    chunker.chunk(text + " New one.")
    assert counting.calls == [["New one."]]


# -- where the cuts fall -----------------------------------------------------------------------------------------------

TOPICS = {
    "kitchen": "flour butter oven bake dough sugar recipe bread knead yeast cake whisk".split(),
    "space": "planet orbit star telescope galaxy comet rocket moon astronaut gravity nebula cosmos".split(),
    "football": "goal striker referee match penalty stadium league coach defender keeper tackle pitch".split(),
}


def topic_text(seed: int = 7, per_topic: int = 6):
    rng = random.Random(seed)
    paragraphs = []
    for words in TOPICS.values():
        sentences = []
        for _ in range(per_topic):
            a, b, c, d = rng.sample(words, 4)
            sentences.append(f"The {a} and the {b} meet a {c} by the {d}.")
        paragraphs.append(" ".join(sentences))
    return " ".join(paragraphs), paragraphs


@pytest.mark.parametrize(
    "mode, threshold",
    [
        ("percentile", 90),
        ("stddev", 1.5),
        ("interquartile", None),
        ("gradient", 90),
        ("minima", None),
        ("optimal", None),
    ],
)
def test_cuts_land_at_the_topic_switches(mode, threshold):
    text, topics = topic_text()
    size = 2 * len(topics[0])
    target = len(topics[0])
    chunker = SemanticChunker(size, embed=embed, mode=mode, threshold=threshold, target=target, window=2)
    chunks = chunker.chunk(text)
    assert [c.text for c in chunks] == topics
    assert [c.level for c in chunks] == ["semantic", "semantic", "end"]
    assert [c.metadata["cut_mode"] for c in chunks] == [mode] * 3
    assert chunks[0].metadata["cut_score"] > 0.5 and chunks[2].metadata["cut_score"] is None


def test_a_topic_over_the_size_is_cut_inside_but_never_across_a_switch():
    text, topics = topic_text(per_topic=12)
    switches = {text.index(t) + len(t) for t in topics[:-1]}
    chunker = SemanticChunker(len(topics[0]) // 2, embed=embed, mode="percentile", threshold=85, window=2)
    chunks = chunker.chunk(text)
    check(text, chunks, len(topics[0]) // 2)
    ends = {c.end for c in chunks}
    assert switches <= ends
    for c in chunks:
        assert not any(c.start < s < c.end for s in switches), c


def is_cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"


@pytest.mark.parametrize("name", ["zh.txt", "ja.txt"])
def test_cjk_is_cut_at_sentence_ends(name):
    for text in [(DATA / name).read_text(encoding="utf-8"), corpus(name)[:40_000]]:
        for mode in ["percentile", "optimal", "minima"]:
            chunks = SemanticChunker(300, embed=embed, mode=mode).chunk(text)
            check(text, chunks, 300)
            cuts = [c for c in chunks if c.level == "semantic"]
            assert len(cuts) > len(chunks) // 2
            # A cut in CJK prose (the chunk ends in a CJK character or mark) is a sentence end: 。！？ (with its
            # closing quotes) or a line end. (Latin sentences in the corpus and sentences longer than the size are
            # cut at clauses or words, which the other tests check.)
            in_prose = [c for c in cuts if is_cjk(c.text.rstrip("".join(CLOSERS))[-1])]
            assert len(in_prose) > 10
            for c in in_prose:
                tail = c.text.rstrip("".join(CLOSERS))
                if tail[-1] in CJK_ENDS or text[c.end : c.end + 1] in ("\n", "\r"):
                    continue
                # Else the sentence (or line) around the cut is longer than the size: cut in pieces.
                ends = re.compile(r"[。！？!?\n]")
                before = max((m.end() for m in ends.finditer(text, 0, c.end)), default=0)
                after = ends.search(text, c.end)
                assert (after.start() if after else len(text)) - before > 300, (mode, c.text[-20:])


# -- bad input -----------------------------------------------------------------------------------------------------------


def _raises(texts):
    raise RuntimeError("model offline")


@pytest.mark.parametrize(
    "bad, message",
    [
        (_raises, "embed raised RuntimeError: model offline"),
        (lambda texts: embed(texts)[:-1], r"embed must return one row per text: .* got shape \(2, 256\)"),
        (lambda texts: embed(texts)[0], r"embed must return one row per text"),
        (lambda texts: embed(texts)[None], r"embed must return one row per text"),
        (lambda texts: np.zeros((len(texts), 0)), r"embed must return one row per text"),
        (lambda texts: [["a"] * 3 for _ in texts], "embed must return a 2-D array of floats, got an array of dtype"),
        (lambda texts: None, "embed must return a 2-D array of floats"),
        (lambda texts: [[1.0, 2.0], [3.0]], "embed must return a 2-D array of floats"),
        (lambda texts: np.full((len(texts), 4), np.nan), "embed returned NaN or infinity, in the row of 'One.'"),
        (lambda texts: np.full((len(texts), 4), np.inf), "embed returned NaN or infinity"),
    ],
)
def test_a_bad_embedder_raises_a_chunking_error_naming_it(bad, message):
    chunker = SemanticChunker(100, embed=bad, min_unit=0)
    with pytest.raises(ChunkingError, match=message):
        chunker.chunk("One. Two. Three.")
    with pytest.raises(ChunkingError, match="embed"):
        chunker.chunk_batch(["One. Two.", "Three."])


def test_an_embedder_that_changes_dimension_is_refused():
    calls = []

    def shifting(texts):
        calls.append(1)
        return np.ones((len(texts), 3 + len(calls)), dtype=np.float32)

    with pytest.raises(ChunkingError, match="embed returned rows of 5 values after rows of 4"):
        SemanticChunker(100, embed=shifting, batch_size=1, min_unit=0).chunk("One. Two.")


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="embed must be a callable"):
        SemanticChunker(100, embed="model")  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match="mode must be one of 'percentile'"):
        SemanticChunker(100, embed=embed, mode="kmeans")
    assert SemanticChunker(100, embed=embed).config["mode"] == "optimal"  # the mode that beats size-matched recursive
    with pytest.raises(ChunkingError, match="threshold of mode 'percentile' must be a percentile from 0 to 100"):
        SemanticChunker(100, embed=embed, mode="percentile", threshold=101)
    with pytest.raises(ChunkingError, match="threshold of mode 'optimal' must be >= 0"):
        SemanticChunker(100, embed=embed, mode="optimal", threshold=-1)
    with pytest.raises(TypeError, match="threshold must be a number or None"):
        SemanticChunker(100, embed=embed, threshold="high")  # type: ignore[arg-type]
    with pytest.raises(ChunkingError, match="window must be >= 1, got 0"):
        SemanticChunker(100, embed=embed, window=0)
    with pytest.raises(ChunkingError, match=r"target must be from 1 to size \(100\), got 101"):
        SemanticChunker(100, embed=embed, target=101)
    with pytest.raises(ChunkingError, match="batch_size must be an int >= 1"):
        SemanticChunker(100, embed=embed, batch_size=0)
    with pytest.raises(ChunkingError, match="overlap must be < size"):
        SemanticChunker(100, 100, embed=embed)
    with pytest.raises(ChunkingError, match="the key 'cut_score'"):
        SemanticChunker(100, embed=embed).chunk("One. Two.", {"cut_score": 1})


def test_config_repr_equality_and_pickling():
    chunker = SemanticChunker(120, 10, embed=embed, mode="optimal", threshold=0.5, target=90, cache=True)
    assert chunker.config["mode"] == "optimal" and chunker.config["embed"] is embed
    assert repr(chunker).startswith("SemanticChunker(size=120, overlap=10, embed=<function embed")
    again = pickle.loads(pickle.dumps(chunker))
    assert again == chunker and hash(again) == hash(chunker)
    text = (DATA / "en.txt").read_text(encoding="utf-8")[:4000]
    assert again.chunk(text) == chunker.chunk(text)
    with pytest.raises(pickle.PicklingError, match="pickles with its embed, and embed .* is a lambda"):
        pickle.dumps(SemanticChunker(100, embed=lambda texts: embed(texts)))


def test_streams_and_arrow_refuse_it_clearly():
    chunker = SemanticChunker(100, embed=embed)
    with pytest.raises(ChunkingError, match="semantic strategy's cuts depend on the whole text"):
        chunkwise._core.ChunkStream(chunker._splitter, {"doc_id": "a"}, False)
    with pytest.raises(ChunkingError, match="the semantic strategy cuts where its units' vectors say"):
        chunker._splitter.spans("One. Two.")
    pytest.importorskip("pyarrow")
    from chunkwise.arrow import chunk_arrow

    with pytest.raises(ChunkingError, match="does not take a SemanticChunker yet"):
        chunk_arrow(["One. Two."], chunker)


def test_overlap_stays_inside_a_topic():
    text, topics = topic_text(per_topic=10)
    switches = [text.index(t) + len(t) for t in topics[:-1]]
    size = len(topics[0]) // 2
    chunks = SemanticChunker(size, 40, embed=embed, mode="percentile", threshold=90, window=2).chunk(text)
    check_overlapping = [(a, b) for a, b in zip(chunks, chunks[1:]) if b.start < a.end]
    for c in chunks:
        assert c.text == text[c.start : c.end] and len(c.text) <= size
        assert not any(c.start < s < c.end for s in switches), c
    # Pieces of one topic overlap, by whole words, at most 40 characters.
    assert check_overlapping
    for a, b in check_overlapping:
        assert a.end - b.start <= 40 and text[b.start - 1] == " "
