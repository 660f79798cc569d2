"""Inputs the coverage-guided fuzzer (rust/fuzz) found, each once a cut inside a grapheme cluster (issue 12)."""

import pytest
import regex

from chunkwise import (
    ClauseChunker,
    FixedChunker,
    MarkdownChunker,
    ParagraphChunker,
    RecursiveChunker,
    SentenceChunker,
)

CHUNKERS = [RecursiveChunker, SentenceChunker, ParagraphChunker, MarkdownChunker, ClauseChunker, FixedChunker]


def cluster_starts(text):
    starts, pos = {0, len(text)}, 0
    for g in regex.findall(r"\X", text):
        pos += len(g)
        starts.add(pos)
    return starts


def assert_whole_clusters(text, chunks):
    edges = cluster_starts(text)
    for c in chunks:
        assert text[c.start : c.end] == c.text
        assert c.start in edges and c.end in edges, (text, c.start, c.end, c.text)


@pytest.mark.parametrize(
    "text",
    [
        " \u0301",  # whitespace that starts a cluster: trimming must not cut it off
        " \u309a x",
        "ab\u3000\u0365cd",
        "}\u302c",  # U+302A..U+302F, the ideographic tone marks, extend the character before them
        "中\u302a文\u302f",
        "\u0605#",  # a word boundary after a Prepend character
        "x \u0600123 y",
        "🇫🇷" * 6,  # regional indicators come in pairs
        "a🇯🇵🇫🇷b🇫🇷",
    ],
)
@pytest.mark.parametrize("cls", CHUNKERS)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 10])
def test_no_cut_inside_a_cluster(cls, size, text):
    assert_whole_clusters(text, cls(size=size).chunk(text))


@pytest.mark.parametrize("snap", [1, 2, 4])
def test_fixed_snap_never_halves_a_flag(snap):
    text = "🇫🇷" * 6
    for size in range(snap + 1, 14):
        assert_whole_clusters(text, FixedChunker(size, snap=snap).chunk(text))
