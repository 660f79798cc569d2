"""Inside a paragraph, chunkwise cuts after a sentence end at least as often as semantic-text-splitter, its chunks at
most 2 points less full (issue 33): for Chinese, Japanese and English at 256 and 512 characters, on the corpus
slices of tests/data (the whole files with CHUNKWISE_CORPUS). One measure for both, from the chunks' offsets:
support.sentence_ends. The figures on the whole corpus: benches/sentence_ends.py, benches/README.md."""

from __future__ import annotations

import pytest

import chunkwise
from support.corpus import load
from support.sentence_ends import after_sentence, measure


def test_the_measure():
    text = "One. Two three\nfour. 「五。」\n\nSix, seven"
    # Cuts: after "One." (inside), after "three" (inside, at a line break), after "「五。」" (a paragraph ends).
    spans = [(0, 4), (5, 14), (15, 25), (27, 37)]
    m = measure(text, spans, 10)
    assert m["cuts"] == 2 and m["sentence_ends"] == 0.5
    assert m["fill"] == pytest.approx((4 + 9 + 10 + 10) / 4 / 10)
    assert after_sentence("他说：「你好。」") and after_sentence('He said "so."') and not after_sentence("a, b")
    # Every Sentence_Terminal of Unicode, the ellipses, and the closers the core keeps on the left of a cut.
    for end in ("यह है।", "هل؟", "ចប់។", "What‼", "等等……", "終わり。〗", "ｵﾜﾘ｡｣", "(Done.)"):
        assert after_sentence(end), end
    assert not after_sentence("3.5 kg") and not after_sentence("「") and not after_sentence("")


@pytest.mark.parametrize("size", [256, 512])
@pytest.mark.parametrize("name", ["zh.txt", "ja.txt", "en.txt"])
def test_sentence_ends_at_least_semantic_text_splitters(name, size):
    sts = pytest.importorskip(
        "semantic_text_splitter",
        reason="a peer of the benchmarks: pip install -r benches/requirements-bench.txt (as .ci/run does)",
    )
    text = load(name)
    ours = measure(text, [tuple(s) for s in chunkwise.RecursiveChunker(size).spans(text).tolist()], size)
    spans = []
    for offset, piece in sts.TextSplitter(size).chunk_indices(text):
        assert text[offset:offset + len(piece)] == piece  # str offsets
        spans.append((offset, offset + len(piece)))
    theirs = measure(text, spans, size)
    print(f"\n{name} {size}: chunkwise {ours}, semantic-text-splitter {theirs}")
    assert ours["cuts"] > 20
    assert ours["sentence_ends"] >= theirs["sentence_ends"], (ours, theirs)
    assert ours["fill"] >= theirs["fill"] - 0.02, (ours, theirs)
